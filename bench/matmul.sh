#!/usr/bin/env bash
# matmul benchmark: tfx's own kernel against numpy (OpenBLAS) on the same float32 products, in
# the same run. Builds bench_matmul, then for each n runs tfx and numpy back to back (so both see
# the same machine load) on one thread and on all threads, and prints GFLOP/s and tfx/numpy.
#
#   bench/matmul.sh [n ...]        (default: 256 512 1024)
#   ROUNDS=5 bench/matmul.sh       (alternating rounds per case, best kept; default 3)
#
# Peer: /usr/bin/python3 with Debian's python3-numpy; OpenBLAS (libopenblas0-pthread) is
# installed when missing, otherwise numpy would fall back to the slow reference BLAS. The
# one-thread figure sets OPENBLAS_NUM_THREADS=1; "all" uses every hardware thread on both sides.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${BUILD_DIR:-build}"
PY=/usr/bin/python3
ROUNDS="${ROUNDS:-3}"
sizes=("$@")
((${#sizes[@]})) || sizes=(256 512 1024)

missing=()
for p in python3-numpy libopenblas0-pthread; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bench: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  { $sudo apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; } ||
    echo "bench: could not install ${missing[*]}; continuing with what is there" >&2
fi
have_numpy=1
"$PY" -c 'import numpy' 2>/dev/null || { have_numpy=0; echo "bench: no numpy for $PY: tfx figures only" >&2; }

cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DTFX_BUILD_BENCH=ON >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)" --target bench_matmul >/dev/null

all=$(nproc)
# numpy's figure for one n and one thread count, as lines "op n threads gflops"; the timing rule
# is bench_matmul's: best of at least 3 runs filling at least 0.5 s, 2·n³ flops per product.
numpy_bench() {
  OPENBLAS_NUM_THREADS="$2" "$PY" - "$1" "$2" <<'EOF'
import sys, time
import numpy as np
n, threads = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(42)
a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
def best(f):
    times = []
    while len(times) < 3 or sum(times) < 0.5:
        t0 = time.perf_counter(); f(); times.append(time.perf_counter() - t0)
    return min(times)
flops = 2.0 * n ** 3
print("matmul", n, threads, flops / best(lambda: a @ b) * 1e-9)
print("matmul_bt", n, threads, flops / best(lambda: a @ b.T) * 1e-9)
EOF
}

blas="none"
((have_numpy)) && blas=$("$PY" -c 'import numpy as np; a = np.ones((64, 64), np.float32); a @ a
import os
print(next((l.split()[-1] for l in open("/proc/self/maps") if "blas" in os.path.basename(l.split()[-1])), "unknown"))')
echo "matmul, float32, square n×n: GFLOP/s (2n³ flops / best time, best of $ROUNDS alternating rounds); numpy's BLAS: $blas"
printf '%-10s %5s %7s %9s %9s %10s\n' op n threads tfx numpy tfx/numpy
for n in "${sizes[@]}"; do
  for t in 1 "$all"; do
    # ROUNDS alternating rounds of tfx then numpy; each side keeps its best round, so a burst of
    # load from other processes during one round does not decide the ratio
    tfx_lines="" np_lines=""
    for ((r = 0; r < ROUNDS; ++r)); do
      tfx_lines+=$("$BUILD_DIR/bench_matmul" --threads "$t" "$n" | tail -n +2)$'\n'
      if ((have_numpy)); then np_lines+=$(numpy_bench "$n" "$t")$'\n'; fi
    done
    join -a 1 <(awk 'NF {k = $1"/"$2"/"$3; if ($5 > b[k]) b[k] = $5} END {for (k in b) print k, b[k]}' <<<"$tfx_lines" | sort) \
              <(awk 'NF {k = $1"/"$2"/"$3; if ($4 > b[k]) b[k] = $4} END {for (k in b) print k, b[k]}' <<<"$np_lines" | sort) |
      awk '{split($1, k, "/");
            if (NF == 3) printf "%-10s %5s %7s %9.1f %9.1f %10.2f\n", k[1], k[2], k[3], $2, $3, $2 / $3;
            else printf "%-10s %5s %7s %9.1f %9s %10s\n", k[1], k[2], k[3], $2, "-", "-"}' |
      sort -k1,1
    [ "$all" -gt 1 ] || break
  done
done
