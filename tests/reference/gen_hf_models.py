#!/usr/bin/python3
"""Builds tiny random Hugging Face checkpoints of every family tfx reads, in HF's exact layout and
names, and records what Hugging Face's modeling code computes for them: tests/data/hf_models/<name>/
(config.json, model.safetensors or shards + index, tokenizer files) and <name>/reference.safetensors
(input_ids, hidden states (layers + 1, T, d), attentions (layers, heads, T, T), logits (T, V)).

`transformers` is not packaged for Debian, so each family's forward is written here in plain torch
(Debian python3-torch 1.13), line by line after modeling_bert.py, modeling_gpt2.py and
modeling_llama.py (eval mode), including the RoPE scalings of modeling_rope_utils.py (linear,
dynamic, yarn, llama3). Deterministic (seeded); rerun only when the set of models changes:

    /usr/bin/python3 tests/reference/gen_hf_models.py        # every model
    /usr/bin/python3 tests/reference/gen_hf_models.py vit    # only tests/data/hf_models/vit

ViT (modeling_vit.py, ViTForImageClassification) also gets an independent numpy forward that must
agree, its picture.png, preprocessor_config.json and the pixel values ViTImageProcessor (PIL's
bilinear resize) makes of it, and the [CLS] row of the attention rollout.
"""
import json
import math
import os
import shutil
import struct

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "data", "hf_models")
TOKENIZER_LLAMA = os.path.join(HERE, "..", "data", "hf_tokenizers", "llama2_tiny", "tokenizer.json")

DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16"}


def write_safetensors(path, tensors, metadata=None):
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name].contiguous()
        if t.dtype == torch.bfloat16:
            raw = t.view(torch.int16).numpy().tobytes()
        else:
            raw = t.numpy().tobytes()
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    if metadata:
        header["__metadata__"] = metadata
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def rnd(g, *shape, std=0.2):
    return (torch.randn(*shape, generator=g) * std).float()


# ---------------------------------------------------------------- BERT (modeling_bert.py)
def bert_weights(c, g, mlm):
    D, F_, V = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    w = {
        "bert.embeddings.word_embeddings.weight": rnd(g, V, D),
        "bert.embeddings.position_embeddings.weight": rnd(g, c["max_position_embeddings"], D),
        "bert.embeddings.token_type_embeddings.weight": rnd(g, 2, D),
        "bert.embeddings.LayerNorm.weight": 1 + rnd(g, D, std=0.1),
        "bert.embeddings.LayerNorm.bias": rnd(g, D, std=0.1),
        "bert.pooler.dense.weight": rnd(g, D, D),  # BertModel's pooler: tfx ignores it
        "bert.pooler.dense.bias": rnd(g, D),
    }
    for i in range(c["num_hidden_layers"]):
        p = f"bert.encoder.layer.{i}."
        for m in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
            w[p + m + ".weight"], w[p + m + ".bias"] = rnd(g, D, D), rnd(g, D, std=0.05)
        w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"] = 1 + rnd(g, D, std=0.1), rnd(g, D, std=0.1)
        w[p + "intermediate.dense.weight"], w[p + "intermediate.dense.bias"] = rnd(g, F_, D), rnd(g, F_, std=0.05)
        w[p + "output.dense.weight"], w[p + "output.dense.bias"] = rnd(g, D, F_), rnd(g, D, std=0.05)
        w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"] = 1 + rnd(g, D, std=0.1), rnd(g, D, std=0.1)
    if mlm:
        w["cls.predictions.transform.dense.weight"], w["cls.predictions.transform.dense.bias"] = rnd(g, D, D), rnd(g, D, std=0.05)
        w["cls.predictions.transform.LayerNorm.weight"] = 1 + rnd(g, D, std=0.1)
        w["cls.predictions.transform.LayerNorm.bias"] = rnd(g, D, std=0.1)
        w["cls.predictions.bias"] = rnd(g, V, std=0.05)
        # cls.predictions.decoder.weight is tied to the word embeddings: save_pretrained leaves it out
        w["cls.seq_relationship.weight"], w["cls.seq_relationship.bias"] = rnd(g, 2, D), rnd(g, 2)  # NSP head: ignored
    return w


