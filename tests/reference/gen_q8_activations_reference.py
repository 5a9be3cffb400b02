#!/usr/bin/env python3
"""--activations q8's activation quantizers (src/core/kernels/q8/q8_activations.cpp) against llama.cpp's
references, for tests/core/q8_activations_test.cpp, which carries the printed constants.

    Q8_0 (blocks of 32): gguf-py's quants.Q8_0.quantize_blocks (llama.cpp's quantize_row_q8_0_ref
         "with bit-exact same results"), transcribed below: d = max|x| / 127, id = 1/d (0 when
         d = 0), q = np_roundf(x·id) (half away from zero), d stored as float16.
    Q8_K (blocks of 256): ggml-quants.c's quantize_row_q8_K_ref (gguf-py has no Q8_K): max = the
         value of largest magnitude (the first such), iscale = -127/max, q = min(127,
         nearest_int(iscale·x)) (ties to even), d = 1/iscale, bsums = sums of 16 q.
    All arithmetic in float32, as the C code.

The input, k = 512 float32 values (16 Q8_0 blocks, 2 Q8_K blocks):
    x[j] = float32(((j·37 mod 101) − 50) / 7 · (1 + (j div 32) / 3)), then x[40:72] = 0 (an
    all-zero Q8_0 block and a zero run), x[300] = −50.5 (a negative largest value), x[5] = 63.5
    (block 0: d = 0.5), x[6] = 1.25, x[7] = −2.75 (x·id = 2.5 and −5.5: ties, away from zero)

With gguf-py on PYTHONPATH (llama.cpp's gguf-py) the Q8_0 blocks are also checked against it.

    /usr/bin/python3 tests/reference/gen_q8_activations_reference.py
"""
import numpy as np

K = 512
j = np.arange(K, dtype=np.float64)
x = ((((j * 37) % 101) - 50) / 7.0 * (1.0 + np.floor(j / 32) / 3.0)).astype(np.float32)
x[40:72] = 0
x[300] = np.float32(-50.5)
x[5] = np.float32(63.5)  # block 0: max|x| = 63.5, so d = 0.5, id = 2
x[6], x[7] = np.float32(1.25), np.float32(-2.75)  # x·id = 2.5, −5.5: ties, rounded away from zero


def np_roundf(n):
    a = abs(n)
    floored = np.floor(a)
    b = floored + np.floor(2 * (a - floored))
    return np.sign(n) * b


def q8_0(x):
    blocks = x.reshape(-1, 32)
    d = abs(blocks).max(axis=1, keepdims=True) / np.float32(127)
    with np.errstate(divide="ignore"):
        id = np.where(d == 0, np.float32(0), np.float32(1) / d).astype(np.float32)
    qs = np_roundf(blocks * id).astype(np.int8)
    return d.astype(np.float16).astype(np.float32).ravel(), qs.ravel()


def q8_k(x):
    ds, qs, bsums = [], [], []
    for b in x.reshape(-1, 256):
        amax, mx = np.float32(0), np.float32(0)
        for v in b:
            if abs(v) > amax:
                amax, mx = abs(v), v
        if amax == 0:
            ds.append(np.float32(0)); qs.append(np.zeros(256, np.int8)); bsums.append(np.zeros(16, np.int16))
            continue
        iscale = np.float32(-127) / mx
        q = np.minimum(127, np.rint(iscale * b)).astype(np.int8)  # rint: ties to even, as nearest_int
        ds.append(np.float32(1) / iscale); qs.append(q); bsums.append(q.reshape(16, 16).astype(np.int32).sum(axis=1).astype(np.int16))
    return np.array(ds, np.float32), np.concatenate(qs), np.concatenate(bsums)


d0, q0 = q8_0(x)
dk, qk, bk = q8_k(x)
try:
    from gguf import quants
    from gguf.constants import GGMLQuantizationType
    ref = quants.quantize(x.reshape(1, -1), GGMLQuantizationType.Q8_0).reshape(-1, 34)
    assert (ref[:, 2:].view(np.int8).ravel() == q0).all()
    assert (ref[:, :2].copy().view(np.float16).astype(np.float32).ravel() == d0).all()
    print("// checked against gguf-py's Q8_0")
except ImportError:
    print("// (gguf-py not on PYTHONPATH: Q8_0 not cross-checked)")
ties = int(((x[:32] * (np.float32(1) / (abs(x[:32]).max() / np.float32(127)))) % 1 == 0.5).sum())
print(f"// Q8_0 block 0 values exactly halfway: {ties}")


def f(v):
    return np.format_float_positional(np.float32(v), unique=True, trim="-") + "f" if v != 0 else "0.0f"


print("const float kQ8_0_d[] = {" + ", ".join(f(v) for v in d0) + "};")
print("const int kQ8_0_q[] = {" + ", ".join(str(int(v)) for v in q0) + "};")
print("const float kQ8_K_d[] = {" + ", ".join(f(v) for v in dk) + "};")
print("const int kQ8_K_q[] = {" + ", ".join(str(int(v)) for v in qk) + "};")
print("const int kQ8_K_bsums[] = {" + ", ".join(str(int(v)) for v in bk) + "};")
