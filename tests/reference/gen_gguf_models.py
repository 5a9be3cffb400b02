#!/usr/bin/env python3
"""Tiny GGUF checkpoints for tests/model/gguf_model_test.cpp, written by llama.cpp's own writer
(gguf-py's GGUFWriter; gguf-py on PYTHONPATH as gen_gguf_reference.py says) the way
convert_hf_to_gguf.py writes them, from the SAME weights as the tiny folders tests/data/hf_models/:

  tests/data/gguf/llama.gguf, qwen2.gguf, gpt2.gguf     F32, from hf_models/{llama,qwen2,gpt2}
  tests/data/gguf/llama_llama3.gguf                     F32 from hf_models/llama_llama3: Llama 3's RoPE
      scaling only as the converter's rope_freqs.weight table
      (gpt2.gguf also carries the folder's tokenizer as tokenizer.ggml.*)
      (llama: the Q and K rows permuted as LlamaModel.permute does; gpt2: the Conv1D weights
      transposed to (out, in), output.weight a copy of token_embd, as GPT2Model does)
  tests/data/gguf/llama_q8_0.gguf                       llama with every weight whose rows are whole
      32-blocks quantized to Q8_0 by gguf-py's quantizer (ffn_down's rows of 48 stay F32, as
      llama.cpp falls back for them)
  tests/data/gguf/llama_q8_0_dequant/                   a Hugging Face folder holding gguf-py's
      dequantization of llama_q8_0.gguf's weights, in Hugging Face's layout (the permutation undone)
  tests/data/gguf/llama_kquant.gguf                     a 1-layer llama of width 256 (K-quants need
      rows of 256) in a Q4_K_M-like mix: Q4_K attention and embedding, Q5_K gate/up, Q6_K down and
      output; gguf-py has no K-quant quantizer, so the blocks are seeded random bytes with finite
      float16 scales (the test compares the forward pass with the one on the dequantized weights)
  tests/data/gguf/gemma.gguf, gemma2.gguf, gemma3.gguf  F32, from hf_models/{gemma,gemma2,gemma3} as
      convert_hf_to_gguf.py's GemmaModel, Gemma2Model and Gemma3Model write them: 1 added to every
      norm weight, no output.weight (the head is token_embd), head_dim as key_length/value_length,
      gemma2's caps and window, gemma3's window and linear RoPE scaling as metadata (llama.cpp keeps no
      query_pre_attn_scalar: it takes 1/sqrt(head_dim), which gemma3's folder has and gemma2's, 24,
      does not)
"""
import json
import os
import shutil
import struct

import numpy as np
import gguf
from gguf import quants
from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType as T

HERE = os.path.dirname(os.path.abspath(__file__))
HF = os.path.join(HERE, "..", "data", "hf_models")
OUT = os.path.join(HERE, "..", "data", "gguf")