def bert_forward(c, w, ids):
    eps, H = c["layer_norm_eps"], c["num_attention_heads"]
    D = c["hidden_size"]
    hd = D // H
    T = len(ids)
    x = w["bert.embeddings.word_embeddings.weight"][ids] + w["bert.embeddings.position_embeddings.weight"][:T] + \
        w["bert.embeddings.token_type_embeddings.weight"][0]
    x = F.layer_norm(x, (D,), w["bert.embeddings.LayerNorm.weight"], w["bert.embeddings.LayerNorm.bias"], eps)
    hidden, attns = [x], []
    for i in range(c["num_hidden_layers"]):
        p = f"bert.encoder.layer.{i}."
        lin = lambda m, t: F.linear(t, w[p + m + ".weight"], w[p + m + ".bias"])
        q = lin("attention.self.query", x).view(T, H, hd).transpose(0, 1)
        k = lin("attention.self.key", x).view(T, H, hd).transpose(0, 1)
        v = lin("attention.self.value", x).view(T, H, hd).transpose(0, 1)
        s = q @ k.transpose(-1, -2) / math.sqrt(hd)
        a = s.softmax(-1)
        attns.append(a)
        z = (a @ v).transpose(0, 1).reshape(T, D)
        h = F.layer_norm(lin("attention.output.dense", z) + x, (D,), w[p + "attention.output.LayerNorm.weight"],
                         w[p + "attention.output.LayerNorm.bias"], eps)
        f = F.gelu(lin("intermediate.dense", h))
        x = F.layer_norm(lin("output.dense", f) + h, (D,), w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
        hidden.append(x)
    logits = None
    if "cls.predictions.bias" in w:
        t = F.gelu(F.linear(x, w["cls.predictions.transform.dense.weight"], w["cls.predictions.transform.dense.bias"]))
        t = F.layer_norm(t, (D,), w["cls.predictions.transform.LayerNorm.weight"], w["cls.predictions.transform.LayerNorm.bias"], eps)
        logits = F.linear(t, w["bert.embeddings.word_embeddings.weight"], w["cls.predictions.bias"])
    return hidden, attns, logits


# ---------------------------------------------------------------- GPT-2 (modeling_gpt2.py)
def gpt2_weights(c, g):
    D, V, P = c["n_embd"], c["vocab_size"], c["n_positions"]
    F_ = 4 * D
    w = {"transformer.wte.weight": rnd(g, V, D), "transformer.wpe.weight": rnd(g, P, D)}
    for i in range(c["n_layer"]):
        p = f"transformer.h.{i}."
        w[p + "ln_1.weight"], w[p + "ln_1.bias"] = 1 + rnd(g, D, std=0.1), rnd(g, D, std=0.1)
        w[p + "attn.c_attn.weight"], w[p + "attn.c_attn.bias"] = rnd(g, D, 3 * D), rnd(g, 3 * D, std=0.05)  # Conv1D: (in, out)
        w[p + "attn.c_proj.weight"], w[p + "attn.c_proj.bias"] = rnd(g, D, D), rnd(g, D, std=0.05)
        w[p + "attn.bias"] = torch.tril(torch.ones(P, P)).view(1, 1, P, P)  # the causal-mask buffer older files carry
        w[p + "ln_2.weight"], w[p + "ln_2.bias"] = 1 + rnd(g, D, std=0.1), rnd(g, D, std=0.1)
        w[p + "mlp.c_fc.weight"], w[p + "mlp.c_fc.bias"] = rnd(g, D, F_), rnd(g, F_, std=0.05)
        w[p + "mlp.c_proj.weight"], w[p + "mlp.c_proj.bias"] = rnd(g, F_, D), rnd(g, D, std=0.05)
    w["transformer.ln_f.weight"], w["transformer.ln_f.bias"] = 1 + rnd(g, D, std=0.1), rnd(g, D, std=0.1)
    return w


def gpt2_forward(c, w, ids, logits=True):
    D, H, eps = c["n_embd"], c["n_head"], c["layer_norm_epsilon"]
    hd, T = D // H, len(ids)
    x = w["transformer.wte.weight"][ids] + w["transformer.wpe.weight"][:T]
    hidden, attns = [], []
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    for i in range(c["n_layer"]):
        hidden.append(x)
        p = f"transformer.h.{i}."
        a = F.layer_norm(x, (D,), w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
        qkv = a @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]
        q, k, v = (t.view(T, H, hd).transpose(0, 1) for t in qkv.split(D, dim=1))
        s = q @ k.transpose(-1, -2) / math.sqrt(hd)
        s = torch.where(causal, s, torch.tensor(torch.finfo(s.dtype).min))
        att = s.softmax(-1)
        attns.append(att)
        z = (att @ v).transpose(0, 1).reshape(T, D)
        x = x + z @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        f = F.layer_norm(x, (D,), w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps) @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"]
        x = x + F.gelu(f, approximate="tanh") @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
    x = F.layer_norm(x, (D,), w["transformer.ln_f.weight"], w["transformer.ln_f.bias"], eps)
    hidden.append(x)
    return hidden, attns, (x @ w["transformer.wte.weight"].T if logits else None)


# ---------------------------------------------------------------- Llama family (modeling_llama.py)
def rope_inv_freq(c, seq_len):
    """modeling_rope_utils.py: _compute_default/linear/dynamic_ntk/yarn/llama3_parameters."""
    base = c.get("rope_theta", 10000.0)
    hd = c.get("head_dim", c["hidden_size"] // c["num_attention_heads"])
    s = c.get("rope_scaling") or {}
    kind = s.get("rope_type", s.get("type", "default"))
    inv = 1.0 / (base ** (torch.arange(0, hd, 2, dtype=torch.int64).float() / hd))
    attention_factor = 1.0
    if kind == "linear":
        inv = inv / s["factor"]
    elif kind == "dynamic":
        maxp = c["max_position_embeddings"]
        if seq_len > maxp:
            b = base * ((s["factor"] * seq_len / maxp) - (s["factor"] - 1)) ** (hd / (hd - 2))
            inv = 1.0 / (b ** (torch.arange(0, hd, 2, dtype=torch.int64).float() / hd))
    elif kind == "yarn":
        factor, maxp = s["factor"], s.get("original_max_position_embeddings", c["max_position_embeddings"])
        beta_fast, beta_slow = s.get("beta_fast", 32), s.get("beta_slow", 1)
        attention_factor = 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0

        def corr_dim(rot):
            return (hd * math.log(maxp / (rot * 2 * math.pi))) / (2 * math.log(base))

        low, high = max(math.floor(corr_dim(beta_fast)), 0), min(math.ceil(corr_dim(beta_slow)), hd - 1)
        if low == high:
            high += 0.001
        ramp = torch.clamp((torch.arange(hd // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
        pos_freqs = base ** (torch.arange(0, hd, 2).float() / hd)
        extra, inter = 1.0 / pos_freqs, 1.0 / (factor * pos_freqs)
        e = 1 - ramp
        inv = inter * (1 - e) + extra * e
    elif kind == "llama3":
        factor, low_f, high_f = s["factor"], s["low_freq_factor"], s["high_freq_factor"]
        old = s["original_max_position_embeddings"]
        low_wl, high_wl = old / low_f, old / high_f
        wavelen = 2 * math.pi / inv
        inv_l = torch.where(wavelen > low_wl, inv / factor, inv)
        smooth = (old / wavelen - low_f) / (high_f - low_f)
        smoothed = (1 - smooth) * inv_l / factor + smooth * inv_l
        medium = ~(wavelen < high_wl) * ~(wavelen > low_wl)
        inv = torch.where(medium, smoothed, inv_l)
    return inv, attention_factor


def llama_weights(c, g, prefix="model."):
    D, F_, V = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    H, KV = c["num_attention_heads"], c.get("num_key_value_heads", c["num_attention_heads"])
    hd = c.get("head_dim", D // H)
    bias = c["model_type"] == "qwen2"
    w = {prefix + "embed_tokens.weight": rnd(g, V, D, std=0.5)}
    for i in range(c["num_hidden_layers"]):
        p = f"{prefix}layers.{i}."
        w[p + "input_layernorm.weight"] = 1 + rnd(g, D, std=0.1)
        w[p + "self_attn.q_proj.weight"] = rnd(g, H * hd, D)
        w[p + "self_attn.k_proj.weight"] = rnd(g, KV * hd, D)
        w[p + "self_attn.v_proj.weight"] = rnd(g, KV * hd, D)
        if bias:
            w[p + "self_attn.q_proj.bias"] = rnd(g, H * hd, std=0.1)
            w[p + "self_attn.k_proj.bias"] = rnd(g, KV * hd, std=0.1)
            w[p + "self_attn.v_proj.bias"] = rnd(g, KV * hd, std=0.1)
        w[p + "self_attn.o_proj.weight"] = rnd(g, D, H * hd)
        w[p + "post_attention_layernorm.weight"] = 1 + rnd(g, D, std=0.1)
        w[p + "mlp.gate_proj.weight"] = rnd(g, F_, D)
        w[p + "mlp.up_proj.weight"] = rnd(g, F_, D)
        w[p + "mlp.down_proj.weight"] = rnd(g, D, F_)
    w[prefix + "norm.weight"] = 1 + rnd(g, D, std=0.1)
    if not c.get("tie_word_embeddings", False):
        w["lm_head.weight"] = rnd(g, V, D)
    return w


def llama_forward(c, w, ids):
    D, H = c["hidden_size"], c["num_attention_heads"]
    KV = c.get("num_key_value_heads", H)
    hd = c.get("head_dim", D // H)
    eps, T = c.get("rms_norm_eps", 1e-6), len(ids)

    def rms(x, weight):
        return weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))

    inv, att_factor = rope_inv_freq(c, T)
    freqs = torch.arange(T).float()[:, None] * inv[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos() * att_factor, emb.sin() * att_factor

    def rotate_half(x):
        x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
        return torch.cat((-x2, x1), dim=-1)

    x = w["model.embed_tokens.weight"][ids]
    hidden, attns = [], []
    mask = torch.full((T, T), torch.finfo(torch.float32).min).triu(1)
    if c.get("model_type") == "mistral" and c.get("sliding_window"):
        # MistralAttention's sliding window: query t sees keys t − window + 1 … t (masked where t − j ≥ window)
        mask = mask + torch.full((T, T), torch.finfo(torch.float32).min).tril(-c["sliding_window"])
        mask = mask.clamp(min=torch.finfo(torch.float32).min)
    for i in range(c["num_hidden_layers"]):
        hidden.append(x)
        p = f"model.layers.{i}."
        a = rms(x, w[p + "input_layernorm.weight"])
        lin = lambda m, t: F.linear(t, w[p + m + ".weight"], w.get(p + m + ".bias"))
        q = lin("self_attn.q_proj", a).view(T, H, hd).transpose(0, 1)
        k = lin("self_attn.k_proj", a).view(T, KV, hd).transpose(0, 1)
        v = lin("self_attn.v_proj", a).view(T, KV, hd).transpose(0, 1)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = k.repeat_interleave(H // KV, dim=0), v.repeat_interleave(H // KV, dim=0)
        s = q @ k.transpose(-1, -2) / math.sqrt(hd) + mask
        att = s.softmax(-1, dtype=torch.float32)
        attns.append(att)
        z = (att @ v).transpose(0, 1).reshape(T, H * hd)
        x = x + F.linear(z, w[p + "self_attn.o_proj.weight"])
        b = rms(x, w[p + "post_attention_layernorm.weight"])
        x = x + F.linear(F.silu(F.linear(b, w[p + "mlp.gate_proj.weight"])) * F.linear(b, w[p + "mlp.up_proj.weight"]),
                         w[p + "mlp.down_proj.weight"])
    x = rms(x, w["model.norm.weight"])
    hidden.append(x)
    head = w["model.embed_tokens.weight"] if c.get("tie_word_embeddings", False) else w["lm_head.weight"]
    return hidden, attns, x @ head.T


# ---------------------------------------------------------------- tokenizer files of the tiny models
BERT_WORDS = ("the a cat dog sat on mat is cute my hello world , . ! ? student teacher i am love playing foot ##ball "
              "##ing king queen man woman house went to school read book children [ ] 나는 학생 이다").split()


def write_bert_tokenizer(d):
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + BERT_WORDS
    with open(os.path.join(d, "vocab.txt"), "w") as f:
        f.write("\n".join(vocab) + "\n")
    with open(os.path.join(d, "tokenizer_config.json"), "w") as f:
        json.dump({"do_lower_case": True, "model_max_length": 16}, f)
    return len(vocab)


def write_gpt2_tokenizer(d):
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    byte_char = {b: chr(c) for b, c in zip(bs, cs)}
    vocab = {byte_char[b]: b for b in range(256)}
    merges = []
    for a, b in [("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("Ġ", "c"), ("a", "t"), ("Ġc", "at"), ("Ġ", "s"), ("Ġs", "at"), ("o", "n"),
                 ("Ġ", "on"), ("Ġ", "m"), ("Ġm", "at"), ("Ġ", "d"), ("o", "g"), ("Ġd", "og")]:
        vocab[a + b] = len(vocab)
        merges.append(f"{a} {b}")
    vocab["<|endoftext|>"] = len(vocab)
    with open(os.path.join(d, "vocab.json"), "w") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(d, "merges.txt"), "w") as f:
        f.write("#version: 0.2\n" + "\n".join(merges) + "\n")
    return len(vocab)


# ---------------------------------------------------------------- ViT (modeling_vit.py, image_processing_vit.py)
VIT_LABELS = ["tabby cat", "golden retriever", "airliner", "volcano", "teapot"]


def vit_weights(c, g):
    D, F_, C, P = c["hidden_size"], c["intermediate_size"], c["num_channels"], c["patch_size"]
    n = (c["image_size"] // P) ** 2
    w = {
        "vit.embeddings.cls_token": rnd(g, 1, 1, D),
        "vit.embeddings.position_embeddings": rnd(g, 1, n + 1, D),
        "vit.embeddings.patch_embeddings.projection.weight": rnd(g, D, C, P, P, std=0.1),
        "vit.embeddings.patch_embeddings.projection.bias": rnd(g, D, std=0.05),
        "vit.layernorm.weight": 1 + rnd(g, D, std=0.1),
        "vit.layernorm.bias": rnd(g, D, std=0.1),
        "classifier.weight": rnd(g, len(c["id2label"]), D),
        "classifier.bias": rnd(g, len(c["id2label"]), std=0.05),
    }
    for i in range(c["num_hidden_layers"]):
        p = f"vit.encoder.layer.{i}."
        for m in ("attention.attention.query", "attention.attention.key", "attention.attention.value", "attention.output.dense"):
            w[p + m + ".weight"], w[p + m + ".bias"] = rnd(g, D, D), rnd(g, D, std=0.05)
        w[p + "layernorm_before.weight"], w[p + "layernorm_before.bias"] = 1 + rnd(g, D, std=0.1), rnd(g, D, std=0.1)
        w[p + "layernorm_after.weight"], w[p + "layernorm_after.bias"] = 1 + rnd(g, D, std=0.1), rnd(g, D, std=0.1)
        w[p + "intermediate.dense.weight"], w[p + "intermediate.dense.bias"] = rnd(g, F_, D), rnd(g, F_, std=0.05)
        w[p + "output.dense.weight"], w[p + "output.dense.bias"] = rnd(g, D, F_), rnd(g, D, std=0.05)
    return w


def vit_forward(c, w, pixels):
    """ViTForImageClassification in eval mode: Conv2d patches, [CLS] first, learned positions, pre-LN
    blocks (layernorm_before → attention → residual, layernorm_after → MLP → residual), erf GELU,
    vit.layernorm, the classifier on the [CLS] row. hidden_states as output_hidden_states gives
    them: the embedding output and each block's output (before vit.layernorm)."""
    D, H = c["hidden_size"], c["num_attention_heads"]
    hd, eps = D // H, c["layer_norm_eps"]
    x = F.conv2d(pixels[None], w["vit.embeddings.patch_embeddings.projection.weight"],
                 w["vit.embeddings.patch_embeddings.projection.bias"], stride=c["patch_size"])
    x = x.flatten(2).transpose(1, 2)[0]
    x = torch.cat([w["vit.embeddings.cls_token"][0], x], 0) + w["vit.embeddings.position_embeddings"][0]
    hidden, attns = [x], []
    for i in range(c["num_hidden_layers"]):
        p = f"vit.encoder.layer.{i}."
        lin = lambda t, m: F.linear(t, w[p + m + ".weight"], w[p + m + ".bias"])
        h = F.layer_norm(x, (D,), w[p + "layernorm_before.weight"], w[p + "layernorm_before.bias"], eps)
        T = h.shape[0]
        q, k, v = (lin(h, "attention.attention." + m).view(T, H, hd).transpose(0, 1) for m in ("query", "key", "value"))
        a = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(hd), dim=-1)
        attns.append(a)
        ctx = (a @ v).transpose(0, 1).reshape(T, D)
        x = lin(ctx, "attention.output.dense") + x
        h = F.layer_norm(x, (D,), w[p + "layernorm_after.weight"], w[p + "layernorm_after.bias"], eps)
        x = lin(F.gelu(lin(h, "intermediate.dense")), "output.dense") + x
        hidden.append(x)
    last = F.layer_norm(x, (D,), w["vit.layernorm.weight"], w["vit.layernorm.bias"], eps)
    logits = F.linear(last[0:1], w["classifier.weight"], w["classifier.bias"])
    return hidden, attns, logits


def vit_numpy_forward(c, w, pixels):
    """The same forward again in numpy, written differently (patches cut by reshape and multiplied by
    the flattened kernel, attention by einsum, GELU by math.erf, float64): a check on vit_forward."""
    import numpy as np
    n = {k: v.double().numpy() for k, v in w.items()}
    D, H, P = c["hidden_size"], c["num_attention_heads"], c["patch_size"]
    hd, eps, C = D // H, c["layer_norm_eps"], c["num_channels"]
    px = pixels.double().numpy()
    g = px.shape[1] // P
    # (C, g, P, g, P) → (gy, gx, C, P, P) → rows in reading order, columns c·P² + y·P + x
    patches = px.reshape(C, g, P, g, P).transpose(1, 3, 0, 2, 4).reshape(g * g, C * P * P)
    emb = patches @ n["vit.embeddings.patch_embeddings.projection.weight"].reshape(D, -1).T + n["vit.embeddings.patch_embeddings.projection.bias"]
    x = np.concatenate([n["vit.embeddings.cls_token"].reshape(1, D), emb]) + n["vit.embeddings.position_embeddings"][0]

    def ln(t, wt, b):
        mu = t.mean(-1, keepdims=True)
        var = ((t - mu) ** 2).mean(-1, keepdims=True)
        return (t - mu) / np.sqrt(var + eps) * wt + b

    erf = np.vectorize(math.erf)
    hidden, attns = [x], []
    for i in range(c["num_hidden_layers"]):
        p = f"vit.encoder.layer.{i}."
        L = lambda t, m: t @ n[p + m + ".weight"].T + n[p + m + ".bias"]
        h = ln(x, n[p + "layernorm_before.weight"], n[p + "layernorm_before.bias"])
        q, k, v = (L(h, "attention.attention." + m).reshape(-1, H, hd) for m in ("query", "key", "value"))
        s = np.einsum("qhd,khd->hqk", q, k) / math.sqrt(hd)
        s = np.exp(s - s.max(-1, keepdims=True))
        a = s / s.sum(-1, keepdims=True)
        attns.append(a)
        x = L(np.einsum("hqk,khd->qhd", a, v).reshape(-1, D), "attention.output.dense") + x
        f = L(ln(x, n[p + "layernorm_after.weight"], n[p + "layernorm_after.bias"]), "intermediate.dense")
        x = L(0.5 * f * (1 + erf(f / math.sqrt(2))), "output.dense") + x
        hidden.append(x)
    last = ln(x, n["vit.layernorm.weight"], n["vit.layernorm.bias"])
    logits = last[:1] @ n["classifier.weight"].T + n["classifier.bias"]
    # attention rollout (Abnar & Zuidema 2020): Â = ½·mean over heads + ½·I, rows normalized,
    # multiplied from the first layer up; the [CLS] row over the patches
    roll = np.eye(x.shape[0])
    for a in attns:
        ah = 0.5 * a.mean(0) + 0.5 * np.eye(x.shape[0])
        ah = ah / ah.sum(-1, keepdims=True)
        roll = ah @ roll
    return hidden, attns, logits, roll[0]


def vit_picture(path):
    """A small test picture (48 wide, 40 high; not the model's size, so the processor resizes it): a
    sky ramp, a sun, a ground with stripes; saved as PNG."""
    from PIL import Image, ImageDraw
    im = Image.new("RGB", (48, 40))
    d = ImageDraw.Draw(im)
    for y in range(26):
        d.line([(0, y), (47, y)], fill=(40 + 4 * y, 90 + 5 * y, 220 - 2 * y))
    d.ellipse([30, 4, 42, 16], fill=(250, 210, 40))
    for x in range(0, 48, 6):
        d.rectangle([x, 26, x + 2, 39], fill=(40, 150, 60))
        d.rectangle([x + 3, 26, x + 5, 39], fill=(120, 90, 40))
    im.save(path, optimize=True)


def vit_pixel_values(path, pp):
    """ViTImageProcessor: PIL resize (resample 2 = bilinear, reducing_gap None) to size, rescale by
    rescale_factor, normalize by image_mean / image_std; (C, H, W) float32."""
    import numpy as np
    from PIL import Image
    im = Image.open(path).convert("RGB")
    im = im.resize((pp["size"]["width"], pp["size"]["height"]), resample=pp["resample"], reducing_gap=None)
    a = np.asarray(im).astype(np.float64) * pp["rescale_factor"]
    a = a.astype(np.float32)
    a = (a - np.array(pp["image_mean"], dtype=np.float32)) / np.array(pp["image_std"], dtype=np.float32)
    return torch.tensor(a.transpose(2, 0, 1).copy(), dtype=torch.float32)


def make_vit(name="vit"):
    import numpy as np
    d = os.path.join(OUT, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    config = {"model_type": "vit", "architectures": ["ViTForImageClassification"], "image_size": 32, "patch_size": 8,
              "num_channels": 3, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64,
              "hidden_act": "gelu", "layer_norm_eps": 1e-12, "qkv_bias": True,
              "id2label": {str(i): l for i, l in enumerate(VIT_LABELS)}, "label2id": {l: i for i, l in enumerate(VIT_LABELS)}}
    pp = {"do_normalize": True, "do_rescale": True, "do_resize": True, "image_mean": [0.485, 0.456, 0.406],
          "image_processor_type": "ViTImageProcessor", "image_std": [0.229, 0.224, 0.225], "resample": 2,
          "rescale_factor": 1 / 255, "size": {"height": 32, "width": 32}}
    w = vit_weights(config, torch.Generator().manual_seed(4321))
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(dict(config, tfx_random_weights=True), f, indent=1)  # tfx says so in every output
    with open(os.path.join(d, "preprocessor_config.json"), "w") as f:
        json.dump(pp, f, indent=1)
    write_safetensors(os.path.join(d, "model.safetensors"), w, {"format": "pt"})
    picture = os.path.join(d, "picture.png")
    vit_picture(picture)
    pixels = vit_pixel_values(picture, pp)
    hidden, attns, logits = vit_forward(config, w, pixels)
    nh, na, nl, roll = vit_numpy_forward(config, w, pixels)
    worst = max([float(np.abs(a.numpy() - b).max()) for a, b in zip(hidden + attns, nh + na)] + [float(np.abs(logits.numpy() - nl).max())])
    assert worst < 1e-4, f"torch and numpy ViT forwards differ by {worst}"
    ref = {"pixel_values": pixels, "hidden_states": torch.stack(hidden), "attentions": torch.stack(attns), "logits": logits,
           "rollout_cls": torch.tensor(roll, dtype=torch.float32)}
    write_safetensors(os.path.join(d, "reference.safetensors"), {k: v.detach().contiguous() for k, v in ref.items()})
    print(name, {k: list(v.shape) for k, v in ref.items()}, "torch vs numpy:", worst)


def main():
    torch.manual_seed(0)
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    models = []
    n_bert = 5 + len(BERT_WORDS)
    bert = {"model_type": "bert", "architectures": ["BertForMaskedLM"], "hidden_size": 32, "num_hidden_layers": 2,
            "num_attention_heads": 4, "intermediate_size": 64, "vocab_size": n_bert, "max_position_embeddings": 16,
            "type_vocab_size": 2, "layer_norm_eps": 1e-12, "hidden_act": "gelu"}
    gpt2 = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_embd": 32, "n_layer": 2, "n_head": 4, "n_positions": 16,
            "vocab_size": 272, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new", "n_inner": None}
    llama = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 32, "num_hidden_layers": 2,
             "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 48, "vocab_size": 400,
             "max_position_embeddings": 32, "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "hidden_act": "silu",
             "tie_word_embeddings": False}
    models.append(("bert", bert, "bert", {}))
    models.append(("bert_legacy", dict(bert, architectures=["BertModel"]), "bert", {"legacy": True}))
    models.append(("gpt2", gpt2, "gpt2", {}))
    models.append(("gpt2_f16", gpt2, "gpt2", {"dtype": torch.float16}))
    models.append(("gpt2_bf16", gpt2, "gpt2", {"dtype": torch.bfloat16}))
    models.append(("gpt2_sharded", gpt2, "gpt2", {"shards": 2}))
    models.append(("llama", llama, "llama", {}))
    models.append(("llama_tied", dict(llama, tie_word_embeddings=True, num_key_value_heads=4), "llama", {}))
    models.append(("llama_linear", dict(llama, rope_scaling={"rope_type": "linear", "factor": 4.0}), "llama", {}))
    models.append(("llama_dynamic", dict(llama, max_position_embeddings=8, rope_scaling={"type": "dynamic", "factor": 2.0}), "llama", {}))
    models.append(("llama_yarn", dict(llama, rope_scaling={"rope_type": "yarn", "factor": 4.0}), "llama", {}))
    models.append(("llama_llama3", dict(llama, rope_theta=500000.0,
                                        rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                                      "high_freq_factor": 4.0, "original_max_position_embeddings": 16}), "llama", {}))
    models.append(("qwen2", dict(llama, model_type="qwen2", architectures=["Qwen2ForCausalLM"], tie_word_embeddings=True,
                                 rope_theta=1000000.0), "llama", {}))
    models.append(("mistral", dict(llama, model_type="mistral", architectures=["MistralForCausalLM"], sliding_window=4), "llama", {}))
    for name, config, family, opt in models:
        g = torch.Generator().manual_seed(abs(hash(family)) % 1000 if False else 1234 + len(name))
        d = os.path.join(OUT, name)
        os.makedirs(d)
        if family == "bert":
            w = bert_weights(config, g, mlm=not opt.get("legacy"))
            write_bert_tokenizer(d)
            ids = [2, 5, 7, 4, 10, 11, 5, 12, 3]  # [CLS] the cat [MASK] on mat the … [SEP]
            hidden, attns, logits = bert_forward(config, w, ids)
        elif family == "gpt2":
            w = gpt2_weights(config, torch.Generator().manual_seed(77))  # the same weights for every gpt2 copy
            write_gpt2_tokenizer(d)
            ids = [256, 105, 72, 259, 262, 7, 265, 40, 0, 271 - 1]
            if opt.get("dtype"):
                w = {k: v.to(opt["dtype"]) for k, v in w.items()}
            wf = {k: v.float() for k, v in w.items()}
            hidden, attns, logits = gpt2_forward(config, wf, ids)
        else:
            w = llama_weights(config, g)
            shutil.copy(TOKENIZER_LLAMA, os.path.join(d, "tokenizer.json"))
            ids = [1, 259, 311, 361, 259, 340, 344, 332, 326, 334, 259, 325]
            hidden, attns, logits = llama_forward(config, w, ids)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(dict(config, tfx_random_weights=True), f, indent=1)  # tfx says so in every output
        saved = dict(w)
        if opt.get("legacy"):  # no "bert." prefix, LayerNorm gamma/beta as older BERT files spell them
            saved = {}
            for k, v in w.items():
                k = k[len("bert."):] if k.startswith("bert.") else k
                if k.endswith("LayerNorm.weight"):
                    k = k[: -len("weight")] + "gamma"
                elif k.endswith("LayerNorm.bias"):
                    k = k[: -len("bias")] + "beta"
                saved[k] = v
        if opt.get("shards"):
            names = sorted(saved)
            half = len(names) // 2
            parts = [names[:half], names[half:]]
            index = {"metadata": {"total_size": sum(saved[n].numel() * 4 for n in names)}, "weight_map": {}}
            for i, part in enumerate(parts):
                fn = f"model-{i + 1:05d}-of-{len(parts):05d}.safetensors"
                write_safetensors(os.path.join(d, fn), {n: saved[n] for n in part}, {"format": "pt"})
                for n in part:
                    index["weight_map"][n] = fn
            with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
                json.dump(index, f, indent=1)
        else:
            write_safetensors(os.path.join(d, "model.safetensors"), saved, {"format": "pt"})
        ref = {"input_ids": torch.tensor(ids, dtype=torch.float32), "hidden_states": torch.stack(hidden),
               "attentions": torch.stack(attns)}
        if logits is not None:
            ref["logits"] = logits
        write_safetensors(os.path.join(d, "reference.safetensors"), {k: v.detach().contiguous() for k, v in ref.items()})
        print(name, {k: list(v.shape) for k, v in ref.items()})


if __name__ == "__main__":
    import sys
    with torch.no_grad():
        if sys.argv[1:] == ["vit"]:  # only the ViT folder (the others stay as they are)
            make_vit()
        else:
            main()
            make_vit()
