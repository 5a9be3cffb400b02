#!/usr/bin/env bash
# tfx beside llama.cpp (issue 51, "As fast as llama.cpp"): the same GGUF files — the Qwen2.5-0.5B
# shape with random weights (bench/generate_bench.py make-qwen), written per type by
# `tfx model quantize` — decoded by llama.cpp's llama-bench and by tfx (bench_generate, which opens
# a .gguf file as every model command does), same thread count, in one run; prints each type's
# decode and 128-token prefill tokens/s for both and tfx's ratio, and each side's decode as a
# fraction of the bandwidth bound (bench_bandwidth's read bandwidth ÷ the file's bytes).
#
#   bench/llama_cpp.sh LLAMA_CPP [BUILD_DIR]
#
# LLAMA_CPP: a llama.cpp source folder, or a bare git directory of one (what the `fetch` tool
# leaves under /work/.mirror/ggerganov+llama.cpp/…: its HEAD is unpacked with git archive). It is
# built CPU-only (GGML_NATIVE, as tfx's native build; no CURL, CUDA or Metal), llama-bench only,
# with cmake -j2. BUILD_DIR: tfx's build folder with tfx and bench_generate (default build; and
# bench_bandwidth, for the bandwidth columns).
# THREADS (llama-bench -t; default 2: give the core count, which tfx uses), TYPES (default "bf16 q8_0": the types tfx writes; llama.cpp's K-quants
# Q4_K_M need llama-quantize, which this script builds and uses when TYPES names q4_k_m), WORK (a
# scratch folder; default a new one under /tmp, removed at the end unless KEEP=1), LLAMA_BIN (a
# folder with llama-bench and llama-quantize already built: nothing is built, LLAMA_CPP is ignored),
# GGUF_DIR (a folder with qwen-TYPE.gguf files from an earlier KEEP=1 run: reused, not rewritten),
# ACTIVATIONS=q8 (tfx decodes with llama.cpp's 8-bit arithmetic, `--activations q8`, and on a CPU
# with AMX-INT8 takes the prompt in AMX tiles; TFX_AMX=off: not, beside llama.cpp's build without
# AMX; default f32),
# REPS (runs of each side per type, in turn; default 3: the medians are printed), LLAMA_CMAKE_ARGS
# (more cmake arguments for the llama.cpp build; on a CPU with AMX, GGML_NATIVE turns on llama.cpp's
# AMX path, which copies Q8_0/Q4_K/… weights at load into AMX's tile layout; the build without it,
# weights used as stored as tfx uses them: docs/bench.md gives the arguments).
set -euo pipefail
src=${1:?usage: bench/llama_cpp.sh LLAMA_CPP [BUILD_DIR]}
build=${2:-build}
threads=${THREADS:-2}
types=${TYPES:-bf16 q8_0}
work=${WORK:-$(mktemp -d /tmp/tfx-llama-cpp-XXXXXX)}
[[ ${KEEP:-0} == 1 ]] || trap 'rm -rf "$work"' EXIT
PY=${PY:-/usr/bin/python3}

for f in "$build/tfx" "$build/bench_generate"; do
  [[ -x $f ]] || { echo "bench/llama_cpp.sh: $f is missing (cmake --build $build --target tfx bench_generate)" >&2; exit 1; }
done

# 1. llama.cpp's source, then llama-bench (and llama-quantize) built CPU-only — or LLAMA_BIN, a
# folder where they are already built (LLAMA_CPP is then not read)
if [[ -n ${LLAMA_BIN:-} ]]; then
  lbench="$LLAMA_BIN/llama-bench"
  lquant="$LLAMA_BIN/llama-quantize"
  for f in "$lbench" "$lquant"; do
    [[ -x $f ]] || { echo "bench/llama_cpp.sh: $f is missing (LLAMA_BIN)" >&2; exit 1; }
  done
