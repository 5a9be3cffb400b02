#!/usr/bin/env python3
"""GGUF dequantization references: blocks of every type tfx reads, and the floats llama.cpp's own
Python reference (gguf-py's gguf/quants.py) dequantizes them to.

Needs llama.cpp's gguf-py on PYTHONPATH (not committed here: check out llama.cpp's gguf-py into a
scratch folder outside the repository) and numpy. gguf-py's package __init__ imports
sentencepiece; where it is not installed, a stub module `sentencepiece.py` holding
`SentencePieceProcessor = None` on PYTHONPATH is enough for quants.py.

    PYTHONPATH=/path/to/llama.cpp/gguf-py:/path/to/stub python3 tests/reference/gen_gguf_reference.py

Writes tests/data/gguf/dequant_<type>.bin for F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K:
    uint32 n (values), uint32 block bytes b, then the blocks (n / block size · b bytes), then the
    n float32 values gguf-py's dequantize gives (little-endian).
And tests/data/gguf/quantize_<type>.bin for F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1 (tfx's
quantizers, src/core/kernels/quantize.cpp, against gguf-py's quantize):
    uint32 n (values), uint32 block bytes b, then the n float32 inputs, then the blocks gguf-py's
    quantize gives them (n / block size · b bytes).
The inputs: seeded normal rows at several scales, an all-zero block, a block whose largest
magnitude is negative, one outlier, values on the rounding midpoints (k + 0.5 steps), float16
subnormals and values past float16's range.

Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, BF16, F16: seeded random rows quantized by gguf-py's own quantize (with a row of zeros
and a row holding one large value). Q4_K, Q5_K, Q6_K: gguf-py has no quantizer for them, so their
blocks are seeded random bytes with finite float16 scales d, dmin (every bit of qs, qh, scales
exercised); the reference is gguf-py's dequantize all the same.
"""
import os
import struct

import numpy as np
from gguf import quants
from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType as T

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "gguf")


def rows_for(block, seed):
    rng = np.random.default_rng(seed)
    rows = rng.standard_normal((4, 2 * block)).astype(np.float32) * np.float32(0.05)
    rows[1] = 0.0                        # an all-zero row (d = 0)
    rows[2, 3] = np.float32(7.5)         # one outlier
    rows[3] *= np.float32(1e-3)          # small values (float16 subnormal scales)
    return rows


def random_k_blocks(qtype, n_blocks, seed):
    block, size = GGML_QUANT_SIZES[qtype]
    rng = np.random.default_rng(seed)
    raw = rng.integers(0, 256, size=(n_blocks, size), dtype=np.uint8)
    scales = (rng.standard_normal((n_blocks, 2)) * 0.01).astype(np.float16).view(np.uint8)
    if qtype == T.Q6_K:                  # d is the last 2 bytes
        raw[:, size - 2:] = scales[:, 0:2]
    else:                                # d, dmin are the first 4 bytes
        raw[:, 0:2] = scales[:, 0:2]
        raw[:, 2:4] = (rng.standard_normal((n_blocks, 1)) * 0.01).astype(np.float16).view(np.uint8)
    return raw


def write(name, qtype, blocks):
    block, size = GGML_QUANT_SIZES[qtype]
    blocks = np.ascontiguousarray(blocks, dtype=np.uint8).reshape(-1, size)
    values = quants.dequantize(blocks.reshape(-1), qtype) if qtype not in (T.F16, T.F32) else None
    if qtype == T.F16:
        values = blocks.reshape(-1).view(np.float16).astype(np.float32)
    values = np.asarray(values, dtype=np.float32).reshape(-1)
    n = values.size
    assert n == blocks.shape[0] * block
    with open(os.path.join(OUT, f"dequant_{name}.bin"), "wb") as f:
        f.write(struct.pack("<II", n, size))
        f.write(blocks.tobytes())
        f.write(values.astype("<f4").tobytes())
    print(f"dequant_{name}.bin: {n} values, {blocks.shape[0]} blocks of {size} bytes")


def quantize_inputs(seed):
    rng = np.random.default_rng(seed)
    rows = [rng.standard_normal(256) * s for s in (0.02, 1.0, 300.0)]
    rows.append(np.zeros(32))
    neg = rng.standard_normal(32) * 0.1
    neg[5] = -3.0                                  # largest magnitude negative
    rows.append(neg)
    out = rng.standard_normal(32) * 0.01
    out[17] = 40.0                                 # one outlier
    rows.append(out)
    rows.append((np.arange(32) - 16) * 0.5 / 7.5)  # midpoints of the steps
    rows.append(np.linspace(-1, 1, 32) * 1e-6)     # float16 subnormal scales
    rows.append(np.array([7e4, -7e4, 65504, 65519, 65520, 6e-8, 3e-8, 2.9e-8] * 4))
    return np.concatenate(rows).astype(np.float32)


def write_quantize(name, qtype, seed):
    block, size = GGML_QUANT_SIZES[qtype]
    x = quantize_inputs(seed)
    blocks = np.ascontiguousarray(quants.quantize(x.reshape(-1, 32), qtype)).view(np.uint8).reshape(-1)
    assert blocks.size == x.size // block * size
    with open(os.path.join(OUT, f"quantize_{name}.bin"), "wb") as f:
        f.write(struct.pack("<II", x.size, size))
        f.write(x.astype("<f4").tobytes())
        f.write(blocks.tobytes())
    print(f"quantize_{name}.bin: {x.size} values")


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, qtype, seed in [("f16", T.F16, 11), ("bf16", T.BF16, 12), ("q8_0", T.Q8_0, 13), ("q4_0", T.Q4_0, 14),
                              ("q4_1", T.Q4_1, 15), ("q5_0", T.Q5_0, 16), ("q5_1", T.Q5_1, 17)]:
        write_quantize(name, qtype, seed)
    for name, qtype, seed in [("q8_0", T.Q8_0, 1), ("q4_0", T.Q4_0, 2), ("bf16", T.BF16, 3), ("q4_1", T.Q4_1, 8),
                              ("q5_0", T.Q5_0, 9), ("q5_1", T.Q5_1, 10)]:
        block, _ = GGML_QUANT_SIZES[qtype]
        rows = rows_for(max(block, 32), seed)
        write(name, qtype, quants.quantize(rows, qtype))
    rng = np.random.default_rng(4)
    f16 = rng.integers(0, 1 << 16, size=512, dtype=np.uint16)
    f16 = f16[(f16 & 0x7C00) != 0x7C00]  # no Inf/NaN (NaN payloads are compared elsewhere)
    write("f16", T.F16, f16.view(np.uint8))
    for name, qtype, seed in [("q4_k", T.Q4_K, 5), ("q5_k", T.Q5_K, 6), ("q6_k", T.Q6_K, 7)]:
        write(name, qtype, random_k_blocks(qtype, 6, seed))


if __name__ == "__main__":
    main()
