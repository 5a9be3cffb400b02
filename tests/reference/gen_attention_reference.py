#!/usr/bin/python3
# Generates the PyTorch reference constants pasted into tests/attention_test.cpp.
# Run once with Debian's python3-torch (1.13.1): /usr/bin/python3 tests/reference/gen_attention_reference.py
# The tests themselves do not need torch.
import math
import torch

torch.set_printoptions(precision=10)
dt = torch.float64

Q = torch.tensor([[0.5, -1.0, 2.0, 0.0], [1.5, 0.25, -0.5, 1.0], [-2.0, 0.5, 1.0, -1.5]], dtype=dt)
K = torch.tensor([[1.0, 0.0, -1.0, 2.0], [0.5, 1.5, 0.5, -0.5], [-1.0, 2.0, 0.0, 1.0], [2.0, -0.5, 1.5, 0.0]], dtype=dt)
V = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.0, 1.0], [0.5, -0.5, 2.0], [3.0, 1.0, -2.0]], dtype=dt)

def show(name, t):
    rows = ",\n".join("    {" + ", ".join(f"{x:.10f}" for x in r) + "}" for r in t.tolist())
    print(f"// {name} {list(t.shape)}\n{{\n{rows}\n}}")

# 1. plain scaled dot-product attention
w = torch.softmax(Q @ K.T / math.sqrt(4), dim=-1)
show("weights softmax(QK^T/2)", w)
show("Z", w @ V)
# 2. causal (top-left, tril of ones(3, 4)) and padding (last key) masks
causal = torch.ones(3, 4, dtype=torch.bool).tril()
wc = torch.softmax((Q @ K.T / 2).masked_fill(~causal, float("-inf")), dim=-1)
show("causal weights", wc)
pad = torch.ones(3, 4, dtype=torch.bool)
pad[:, 3] = False
wp = torch.softmax((Q @ K.T / 2).masked_fill(~pad, float("-inf")), dim=-1)
show("pad 1 weights", wp)
show("pad 1 Z", wp @ V)

# 3. nn.MultiheadAttention, 2 heads, no bias, self-attention on X with fixed weights.
#    torch computes x @ W.T, so in_proj_weight rows = our (D, D) W_Q columns: pass W_Q.T.
X = torch.tensor([[0.2, -0.4, 1.0, 0.6], [1.2, 0.3, -0.7, 0.1], [-0.5, 0.9, 0.4, -1.1]], dtype=dt)
WQ = torch.tensor([[0.3, -0.2, 0.5, 0.1], [0.0, 0.4, -0.3, 0.2], [-0.1, 0.6, 0.2, -0.5], [0.7, 0.1, 0.0, 0.3]], dtype=dt)
WK = torch.tensor([[0.2, 0.1, -0.4, 0.3], [0.5, -0.6, 0.1, 0.0], [0.0, 0.3, 0.3, -0.2], [-0.3, 0.2, 0.6, 0.4]], dtype=dt)
WV = torch.tensor([[0.1, 0.2, 0.3, 0.4], [-0.4, 0.3, -0.2, 0.1], [0.6, -0.1, 0.0, 0.2], [0.2, 0.5, -0.3, -0.6]], dtype=dt)
WO = torch.tensor([[0.4, -0.1, 0.2, 0.0], [0.1, 0.3, -0.5, 0.2], [-0.2, 0.6, 0.1, 0.3], [0.0, -0.3, 0.4, 0.5]], dtype=dt)
mha = torch.nn.MultiheadAttention(4, 2, bias=False, batch_first=True, dtype=dt)
with torch.no_grad():
    mha.in_proj_weight.copy_(torch.cat([WQ.T, WK.T, WV.T], dim=0))
    mha.out_proj.weight.copy_(WO.T)
out, weights = mha(X[None], X[None], X[None], need_weights=True, average_attn_weights=False)
show("MHA head 0 weights", weights[0, 0])
show("MHA head 1 weights", weights[0, 1])
show("MHA output", out[0])
causal3 = torch.ones(3, 3, dtype=torch.bool).tril()
outc, wcm = mha(X[None], X[None], X[None], attn_mask=~causal3, need_weights=True, average_attn_weights=False)
show("MHA causal head 1 weights", wcm[0, 1])
show("MHA causal output", outc[0])
