#!/usr/bin/python3
# Generates the PyTorch reference for tfx's training pass (src/model/train/train.cpp), with Debian's
# python3-torch 1.13: /usr/bin/python3 tests/reference/gen_train_reference.py
# Writes tests/reference/train_reference.safetensors (written here with struct + json, not with
# tfx's writer), about 100 KB, which tests/model/train_test.cpp reads; the tests do not need torch.
#
# A tiny model of the translator's shape (V 11, d_model 8, 2 heads, 2 encoder + 2 decoder layers,
# FFN 16; nn.TransformerEncoderLayer / nn.TransformerDecoderLayer, batch_first, dropout 0, ReLU) with
# random weights (every bias and LayerNorm γ/β random too), and four padded batches of 3 pairs.
# Stored:
#   param.NAME            the initial weights (float32), PyTorch state_dict names
#   grad.NAME             ∂loss/∂NAME on batch 0 (post-LN, PE, 1/√d_k; label smoothing 0.1)
#   grad_variant.NAME     the same for pre-LN (norm_first), no PE, no 1/√d_k
#   loss, loss_variant    the loss of batch 0 in both settings (1)
#   batch{i}.source/target_in/target_out   ids as float32, pad = 0, <bos> = 1, <eos> = 2
#   losses                the first 50 training steps' losses (post-LN): step s (1-based) uses
#                         batch (s−1) mod 4, Adam(β 0.9/0.98, ε 1e-9) with lr = 8^−0.5·min(s^−0.5,
#                         s·10^−1.5) (the lecture's warm-up, warm-up 10)
#   adam.NAME             param.NAME after three torch.optim.Adam steps (lr 0.01, same betas/ε)
#                         with grad.NAME as the gradient each time
# The forward/backward runs in float64 from the float32 weights, so the reference is the exact
# value up to float64 rounding; tfx computes in float32.
import json
import math
import os
import struct
import types

import torch
import torch.nn.functional as F
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
V, D, H, FFN, LAYERS = 11, 8, 2, 16, 2
PAD, BOS, EOS = 0, 1, 2
SMOOTHING = 0.1


def sinusoidal(T, d):
    pe = torch.zeros(T, d, dtype=torch.float64)
    pos = torch.arange(T, dtype=torch.float64)[:, None]
    i = torch.arange(0, d, 2, dtype=torch.float64)
    angle = pos / torch.pow(10000.0, i / d)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle)
    return pe.float().double()  # tfx adds the float32 PE


class Model(nn.Module):
    def __init__(self, norm_first, pe):
        super().__init__()
        self.embedding = nn.Embedding(V, D)
        enc = nn.TransformerEncoderLayer(D, H, FFN, dropout=0.0, batch_first=True, norm_first=norm_first)
        dec = nn.TransformerDecoderLayer(D, H, FFN, dropout=0.0, batch_first=True, norm_first=norm_first)
        self.encoder = nn.TransformerEncoder(enc, LAYERS, enable_nested_tensor=False)
        self.decoder = nn.TransformerDecoder(dec, LAYERS)
        self.generator = nn.Linear(D, V)
        self.use_pe = pe

    def embed(self, ids):
        x = self.embedding(ids)
        return x + sinusoidal(ids.shape[1], D)[None] if self.use_pe else x

    def forward(self, src, tin):
        T = tin.shape[1]
        causal = torch.triu(torch.full((T, T), float("-inf"), dtype=torch.float64), diagonal=1)
        sp, tp = src == PAD, tin == PAD
        memory = self.encoder(self.embed(src), src_key_padding_mask=sp)
        y = self.decoder(self.embed(tin), memory, tgt_mask=causal, tgt_key_padding_mask=tp, memory_key_padding_mask=sp)
        return self.generator(y)


class NoScale:
    """Inside: F.multi_head_attention_forward computes q / math.sqrt(E) with sqrt = 1 (no 1/√d_k)."""

    def __enter__(self):
        self.saved = F.math
        F.math = types.SimpleNamespace(**{k: getattr(math, k) for k in dir(math) if not k.startswith("_")})
        F.math.sqrt = lambda x: 1.0

    def __exit__(self, *a):
        F.math = self.saved


