#!/bin/bash
# llama.cpp itself reads the GGUF files `tfx model quantize` writes, and computes the next-token
# logits tfx computes from them: the check that tfx's GGUF reading and writing (names, layouts, the
# Q/K permutation, Gemma's 1 + w norms and √D embedding, GPT-2's output.weight) mean what llama.cpp
# means. Builds tests/reference/llama_cpp_logits.c against a llama.cpp checkout and its CPU build
# (bench/llama_cpp.sh makes both), then for each tiny folder of tests/data/hf_models/:
#   tfx model quantize DIR --type f32  (and q8_0 with --fallback f32) -o FILE.gguf
#   llama.cpp's logits of the last of 4 ids  vs  tfx model logits FILE.gguf --ids …  (same file; for
#   the Q8_0 file with --activations q8, llama.cpp's arithmetic: its activations in Q8_0 blocks)
# Passes when max |difference| ≤ 1e-5 × max |logit| (SiLU families), or 2e-3 × for the GELU ones
# (gpt2, gemma*): ggml's CPU GELU reads a float16 table (GGML_GELU_FP16 in ggml-cpu.c); with Q8_0
# activations that table's error moves some of the next matmul's 8-bit roundings by a step, so the
# GELU families' Q8_0 files pass at 2e-2 × (the SiLU ones stay at 1e-5 ×). A family the
# llama.cpp snapshot lacks (qwen3, gemma3 before 2025-03) or refuses at this size (gemma2 aborts on
# a layer count it does not know) is reported as skipped; gemma2_26 is a gemma2 of 26 layers it
# does run (gen_gemma_reference.py --gemma2-for-llama-cpp: its Gemma 2 2B by the layer count, the
# tiny folder's window of 4 and caps, the MLP's output projection zero so that no GELU enters),
# compared on 9 ids so that the window cuts keys off (its Q8_0 file on 4), at 1e-5 ×.
#
#   tests/reference/check_gguf_llama_cpp.sh LLAMA_SRC LLAMA_BUILD [build/tfx]
set -u
src=${1:?llama.cpp checkout}
bld=${2:?llama.cpp build folder}
tfx=${3:-$(dirname "$0")/../../build/tfx}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lib=$bld/bin
gcc -O1 -o "$work/llama_cpp_logits" "$here/llama_cpp_logits.c" -I"$src/include" -I"$src/ggml/include" -L"$lib" -lllama -lggml -lggml-base \
  -Wl,-rpath,"$lib" || exit 1
/usr/bin/python3 "$here/gen_gemma_reference.py" --gemma2-for-llama-cpp "$work/gemma2_26" || exit 1
fail=0
for m in llama qwen2 mistral qwen3 gpt2 gemma gemma2 gemma2_26 gemma3; do
  src=$here/../data/hf_models/$m
  [ "$m" = gemma2_26 ] && src=$work/gemma2_26
  for t in f32 q8_0; do
    # (tfx takes llama.cpp's Q8_0 arithmetic for up to 4 rows on a CPU without AMX: 4 ids for q8_0)
    ids=1,5,9,13
    [ "$m-$t" = gemma2_26-f32 ] && ids=1,5,9,13,7,3,11,2,6
    f=$work/$m-$t.gguf
    if ! "$tfx" model quantize "$src" --type "$t" --fallback f32 -o "$f" >/dev/null 2>"$work/err"; then
      echo "$m $t: skipped (tfx does not write it: $(tail -1 "$work/err"))"
      continue
    fi
    if ! "$work/llama_cpp_logits" "$f" "$ids" >"$work/ll" 2>"$work/err"; then
      echo "$m $t: skipped (llama.cpp does not load it: $(grep -m1 -i 'error' "$work/err"))"
      continue
    fi
    act=f32
    [ "$t" = q8_0 ] && act=q8
    "$tfx" model logits "$f" --ids "$ids" --activations "$act" --format csv 2>/dev/null | tail -1 | cut -d, -f2- | tr , '\n' >"$work/tfx"
    case $m-$t in gemma2_26-*) tol=1e-5 ;; gpt2-f32 | gemma*-f32) tol=2e-3 ;; gpt2-* | gemma*) tol=2e-2 ;; *) tol=1e-5 ;; esac
    paste "$work/ll" "$work/tfx" | awk -v m="$m" -v t="$t" -v tol="$tol" '
      { d = $1 - $2; if (d < 0) d = -d; if (d > x) x = d; a = $1 < 0 ? -$1 : $1; if (a > A) A = a; n++ }
      END { ok = n > 0 && x <= tol * A; printf "%s %s: %d logits, max |llama.cpp − tfx| = %.3g (max |logit| %.3g): %s\n", m, t, n, x, A, ok ? "ok" : "FAIL"; exit !ok }' ||
      fail=1
  done
done
exit $fail
