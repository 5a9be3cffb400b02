#!/usr/bin/env bash
# Benchmark: `tfx attention --x x.npy --identity --show output --format npy -o z.npy` (T tokens,
# d_model D: softmax(XXᵀ/√D)·X, including reading X and writing Z) against numpy doing the same
# (np.load, X @ X.T with its BLAS, a max-subtracted softmax, @ X, np.save), measured in the same
# hyperfine run; prints the median ratio tfx / numpy and the largest difference between the two Z.
# Usage: bench/attention.sh [build/tfx] [T] [D]     (default: 2048 tokens, D = 256)
set -euo pipefail
TFX=$(realpath "${1:-build/tfx}")
T=${2:-2048}
D=${3:-256}
PY=/usr/bin/python3  # the interpreter with numpy (not a pyenv shim)
command -v hyperfine >/dev/null || { echo "attention.sh: hyperfine is not installed (apt-get install hyperfine)" >&2; exit 1; }
$PY -c 'import numpy' 2>/dev/null || { echo "attention.sh: $PY has no numpy (apt-get install python3-numpy)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
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
hyperfine --warmup 1 --runs "${RUNS:-5}" --export-json times.json \
  -n tfx "$TFX attention --x x.npy --identity --show output --format npy -o z.npy" \
  -n numpy "$PY np_attention.py y.npy" >&2
$PY - <<'PY'
import json
import numpy as np
a, b = np.load("z.npy"), np.load("y.npy")
assert a.shape == b.shape, (a.shape, b.shape)
t = {r["command"]: r for r in json.load(open("times.json"))["results"]}
ratio = t["tfx"]["median"] / t["numpy"]["median"]
print(f"attention T={a.shape[0]} D={a.shape[1]}: tfx {t['tfx']['median']:.3f} s, numpy {t['numpy']['median']:.3f} s (medians), "
      f"ratio tfx/numpy = {ratio:.2f}; max |tfx - numpy| = {np.abs(a - b).max():.2g}")
PY
