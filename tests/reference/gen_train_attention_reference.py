#!/usr/bin/python3
# The PyTorch reference for tfx train --compare's attention measurements (ForwardExtras::
# want_attention_stats in src/model/train/train.cpp), with Debian's python3-torch 1.13:
#   /usr/bin/python3 tests/reference/gen_train_attention_reference.py
# On train_reference.safetensors' tiny model (param.*, post-LN, PE, 1/√d_k) and its batch 0, the
# encoder self-attention (both layers, both heads, the real query rows of each sentence):
#   entropy        mean over those rows of −Σ_j a_j ln a_j
#   score_grad     ‖∂loss/∂s‖ over them, s = the softmax's input (QKᵀ/√d_k plus the padding mask)
# taken with autograd (retain_grad on the softmax's input inside nn.MultiheadAttention). Prints the
# two numbers, which tests/cli/train_compare_cli_test.cpp carries.
import json
import os
import struct

import torch
import torch.nn.functional as F

import gen_train_reference as ref

HERE = os.path.dirname(os.path.abspath(__file__))


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8 : 8 + n])
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        a, b = info["data_offsets"]
        vals = struct.unpack("<%df" % ((b - a) // 4), data[8 + n + a : 8 + n + b])
        out[name] = torch.tensor(vals, dtype=torch.float32).reshape(info["shape"])
    return out


def main():
    t = read_safetensors(os.path.join(HERE, "train_reference.safetensors"))
    init = {k[len("param.") :]: v for k, v in t.items() if k.startswith("param.")}
    batch = tuple(t["batch0." + w].long() for w in ("source", "target_in", "target_out"))
    m = ref.Model(False, True)
    m.load_state_dict(init)
    m = m.double().train()

    inputs, weights = [], []
    plain = F.softmax

    def recording(x, *a, **k):
        x.retain_grad()
        inputs.append(x)
        y = plain(x, *a, **k)
        weights.append(y)
        return y

    F.softmax = recording
    try:
        loss = ref.loss_of(m, batch)
    finally:
        F.softmax = plain
    loss.backward()
    # the encoder runs first: its LAYERS self-attentions are the first softmax calls, (B·H, S, S)
    src = batch[0]
    B, S = src.shape
    lengths = (src != ref.PAD).sum(dim=1)
    entropy, rows, sq = 0.0, 0, 0.0
    for x, w in zip(inputs[: ref.LAYERS], weights[: ref.LAYERS]):
        assert tuple(w.shape) == (B * ref.H, S, S), w.shape
        g = x.grad
        for b in range(B):
            for h in range(ref.H):
                n = int(lengths[b])
                a = w[b * ref.H + h, :n].detach()
                entropy += float(-(a * torch.log(a.clamp_min(1e-300))).sum())
                rows += n
                sq += float((g[b * ref.H + h] ** 2).sum())  # padded query rows: gradient 0
    print("entropy %.9f score_grad %.9f (loss %.6f)" % (entropy / rows, sq**0.5, float(loss)))


if __name__ == "__main__":
    main()
