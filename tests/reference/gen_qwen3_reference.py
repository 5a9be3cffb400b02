#!/usr/bin/python3
"""A tiny Qwen3 checkpoint (Hugging Face's Qwen3ForCausalLM layout) and what an independent numpy
forward, written line by line after transformers' models/qwen3/modeling_qwen3.py (eval mode, eager
attention), computes for it: tests/data/hf_models/qwen3/

    config.json             model_type qwen3, head_dim 16 != hidden_size / heads = 8, 4 heads over
                            2 key/value heads (GQA), tied embeddings, no attention biases
    model.safetensors       random float32 weights (numpy, seeded), model.* names, q_norm/k_norm
    tokenizer.json          a tiny byte-level BPE in Qwen's layout (NFC, Split + ByteLevel, the
                            GPT-2 byte alphabet, a few merges, <|endoftext|> <|im_start|> <|im_end|>)
    reference.safetensors   input_ids, hidden_states (L+1, T, D; the last after the final norm),
                            attentions (L, H, T, T), logits (T, V)
    generation.safetensors  greedy generation: prompt, tokens, logits (each step the forward re-run
                            on the whole prefix, no cache)

Qwen3's block is Llama's with one change: q and k are RMS-normalized per head over head_dim (q_norm,
k_norm, eps = rms_norm_eps) before RoPE. Computed in float64 from the float32 weights (RoPE's angles
in float32 as HF does). Deterministic; rerun when the model changes:

    /usr/bin/python3 tests/reference/gen_qwen3_reference.py
"""
import json
import os
import shutil
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "data", "hf_models", "qwen3")

CONFIG = {
    "model_type": "qwen3", "architectures": ["Qwen3ForCausalLM"], "hidden_size": 32, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 48, "vocab_size": 280,
    "max_position_embeddings": 32, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "hidden_act": "silu",
    "tie_word_embeddings": True, "attention_bias": False, "use_sliding_window": False, "sliding_window": None,
    "bos_token_id": 272, "eos_token_id": 272, "torch_dtype": "float32",
}
PROMPT_TEXT = "the cat sat on the mat"
NEW_TOKENS = 12


