#!/usr/bin/python3
"""References for the microscope (tfx model lens / ablate / patch; tests/model/microscope_test.cpp):
an independent numpy forward (float64, the safetensors read here with numpy, the steps after Hugging
Face's modeling_gpt2/llama/qwen3/bert/vit) of the tiny checkpoints in tests/data/hf_models, with the
same interventions, hooked into the forward directly (no resumed passes: every run starts from the
embeddings):
  - the logit lens: softmax(final norm + head (the stream entering block l)), l = 0 … L;
  - head ablation: head h's slice of the attention output (before the output projection) set to
    zero or to its mean over the positions; the last position's logits, and the (L, H) change of
    log p(target) (target = the clean run's top token) for every head alone;
  - activation patching: the corrupted run with the stream entering block l at position p replaced
    by the clean run's; logit(clean answer) − logit(corrupt answer) at the last position, (L, T).
Writes tests/reference/microscope_reference.inc. Deterministic; rerun after gen_hf_models.py:

    /usr/bin/python3 tests/reference/gen_microscope_reference.py
"""
import json
import math
import os
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "data", "hf_models")
OUT = os.path.join(HERE, "microscope_reference.inc")

# model → (family, the single ablation (layer, head), the multi-head ablation)
CASES = {
    "gpt2": ("gpt2", (1, 2), [(0, 1), (1, 3)]),
    "llama": ("llama", (1, 2), [(0, 1), (1, 3)]),
    "qwen2": ("llama", (1, 2), [(0, 1), (1, 3)]),
    "qwen3": ("llama", (1, 2), [(0, 1), (1, 3)]),
    "mistral": ("llama", (1, 2), [(0, 1), (1, 3)]),
    "bert": ("bert", (1, 2), [(0, 1), (1, 3)]),
    "vit": ("vit", (1, 1), [(0, 0), (1, 1)]),
}


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    out = {}
    for name, h in header.items():
        if name == "__metadata__":
            continue
        b, e = h["data_offsets"]
        raw = data[8 + n + b:8 + n + e]
        if h["dtype"] == "F32":
            a = np.frombuffer(raw, dtype=np.float32)
        elif h["dtype"] == "F16":
            a = np.frombuffer(raw, dtype=np.float16).astype(np.float32)
        elif h["dtype"] == "BF16":
            a = (np.frombuffer(raw, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)
        else:
            raise ValueError(h["dtype"])
        out[name] = a.reshape(h["shape"]).astype(np.float64)
    return out


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + eps) * w + b


def rms_norm(x, w, eps):
    return w * (x / np.sqrt((x * x).mean(-1, keepdims=True) + eps))


def softmax(s):
    s = np.exp(s - s.max(-1, keepdims=True))
    return s / s.sum(-1, keepdims=True)


erf = np.vectorize(math.erf)


def gelu_erf(x):
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def intervene_heads(z, layer, H, hd, ablate):
    """z (T, H·hd): each (layer, head, mode) of `ablate` at this layer → zero or its mean over T."""
    for (l, h, mode) in ablate:
        if l != layer:
            continue
        cols = slice(h * hd, (h + 1) * hd)
        z[:, cols] = 0.0 if mode == "zero" else z[:, cols].mean(0, keepdims=True)
    return z


