#!/usr/bin/env bash
# Benchmark: `tfx pe sim --len 4096 --dim 512 --format npy -o x.npy` against numpy (build P,
# P @ P.T with its BLAS, np.save) measured in the same run with hyperfine; prints the ratio
# tfx / numpy (target ≤ 2). Usage: bench/pe_sim.sh [build/tfx] [L] [D]
set -euo pipefail
TFX=$(realpath "${1:-build/tfx}")
L=${2:-4096}
D=${3:-512}
PY=/usr/bin/python3  # the interpreter with numpy (not a pyenv shim)
command -v hyperfine >/dev/null || { echo "pe_sim.sh: hyperfine is not installed (apt-get install hyperfine)" >&2; exit 1; }
$PY -c 'import numpy' 2>/dev/null || { echo "pe_sim.sh: $PY has no numpy (apt-get install python3-numpy)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/np_pe_sim.py" <<PY
import sys
import numpy as np
L, D = $L, $D
pos = np.arange(L, dtype=np.float64)[:, None]
div = np.exp(-np.arange(0, D, 2, dtype=np.float64) * np.log(10000.0) / D)
P = np.zeros((L, D), dtype=np.float32)
P[:, 0::2] = np.sin(pos * div)
P[:, 1::2] = np.cos(pos * div)
np.save(sys.argv[1], P @ P.T)
PY
cd "$work"
hyperfine --warmup 1 --runs "${RUNS:-5}" --export-json times.json \
  -n tfx "$TFX pe sim --len $L --dim $D --format npy -o x.npy" \
  -n numpy "$PY np_pe_sim.py y.npy" >&2
# same matrix (float32 rounding apart)
$PY - <<'PY'
import json
import numpy as np
a, b = np.load("x.npy"), np.load("y.npy")
assert a.shape == b.shape, (a.shape, b.shape)
t = {r["command"]: r for r in json.load(open("times.json"))["results"]}
ratio = t["tfx"]["median"] / t["numpy"]["median"]
print(f"pe sim L={a.shape[0]}: tfx {t['tfx']['median']:.3f} s, numpy {t['numpy']['median']:.3f} s (medians), "
      f"ratio tfx/numpy = {ratio:.2f} (target <= 2); max |tfx - numpy| = {np.abs(a - b).max():.2g}")
PY