def read_safetensors(path):
    b = open(path, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    header = json.loads(b[8:8 + n])
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        assert e["dtype"] == "F32"
        lo, hi = e["data_offsets"]
        out[name] = np.frombuffer(b[8 + n + lo:8 + n + hi], dtype="<f4").reshape(e["shape"]).copy()
    return out


def write_safetensors(path, tensors):
    header, offset, blobs = {}, 0, []
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name], dtype="<f4")
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [offset, offset + a.nbytes]}
        offset += a.nbytes
        blobs.append(a.tobytes())
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def permute(w, n_head):  # convert_hf_to_gguf.py's LlamaModel.permute
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def unpermute(w, n_head):
    return w.reshape(n_head, w.shape[0] // n_head // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


LLAMA_NAMES = {"input_layernorm.weight": "attn_norm.weight", "self_attn.q_proj.weight": "attn_q.weight",
               "self_attn.k_proj.weight": "attn_k.weight", "self_attn.v_proj.weight": "attn_v.weight",
               "self_attn.q_proj.bias": "attn_q.bias", "self_attn.k_proj.bias": "attn_k.bias",
               "self_attn.v_proj.bias": "attn_v.bias", "self_attn.o_proj.weight": "attn_output.weight",
               "post_attention_layernorm.weight": "ffn_norm.weight", "mlp.gate_proj.weight": "ffn_gate.weight",
               "mlp.up_proj.weight": "ffn_up.weight", "mlp.down_proj.weight": "ffn_down.weight"}
GPT2_NAMES = {"ln_1.weight": "attn_norm.weight", "ln_1.bias": "attn_norm.bias", "attn.c_attn.weight": "attn_qkv.weight",
              "attn.c_attn.bias": "attn_qkv.bias", "attn.c_proj.weight": "attn_output.weight",
              "attn.c_proj.bias": "attn_output.bias", "ln_2.weight": "ffn_norm.weight", "ln_2.bias": "ffn_norm.bias",
              "mlp.c_fc.weight": "ffn_up.weight", "mlp.c_fc.bias": "ffn_up.bias", "mlp.c_proj.weight": "ffn_down.weight",
              "mlp.c_proj.bias": "ffn_down.bias"}


def llama_tensors(folder, arch):
    """(gguf name, array in gguf layout, hf name) for a llama/qwen2 folder."""
    cfg = json.load(open(os.path.join(HF, folder, "config.json")))
    w = read_safetensors(os.path.join(HF, folder, "model.safetensors"))
    out = []
    for name, a in w.items():
        n = name[len("model."):] if name.startswith("model.") else name
        if n == "embed_tokens.weight":
            g = "token_embd.weight"
        elif n == "norm.weight":
            g = "output_norm.weight"
        elif n == "lm_head.weight":
            g = "output.weight"
        else:
            parts = n.split(".")
            g = f"blk.{parts[1]}." + LLAMA_NAMES[".".join(parts[2:])]
        if arch == "llama" and ("attn_q." in g or "attn_k." in g):
            heads = cfg["num_attention_heads"] if "attn_q." in g else cfg["num_key_value_heads"]
            a = permute(a, heads)
        out.append((g, a, n))
    return cfg, out


def llama_metadata(wr, arch, cfg):
    wr.add_context_length(cfg["max_position_embeddings"])
    wr.add_embedding_length(cfg["hidden_size"])
    wr.add_block_count(cfg["num_hidden_layers"])
    wr.add_feed_forward_length(cfg["intermediate_size"])
    wr.add_head_count(cfg["num_attention_heads"])
    wr.add_head_count_kv(cfg["num_key_value_heads"])
    wr.add_rope_freq_base(cfg["rope_theta"])
    wr.add_layer_norm_rms_eps(cfg["rms_norm_eps"])


def llama3_rope_factors(cfg):
    """convert_hf_to_gguf.py's LlamaModel rope_freqs (float32 as torch computes it), from the
    folder's rope_scaling (its original_max_position_embeddings: the converter reads a top-level
    key that Llama 3.1 also has, 8192)."""
    import math
    rs = cfg["rope_scaling"]
    dim = cfg.get("head_dim", cfg["hidden_size"] // cfg["num_attention_heads"])
    freqs = (np.float32(1.0) / (np.float32(cfg["rope_theta"]) ** (np.arange(0, dim, 2, dtype=np.float32) / np.float32(dim)))).astype(np.float32)
    factor, low, high, old = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"], rs["original_max_position_embeddings"]
    out = []
    for freq in freqs:
        wavelen = np.float32(2 * math.pi) / freq
        if wavelen < old / high:
            out.append(1)
        elif wavelen > old / low:
            out.append(factor)
        else:
            smooth = (old / wavelen - low) / (high - low)
            out.append(1 / ((1 - smooth) / factor + smooth))
    return np.array(out, dtype=np.float32)


def write_llama(folder, arch, path, qtype=None, dequant_folder=None):
    cfg, tensors = llama_tensors(folder, arch)
    wr = gguf.GGUFWriter(path, arch)
    llama_metadata(wr, arch, cfg)
    if cfg.get("rope_scaling", {}).get("rope_type") == "llama3":
        wr.add_tensor("rope_freqs.weight", llama3_rope_factors(cfg))
    deq = {}
    for g, a, hf in sorted(tensors):
        a = a.astype(np.float32)
        if qtype is not None and a.ndim == 2 and a.shape[1] % GGML_QUANT_SIZES[qtype][0] == 0:
            q = quants.quantize(a, qtype)
            wr.add_tensor(g, q, raw_shape=q.shape, raw_dtype=qtype)
            back = quants.dequantize(q, qtype).reshape(a.shape)
        else:
            wr.add_tensor(g, a)
            back = a
        if arch == "llama" and ("attn_q." in g or "attn_k." in g):
            back = unpermute(back, cfg["num_attention_heads"] if "attn_q." in g else cfg["num_key_value_heads"])
        deq["model." + hf if hf != "lm_head.weight" else hf] = back
    finish(wr)
    if dequant_folder:
        os.makedirs(dequant_folder, exist_ok=True)
        shutil.copy(os.path.join(HF, folder, "config.json"), os.path.join(dequant_folder, "config.json"))
        write_safetensors(os.path.join(dequant_folder, "model.safetensors"), deq)
    print(path)


GEMMA_NAMES = {"input_layernorm.weight": "attn_norm.weight", "self_attn.q_proj.weight": "attn_q.weight",
               "self_attn.k_proj.weight": "attn_k.weight", "self_attn.v_proj.weight": "attn_v.weight",
               "self_attn.o_proj.weight": "attn_output.weight", "self_attn.q_norm.weight": "attn_q_norm.weight",
               "self_attn.k_norm.weight": "attn_k_norm.weight", "mlp.gate_proj.weight": "ffn_gate.weight",
               "mlp.up_proj.weight": "ffn_up.weight", "mlp.down_proj.weight": "ffn_down.weight"}


def write_gemma(folder, arch, path):
    cfg = json.load(open(os.path.join(HF, folder, "config.json")))
    w = read_safetensors(os.path.join(HF, folder, "model.safetensors"))
    wr = gguf.GGUFWriter(path, arch)
    llama_metadata(wr, arch, cfg)  # (rope.freq_base too: the folders' rope_theta)
    wr.add_key_length(cfg["head_dim"])
    wr.add_value_length(cfg["head_dim"])
    if arch == "gemma2":
        wr.add_float32("gemma2.attn_logit_softcapping", cfg["attn_logit_softcapping"])
        wr.add_float32("gemma2.final_logit_softcapping", cfg["final_logit_softcapping"])
        wr.add_uint32("gemma2.attention.sliding_window", cfg["sliding_window"])
    if arch == "gemma3":
        wr.add_uint32("gemma3.attention.sliding_window", cfg["sliding_window"])
        wr.add_uint32("gemma3.attention.sliding_window_pattern", cfg["sliding_window_pattern"])
        wr.add_string("gemma3.rope.scaling.type", cfg["rope_scaling"]["rope_type"])
        wr.add_float32("gemma3.rope.scaling.factor", cfg["rope_scaling"]["factor"])
    post = {"gemma": {"post_attention_layernorm.weight": "ffn_norm.weight"},
            "gemma2": {"post_attention_layernorm.weight": "post_attention_norm.weight",
                       "pre_feedforward_layernorm.weight": "ffn_norm.weight",
                       "post_feedforward_layernorm.weight": "post_ffw_norm.weight"}}
    names = dict(GEMMA_NAMES, **post["gemma" if arch == "gemma" else "gemma2"])
    for name in sorted(w):
        a = w[name]
        n = name[len("model."):]
        if n.endswith("norm.weight"):  # the converter's data_torch + 1
            a = (a + np.float32(1)).astype(np.float32)
        if n == "embed_tokens.weight":
            g = "token_embd.weight"
        elif n == "norm.weight":
            g = "output_norm.weight"
        else:
            parts = n.split(".")
            g = f"blk.{parts[1]}." + names[".".join(parts[2:])]
        wr.add_tensor(g, a)
    finish(wr)
    print(path)


def write_gpt2(path):
    cfg = json.load(open(os.path.join(HF, "gpt2", "config.json")))
    w = read_safetensors(os.path.join(HF, "gpt2", "model.safetensors"))
    wr = gguf.GGUFWriter(path, "gpt2")
    wr.add_block_count(cfg["n_layer"])
    wr.add_context_length(cfg["n_positions"])
    wr.add_embedding_length(cfg["n_embd"])
    wr.add_feed_forward_length(4 * cfg["n_embd"])
    wr.add_head_count(cfg["n_head"])
    wr.add_layer_norm_eps(cfg["layer_norm_epsilon"])
    # the folder's tokenizer (vocab.json + merges.txt) as convert_hf_to_gguf.py writes a GPT-2 one
    vocab = json.load(open(os.path.join(HF, "gpt2", "vocab.json"), encoding="utf-8"))
    tokens = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    merges = [l.rstrip("\n") for l in open(os.path.join(HF, "gpt2", "merges.txt"), encoding="utf-8") if not l.startswith("#version")]
    wr.add_tokenizer_model("gpt2")
    wr.add_tokenizer_pre("gpt-2")
    wr.add_token_list(tokens)
    wr.add_token_types([1] * len(tokens))
    wr.add_token_merges([m for m in merges if m])
    for name in sorted(w):
        a = w[name]
        n = name[len("transformer."):]
        if n.endswith((".attn.bias", ".attn.masked_bias")):
            continue
        if n.endswith((".c_attn.weight", ".c_proj.weight", ".c_fc.weight")):
            a = a.T.copy()
        if n == "wte.weight":
            wr.add_tensor("token_embd.weight", a)
            wr.add_tensor("output.weight", a)
            continue
        g = {"wpe.weight": "position_embd.weight", "ln_f.weight": "output_norm.weight", "ln_f.bias": "output_norm.bias"}.get(n)
        if g is None:
            parts = n.split(".")
            g = f"blk.{parts[1]}." + GPT2_NAMES[".".join(parts[2:])]
        wr.add_tensor(g, a)
    finish(wr)
    print(path)


def random_blocks(qtype, rows, cols, rng):
    block, size = GGML_QUANT_SIZES[qtype]
    raw = rng.integers(0, 256, size=(rows * cols // block, size), dtype=np.uint8)
    d = (rng.standard_normal((raw.shape[0], 2)) * 0.004).astype(np.float16).view(np.uint8)
    if qtype == T.Q6_K:
        raw[:, size - 2:] = d[:, 0:2]
    else:
        raw[:, 0:4] = d
    return raw.reshape(rows, cols // block * size)


def write_kquant(path):
    D, F, V, H, KV, ctx = 256, 256, 64, 2, 1, 64
    hd = D // H
    rng = np.random.default_rng(2026)
    wr = gguf.GGUFWriter(path, "llama")
    llama_metadata(wr, "llama", {"max_position_embeddings": ctx, "hidden_size": D, "num_hidden_layers": 1,
                                 "intermediate_size": F, "num_attention_heads": H, "num_key_value_heads": KV,
                                 "rope_theta": 10000.0, "rms_norm_eps": 1e-5})
    def q(name, qtype, rows, cols):
        b = random_blocks(qtype, rows, cols, rng)
        wr.add_tensor(name, b, raw_shape=b.shape, raw_dtype=qtype)
    q("token_embd.weight", T.Q4_K, V, D)
    wr.add_tensor("blk.0.attn_norm.weight", (1 + 0.1 * rng.standard_normal(D)).astype(np.float32))
    q("blk.0.attn_q.weight", T.Q4_K, H * hd, D)
    q("blk.0.attn_k.weight", T.Q4_K, KV * hd, D)
    q("blk.0.attn_v.weight", T.Q4_K, KV * hd, D)
    q("blk.0.attn_output.weight", T.Q4_K, D, H * hd)
    wr.add_tensor("blk.0.ffn_norm.weight", (1 + 0.1 * rng.standard_normal(D)).astype(np.float32))
    q("blk.0.ffn_gate.weight", T.Q5_K, F, D)
    q("blk.0.ffn_up.weight", T.Q5_K, F, D)
    q("blk.0.ffn_down.weight", T.Q6_K, D, F)
    wr.add_tensor("output_norm.weight", (1 + 0.1 * rng.standard_normal(D)).astype(np.float32))
    q("output.weight", T.Q6_K, V, D)
    finish(wr)
    print(path)


def write_fuzz_seeds():
    """tests/fuzz/corpus/gguf/: small files gguf-py writes (every metadata value type, nested
    arrays, one tensor of each type tfx reads, a v2 header), seeds for fuzz_gguf."""
    d = os.path.join(HERE, "..", "fuzz", "corpus", "gguf")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "all_types")
    wr = gguf.GGUFWriter(path, "llama")
    wr.add_uint8("a.u8", 7)
    wr.add_int8("a.i8", -7)
    wr.add_uint16("a.u16", 700)
    wr.add_int16("a.i16", -700)
    wr.add_uint32("a.u32", 70000)
    wr.add_int32("a.i32", -70000)
    wr.add_float32("a.f32", 0.5)
    wr.add_bool("a.bool", True)
    wr.add_string("a.str", "토큰")
    wr.add_uint64("a.u64", 1 << 40)
    wr.add_int64("a.i64", -(1 << 40))
    wr.add_float64("a.f64", 0.25)
    wr.add_array("a.arr", ["a", "b"])
    wr.add_array("a.nums", [1, 2, 3])
    wr.add_array("a.nested", [[1, 2], [3]])
    rng = np.random.default_rng(1)
    wr.add_tensor("f32", rng.standard_normal((2, 32)).astype(np.float32))
    wr.add_tensor("f16", rng.standard_normal((1, 32)).astype(np.float16))
    for qt in (T.Q8_0, T.Q4_0):
        b = quants.quantize(rng.standard_normal((1, 32)).astype(np.float32), qt)
        wr.add_tensor(qt.name.lower(), b, raw_shape=b.shape, raw_dtype=qt)
    for qt in (T.Q4_K, T.Q5_K, T.Q6_K):
        b = random_blocks(qt, 1, 256, rng)
        wr.add_tensor(qt.name.lower(), b, raw_shape=b.shape, raw_dtype=qt)
    finish(wr)
    raw = open(path, "rb").read()
    open(os.path.join(d, "version2"), "wb").write(raw[:4] + struct.pack("<I", 2) + raw[8:])
    wr = gguf.GGUFWriter(os.path.join(d, "aligned64"), "gpt2")
    wr.add_uint32("general.alignment", 64)
    wr.add_tensor("x", np.arange(32, dtype=np.float32))
    wr.add_tensor("y", np.arange(8, dtype=np.float32))
    finish(wr)


def finish(wr):
    wr.write_header_to_file()
    wr.write_kv_data_to_file()
    wr.write_tensors_to_file()
    wr.close()


def main():
    os.makedirs(OUT, exist_ok=True)
    write_llama("llama", "llama", os.path.join(OUT, "llama.gguf"))
    write_llama("qwen2", "qwen2", os.path.join(OUT, "qwen2.gguf"))
    write_llama("llama_llama3", "llama", os.path.join(OUT, "llama_llama3.gguf"))
    write_gpt2(os.path.join(OUT, "gpt2.gguf"))
    write_llama("llama", "llama", os.path.join(OUT, "llama_q8_0.gguf"), T.Q8_0, os.path.join(OUT, "llama_q8_0_dequant"))
    write_kquant(os.path.join(OUT, "llama_kquant.gguf"))
    for folder, arch in (("gemma", "gemma"), ("gemma2", "gemma2"), ("gemma3", "gemma3")):
        write_gemma(folder, arch, os.path.join(OUT, arch + ".gguf"))
    write_fuzz_seeds()


if __name__ == "__main__":
    main()
