#!/usr/bin/env bash
# Benchmark: `tfx train` with default flags (3000 steps of 32 pairs, the built-in translator's
# config and corpus split, held-out scoring, writing the model) against the committed PyTorch
# script that trained the built-in model (scripts/train_teaching_model.py: the same steps, batch
# and architecture; Debian's python3-torch, 2 threads), whole processes, one run each, on the
# same machine. Prints wall seconds and peak RSS of both and the ratio tfx / PyTorch.
# Usage: bench/train.sh [build/tfx] [THREADS] [STEPS]   (THREADS for tfx, default 2 = PyTorch's;
# STEPS for both, default 3000 — a small number such as 20 only checks that the bench still runs)
set -euo pipefail
TFX=${1:-build/tfx}
THREADS=${2:-2}
STEPS=${3:-3000}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
measure() {  # measure NAME CMD…: "wall_seconds max_rss_kB cpu_seconds" of the whole process
  /usr/bin/time -f '%e %M %U %S' -o "$work/$1.time" "${@:2}" >"$work/$1.out" 2>"$work/$1.err" || {
    echo "bench/train.sh: $1 failed:" >&2
    tail -3 "$work/$1.err" >&2
    exit 1
  }
  awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' "$work/$1.time"
}
read -r t_tfx rss_tfx cpu_tfx < <(measure tfx "$TFX" train --steps "$STEPS" --threads "$THREADS" --no-progress --format json -o "$work/model.safetensors")
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "tfx train: ${t_tfx} s, ${rss_tfx} kB peak RSS; PyTorch skipped (no python3-torch)"
  exit 0
fi
read -r t_pt rss_pt cpu_pt < <(measure torch /usr/bin/python3 "$here/scripts/train_teaching_model.py" --steps "$STEPS" --quiet --out "$work/pt")
echo "tfx train (threads $THREADS): $(grep -o '"held_out_exact": *[0-9.]*' "$work/tfx.out" | tail -1)"
echo "PyTorch: $(tail -1 "$work/torch.out" | grep -o '"test_exact_fraction": *[0-9.]*')"
awk -v a="$t_tfx" -v b="$t_pt" -v ra="$rss_tfx" -v rb="$rss_pt" -v ca="$cpu_tfx" -v cb="$cpu_pt" 'BEGIN {
  printf "CPU time (user + sys): tfx %.2f s, PyTorch %.2f s: tfx / PyTorch = %.3f\n", ca, cb, ca / cb
  printf "tfx %.2f s (peak RSS %.1f MB), PyTorch %.2f s (peak RSS %.1f MB): tfx / PyTorch = %.3f\n", a, ra / 1024, b, rb / 1024, a / b }'