class Model:
    """One tiny checkpoint: its weights and a forward with the interventions as arguments."""

    def __init__(self, name, family):
        self.name, self.family = name, family
        d = os.path.join(MODELS, name)
        with open(os.path.join(d, "config.json")) as f:
            self.c = json.load(f)
        w = read_safetensors(os.path.join(d, "model.safetensors"))
        # names without the base model's prefix
        self.w = {k.split("transformer.", 1)[-1] if family == "gpt2" else k: v for k, v in w.items()}
        ref = read_safetensors(os.path.join(d, "reference.safetensors"))
        self.input = ref["pixel_values"] if family == "vit" else [int(i) for i in ref["input_ids"]]
        c = self.c
        self.L = c.get("n_layer", c.get("num_hidden_layers"))
        self.H = c.get("n_head", c.get("num_attention_heads"))

    # ---- the stream entering block 0
    def embed(self, inp):
        c, w = self.c, self.w
        if self.family == "gpt2":
            return w["wte.weight"][inp] + w["wpe.weight"][:len(inp)]
        if self.family == "llama":
            return w["model.embed_tokens.weight"][inp]
        if self.family == "bert":
            x = w["bert.embeddings.word_embeddings.weight"][inp] + w["bert.embeddings.position_embeddings.weight"][:len(inp)] + \
                w["bert.embeddings.token_type_embeddings.weight"][0]
            return layer_norm(x, w["bert.embeddings.LayerNorm.weight"], w["bert.embeddings.LayerNorm.bias"], c["layer_norm_eps"])
        # vit: the patches (reading order, columns c·P² + y·P + x) × the flattened kernel, [CLS] first, + positions
        D, P, C = c["hidden_size"], c["patch_size"], c["num_channels"]
        g = inp.shape[1] // P
        patches = inp.reshape(C, g, P, g, P).transpose(1, 3, 0, 2, 4).reshape(g * g, C * P * P)
        emb = patches @ w["vit.embeddings.patch_embeddings.projection.weight"].reshape(D, -1).T + w["vit.embeddings.patch_embeddings.projection.bias"]
        return np.concatenate([w["vit.embeddings.cls_token"].reshape(1, D), emb]) + w["vit.embeddings.position_embeddings"][0]

    # ---- one block: x (T, D) entering block i → leaving it
    def block(self, x, i, ablate):
        c, w, H, T = self.c, self.w, self.H, x.shape[0]
        if self.family == "gpt2":
            D, eps = c["n_embd"], c["layer_norm_epsilon"]
            hd, p = D // H, f"h.{i}."
            a = layer_norm(x, w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
            q, k, v = np.split(a @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"], 3, axis=1)
            s = np.einsum("qhd,khd->hqk", q.reshape(T, H, hd), k.reshape(T, H, hd)) / math.sqrt(hd)
            s = np.where(np.tril(np.ones((T, T), dtype=bool)), s, -np.inf)
            z = np.einsum("hqk,khd->qhd", softmax(s), v.reshape(T, H, hd)).reshape(T, D)
            z = intervene_heads(z, i, H, hd, ablate)
            x = x + z @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
            f = layer_norm(x, w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps) @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"]
            return x + gelu_tanh(f) @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
        if self.family == "llama":
            D, KV = c["hidden_size"], c.get("num_key_value_heads", H)
            hd, eps, p = c.get("head_dim", D // H), c["rms_norm_eps"], f"model.layers.{i}."
            lin = lambda t, m: t @ w[p + m + ".weight"].T + w.get(p + m + ".bias", 0.0)
            a = rms_norm(x, w[p + "input_layernorm.weight"], eps)
            q, k = lin(a, "self_attn.q_proj").reshape(T, H, hd), lin(a, "self_attn.k_proj").reshape(T, KV, hd)
            v = lin(a, "self_attn.v_proj").reshape(T, KV, hd)
            if p + "self_attn.q_norm.weight" in w:  # Qwen3: RMSNorm per head before RoPE
                q, k = rms_norm(q, w[p + "self_attn.q_norm.weight"], eps), rms_norm(k, w[p + "self_attn.k_norm.weight"], eps)
            # RoPE, rotate_half layout, default scaling; angles in float32 as HF
            inv = (1.0 / (np.float32(c.get("rope_theta", 10000.0)) ** (np.arange(0, hd, 2).astype(np.float32) / np.float32(hd)))).astype(np.float32)
            ang = (np.arange(T, dtype=np.float32)[:, None] * inv[None, :]).astype(np.float64)
            cos, sin = np.cos(np.concatenate([ang, ang], -1))[:, None, :], np.sin(np.concatenate([ang, ang], -1))[:, None, :]
            rot = lambda t: np.concatenate([-t[..., hd // 2:], t[..., :hd // 2]], -1)
            q, k = q * cos + rot(q) * sin, k * cos + rot(k) * sin
            k, v = np.repeat(k, H // KV, axis=1), np.repeat(v, H // KV, axis=1)
            s = np.einsum("qhd,khd->hqk", q, k) / math.sqrt(hd)
            visible = np.tril(np.ones((T, T), dtype=bool))
            if c.get("model_type") == "mistral" and c.get("sliding_window"):  # MistralAttention: the last window keys
                visible &= ~np.tril(np.ones((T, T), dtype=bool), -c["sliding_window"])
            s = np.where(visible, s, -np.inf)
            z = np.einsum("hqk,khd->qhd", softmax(s), v).reshape(T, H * hd)
            z = intervene_heads(z, i, H, hd, ablate)
            x = x + lin(z, "self_attn.o_proj")
            b = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
            g = lin(b, "mlp.gate_proj")
            return x + lin(g / (1 + np.exp(-g)) * lin(b, "mlp.up_proj"), "mlp.down_proj")
        # bert (post-LN) and vit (pre-LN): no mask
        D, eps = c["hidden_size"], c["layer_norm_eps"]
        hd = D // H
        if self.family == "bert":
            p = f"bert.encoder.layer.{i}."
            names = ("attention.self.", "attention.output.dense", "intermediate.dense", "output.dense")
        else:
            p = f"vit.encoder.layer.{i}."
            names = ("attention.attention.", "attention.output.dense", "intermediate.dense", "output.dense")
        lin = lambda t, m: t @ w[p + m + ".weight"].T + w[p + m + ".bias"]
        a = x if self.family == "bert" else layer_norm(x, w[p + "layernorm_before.weight"], w[p + "layernorm_before.bias"], eps)
        q, k, v = (lin(a, names[0] + m).reshape(T, H, hd) for m in ("query", "key", "value"))
        z = np.einsum("hqk,khd->qhd", softmax(np.einsum("qhd,khd->hqk", q, k) / math.sqrt(hd)), v).reshape(T, D)
        z = intervene_heads(z, i, H, hd, ablate)
        if self.family == "bert":
            h = layer_norm(lin(z, names[1]) + x, w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], eps)
            return layer_norm(lin(gelu_erf(lin(h, names[2])), names[3]) + h, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
        r = lin(z, names[1]) + x
        f = lin(layer_norm(r, w[p + "layernorm_after.weight"], w[p + "layernorm_after.bias"], eps), names[2])
        return lin(gelu_erf(f), names[3]) + r

    # ---- the final norm and the head of a stream (T, D) → (T, V); ViT: the classifier on every row
    def head(self, x):
        c, w = self.c, self.w
        if self.family == "gpt2":
            return layer_norm(x, w["ln_f.weight"], w["ln_f.bias"], c["layer_norm_epsilon"]) @ w["wte.weight"].T
        if self.family == "llama":
            h = w["model.embed_tokens.weight"] if c.get("tie_word_embeddings", False) else w["lm_head.weight"]
            return rms_norm(x, w["model.norm.weight"], c["rms_norm_eps"]) @ h.T
        if self.family == "bert":
            eps = c["layer_norm_eps"]
            t = gelu_erf(x @ w["cls.predictions.transform.dense.weight"].T + w["cls.predictions.transform.dense.bias"])
            t = layer_norm(t, w["cls.predictions.transform.LayerNorm.weight"], w["cls.predictions.transform.LayerNorm.bias"], eps)
            return t @ w["bert.embeddings.word_embeddings.weight"].T + w["cls.predictions.bias"]
        return layer_norm(x, w["vit.layernorm.weight"], w["vit.layernorm.bias"], c["layer_norm_eps"]) @ w["classifier.weight"].T + w["classifier.bias"]

    def forward(self, inp, ablate=(), patch=None):
        """→ the streams entering each block (L + 1) and the logits (T, V) (ViT: (1, labels), the [CLS] row).
        patch: (layer, position, value) written into the stream entering that block."""
        x = self.embed(inp)
        streams = []
        for i in range(self.L + 1):
            if patch is not None and patch[0] == i:
                x = x.copy()
                x[patch[1]] = patch[2]
            streams.append(x)
            if i < self.L:
                x = self.block(x, i, ablate)
        logits = self.head(x)
        return streams, (logits[:1] if self.family == "vit" else logits)


def log_softmax(z):
    z = z - z.max()
    return z - math.log(np.exp(z).sum())


def c_array(values):
    return "{" + ", ".join(f"{float(v):.9g}f" for v in np.asarray(values).ravel()) + "}"


def main():
    out = ["// Generated by tests/reference/gen_microscope_reference.py (an independent numpy forward, float64,",
           "// of the tiny checkpoints with the microscope's interventions); do not edit.", ""]
    for name, (family, single, multi) in CASES.items():
        m = Model(name, family)
        streams, logits = m.forward(m.input)
        T = streams[0].shape[0]
        # the lens at every layer and position
        lens = np.stack([np.apply_along_axis(lambda r: np.exp(log_softmax(r)), 1, m.head(s)) for s in streams])  # (L+1, T, V)
        last = logits[-1]
        final = int(np.argmax(last))
        t = T - 1
        # one head, zero and mean; several heads
        _, zero = m.forward(m.input, ablate=[(single[0], single[1], "zero")])
        _, mean = m.forward(m.input, ablate=[(single[0], single[1], "mean")])
        _, several = m.forward(m.input, ablate=[(l, h, "zero") for (l, h) in multi])
        # every head alone: Δ log p(final)
        before = log_softmax(last)[final]
        all_zero = np.array([[log_softmax(m.forward(m.input, ablate=[(l, h, "zero")])[1][-1])[final] - before for h in range(m.H)]
                             for l in range(m.L)])
        all_mean = np.array([[log_softmax(m.forward(m.input, ablate=[(l, h, "mean")])[1][-1])[final] - before for h in range(m.H)]
                             for l in range(m.L)])
        block = [f"// {name}: {T} positions, {m.L} layers × {m.H} heads",
                 f"const MicroscopeReference k_{name} = {{",
                 f'    "{name}", {single[0]}, {single[1]}, {{{", ".join(f"{{{l}, {h}}}" for (l, h) in multi)}}},',
                 f"    {final},",
                 f"    /* lens_top_id */ {{{', '.join(str(int(i)) for i in lens.argmax(-1).ravel())}}},",
                 f"    /* lens_top_p */ {c_array(lens.max(-1))},",
                 f"    /* lens_final_p */ {c_array(lens[:, :, final])},",
                 f"    /* lens_last */ {c_array(lens[:, t, :])},",
                 f"    /* zero_last */ {c_array(zero[-1])},",
                 f"    /* mean_last */ {c_array(mean[-1])},",
                 f"    /* several_last */ {c_array(several[-1])},",
                 f"    /* all_zero */ {c_array(all_zero)},",
                 f"    /* all_mean */ {c_array(all_mean)},"]
        if family != "vit":
            # the corrupted prompt: position 1 changed; the answers: each run's own top prediction
            corrupt = list(m.input)
            V = logits.shape[1]
            corrupt[1] = (corrupt[1] + 5) % V
            cstreams, clogits = m.forward(corrupt)
            ca, cb = final, int(np.argmax(clogits[-1]))
            if ca == cb:
                cb = int(np.argsort(clogits[-1])[-2])
            eff = np.array([[(lambda z: z[ca] - z[cb])(m.forward(corrupt, patch=(l, p, streams[l][p]))[1][-1]) for p in range(T)]
                            for l in range(m.L)])
            block += [f"    /* corrupt */ {{{', '.join(str(i) for i in corrupt)}}}, {ca}, {cb},",
                      f"    /* patch */ {c_array(eff)},"]
        else:
            block += ["    {}, 0, 0, {},"]
        block += ["};", ""]
        out += block
        print(name, "T", T, "final", final, "all_zero", np.round(all_zero, 4).tolist())
    out.append("const MicroscopeReference* const kMicroscopeReferences[] = {" + ", ".join(f"&k_{n}" for n in CASES) + "};")
    with open(OUT, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
