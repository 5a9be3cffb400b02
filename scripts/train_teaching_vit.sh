#!/bin/bash
# Trains tfx's built-in `teaching-vit` with tfx itself (issue 46): `tfx train vit` on the built-in
# shape pictures (circle, square, triangle, cross, ring, diamond at random size, position, angle and
# colour on a noisy background; tfx/figure/shapes.hpp), and writes data/teaching_vit/{config.json,
# preprocessor_config.json,model.safetensors}, which cmake/teaching_model.cmake compiles into tfx;
# every model command then opens it as `teaching-vit` (include/tfx/model/builtin_models.hpp).
#
# Usage: scripts/train_teaching_vit.sh [path/to/tfx] [OUT_DIR]   (defaults: build/tfx, data/teaching_vit)
#
# Fixed seed and threads: the same tfx gives the same bytes. Rebuild tfx afterwards to embed the new files.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tfx=${1:-$here/build/tfx}
out=${2:-$here/data/teaching_vit}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/teaching-vit.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$tfx" train vit -o "$tmp/model" \
  --image 32 --patch 8 --d-model 64 --layers 3 --heads 4 \
  --batch 32 --steps 12000 --warmup 300 --lr 0.002 --seed 46 --threads 2 \
  --every 1000 --no-progress
mkdir -p "$out"
for f in config.json preprocessor_config.json model.safetensors; do
  cp "$tmp/model/$f" "$out/$f.tmp"
  mv "$out/$f.tmp" "$out/$f"
done
ls -l "$out"/config.json "$out"/preprocessor_config.json "$out"/model.safetensors
