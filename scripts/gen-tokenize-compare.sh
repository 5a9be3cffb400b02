#!/bin/sh
# Draws docs/img/tokenize_compare_en.png and docs/img/tokenize_compare_ko.png for docs/models.md:
# `tfx model tokenize --compare` on the same paragraph in English and in Korean
# (tests/data/tokenize/paragraph_{en,ko}.txt) under the real GPT-2, Llama 3, Qwen3 and BERT uncased
# tokenizers. Those live outside the repository (../shared/data/tokenizers, or DATA=…), which is why
# the figures are generated here and committed rather than drawn by the docs build.
#   scripts/gen-tokenize-compare.sh            (TFX=build/tfx; DATA=../shared/data/tokenizers)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
TFX=${TFX:-build/tfx}
DATA=${DATA:-../shared/data/tokenizers}
[ -x "$TFX" ] || { echo "gen-tokenize-compare: build $TFX first" >&2; exit 1; }
[ -d "$DATA/gpt2" ] || { echo "gen-tokenize-compare: $DATA is absent; nothing drawn" >&2; exit 1; }
for lang in en ko; do
  # the folders are linked under their short names, which label the bars
  work=$(mktemp -d)
  for m in gpt2 llama3 qwen3 bert-base-uncased; do ln -s "$(realpath "$DATA/$m")" "$work/$m"; done
  "$TFX" model tokenize --file "tests/data/tokenize/paragraph_$lang.txt" \
    --compare "$work/gpt2" "$work/llama3" "$work/qwen3" "$work/bert-base-uncased" \
    --png "docs/img/tokenize_compare_$lang.png"
  rm -rf "$work"
done
