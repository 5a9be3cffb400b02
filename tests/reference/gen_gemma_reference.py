#!/usr/bin/python3
"""Three tiny Gemma-family checkpoints (Hugging Face's GemmaForCausalLM, Gemma2ForCausalLM and
Gemma3ForCausalLM text-only layouts) and what an independent numpy forward, written line by line after
transformers' models/gemma/modeling_gemma.py, models/gemma2/modeling_gemma2.py and
models/gemma3/modeling_gemma3.py (eval mode, eager attention), computes for them:
tests/data/hf_models/gemma/, gemma2/, gemma3/

    config.json             gemma: model_type gemma, 2 layers, head_dim 16 != hidden_size / heads = 8,
                            4 heads over 1 key/value head (multi-query), tied embeddings
                            gemma2: model_type gemma2, 3 layers, 4 heads over 2 key/value heads,
                            query_pre_attn_scalar 24, attn_logit_softcapping 5, final_logit_softcapping
                            3, sliding_window 4 on the even layers (layer_types written too)
                            gemma3: model_type gemma3_text, 3 layers (sliding, full, sliding: both
                            layer_types and sliding_window_pattern 2), query_pre_attn_scalar 16,
                            sliding_window 4, rope_theta 1e6 with linear rope_scaling (factor 2) on
                            the full layers, rope_local_base_freq 1e4 unscaled on the sliding ones
    model.safetensors       random float32 weights (numpy, seeded per model), model.* names, no lm_head
    tokenizer.json          the tiny byte-level BPE of gen_qwen3_reference.py (NOT Gemma's SentencePiece
                            tokenizer: the tests here are about the network, vocab_size 280)
    reference.safetensors   input_ids, hidden_states (L+1, T, D; the first the scaled embedding, the last
                            after the final norm), attentions (L, H, T, T), logits (T, V)
    generation.safetensors  greedy generation: prompt, tokens, logits (each step the forward re-run
                            on the whole prefix, no cache; 6 prompt tokens + 12 steps > sliding_window)

What Gemma changes against Llama: RMSNorm scales by (1 + weight) (the weights are stored as offsets from
1, random around 0 here); the embedding is multiplied by sqrt(hidden_size) (as a float32 scalar); the MLP
is down(gelu_tanh(gate(x)) * up(x)); the head is tied. Gemma2 adds: scores scaled by
query_pre_attn_scalar ** -0.5, soft-capped tanh(s / cap) * cap before the mask, a sliding-window mask
(key j visible from query t iff j <= t and t - j < sliding_window) on layers 0, 2, ..., the block
x += post_attention_layernorm(attn(input_layernorm(x))); x += post_feedforward_layernorm(mlp(
pre_feedforward_layernorm(x))), and final logits tanh(z / cap) * cap. Gemma3 keeps Gemma2's block, adds
q_norm / k_norm per head over head_dim before RoPE, takes the sliding layers from layer_types, and gives
the sliding layers their own RoPE base (rope_local_base_freq, no scaling). Computed in float64 from the
float32 weights (RoPE's angles in float32 as HF does). Self-checks: the sliding window and (gemma2) the
soft-capping really change the last prompt position's logits. Deterministic; rerun when the models change:

    /usr/bin/python3 tests/reference/gen_gemma_reference.py
"""
import json
import math
import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_qwen3_reference import encode, tokenizer, write_safetensors  # noqa: E402

COMMON = {
    "hidden_size": 32, "num_attention_heads": 4, "head_dim": 16, "intermediate_size": 48, "vocab_size": 280,
    "max_position_embeddings": 64, "rms_norm_eps": 1e-6, "hidden_activation": "gelu_pytorch_tanh",
    "hidden_act": "gelu_pytorch_tanh", "tie_word_embeddings": True, "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 272, "eos_token_id": 272, "torch_dtype": "float32",
}
MODELS = {
    "gemma": dict(model_type="gemma", architectures=["GemmaForCausalLM"], **COMMON, num_hidden_layers=2,
                  num_key_value_heads=1, rope_theta=10000.0),
    "gemma2": dict(model_type="gemma2", architectures=["Gemma2ForCausalLM"], **COMMON, num_hidden_layers=3,
                   num_key_value_heads=2, rope_theta=10000.0, query_pre_attn_scalar=24, attn_logit_softcapping=5.0,
                   final_logit_softcapping=3.0, sliding_window=4,
                   layer_types=["sliding_attention", "full_attention", "sliding_attention"]),
    "gemma3": dict(model_type="gemma3_text", architectures=["Gemma3ForCausalLM"], **COMMON, num_hidden_layers=3,
                   num_key_value_heads=2, query_pre_attn_scalar=16, sliding_window=4,
                   layer_types=["sliding_attention", "full_attention", "sliding_attention"], sliding_window_pattern=2,
                   rope_theta=1000000.0, rope_local_base_freq=10000.0, rope_scaling={"rope_type": "linear", "factor": 2.0},
                   attn_logit_softcapping=None, final_logit_softcapping=None),
}
SEEDS = {"gemma": 4401, "gemma2": 4402, "gemma3": 4403}
QK_STD = {"gemma": 0.3, "gemma2": 0.4, "gemma3": 0.4}
PROMPT_TEXT = "the cat sat on the mat"
NEW_TOKENS = 12


