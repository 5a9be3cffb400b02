#!/usr/bin/python3
# Generates the PyTorch reference for `tfx train gpt` (src/model/train/gpt2_train.cpp), with Debian's
# python3-torch 1.13: /usr/bin/python3 tests/reference/gen_train_gpt_reference.py
# Writes tests/reference/train_gpt_reference.safetensors (written here with struct + json, not
# with tfx's writer), about 100 KB, which tests/model/gpt2_train_test.cpp reads; the tests do not
# need torch.
#
# A tiny GPT-2 (V 40, n_embd 16, 2 heads, 2 layers, context 8), written line by line after HF's
# modeling_gpt2.py (GPT2LMHeadModel, dropout 0): wte + wpe, pre-LN blocks (ln_1, c_attn Conv1D
# (in, out), causal softmax(q·kᵀ/√hd), c_proj; ln_2, c_fc, GELU tanh ("gelu_new"), c_proj), ln_f,
# the head tied to wte, the mean cross-entropy of each position's next token. Random weights
# (LayerNorm γ = 1 + 0.2·N, every other tensor 0.3·N so that every gradient is far from 0).
# Stored:
#   param.NAME    the initial weights (float32), GPT2LMHeadModel's state_dict names
#   grad.NAME     ∂loss/∂NAME on batch 0
#   loss          the loss of batch 0 (1)
#   batches       (STEPS, B, T + 1) ids as float32: batch s feeds step s + 1
#   losses        the first STEPS training steps' losses: torch.optim.Adam (β 0.9/0.999, ε 1e-8)
#                 at lr(s) = linear warm-up to LR over WARMUP steps, then a cosine to LR/10 at STEPS
#                 (tfx's gpt2_learning_rate)
# The forward/backward runs in float64 from the float32 weights; tfx computes in float32.
import json
import math
import os
import struct

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
V, D, H, L, T, B = 40, 16, 2, 2, 8, 3
STEPS, LR, WARMUP = 40, 1e-2, 5


def names():
    out = [("transformer.wte.weight", (V, D)), ("transformer.wpe.weight", (T, D))]
    for i in range(L):
        p = f"transformer.h.{i}."
        out += [(p + "ln_1.weight", (D,)), (p + "ln_1.bias", (D,)), (p + "attn.c_attn.weight", (D, 3 * D)),
                (p + "attn.c_attn.bias", (3 * D,)), (p + "attn.c_proj.weight", (D, D)), (p + "attn.c_proj.bias", (D,)),
                (p + "ln_2.weight", (D,)), (p + "ln_2.bias", (D,)), (p + "mlp.c_fc.weight", (D, 4 * D)),
                (p + "mlp.c_fc.bias", (4 * D,)), (p + "mlp.c_proj.weight", (4 * D, D)), (p + "mlp.c_proj.bias", (D,))]
    return out + [("transformer.ln_f.weight", (D,)), ("transformer.ln_f.bias", (D,))]


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def loss_of(w, ids):
    """ids (B, T+1) -> mean next-token cross-entropy; modeling_gpt2.py's GPT2LMHeadModel.forward"""
    x_ids, y = ids[:, :-1], ids[:, 1:]
    n = x_ids.shape[1]
    x = w["transformer.wte.weight"][x_ids] + w["transformer.wpe.weight"][:n]
    hd = D // H
    causal = torch.tril(torch.ones(n, n, dtype=torch.bool))
    for i in range(L):
        p = f"transformer.h.{i}."
        a = F.layer_norm(x, (D,), w[p + "ln_1.weight"], w[p + "ln_1.bias"], 1e-5)
        qkv = a @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]  # Conv1D: x·W + b
        q, k, v = qkv.split(D, dim=-1)
        split = lambda t: t.view(t.shape[0], n, H, hd).transpose(1, 2)  # (B, H, T, hd)
        q, k, v = split(q), split(k), split(v)
        s = (q @ k.transpose(-1, -2)) / math.sqrt(hd)
        s = s.masked_fill(~causal, float("-inf"))
        z = (torch.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(x.shape[0], n, D)
        x = x + z @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        m = F.layer_norm(x, (D,), w[p + "ln_2.weight"], w[p + "ln_2.bias"], 1e-5)
        h = gelu_new(m @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"])
        x = x + h @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
    x = F.layer_norm(x, (D,), w["transformer.ln_f.weight"], w["transformer.ln_f.bias"], 1e-5)
    logits = x @ w["transformer.wte.weight"].T
    return F.cross_entropy(logits.reshape(-1, V), y.reshape(-1))


def learning_rate(step):
    if step <= WARMUP:
        return LR * step / WARMUP
    progress = min((step - WARMUP) / (STEPS - WARMUP), 1.0)
    return LR / 10 + (LR - LR / 10) * 0.5 * (1 + math.cos(math.pi * progress))


def write_safetensors(path, tensors):
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name in sorted(tensors):
        flat = tensors[name].detach().contiguous().to(torch.float32).reshape(-1)
        blob = struct.pack("<%df" % flat.numel(), *flat.tolist())
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def main():
    gen = torch.Generator().manual_seed(46)
    init = {}
    for name, shape in names():
        if "ln_" in name and name.endswith("weight"):
            init[name] = (1.0 + 0.2 * torch.randn(shape, generator=gen)).float()
        else:
            init[name] = (0.3 * torch.randn(shape, generator=gen)).float()
    # a stream with structure to learn (each id mostly follows from the one before), cut into windows
    stream = [0]
    for _ in range(2000):
        r = torch.randint(0, 10, (1,), generator=gen).item()
        stream.append((stream[-1] * 7 + 3) % V if r < 8 else torch.randint(0, V, (1,), generator=gen).item())
    batches = torch.zeros(STEPS, B, T + 1, dtype=torch.long)
    for s in range(STEPS):
        for b in range(B):
            at = torch.randint(0, len(stream) - T, (1,), generator=gen).item()
            batches[s, b] = torch.tensor(stream[at:at + T + 1])

    w = {k: v.double().clone().requires_grad_(True) for k, v in init.items()}
    loss = loss_of(w, batches[0])
    loss.backward()
    out = {"param." + k: v for k, v in init.items()}
    out.update({"grad." + k: v.grad for k, v in w.items()})
    out["loss"] = loss.detach().reshape(1)

    w = {k: v.double().clone().requires_grad_(True) for k, v in init.items()}
    order = [k for k, _ in names()]
    opt = torch.optim.Adam([w[k] for k in order], lr=LR, betas=(0.9, 0.999), eps=1e-8)
    losses = []
    for s in range(STEPS):
        for group in opt.param_groups:
            group["lr"] = learning_rate(s + 1)
        opt.zero_grad()
        l = loss_of(w, batches[s])
        l.backward()
        opt.step()
        losses.append(l.item())
    out["losses"] = torch.tensor(losses)
    out["batches"] = batches.float()
    path = os.path.join(HERE, "train_gpt_reference.safetensors")
    write_safetensors(path, out)
    print(f"wrote {path}: loss {loss.item():.6f}, losses {losses[0]:.4f} → {losses[-1]:.4f}")


if __name__ == "__main__":
    main()
