#!/usr/bin/env python3
"""llama-quantize's Q4_K_M and Q5_K_M mixes: the type llama.cpp gives each tensor, for
tests/model/quantize_model_test.cpp (tfx's quantize_plan must give the same).

llama.cpp's llama-quantize (src/llama-quant.cpp, llama_tensor_get_type) picks a type per tensor by
its name, its layer and whether its rows are whole 256-blocks. This script writes two llama GGUF
files of F32 weights with gguf-py's GGUFWriter (shapes only matter: the weights are seeded random),
runs llama-quantize on each for both mixes, reads the results back with gguf-py's GGUFReader and
prints tests/reference/quant_mix_reference.inc: for each (model, mix) the tensor names in file order
with their ggml type names.

  A  width 256, 8 layers, ffn 288, kv heads 1 of 2 (attn_k/v rows 256), untied output:
     the use_more_bits layers, ffn_down's rows of 288 falling back, output in Q6_K
  B  width 320, 4 layers, ffn 512, tied embeddings (no output.weight): rows of 320 are not whole
     256-blocks, so Q4_K/Q5_K fall back to Q5_0/Q5_1, Q6_K to Q8_0, and the tied token embedding
     takes the output head's rule (Q8_0)

Needs llama.cpp built (llama-quantize) and its gguf-py (a stub sentencepiece module is enough):

    PYTHONPATH=LLAMA_CPP/gguf-py:STUB python3 tests/reference/gen_quant_mix_reference.py \\
        LLAMA_CPP_BUILD/bin/llama-quantize > tests/reference/quant_mix_reference.inc
(measured with llama.cpp c392e5094, February 2025)
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import gguf

MODELS = {
    "A": dict(width=256, layers=8, ffn=288, heads=2, kv_heads=1, vocab=300, tied=False),
    "B": dict(width=320, layers=4, ffn=512, heads=2, kv_heads=2, vocab=300, tied=True),
}


def write_model(path, m):
    rng = np.random.default_rng(7)
    w = gguf.GGUFWriter(path, "llama")
    d, hd = m["width"], m["width"] // m["heads"]
    w.add_block_count(m["layers"])
    w.add_context_length(64)
    w.add_embedding_length(d)
    w.add_feed_forward_length(m["ffn"])
    w.add_head_count(m["heads"])
    w.add_head_count_kv(m["kv_heads"])
    w.add_layer_norm_rms_eps(1e-6)
    w.add_rope_freq_base(10000.0)
    w.add_vocab_size(m["vocab"])

    def t(name, *shape):  # numpy shape (rows, row length): ggml's ne reversed
        w.add_tensor(name, (rng.standard_normal(shape) * 0.02).astype(np.float32))

    t("token_embd.weight", m["vocab"], d)
    for i in range(m["layers"]):
        w.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(d, np.float32))
        t(f"blk.{i}.attn_q.weight", d, d)
        t(f"blk.{i}.attn_k.weight", m["kv_heads"] * hd, d)
        t(f"blk.{i}.attn_v.weight", m["kv_heads"] * hd, d)
        t(f"blk.{i}.attn_output.weight", d, d)
        w.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(d, np.float32))
        t(f"blk.{i}.ffn_gate.weight", m["ffn"], d)
        t(f"blk.{i}.ffn_up.weight", m["ffn"], d)
        t(f"blk.{i}.ffn_down.weight", d, m["ffn"])
    w.add_tensor("output_norm.weight", np.ones(d, np.float32))
    if not m["tied"]:
        t("output.weight", m["vocab"], d)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def main():
    quantize = sys.argv[1]
    out = ["// made by tests/reference/gen_quant_mix_reference.py with llama.cpp's llama-quantize (c392e5094):",
           "// for each model and mix, every tensor in file order and the ggml type llama-quantize gave it",
           "struct QuantMixRow { const char* name; const char* type; };"]
    with tempfile.TemporaryDirectory() as tmp:
        for key, m in MODELS.items():
            src = os.path.join(tmp, f"{key}.gguf")
            write_model(src, m)
            for mix in ("Q4_K_M", "Q5_K_M"):
                dst = os.path.join(tmp, f"{key}-{mix}.gguf")
                subprocess.run([quantize, src, dst, mix, "1"], check=True, capture_output=True)
                r = gguf.GGUFReader(dst)
                out.append(f"// model {key}: {m}")
                out.append(f"constexpr QuantMixRow kMix{key}_{mix}[] = {{")
                for tensor in r.tensors:
                    out.append(f'    {{"{tensor.name}", "{tensor.tensor_type.name}"}},')
                out.append("};")
    print("\n".join(out))


if __name__ == "__main__":
    main()