# ---------------------------------------------------------------- weights
def weights(c, rng):
    D, F, V, H, KV, hd = c["hidden_size"], c["intermediate_size"], c["vocab_size"], c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
    r = lambda *shape, std=0.2: (rng.standard_normal(shape) * std).astype(np.float32)
    qk = QK_STD[c["model_type"].split("_")[0]]
    sandwich = c["model_type"] != "gemma"  # gemma2 / gemma3: pre- and post-norms around attention and MLP
    w = {"model.embed_tokens.weight": r(V, D)}  # small against the layers' outputs: varied greedy tokens
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        # norm weights are offsets from 1 (GemmaRMSNorm scales by 1 + weight)
        w[p + "input_layernorm.weight"] = r(D, std=0.1)
        w[p + "self_attn.q_proj.weight"] = r(H * hd, D, std=qk)
        w[p + "self_attn.k_proj.weight"] = r(KV * hd, D, std=qk)
        w[p + "self_attn.v_proj.weight"] = r(KV * hd, D)
        if c["model_type"] == "gemma3_text":
            w[p + "self_attn.q_norm.weight"] = r(hd, std=0.3)
            w[p + "self_attn.k_norm.weight"] = r(hd, std=0.3)
        w[p + "self_attn.o_proj.weight"] = r(D, H * hd, std=0.4)
        w[p + "post_attention_layernorm.weight"] = r(D, std=0.1)
        if sandwich:  # the post-norms scale by about 1.5 (as trained Gemma2/3 do, by more), so the layers matter
            w[p + "post_attention_layernorm.weight"] += np.float32(0.5)
            w[p + "pre_feedforward_layernorm.weight"] = r(D, std=0.1)
            w[p + "post_feedforward_layernorm.weight"] = 0.5 + r(D, std=0.1)
        w[p + "mlp.gate_proj.weight"] = r(F, D)
        w[p + "mlp.up_proj.weight"] = r(F, D)
        w[p + "mlp.down_proj.weight"] = r(D, F, std=0.4)
    w["model.norm.weight"] = r(D, std=0.1)
    return w


# ---------------------------------------------------------------- the forward (modeling_gemma{,2,3}.py)
def layer_types(c):
    """Which layers use the sliding window: gemma none; gemma2 the even ones (Gemma2Attention's
    `not bool(layer_idx % 2)`, later config.layer_types); gemma3 config.layer_types, else (older configs)
    sliding iff (i + 1) % sliding_window_pattern != 0."""
    L = c["num_hidden_layers"]
    if c["model_type"] == "gemma":
        return ["full_attention"] * L
    if c.get("layer_types"):
        return list(c["layer_types"])
    if c["model_type"] == "gemma2":
        return ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(L)]
    return ["sliding_attention" if (i + 1) % c.get("sliding_window_pattern", 6) else "full_attention" for i in range(L)]


def rope(c, T, layer_type):
    """cos, sin of (T, head_dim): inv_freq and the angles in float32 as HF's rotary embeddings. Gemma3's
    full layers use rope_theta with rope_scaling (linear: inv_freq / factor), its sliding layers
    rope_local_base_freq without scaling."""
    hd, base, factor = c["head_dim"], c["rope_theta"], 1.0
    if c["model_type"] == "gemma3_text":
        if layer_type == "sliding_attention":
            base = c["rope_local_base_freq"]
        elif c.get("rope_scaling"):
            assert c["rope_scaling"]["rope_type"] == "linear"
            factor = c["rope_scaling"]["factor"]
    inv = (1.0 / (np.float32(base) ** (np.arange(0, hd, 2, dtype=np.int64).astype(np.float32) / np.float32(hd)))).astype(np.float32)
    inv = (inv / np.float32(factor)).astype(np.float32)  # _compute_linear_scaling_rope_parameters
    freqs = np.arange(T, dtype=np.float32)[:, None] * inv[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1).astype(np.float64)
    return np.cos(emb), np.sin(emb)


