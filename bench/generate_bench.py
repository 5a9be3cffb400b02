#!/usr/bin/python3
"""Generation benchmark: a Qwen2.5-0.5B-shaped checkpoint (24 layers, d 896, 14 heads, 2 KV heads,
FFN 4864, vocabulary 151,936, q/k/v biases, tied head; random BF16 weights in Hugging Face's
layout, ~988 MB) or a GPT-2-small-shaped one in F16, and PyTorch 1.13 generating with a KV cache
from the same file, beside bench_generate (tfx).

    bench/generate_bench.py make-qwen DIR          writes DIR/config.json, DIR/model.safetensors (BF16)
    bench/generate_bench.py make-gpt2-f16 DIR      GPT-2 small shape, F16 (~250 MB)
    bench/generate_bench.py torch DIR P N DTYPE    PyTorch: prefill of P tokens (best of 3) and N
                                                   greedy decode steps with a KV cache (median per
                                                   token); DTYPE bf16 (the weights as stored) or f32
                                                   (converted once, before timing). Prints
                                                   "torch_prefill_seconds A torch_token_seconds B".

The model is written in plain torch after modeling_qwen2.py (RMSNorm, RoPE rotate-half, GQA,
SwiGLU), weights read through np.memmap (no copy for bf16). Random weights: the text is noise,
the timing is real. The same prompt ids as bench_generate: (i·7919 + 13) mod V.
"""
import json
import math
import os
import struct
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

QWEN = {"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], "hidden_size": 896, "num_hidden_layers": 24,
        "num_attention_heads": 14, "num_key_value_heads": 2, "intermediate_size": 4864, "vocab_size": 151936,
        "max_position_embeddings": 32768, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "hidden_act": "silu",
        "tie_word_embeddings": True, "torch_dtype": "bfloat16"}
GPT2 = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_embd": 768, "n_layer": 12, "n_head": 12,
        "n_positions": 1024, "vocab_size": 50257, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new",
        "n_inner": None, "torch_dtype": "float16"}


def write_streaming(path, shapes, dtype, gen):
    """safetensors written tensor by tensor (random normal · 0.02), never the whole model in memory."""
    name_of = {torch.bfloat16: "BF16", torch.float16: "F16"}
    header, offset = {}, 0
    for name, shape in shapes:
        n = 2 * math.prod(shape)
        header[name] = {"dtype": name_of[dtype], "shape": list(shape), "data_offsets": [offset, offset + n]}
        offset += n
    header["__metadata__"] = {"format": "pt"}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for name, shape in shapes:
            t = torch.randn(*shape, generator=gen) * 0.02
            if name.endswith("norm.weight") or (".ln_" in name and name.endswith(".weight")):
                t = t + 1  # norm gains around 1
            f.write(t.to(dtype).view(torch.int16).numpy().tobytes())


def make_qwen(d):
    os.makedirs(d, exist_ok=True)
    c = QWEN
    D, F_, V, H, KV = c["hidden_size"], c["intermediate_size"], c["vocab_size"], c["num_attention_heads"], c["num_key_value_heads"]
    hd = D // H
    shapes = [("model.embed_tokens.weight", (V, D)), ("model.norm.weight", (D,))]
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        shapes += [(p + "input_layernorm.weight", (D,)), (p + "post_attention_layernorm.weight", (D,)),
                   (p + "self_attn.q_proj.weight", (H * hd, D)), (p + "self_attn.q_proj.bias", (H * hd,)),
                   (p + "self_attn.k_proj.weight", (KV * hd, D)), (p + "self_attn.k_proj.bias", (KV * hd,)),
                   (p + "self_attn.v_proj.weight", (KV * hd, D)), (p + "self_attn.v_proj.bias", (KV * hd,)),
                   (p + "self_attn.o_proj.weight", (D, H * hd)),
                   (p + "mlp.gate_proj.weight", (F_, D)), (p + "mlp.up_proj.weight", (F_, D)), (p + "mlp.down_proj.weight", (D, F_))]
    write_streaming(os.path.join(d, "model.safetensors"), shapes, torch.bfloat16, torch.Generator().manual_seed(5))
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(dict(c, tfx_random_weights=True), f, indent=1)  # tfx says so in every output


def make_gpt2_f16(d):
    os.makedirs(d, exist_ok=True)
    c = GPT2
    D, V, P = c["n_embd"], c["vocab_size"], c["n_positions"]
    shapes = [("transformer.wte.weight", (V, D)), ("transformer.wpe.weight", (P, D)),
              ("transformer.ln_f.weight", (D,)), ("transformer.ln_f.bias", (D,))]
    for i in range(c["n_layer"]):
        p = f"transformer.h.{i}."
        shapes += [(p + "ln_1.weight", (D,)), (p + "ln_1.bias", (D,)), (p + "attn.c_attn.weight", (D, 3 * D)),
                   (p + "attn.c_attn.bias", (3 * D,)), (p + "attn.c_proj.weight", (D, D)), (p + "attn.c_proj.bias", (D,)),
                   (p + "ln_2.weight", (D,)), (p + "ln_2.bias", (D,)), (p + "mlp.c_fc.weight", (D, 4 * D)),
                   (p + "mlp.c_fc.bias", (4 * D,)), (p + "mlp.c_proj.weight", (4 * D, D)), (p + "mlp.c_proj.bias", (D,))]
    write_streaming(os.path.join(d, "model.safetensors"), shapes, torch.float16, torch.Generator().manual_seed(6))
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(dict(c, tfx_random_weights=True), f, indent=1)  # tfx says so in every output


