#!/usr/bin/env bash
# Benchmark: `tfx attention --x x.npy --identity --show output --format npy -o z.npy` (T tokens,
# d_model D: softmax(XXᵀ/√D)·X, including reading X and writing Z) against numpy doing the same
# (np.load, X @ X.T with its BLAS, a max-subtracted softmax, @ X, np.save), measured in the same
# hyperfine run; prints the median ratio tfx / numpy and the largest difference between the two Z.
# Usage: bench/attention.sh [build/tfx] [T] [D]     (default: 2048 tokens, D = 256)
set -euo pipefail
T=${2:-2048}
D=${3:-256}
source "$(dirname "$0")/compare.sh"
peer_setup attention.sh "${1:-}"
$PY -c "
import numpy as np
np.save('x.npy', np.random.default_rng(42).uniform(-1, 1, ($T, $D)).astype(np.float32))"
cat >np_attention.py <<'PY'
import sys
import numpy as np
x = np.load("x.npy")
s = (x @ x.T) / np.float32(np.sqrt(x.shape[1]))
s -= s.max(axis=1, keepdims=True)
w = np.exp(s)
w /= w.sum(axis=1, keepdims=True)
np.save(sys.argv[1], w @ x)
PY
compare_with_numpy "attention T=$T D=$D" "$TFX attention --x x.npy --identity --show output --format npy -o z.npy" z.npy \
  "$PY np_attention.py y.npy" y.npy
