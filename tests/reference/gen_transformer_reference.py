#!/usr/bin/python3
# Generates the PyTorch reference for tfx's encoder/decoder layers and multi-head attention with
# real weights: small safetensors files of PyTorch's own state_dict (tests/reference/*.safetensors,
# written here with struct + json, independently of tfx's writer), the inputs as .npy, and
# tests/reference/transformer_reference.hpp with the expected outputs as C++ constants.
# Run once with Debian's python3-torch (1.13): /usr/bin/python3 tests/reference/gen_transformer_reference.py
# The tests themselves do not need torch.
import json
import os
import struct

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(15)
D, H, F, T, S = 8, 2, 16, 4, 5


def f16_bits(t):
    return t.to(torch.float16).numpy().view(np.uint16).tolist()


def bf16_bits(t):
    # bfloat16 = the top 16 bits of float32 after round-to-nearest-even (torch does the rounding)
    return (t.to(torch.bfloat16).to(torch.float32).numpy().view(np.uint32) >> 16).astype(np.uint16).tolist()


def write_safetensors(path, tensors, dtype="F32"):
    """tensors: name -> float32 tensor, written in name order as `dtype`."""
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().contiguous().to(torch.float32)
        flat = t.reshape(-1)
        if dtype == "F32":
            blob = struct.pack("<%df" % flat.numel(), *flat.tolist())
        elif dtype == "F16":
            blob = struct.pack("<%dH" % flat.numel(), *f16_bits(flat))
        else:
            blob = struct.pack("<%dH" % flat.numel(), *bf16_bits(flat))
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def randomize(module):
    # every parameter random (biases and LayerNorm γ/β too), so each one is exercised
    with torch.no_grad():
        for name, p in module.named_parameters():
            if name.endswith("norm1.weight") or name.endswith("norm2.weight") or name.endswith("norm3.weight"):
                p.copy_(1.0 + 0.2 * torch.randn_like(p))
            else:
                p.copy_(0.4 * torch.randn_like(p))
    return module.eval()


def state(module):
    return {k: v for k, v in module.state_dict().items()}


out = []


def emit(name, t):
    t = t.detach().to(torch.float64).reshape(t.shape[-2] if t.dim() > 1 else 1, -1)
    rows = ",\n".join("    " + ", ".join("%.9g" % x for x in r) for r in t.tolist())
    out.append("// %s %s\ninline const std::vector<float> %s = {\n%s};\n" % (name, list(t.shape), name, rows))


X = torch.randn(T, D)
M = torch.randn(S, D)
np.save(os.path.join(HERE, "transformer_x.npy"), X.numpy().astype(np.float32))
np.save(os.path.join(HERE, "transformer_memory.npy"), M.numpy().astype(np.float32))
emit("kX", X)
emit("kMemory", M)

with torch.no_grad():
    # 1. nn.MultiheadAttention: self-attention on X; output and head-averaged weights
    mha = randomize(torch.nn.MultiheadAttention(D, H, batch_first=True))
    write_safetensors(os.path.join(HERE, "mha.safetensors"), state(mha))
    o, w = mha(X[None], X[None], X[None], need_weights=True, average_attn_weights=True)
    emit("kMhaOutput", o[0])
    emit("kMhaWeights", w[0])
    # the same weights stored as F16 and BF16: torch run on the rounded weights
    for dtype, conv in (("F16", torch.float16), ("BF16", torch.bfloat16)):
        rounded = {k: v.to(conv).to(torch.float32) for k, v in state(mha).items()}
        write_safetensors(os.path.join(HERE, "mha_%s.safetensors" % dtype.lower()), rounded, dtype)
        m2 = torch.nn.MultiheadAttention(D, H, batch_first=True).eval()
        m2.load_state_dict(rounded)
        o2, _ = m2(X[None], X[None], X[None], need_weights=True)
        emit("kMha%sOutput" % dtype.capitalize(), o2[0])

    # 2. nn.TransformerEncoderLayer, post-LN (the paper's and PyTorch's default)
    enc = randomize(torch.nn.TransformerEncoderLayer(D, H, F, dropout=0.0, batch_first=True))
    write_safetensors(os.path.join(HERE, "encoder_layer.safetensors"), state(enc))
    emit("kEncoderLayer", enc(X[None])[0])
    # 3. pre-LN (norm_first=True) with the same weights
    pre = torch.nn.TransformerEncoderLayer(D, H, F, dropout=0.0, batch_first=True, norm_first=True).eval()
    pre.load_state_dict(state(enc))
    emit("kEncoderLayerNormFirst", pre(X[None])[0])
    # 4. nn.TransformerEncoder with 2 layers (keys layers.0.*, layers.1.*)
    layer = torch.nn.TransformerEncoderLayer(D, H, F, dropout=0.0, batch_first=True)
    enc2 = randomize(torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False))
    write_safetensors(os.path.join(HERE, "encoder_2layers.safetensors"), state(enc2))
    emit("kEncoder2Layers", enc2(X[None])[0])
    # 5. nn.TransformerDecoderLayer: causal self-attention over X, cross-attention over M
    dec = randomize(torch.nn.TransformerDecoderLayer(D, H, F, dropout=0.0, batch_first=True))
    write_safetensors(os.path.join(HERE, "decoder_layer.safetensors"), state(dec))
    causal = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
    emit("kDecoderLayer", dec(X[None], M[None], tgt_mask=causal)[0])
    # the decoder's two attention weight tables (head-averaged), as tfx prints them
    _, ws = dec.self_attn(X[None], X[None], X[None], attn_mask=causal, need_weights=True)
    emit("kDecoderSelfWeights", ws[0])
    h1 = dec.norm1(X[None] + dec.self_attn(X[None], X[None], X[None], attn_mask=causal, need_weights=False)[0])
    _, wc = dec.multihead_attn(h1, M[None], M[None], need_weights=True)
    emit("kDecoderCrossWeights", wc[0])

with open(os.path.join(HERE, "transformer_reference.hpp"), "w") as f:
    f.write("// Generated by tests/reference/gen_transformer_reference.py with PyTorch %s (float32, eval,\n"
            "// dropout 0, batch_first=True). Do not edit; re-run the script. d_model = %d, heads = %d,\n"
            "// dim_feedforward = %d, target length T = %d, memory length S = %d. Row-major (rows, cols).\n"
            "#pragma once\n#include <vector>\n\nnamespace tfx::reference {\n\n" % (torch.__version__, D, H, F, T, S))
    f.write("\n".join(out))
    f.write("\n}  // namespace tfx::reference\n")
print("wrote", len(out), "constants")
