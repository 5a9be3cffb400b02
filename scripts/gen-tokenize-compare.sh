#!/bin/sh
# Draws docs/img/tokenize_compare.png for docs/models.md: `tfx model tokenize --compare` on the same
# paragraph in English and in Korean (tests/data/tokenize/paragraph_{en,ko}.txt) under the real
# GPT-2, Llama 3, Qwen3 and BERT uncased tokenizers, one panel per language on one scale. Those
# tokenizers live outside the repository (../shared/data/tokenizers, or DATA=…), which is why the
# figure is generated here and committed rather than drawn by the docs build.
#   scripts/gen-tokenize-compare.sh            (TFX=build/tfx; DATA=../shared/data/tokenizers)
#   LANG_FLAG="--lang ko" SCALE=2 OUT=/tmp/ko.png scripts/gen-tokenize-compare.sh   (to look at it)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
TFX=$(realpath "${TFX:-build/tfx}")
DATA=${DATA:-../shared/data/tokenizers}
OUT=$(realpath -m "${OUT:-docs/img/tokenize_compare.png}")
[ -x "$TFX" ] || { echo "gen-tokenize-compare: build $TFX first" >&2; exit 1; }
[ -d "$DATA/gpt2" ] || { echo "gen-tokenize-compare: $DATA is absent; nothing drawn" >&2; exit 1; }
# the folders are linked under their short names, which label the bars
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for m in gpt2 llama3 qwen3 bert-base-uncased; do ln -s "$(realpath "$DATA/$m")" "$work/$m"; done
cp tests/data/tokenize/paragraph_en.txt tests/data/tokenize/paragraph_ko.txt "$work/"
cd "$work"
# shellcheck disable=SC2086
"$TFX" model tokenize --file paragraph_en.txt --file paragraph_ko.txt --compare gpt2 llama3 qwen3 bert-base-uncased \
  --png "$OUT" --scale "${SCALE:-1}" ${LANG_FLAG:-}