def forward(c, w, ids):
    D, H, KV, hd = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
    eps, T, kind = c["rms_norm_eps"], len(ids), c["model_type"]
    W = {k: v.astype(np.float64) for k, v in w.items()}

    def rms(x, weight):  # GemmaRMSNorm / Gemma2RMSNorm / Gemma3RMSNorm over the last axis: (1 + weight)
        return (x / np.sqrt((x * x).mean(-1, keepdims=True) + eps)) * (1.0 + weight)

    def gelu_tanh(x):  # ACT2FN["gelu_pytorch_tanh"]
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))

    def rotate_half(x):
        return np.concatenate([-x[..., hd // 2:], x[..., :hd // 2]], axis=-1)

    scaling = hd ** -0.5 if kind == "gemma" else c["query_pre_attn_scalar"] ** -0.5
    softcap = c.get("attn_logit_softcapping") if kind == "gemma2" else None  # Gemma3Attention passes no softcap
    types = layer_types(c)
    ropes = {t: rope(c, T, t) for t in set(types)}
    tq, tk = np.arange(T)[:, None], np.arange(T)[None, :]
    causal = tk <= tq
    sliding = causal & (tk > tq - c["sliding_window"]) if "sliding_attention" in types else None  # sliding_window_overlay

    x = W["model.embed_tokens.weight"][ids] * float(np.float32(D ** 0.5))  # the normalizer, a float32 scalar
    hidden, attns = [], []
    for i in range(c["num_hidden_layers"]):
        hidden.append(x)
        p = f"model.layers.{i}."
        cos, sin = ropes[types[i]]
        a = rms(x, W[p + "input_layernorm.weight"])
        q = (a @ W[p + "self_attn.q_proj.weight"].T).reshape(T, H, hd)
        k = (a @ W[p + "self_attn.k_proj.weight"].T).reshape(T, KV, hd)
        v = (a @ W[p + "self_attn.v_proj.weight"].T).reshape(T, KV, hd).transpose(1, 0, 2)
        if kind == "gemma3_text":  # q_norm / k_norm on each head's head_dim, before RoPE
            q, k = rms(q, W[p + "self_attn.q_norm.weight"]), rms(k, W[p + "self_attn.k_norm.weight"])
        q, k = q.transpose(1, 0, 2), k.transpose(1, 0, 2)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = np.repeat(k, H // KV, axis=0), np.repeat(v, H // KV, axis=0)  # repeat_kv
        s = q @ k.transpose(0, 2, 1) * scaling
        if softcap is not None:  # eager_attention_forward: after the scaling, before the mask
            s = np.tanh(s / softcap) * softcap
        s = np.where(sliding if types[i] == "sliding_attention" else causal, s, -np.inf)
        s = np.exp(s - s.max(-1, keepdims=True))
        att = s / s.sum(-1, keepdims=True)
        attns.append(att)
        z = (att @ v).transpose(1, 0, 2).reshape(T, H * hd) @ W[p + "self_attn.o_proj.weight"].T
        mlp = lambda b: (gelu_tanh(b @ W[p + "mlp.gate_proj.weight"].T) * (b @ W[p + "mlp.up_proj.weight"].T)) @ W[p + "mlp.down_proj.weight"].T
        if kind == "gemma":  # Llama's block
            x = x + z
            x = x + mlp(rms(x, W[p + "post_attention_layernorm.weight"]))
        else:  # Gemma2DecoderLayer / Gemma3DecoderLayer
            x = x + rms(z, W[p + "post_attention_layernorm.weight"])
            x = x + rms(mlp(rms(x, W[p + "pre_feedforward_layernorm.weight"])), W[p + "post_feedforward_layernorm.weight"])
    x = rms(x, W["model.norm.weight"])
    hidden.append(x)
    logits = x @ W["model.embed_tokens.weight"].T  # tied head
    if c.get("final_logit_softcapping") is not None:
        cap = c["final_logit_softcapping"]
        logits = np.tanh(logits / cap) * cap
    return np.stack(hidden), np.stack(attns), logits


def self_check(name, c, w, ids):
    """The data must exercise what it is for: the window (and gemma2's soft-capping) must matter."""
    base = forward(c, w, ids)
    if c.get("sliding_window"):
        wide = forward(dict(c, sliding_window=10 ** 6), w, ids)[2][-1]
        assert np.abs(wide - base[2][-1]).max() > 1e-2, name + ": the sliding window does not change the logits"
        for i, kind in enumerate(layer_types(c)):  # the window's mask as HF builds it
            if kind == "sliding_attention":
                visible = np.array([[j <= t and t - j < c["sliding_window"] for j in range(len(ids))] for t in range(len(ids))])
                assert np.all(base[1][i][:, ~visible] == 0) and np.all(base[1][i][:, visible] > 0), name + ": the window's mask"
    if c["model_type"] == "gemma2":
        for key in ("attn_logit_softcapping", "final_logit_softcapping"):
            other = forward(dict(c, **{key: None}), w, ids)[2][-1]
            assert np.abs(other - base[2][-1]).max() > 1e-2, name + ": " + key + " does not change the logits"
    if c["model_type"] == "gemma3_text":
        other = forward(dict(c, rope_scaling=None), w, ids)[2][-1]
        assert np.abs(other - base[2][-1]).max() > 1e-3, name + ": rope_scaling does not change the logits"
        assert layer_types(dict(c, layer_types=None)) == c["layer_types"]  # the two keys agree


def build(name, c):
    out = os.path.join(HERE, "..", "data", "hf_models", name)
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    byte_char, vocab, tok = tokenizer()
    assert len(vocab) <= c["vocab_size"] and vocab["<|endoftext|>"] == c["eos_token_id"]
    w = weights(c, np.random.default_rng(SEEDS[name]))
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(dict(c, tfx_random_weights=True), f, indent=1)  # tfx says so in every output
    with open(os.path.join(out, "tokenizer.json"), "w") as f:
        json.dump(tok, f, ensure_ascii=False)
    write_safetensors(os.path.join(out, "model.safetensors"), w)
    ids = encode(PROMPT_TEXT, byte_char, vocab)
    self_check(name, c, w, ids)
    hidden, attns, logits = forward(c, w, ids)
    write_safetensors(os.path.join(out, "reference.safetensors"),
                      {"input_ids": np.array(ids, dtype=np.float32), "hidden_states": hidden, "attentions": attns, "logits": logits})
    # greedy generation: the whole prefix again at every step, no cache
    seq, tokens, step_logits = list(ids), [], []
    for _ in range(NEW_TOKENS):
        last = forward(c, w, seq)[2][-1]
        t = int(np.argmax(last))
        tokens.append(t)
        step_logits.append(last)
        seq.append(t)
    write_safetensors(os.path.join(out, "generation.safetensors"),
                      {"prompt": np.array(ids, dtype=np.float32), "tokens": np.array(tokens, dtype=np.float32),
                       "logits": np.stack(step_logits)})
    print(f"{name}: prompt", PROMPT_TEXT, ids, "→", tokens, "| logits range %.2f..%.2f" % (logits.min(), logits.max()))


def gemma2_for_llama_cpp(out):
    """A gemma2 folder llama.cpp (c392e5094) runs: 26 layers (its Gemma 2 2B, which it knows by the
    layer count), query_pre_attn_scalar = head_dim (what it takes); the window, caps and sizes of the
    gemma2 folder; every mlp.down_proj zero, so that ggml's float16 GELU table (whose error 26 random
    layers amplify to ~5e-3) cannot blur the comparison of everything else: the attention (the window,
    the caps, the scalar), the four norms of a layer (1 + w) and the embedding's √D. Not committed:
    tests/reference/check_gguf_llama_cpp.sh writes it to compare."""
    c = dict(MODELS["gemma2"], num_hidden_layers=26, query_pre_attn_scalar=16)
    c["layer_types"] = ["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(26)]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(dict(c, tfx_random_weights=True), f, indent=1)
    with open(os.path.join(out, "tokenizer.json"), "w") as f:
        json.dump(tokenizer()[2], f, ensure_ascii=False)
    w = weights(c, np.random.default_rng(4426))
    for k in w:
        if k.endswith("mlp.down_proj.weight"):
            w[k] = np.zeros_like(w[k])
    write_safetensors(os.path.join(out, "model.safetensors"), w)


def main():
    if sys.argv[1:2] == ["--gemma2-for-llama-cpp"]:
        return gemma2_for_llama_cpp(sys.argv[2])
    for name, c in MODELS.items():
        build(name, c)


if __name__ == "__main__":
    main()