elif [[ -f $src/HEAD && ! -f $src/CMakeLists.txt ]]; then
  mkdir -p "$work/llama.cpp"
  # the vocab files under models/ are not needed, and a snapshot may list them without their blobs
  git --git-dir="$src" archive HEAD -- . ':!models/*.gguf' | tar x -C "$work/llama.cpp"
  src="$work/llama.cpp"
fi
if [[ -z ${LLAMA_BIN:-} ]]; then
  [[ -f $src/CMakeLists.txt ]] || { echo "bench/llama_cpp.sh: $src is not a llama.cpp source folder" >&2; exit 1; }
  # shellcheck disable=SC2086  # LLAMA_CMAKE_ARGS: several arguments
  cmake -S "$src" -B "$work/llama-build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DLLAMA_CURL=OFF -DGGML_CUDA=OFF \
    -DGGML_METAL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_SERVER=OFF ${LLAMA_CMAKE_ARGS:-} >/dev/null
  cmake --build "$work/llama-build" -j2 --target llama-bench llama-quantize >/dev/null
  lbench="$work/llama-build/bin/llama-bench"
  lquant="$work/llama-build/bin/llama-quantize"
fi

# 2. the model: a Qwen2.5-0.5B-shaped folder (random BF16), then one GGUF per type
missing=0
for t in $types; do [[ -n ${GGUF_DIR:-} && -f ${GGUF_DIR:-}/qwen-$t.gguf ]] || missing=1; done
if [[ $missing == 1 ]]; then
  "$PY" bench/generate_bench.py make-qwen "$work/qwen" >/dev/null
  # llama.cpp loads a vocabulary with every model: Qwen's tokenizer (Qwen3 shares Qwen2.5's BPE) from
  # ../shared, written by tfx as tokenizer.ggml.* (padded to the 151,936 rows as convert_hf_to_gguf does)
  tok=${QWEN_TOKENIZER:-../shared/data/tokenizers/qwen3/tokenizer.json}
  [[ -f $tok ]] || { echo "bench/llama_cpp.sh: $tok is missing (set QWEN_TOKENIZER): llama.cpp needs the model's vocabulary" >&2; exit 1; }
  cp "$tok" "$work/qwen/tokenizer.json"
fi
for t in $types; do
  if [[ -n ${GGUF_DIR:-} && -f $GGUF_DIR/qwen-$t.gguf ]]; then
    ln -sf "$(realpath "$GGUF_DIR/qwen-$t.gguf")" "$work/qwen-$t.gguf"
    continue
  fi
  case $t in
    q4_k_m) "$build/tfx" model quantize "$work/qwen" --type bf16 -o "$work/qwen-bf16-src.gguf" >/dev/null
            "$lquant" "$work/qwen-bf16-src.gguf" "$work/qwen-$t.gguf" Q4_K_M "$threads" >/dev/null 2>&1 ;;
    *) "$build/tfx" model quantize "$work/qwen" --type "$t" -o "$work/qwen-$t.gguf" >/dev/null ;;
  esac
done

# 3. the bandwidth bound: the machine's read bandwidth with the same threads (bench_bandwidth, a
# 500 MB buffer) over each file's bytes is the most tokens/s a decoder that reads every weight
# once per token can reach; each side's decode is printed as a fraction of it (bw columns)
gbps=0
if [[ -x $build/bench_bandwidth ]]; then
  gbps=$("$build/bench_bandwidth" 500000000 "$threads" 2>/dev/null | sed -nE 's/.*read_bandwidth_gbps ([0-9.]+).*/\1/p')
  echo "read bandwidth ($threads threads): ${gbps:-?} GB/s"