def make_batches(gen):
    batches = []
    for shape in ((3, [4, 2, 3], [3, 5, 1]), (3, [1, 4, 4], [2, 2, 4]), (3, [3, 3, 2], [5, 1, 3]), (3, [2, 4, 1], [4, 3, 2])):
        B, slen, tlen = shape
        S, T = max(slen), max(tlen) + 1
        src = torch.full((B, S), PAD)
        tin = torch.full((B, T), PAD)
        tout = torch.full((B, T), PAD)
        for b in range(B):
            s = torch.randint(3, V, (slen[b],), generator=gen)
            t = torch.randint(3, V, (tlen[b],), generator=gen)
            src[b, : slen[b]] = s
            tin[b, 0] = BOS
            tin[b, 1 : tlen[b] + 1] = t
            tout[b, : tlen[b]] = t
            tout[b, tlen[b]] = EOS
        batches.append((src, tin, tout))
    return batches


def loss_of(model, batch):
    src, tin, tout = batch
    logits = model(src, tin)
    return F.cross_entropy(logits.reshape(-1, V), tout.reshape(-1), ignore_index=PAD, label_smoothing=SMOOTHING)


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
    torch.manual_seed(40)
    gen = torch.Generator().manual_seed(40)
    base = Model(False, True)
    with torch.no_grad():
        for name, p in base.named_parameters():
            if ".norm" in name and name.endswith("weight"):
                p.copy_(1.0 + 0.2 * torch.randn_like(p))
            elif name == "embedding.weight":
                p.copy_(torch.randn_like(p))
            else:
                p.copy_(0.3 * torch.randn_like(p))
    init = {k: v.detach().clone().float() for k, v in base.state_dict().items()}
    batches = make_batches(gen)
    out = {"param." + k: v for k, v in init.items()}
    for i, (s, ti, to) in enumerate(batches):
        out["batch%d.source" % i], out["batch%d.target_in" % i], out["batch%d.target_out" % i] = s.float(), ti.float(), to.float()

    def fresh(norm_first, pe):
        m = Model(norm_first, pe)
        m.load_state_dict(init)
        return m.double().train()

    m = fresh(False, True)
    loss = loss_of(m, batches[0])
    loss.backward()
    out["loss"] = loss.detach().reshape(1)
    for k, p in m.named_parameters():
        out["grad." + k] = p.grad

    m = fresh(True, False)
    with NoScale():
        loss_v = loss_of(m, batches[0])
    # the patch must have changed the result (else it did not reach the attention)
    with torch.no_grad():
        assert abs(float(loss_v) - float(loss_of(m, batches[0]))) > 1e-6
    loss_v.backward()
    out["loss_variant"] = loss_v.detach().reshape(1)
    for k, p in m.named_parameters():
        out["grad_variant." + k] = p.grad

    # 50 steps of training
    m = fresh(False, True)
    opt = torch.optim.Adam(m.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: D ** -0.5 * min((s + 1) ** -0.5, (s + 1) * 10 ** -1.5))
    losses = []
    for step in range(50):
        loss = loss_of(m, batches[step % 4])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(float(loss))
    out["losses"] = torch.tensor(losses, dtype=torch.float64)

    # three Adam steps with a fixed gradient, in float32 as torch.optim.Adam runs on float32 weights
    params = {k: nn.Parameter(v.clone()) for k, v in init.items()}
    opt = torch.optim.Adam(params.values(), lr=0.01, betas=(0.9, 0.98), eps=1e-9)
    for _ in range(3):
        for k, p in params.items():
            p.grad = out["grad." + k].float().clone()
        opt.step()
    for k, p in params.items():
        out["adam." + k] = p.detach()

    write_safetensors(os.path.join(HERE, "train_reference.safetensors"), out)
    print("loss %.6f, variant %.6f, step 50 loss %.6f" % (float(out["loss"]), float(out["loss_variant"]), losses[-1]))


if __name__ == "__main__":
    main()