def load(d, dtype):
    raw = np.memmap(os.path.join(d, "model.safetensors"), dtype=np.uint8, mode="r")
    n = int(np.frombuffer(raw[:8], dtype="<u8")[0])
    header = json.loads(bytes(raw[8:8 + n]))
    base, w = 8 + n, {}
    for name, h in header.items():
        if name == "__metadata__":
            continue
        b, e = h["data_offsets"]
        t = torch.from_numpy(np.asarray(raw[base + b:base + e]).view(np.int16)).view(torch.bfloat16).reshape(h["shape"])
        w[name[len("model."):] if name.startswith("model.") else name] = t if dtype == "bf16" else t.float()
    return w


class Qwen2:
    def __init__(self, c, w, cap):
        self.c, self.w = c, w
        self.D, self.H, self.KV = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"]
        self.hd = self.D // self.H
        dt = w["embed_tokens.weight"].dtype
        inv = 1.0 / (c["rope_theta"] ** (torch.arange(0, self.hd, 2).float() / self.hd))
        fr = torch.arange(cap).float()[:, None] * inv[None, :]
        emb = torch.cat((fr, fr), dim=-1)
        self.cos, self.sin = emb.cos().to(dt), emb.sin().to(dt)
        L = c["num_hidden_layers"]
        self.k = [torch.zeros(self.KV, cap, self.hd, dtype=dt) for _ in range(L)]
        self.v = [torch.zeros(self.KV, cap, self.hd, dtype=dt) for _ in range(L)]
        self.n = 0

    def rms(self, x, weight):
        xf = x.float()
        return weight * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.c["rms_norm_eps"])).to(x.dtype)

    def feed(self, ids):
        w, T, H, KV, hd = self.w, len(ids), self.H, self.KV, self.hd
        n0, n1 = self.n, self.n + len(ids)
        cos, sin = self.cos[n0:n1], self.sin[n0:n1]

        def rot(x):
            x1, x2 = x[..., : hd // 2], x[..., hd // 2:]
            return x * cos + torch.cat((-x2, x1), dim=-1) * sin

        x = w["embed_tokens.weight"][ids]
        mask = None
        if T > 1:
            mask = torch.full((T, n1), float("-inf")).triu(n0 + 1).to(x.dtype)
        for i in range(self.c["num_hidden_layers"]):
            p = f"layers.{i}."
            a = self.rms(x, w[p + "input_layernorm.weight"])
            q = F.linear(a, w[p + "self_attn.q_proj.weight"], w[p + "self_attn.q_proj.bias"]).view(T, H, hd).transpose(0, 1)
            k = F.linear(a, w[p + "self_attn.k_proj.weight"], w[p + "self_attn.k_proj.bias"]).view(T, KV, hd).transpose(0, 1)
            v = F.linear(a, w[p + "self_attn.v_proj.weight"], w[p + "self_attn.v_proj.bias"]).view(T, KV, hd).transpose(0, 1)
            q, k = rot(q), rot(k)
            self.k[i][:, n0:n1] = k
            self.v[i][:, n0:n1] = v
            kk = self.k[i][:, :n1].repeat_interleave(H // KV, dim=0)
            vv = self.v[i][:, :n1].repeat_interleave(H // KV, dim=0)
            s = q @ kk.transpose(-1, -2) / math.sqrt(hd)
            if mask is not None:
                s = s + mask
            z = (s.float().softmax(-1).to(x.dtype) @ vv).transpose(0, 1).reshape(T, H * hd)
            x = x + F.linear(z, w[p + "self_attn.o_proj.weight"])
            b = self.rms(x, w[p + "post_attention_layernorm.weight"])
            x = x + F.linear(F.silu(F.linear(b, w[p + "mlp.gate_proj.weight"])) * F.linear(b, w[p + "mlp.up_proj.weight"]),
                             w[p + "mlp.down_proj.weight"])
        self.n = n1
        last = self.rms(x[-1:], w["norm.weight"])
        return (last @ w["embed_tokens.weight"].T)[0]


def bench_torch(d, P, N, dtype):
    # PyTorch's default here is 1 thread (OpenMP counts one core's worth); tfx uses every core, so
    # PyTorch gets the same count: the comparison is per machine, not per thread
    torch.set_num_threads(os.cpu_count() or 1)
    with open(os.path.join(d, "config.json")) as f:
        c = json.load(f)
    w = load(d, dtype)
    for t in w.values():  # read every page once (the page cache), as tfx's run does
        float(t.reshape(-1)[:: max(1, t.numel() // 4096)].float().sum())
    V = c["vocab_size"]
    prompt = [(i * 7919 + 13) % V for i in range(P)]
    best = 1e30
    steps = []
    for r in range(3):
        m = Qwen2(c, w, P + N)
        t0 = time.perf_counter()
        logits = m.feed(prompt)
        best = min(best, time.perf_counter() - t0)
        if r < 2:
            continue
        for _ in range(N):
            nxt = int(torch.argmax(logits))
            t1 = time.perf_counter()
            logits = m.feed([nxt])
            steps.append(time.perf_counter() - t1)
    steps.sort()
    print(f"torch_prefill_seconds {best:.6f} torch_token_seconds {steps[len(steps) // 2]:.6f} threads {torch.get_num_threads()} dtype {dtype}")


if __name__ == "__main__":
    with torch.no_grad():
        if sys.argv[1] == "make-qwen":
            make_qwen(sys.argv[2])
        elif sys.argv[1] == "make-gpt2-f16":
            make_gpt2_f16(sys.argv[2])
        elif sys.argv[1] == "torch":
            bench_torch(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
        else:
            sys.exit(__doc__)
