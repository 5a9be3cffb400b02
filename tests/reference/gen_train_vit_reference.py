#!/usr/bin/python3
# Generates the PyTorch reference for `tfx train vit` (src/model/train/vit_train.cpp), with Debian's
# python3-torch 1.13: /usr/bin/python3 tests/reference/gen_train_vit_reference.py
# Writes tests/reference/train_vit_reference.safetensors (written here with struct + json, not
# with tfx's writer), which tests/model/vit_train_test.cpp reads; the tests do not need torch.
#
# A tiny ViTForImageClassification (image 8, patch 4, 3 channels, hidden 16, 2 heads, 2 layers,
# 3 labels, layer_norm_eps 1e-12), written line by line after HF's modeling_vit.py (dropout 0):
# the patch embedding as F.conv2d(kernel = stride = 4) flattened and transposed (ViTPatchEmbeddings),
# [CLS] in front, + position_embeddings; pre-LN layers (layernorm_before, query/key/value,
# softmax(q·kᵀ/√hd)·v, attention.output.dense, + x; layernorm_after, intermediate.dense, GELU (erf),
# output.dense, + x); the final layernorm; the classifier on [CLS]; the mean cross-entropy.
# Random weights (LayerNorm γ = 1 + 0.2·N, every other tensor 0.3·N so that every gradient is far
# from 0). Stored:
#   param.NAME    the initial weights (float32), ViTForImageClassification's state_dict names
#   grad.NAME     ∂loss/∂NAME on batch 0
#   loss          the loss of batch 0 (1)
#   pixels        (STEPS, B, 3, 8, 8) pixel values: batch s feeds step s + 1
#   labels        (STEPS, B) class ids as float32
#   losses        the first STEPS training steps' losses: torch.optim.Adam (β 0.9/0.999, ε 1e-8)
#                 at lr(s) = linear warm-up to LR over WARMUP steps, then a cosine to LR/10 at STEPS
# The forward/backward runs in float64 from the float32 weights; tfx computes in float32.
import json
import math
import os
import struct

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
S, P, C, D, H, L, K, B = 8, 4, 3, 16, 2, 2, 3, 4
T = (S // P) ** 2 + 1
EPS = 1e-12
STEPS, LR, WARMUP = 50, 1e-2, 5


def names():
    out = [("vit.embeddings.cls_token", (1, 1, D)), ("vit.embeddings.position_embeddings", (1, T, D)),
           ("vit.embeddings.patch_embeddings.projection.weight", (D, C, P, P)),
           ("vit.embeddings.patch_embeddings.projection.bias", (D,))]
    for i in range(L):
        p = f"vit.encoder.layer.{i}."
        for n in ("attention.attention.query", "attention.attention.key", "attention.attention.value", "attention.output.dense"):
            out += [(p + n + ".weight", (D, D)), (p + n + ".bias", (D,))]
        out += [(p + "intermediate.dense.weight", (4 * D, D)), (p + "intermediate.dense.bias", (4 * D,)),
                (p + "output.dense.weight", (D, 4 * D)), (p + "output.dense.bias", (D,)),
                (p + "layernorm_before.weight", (D,)), (p + "layernorm_before.bias", (D,)),
                (p + "layernorm_after.weight", (D,)), (p + "layernorm_after.bias", (D,))]
    return out + [("vit.layernorm.weight", (D,)), ("vit.layernorm.bias", (D,)), ("classifier.weight", (K, D)),
                  ("classifier.bias", (K,))]


def loss_of(w, pixels, labels):
    """pixels (B, C, S, S), labels (B) -> mean cross-entropy; modeling_vit.py's ViTForImageClassification.forward"""
    n = pixels.shape[0]
    e = "vit.embeddings."
    patches = F.conv2d(pixels, w[e + "patch_embeddings.projection.weight"], w[e + "patch_embeddings.projection.bias"], stride=P)
    patches = patches.flatten(2).transpose(1, 2)  # (B, N, D)
    x = torch.cat([w[e + "cls_token"].expand(n, -1, -1), patches], dim=1) + w[e + "position_embeddings"]
    hd = D // H
    lin = lambda t, name: t @ w[name + ".weight"].T + w[name + ".bias"]
    for i in range(L):
        p = f"vit.encoder.layer.{i}."
        a = F.layer_norm(x, (D,), w[p + "layernorm_before.weight"], w[p + "layernorm_before.bias"], EPS)
        split = lambda t: t.view(n, T, H, hd).transpose(1, 2)  # (B, H, T, hd)
        q = split(lin(a, p + "attention.attention.query"))
        k = split(lin(a, p + "attention.attention.key"))
        v = split(lin(a, p + "attention.attention.value"))
        s = (q @ k.transpose(-1, -2)) / math.sqrt(hd)
        z = (torch.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(n, T, D)
        x = x + lin(z, p + "attention.output.dense")
        m = F.layer_norm(x, (D,), w[p + "layernorm_after.weight"], w[p + "layernorm_after.bias"], EPS)
        h = F.gelu(lin(m, p + "intermediate.dense"))  # erf form
        x = x + lin(h, p + "output.dense")
    x = F.layer_norm(x, (D,), w["vit.layernorm.weight"], w["vit.layernorm.bias"], EPS)
    logits = lin(x[:, 0], "classifier")
    return F.cross_entropy(logits, labels)


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
        if "layernorm" in name and name.endswith("weight"):
            init[name] = (1.0 + 0.2 * torch.randn(shape, generator=gen)).float()
        else:
            init[name] = (0.3 * torch.randn(shape, generator=gen)).float()
    # pictures with something to learn: class y brightens channel y of the left half
    labels = torch.randint(0, K, (STEPS, B), generator=gen)
    pixels = torch.randn(STEPS, B, C, S, S, generator=gen).float()
    for s in range(STEPS):
        for b in range(B):
            pixels[s, b, labels[s, b], :, : S // 2] += 1.5

    w = {k: v.double().clone().requires_grad_(True) for k, v in init.items()}
    loss = loss_of(w, pixels[0].double(), labels[0])
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
        l = loss_of(w, pixels[s].double(), labels[s])
        l.backward()
        opt.step()
        losses.append(l.item())
    out["losses"] = torch.tensor(losses)
    out["pixels"] = pixels
    out["labels"] = labels.float()
    path = os.path.join(HERE, "train_vit_reference.safetensors")
    write_safetensors(path, out)
    print(f"wrote {path}: loss {loss.item():.6f}, losses {losses[0]:.4f} → {losses[-1]:.4f}")


if __name__ == "__main__":
    main()