fi
# 4. both on each file: prefill of 128 tokens and 64 decoded tokens, tokens/s. The two run in turn,
# REPS times (default 3), and each column is the median of its REPS runs, each ratio the median of
# the REPS ratios of runs made one right after the other: on a shared host the memory bandwidth a
# VM gets swings by 2 × within minutes, and a ratio of two runs minutes apart measures that swing
reps=${REPS:-3}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "0"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-8s %10s %14s %14s %8s %14s %14s %8s %9s %9s\n' type MB "llama decode" "tfx decode" ratio "llama pp128" "tfx pp128" ratio \
  "llama bw" "tfx bw"
for t in $types; do
  f="$work/qwen-$t.gguf"
  mb=$(( $(stat -L -c %s "$f") / 1000000 ))
  bytes=$(stat -L -c %s "$f")
  L_TG="" L_PP="" T_TG="" T_PP="" R_TG="" R_PP=""
  for ((rep = 1; rep <= reps; rep++)); do
    # llama-bench -o csv: the columns name n_prompt, n_gen, avg_ts
    csv=$("$lbench" -m "$f" -p 128 -n 64 -t "$threads" -r 1 -o csv 2>/dev/null)
    l_pp=$(awk -F, 'NR==1 { for (i = 1; i <= NF; i++) { gsub(/"/, "", $i); c[$i] = i } next }
                    { gsub(/"/, "") } $c["n_prompt"] == 128 && $c["n_gen"] == 0 { print $c["avg_ts"] }' <<<"$csv")
    l_tg=$(awk -F, 'NR==1 { for (i = 1; i <= NF; i++) { gsub(/"/, "", $i); c[$i] = i } next }
                    { gsub(/"/, "") } $c["n_prompt"] == 0 && $c["n_gen"] == 64 { print $c["avg_ts"] }' <<<"$csv")
    # tfx runs on every core: set THREADS to the core count. As llama-bench: the prompt of 128
    # tokens, then (another run) 64 tokens decoded from an empty cache (llama-bench's tg64 is
    # n_prompt 0: its context grows from 1 to 64; after a 128-token prompt each step would also
    # read 128 more keys and values)
    g=$(TFX_ACTIVATIONS=${ACTIVATIONS:-f32} "$build/bench_generate" "$f" 128 1 2>&1)
    t_pp=$(sed -nE 's/.*tfx_prefill_seconds ([0-9.]+).*/\1/p' <<<"$g" | awk '{ printf "%.2f", 128 / $1 }')
    g=$(TFX_ACTIVATIONS=${ACTIVATIONS:-f32} "$build/bench_generate" "$f" 1 64 2>&1)
    t_tg=$(sed -nE 's/.*tfx_token_seconds ([0-9.]+).*/\1/p' <<<"$g" | awk '{ printf "%.2f", 1 / $1 }')
    L_TG+=" ${l_tg:-0}" L_PP+=" ${l_pp:-0}" T_TG+=" ${t_tg:-0}" T_PP+=" ${t_pp:-0}"
    R_TG+=" $(awk -v a="${t_tg:-0}" -v b="${l_tg:-0}" 'BEGIN { if (b > 0) printf "%.3f", a / b }')"
    R_PP+=" $(awk -v a="${t_pp:-0}" -v b="${l_pp:-0}" 'BEGIN { if (b > 0) printf "%.3f", a / b }')"
  done
  l_tg=$(median <<<"$L_TG") l_pp=$(median <<<"$L_PP") t_tg=$(median <<<"$T_TG") t_pp=$(median <<<"$T_PP")
  frac() { awk -v tps="${1:-0}" -v g="${gbps:-0}" -v b="$bytes" 'BEGIN { if (g > 0) printf "%.2f", tps * b / (g * 1e9); else print "?" }'; }
  printf '%-8s %10s %14.2f %14.2f %8.2f %14.2f %14.2f %8.2f %9s %9s\n' "$t" "$mb" "$l_tg" "$t_tg" "$(median <<<"$R_TG")" \
    "$l_pp" "$t_pp" "$(median <<<"$R_PP")" "$(frac "$l_tg")" "$(frac "$t_tg")"
done