# ---------------------------------------------------------------- files
def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        raw = np.ascontiguousarray(tensors[name], dtype=np.float32).tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    header["__metadata__"] = {"format": "pt"}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def byte_alphabet():
    """GPT-2's bytes_to_unicode: printable bytes map to themselves, the rest to 256 + n."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


MERGES = [("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("t", "he"), ("Ġ", "c"), ("a", "t"), ("Ġc", "at"), ("Ġ", "s"), ("Ġs", "at"),
          ("o", "n"), ("Ġ", "on"), ("Ġ", "m"), ("Ġm", "at"), ("Ġ", "d"), ("o", "g"), ("Ġd", "og")]
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]


def tokenizer():
    byte_char = byte_alphabet()
    vocab = {byte_char[b]: b for b in range(256)}
    for a, b in MERGES:
        vocab[a + b] = len(vocab)
    added = []
    for s in SPECIAL:
        added.append({"id": len(vocab), "content": s, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
                      "special": True})
        vocab[s] = len(vocab)
    level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
    regex = ("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
             "\\s+(?!\\S)|\\s+")
    return byte_char, vocab, {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": {"type": "NFC"},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": regex}, "behavior": "Isolated", "invert": False}, level]},
        "post_processor": level, "decoder": level,
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "", "end_of_word_suffix": "",
                  "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": {k: v for k, v in vocab.items() if k not in SPECIAL}, "merges": [[a, b] for a, b in MERGES]}}


def encode(text, byte_char, vocab):
    """The prompt's ids by BPE over its words (ASCII letters and single spaces only: the pre-tokenizer
    gives " word" pieces), merges by rank."""
    ids = []
    for i, word in enumerate(text.split(" ")):
        sym = [byte_char[b] for b in ((" " if i else "") + word).encode()]
        while True:
            ranks = [(MERGES.index((a, b)), j) for j, (a, b) in enumerate(zip(sym, sym[1:])) if (a, b) in MERGES]
            if not ranks:
                break
            _, j = min(ranks)
            sym[j:j + 2] = [sym[j] + sym[j + 1]]
        ids += [vocab[s] for s in sym]
    return ids


# ---------------------------------------------------------------- weights
def weights(c, rng):
    D, F, V, H, KV, hd = c["hidden_size"], c["intermediate_size"], c["vocab_size"], c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
    r = lambda *shape, std=0.2: (rng.standard_normal(shape) * std).astype(np.float32)
    w = {"model.embed_tokens.weight": r(V, D, std=0.5)}
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        w[p + "input_layernorm.weight"] = 1 + r(D, std=0.1)
        w[p + "self_attn.q_proj.weight"] = r(H * hd, D)
        w[p + "self_attn.k_proj.weight"] = r(KV * hd, D)
        w[p + "self_attn.v_proj.weight"] = r(KV * hd, D)
        w[p + "self_attn.q_norm.weight"] = 1 + r(hd, std=0.3)
        w[p + "self_attn.k_norm.weight"] = 1 + r(hd, std=0.3)
        w[p + "self_attn.o_proj.weight"] = r(D, H * hd)
        w[p + "post_attention_layernorm.weight"] = 1 + r(D, std=0.1)
        w[p + "mlp.gate_proj.weight"] = r(F, D)
        w[p + "mlp.up_proj.weight"] = r(F, D)
        w[p + "mlp.down_proj.weight"] = r(D, F)
    w["model.norm.weight"] = 1 + r(D, std=0.1)
    return w


# ---------------------------------------------------------------- the forward (modeling_qwen3.py)
def forward(c, w, ids):
    D, H, KV, hd = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
    eps, T = c["rms_norm_eps"], len(ids)
    W = {k: v.astype(np.float64) for k, v in w.items()}

    def rms(x, weight):  # Qwen3RMSNorm over the last axis
        return weight * (x / np.sqrt((x * x).mean(-1, keepdims=True) + eps))

    # Qwen3RotaryEmbedding (default rope_type): inv_freq and the angles in float32, cos/sin of (T, hd)
    inv = (1.0 / (np.float32(c["rope_theta"]) ** (np.arange(0, hd, 2, dtype=np.int64).astype(np.float32) / np.float32(hd)))).astype(np.float32)
    freqs = np.arange(T, dtype=np.float32)[:, None] * inv[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1).astype(np.float64)
    cos, sin = np.cos(emb), np.sin(emb)

    def rotate_half(x):
        return np.concatenate([-x[..., hd // 2:], x[..., :hd // 2]], axis=-1)

    x = W["model.embed_tokens.weight"][ids]
    hidden, attns = [], []
    for i in range(c["num_hidden_layers"]):
        hidden.append(x)
        p = f"model.layers.{i}."
        a = rms(x, W[p + "input_layernorm.weight"])
        # Qwen3Attention: q_norm / k_norm on each head's head_dim, then RoPE
        q = rms((a @ W[p + "self_attn.q_proj.weight"].T).reshape(T, H, hd), W[p + "self_attn.q_norm.weight"]).transpose(1, 0, 2)
        k = rms((a @ W[p + "self_attn.k_proj.weight"].T).reshape(T, KV, hd), W[p + "self_attn.k_norm.weight"]).transpose(1, 0, 2)
        v = (a @ W[p + "self_attn.v_proj.weight"].T).reshape(T, KV, hd).transpose(1, 0, 2)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = np.repeat(k, H // KV, axis=0), np.repeat(v, H // KV, axis=0)  # repeat_kv
        s = q @ k.transpose(0, 2, 1) * hd ** -0.5
        s = np.where(np.tril(np.ones((T, T), dtype=bool)), s, -np.inf)  # the causal mask
        s = np.exp(s - s.max(-1, keepdims=True))
        att = s / s.sum(-1, keepdims=True)
        attns.append(att)
        z = (att @ v).transpose(1, 0, 2).reshape(T, H * hd)
        x = x + z @ W[p + "self_attn.o_proj.weight"].T
        b = rms(x, W[p + "post_attention_layernorm.weight"])
        g = b @ W[p + "mlp.gate_proj.weight"].T
        x = x + ((g / (1 + np.exp(-g))) * (b @ W[p + "mlp.up_proj.weight"].T)) @ W[p + "mlp.down_proj.weight"].T
    x = rms(x, W["model.norm.weight"])
    hidden.append(x)
    return np.stack(hidden), np.stack(attns), x @ W["model.embed_tokens.weight"].T  # tied head


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    byte_char, vocab, tok = tokenizer()
    assert len(vocab) <= CONFIG["vocab_size"] and vocab["<|endoftext|>"] == CONFIG["eos_token_id"]
    w = weights(CONFIG, np.random.default_rng(3303))
    with open(os.path.join(OUT, "config.json"), "w") as f:
        json.dump(dict(CONFIG, tfx_random_weights=True), f, indent=1)  # tfx says so in every output
    with open(os.path.join(OUT, "tokenizer.json"), "w") as f:
        json.dump(tok, f, ensure_ascii=False)
    write_safetensors(os.path.join(OUT, "model.safetensors"), w)
    ids = encode(PROMPT_TEXT, byte_char, vocab)
    hidden, attns, logits = forward(CONFIG, w, ids)
    write_safetensors(os.path.join(OUT, "reference.safetensors"),
                      {"input_ids": np.array(ids, dtype=np.float32), "hidden_states": hidden, "attentions": attns, "logits": logits})
    # greedy generation: the whole prefix again at every step, no cache
    seq, tokens, step_logits = list(ids), [], []
    for _ in range(NEW_TOKENS):
        last = forward(CONFIG, w, seq)[2][-1]
        t = int(np.argmax(last))
        tokens.append(t)
        step_logits.append(last)
        seq.append(t)
    write_safetensors(os.path.join(OUT, "generation.safetensors"),
                      {"prompt": np.array(ids, dtype=np.float32), "tokens": np.array(tokens, dtype=np.float32),
                       "logits": np.stack(step_logits)})
    print("qwen3: prompt", PROMPT_TEXT, ids, "→", tokens)


if __name__ == "__main__":
    main()
