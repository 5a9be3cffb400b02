#!/usr/bin/env bash
# Issue 11 §6: the portable default build (kernels chosen at run time: AVX-512, AVX2+FMA or the
# SSE2/NEON baseline) must keep the GEMM speed of a -march=native build. Runs bench/matmul.sh on
# both builds, each against numpy in the same run, and prints their tfx/numpy ratios side by
# side with portable ÷ native (goal: within 10 %, i.e. ≥ 0.90).
#
#   bench/portable_vs_native.sh [n ...]     (default 256 512 1024; ROUNDS as for matmul.sh)
#
# Builds: BUILD_DIR (default build, portable) and NATIVE_DIR (default build-native,
# -DTFX_NATIVE=ON, only the bench_matmul target).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${BUILD_DIR:-build}"
NATIVE_DIR="${NATIVE_DIR:-build-native}"
cmake -S . -B "$NATIVE_DIR" -DCMAKE_BUILD_TYPE=Release -DTFX_NATIVE=ON -DTFX_BUILD_TESTS=OFF -DTFX_BUILD_BENCH=ON >/dev/null
cmake --build "$NATIVE_DIR" -j "$(nproc)" --target bench_matmul >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# one build after the other (each against numpy in its own run, so each tfx/numpy ratio saw one
# machine load; the GFLOP/s of the two builds come from runs a minute apart)
BUILD_DIR="$BUILD_DIR" bench/matmul.sh "$@" >"$work/portable.txt"
BUILD_DIR="$NATIVE_DIR" bench/matmul.sh "$@" >"$work/native.txt"
head -1 "$work/portable.txt"
echo "portable: the kernel chosen at run time ($("$BUILD_DIR/tfx" --version 2>/dev/null | head -1)); native: -march=native"
printf '%-10s %5s %7s %14s %14s %12s %12s %18s\n' op n threads portable_GF/s native_GF/s portable/np native/np portable÷native
join <(awk 'NR > 2 { print $1"/"$2"/"$3, $4, $6 }' "$work/portable.txt" | sort) \
     <(awk 'NR > 2 { print $1"/"$2"/"$3, $4, $6 }' "$work/native.txt" | sort) |
  awk '{ split($1, k, "/");
         printf "%-10s %5s %7s %14.1f %14.1f %12s %12s %18.2f\n", k[1], k[2], k[3], $2, $4, $3, $5, ($4 > 0 ? $2 / $4 : 0) }' |
  sort -k1,1 -k2,2n -k3,3n
