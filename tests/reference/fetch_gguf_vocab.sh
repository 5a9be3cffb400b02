#!/bin/sh
# Copies llama.cpp's tokenizer test vocabularies (models/ggml-vocab-<name>.gguf) into the cache that
# tests/model/gguf_tokenizer_test.cpp reads ($TFX_GGUF_VOCAB, default ~/.cache/tfx-test/gguf-vocab;
# the vocab files are not committed), and refreshes their .inp/.out test cases under
# tests/data/gguf/vocab/ (committed). LLAMA_CPP is a llama.cpp checkout (a work tree, or a bare git
# directory: its HEAD is read). Without the vocab files the test reports itself skipped.
#
#   sh tests/reference/fetch_gguf_vocab.sh /path/to/llama.cpp
set -eu
src=${1:?usage: fetch_gguf_vocab.sh LLAMA_CPP (a llama.cpp checkout or git directory)}
cache=${TFX_GGUF_VOCAB:-${HOME}/.cache/tfx-test/gguf-vocab}
here=$(cd "$(dirname "$0")/../data/gguf" && pwd)
mkdir -p "$cache" "$here/vocab"
read_file() {  # read_file PATH > out: from the work tree, else from the git directory's HEAD
  if [ -f "$src/$1" ]; then cat "$src/$1"; else git --git-dir="$src" show "HEAD:$1" 2>/dev/null || git -C "$src" show "HEAD:$1"; fi
}
for name in gpt-2 llama-spm phi-3 bert-bge deepseek-coder deepseek-llm falcon mpt refact starcoder; do
  if read_file "models/ggml-vocab-$name.gguf" > "$cache/ggml-vocab-$name.gguf.part" 2>/dev/null; then
    mv "$cache/ggml-vocab-$name.gguf.part" "$cache/ggml-vocab-$name.gguf"
    echo "$cache/ggml-vocab-$name.gguf"
  else
    rm -f "$cache/ggml-vocab-$name.gguf.part"
    echo "ggml-vocab-$name.gguf: not in $src" >&2
  fi
  read_file "models/ggml-vocab-$name.gguf.inp" > "$here/vocab/$name.inp"
  read_file "models/ggml-vocab-$name.gguf.out" > "$here/vocab/$name.out"
done
