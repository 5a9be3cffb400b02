#!/usr/bin/env bash
# Benchmark: `tfx pe sim --len 4096 --dim 512 --format npy -o x.npy` against numpy (build P,
# P @ P.T with its BLAS, np.save) measured in the same run with hyperfine; prints the ratio
# tfx / numpy (target ≤ 2). Usage: bench/pe_sim.sh [build/tfx] [L] [D]
set -euo pipefail
L=${2:-4096}
D=${3:-512}
source "$(dirname "$0")/compare.sh"
peer_setup pe_sim.sh "${1:-}"
cat >np_pe_sim.py <<PY
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
# same matrix (float32 rounding apart)
compare_with_numpy "pe sim L=$L" "$TFX pe sim --len $L --dim $D --format npy -o x.npy" x.npy "$PY np_pe_sim.py y.npy" y.npy 2
