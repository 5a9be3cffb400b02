#!/bin/bash
# Trains tfx's built-in `teaching-gpt` with tfx itself (issue 46): `tfx train gpt` on the built-in
# corpus data/teaching_gpt/corpus.txt (10,000 short Korean and English sentences of a small world,
# written by scripts/gen_teaching_corpus.py), and writes data/teaching_gpt/{config.json,
# model.safetensors,tokenizer.json}, which cmake/teaching_model.cmake compiles into tfx; every model
# command then opens it as `teaching-gpt` (include/tfx/model/builtin_models.hpp).
#
# Usage: scripts/train_teaching_gpt.sh [path/to/tfx] [OUT_DIR]   (defaults: build/tfx, data/teaching_gpt)
#
# Fixed seed and threads: the same tfx gives the same bytes (tests/cli/teaching_gpt_test.cpp checks
# that two short runs with one seed and thread count write identical model.safetensors). The model:
# GPT-2 layout, d_model 128, 3 layers, 4 heads, context 48, a 1536-token byte-level BPE learned from
# the corpus (" Paris" is one token), 797,824 parameters, 3.2 MB of F32 (3.27 MB with tokenizer.json
# and config.json); 800 steps of 16 windows. Measured 2026-11-29 on the shared 2-core machine under a
# load average of about 10: 737 s wall, 184 s of CPU; mean loss of the last 100 steps 0.75,
# held-out 0.85. Rebuild tfx afterwards to embed the new files.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tfx=${1:-$here/build/tfx}
out=${2:-$here/data/teaching_gpt}
corpus=$here/data/teaching_gpt/corpus.txt
tmp=$(mktemp -d "${TMPDIR:-/tmp}/teaching-gpt.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$tfx" train gpt --text "$corpus" -o "$tmp/model" \
  --vocab-size 1536 --d-model 128 --layers 3 --heads 4 --context 48 \
  --batch 16 --steps 800 --warmup 100 --lr 0.003 --seed 46 --threads 2 \
  --every 100 --prompt "The capital of France is" --no-progress
mkdir -p "$out"
for f in config.json model.safetensors tokenizer.json; do
  cp "$tmp/model/$f" "$out/$f.tmp"
  mv "$out/$f.tmp" "$out/$f"
done
ls -l "$out"/config.json "$out"/model.safetensors "$out"/tokenizer.json
"$tfx" model next "$out" "The capital of France is" --top 3 || true
