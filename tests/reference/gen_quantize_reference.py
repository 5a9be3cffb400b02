#!/usr/bin/env python3
"""The next-token cost of quantization (tfx/model/quantize.hpp's next_token_cost), computed with
numpy on fixed logits, for tests/model/quantize_model_test.cpp, which carries the printed constants:

    ref[t, v] = float32(2 sin(1.3 t + 0.7 v)),  q[t, v] = float32(ref[t, v] + 0.3 cos(2.1 t + 0.3 v)),
    T = 5 positions, V = 7 tokens, ids = 1, 3, 0, 6, 2

    KL    mean over t of sum_v p_ref (log p_ref - log p_q)
    top1  share of t with argmax p_ref = argmax p_q
    ppl   exp(mean over t < T-1 of -log p(ids[t+1] | t)) under each

    /usr/bin/python3 tests/reference/gen_quantize_reference.py
"""
import numpy as np

T, V = 5, 7
ids = [1, 3, 0, 6, 2]
t = np.arange(T, dtype=np.float64)[:, None]
v = np.arange(V, dtype=np.float64)[None, :]
ref = (2 * np.sin(1.3 * t + 0.7 * v)).astype(np.float32)
q = (ref.astype(np.float64) + 0.3 * np.cos(2.1 * t + 0.3 * v)).astype(np.float32)


def log_softmax(x):
    x = x.astype(np.float64)
    m = x.max(axis=1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=1, keepdims=True))


a, b = log_softmax(ref), log_softmax(q)
kl = float(np.mean(np.sum(np.exp(a) * (a - b), axis=1)))
top1 = float(np.mean(a.argmax(axis=1) == b.argmax(axis=1)))
nll_a = -np.mean([a[i, ids[i + 1]] for i in range(T - 1)])
nll_b = -np.mean([b[i, ids[i + 1]] for i in range(T - 1)])
print(f"kl = {kl!r}\ntop1 = {top1!r}\nppl_ref = {float(np.exp(nll_a))!r}\nppl_q = {float(np.exp(nll_b))!r}")
