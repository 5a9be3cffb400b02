#!/usr/bin/env bash
# Runs the libFuzzer targets of a TFX_FUZZ build (cmake --preset asan → build-asan), JOBS at a
# time, each for SECONDS, starting from tests/fuzz/corpus/<target>/ and growing a working
# corpus in $BUILD_DIR/fuzz/<target>/. Prints one line per target (executions, exec/s, corpus,
# result) and exits 1 if any target found a crash, a leak, a timeout, a sanitizer report or an
# input still over SLOW_SECONDS (5) when replayed alone (a slow unit that replays fast was the
# machine's load: reported, not a failure); the input that did it is left in
# $BUILD_DIR/fuzz/<target>/ (crash-*, leak-*, timeout-*, slow-confirmed-*):
# fix the bug, then copy the input into tests/fuzz/regressions/<target>/ so ctest replays it.
#
#   tests/fuzz/run.sh                     every target for 60 s, 2 at a time (CI: SECONDS_EACH=20)
#   SECONDS_EACH=1800 JOBS=16 tests/fuzz/run.sh embeddings_glove matrix_npy
#   KEEP_GOING=1 …   long runs: libFuzzer's fork mode goes on after a finding (all are kept)
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR="$(realpath -m "${BUILD_DIR:-build-asan}")"
SECONDS_EACH="${SECONDS_EACH:-60}"
JOBS="${JOBS:-2}"
KEEP_GOING="${KEEP_GOING:-0}"
out_root="$BUILD_DIR/fuzz"

targets=("$@")
if ((${#targets[@]} == 0)); then
  for f in tests/fuzz/fuzz_*.cpp; do
    t=$(basename "$f" .cpp)
    targets+=("${t#fuzz_}")
  done
fi
for t in "${targets[@]}"; do
  [ -x "$BUILD_DIR/fuzz_$t" ] || { echo "fuzz: $BUILD_DIR/fuzz_$t is missing; build with: cmake --preset asan && cmake --build build-asan" >&2; exit 2; }
done

run_one() {
  local t=$1 dir="$out_root/$1"
  mkdir -p "$dir/corpus"
  rm -f "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-* "$dir"/slow-unit-* "$dir"/slow-confirmed-* "$dir"/load-*
  # -max_len: real inputs are bigger, but every parser's structure shows within 8 KiB;
  # -rss_limit_mb: the loaders refuse sizes they cannot have, so 2 GiB means a bug;
  # -timeout / -report_slow_units: every parser bounds its work (a damaged font's GPOS walk and
  #   each glyph's points and outline length are capped, figure_font_check.cpp), so one input
  #   costs well under a second under ASan; 60 s is a hang. An input over 10 s is written as
  #   slow-unit-*, which is replayed alone below: still slow, it is a finding; fast alone, the
  #   machine was loaded (a shared CI runner) and it is reported but does not fail the run;
  # -close_fd_mask=3: tfx's own stdout/stderr go nowhere (libFuzzer keeps its report stream)
  # the JSON readers take tests/fuzz/dict/json.dict (tokens and deep nesting)
  local dict=()
  case $t in matrix_json | safetensors | hf_tokenizer | model_config) dict=(-dict="$PWD/tests/fuzz/dict/json.dict") ;; esac
  ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1}" \
  "$BUILD_DIR/fuzz_$t" "$dir/corpus" "$PWD/tests/fuzz/corpus/$t" "${dict[@]}" -max_total_time="$SECONDS_EACH" -max_len=8192 \
    -rss_limit_mb=2048 -timeout=60 -report_slow_units=10 -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$dir/" \
    $([ "$KEEP_GOING" = 1 ] && echo -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1) \
    >"$dir/log" 2>&1
  local rc=$?
  local runs eps peak found
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
  eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -1)
  if [ -z "$runs" ]; then  # fork mode: the last progress line "#RUNS: cov: …"; average rate
    runs=$(grep -oE '^#[0-9]+' "$dir/log" | tail -1 | tr -d '#')
    [ -n "$runs" ] && eps=$((runs / SECONDS_EACH))
  fi
  peak=$(sed -n 's/^stat::peak_rss_mb: *//p' "$dir/log" | tail -1)
  # a slow unit replayed alone: over SLOW_SECONDS again, it is a finding; else the load's
  local slow note=""
  for slow in "$dir"/slow-unit-*; do
    [ -f "$slow" ] || continue
    local t0=$SECONDS
    ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" timeout 120 "$BUILD_DIR/fuzz_$t" -close_fd_mask=3 "$slow" >"$slow.replay" 2>&1
    local took=$((SECONDS - t0))
    if ((took >= ${SLOW_SECONDS:-5})); then
      mv "$slow" "$dir/slow-confirmed-$(basename "$slow")"
    else
      note="${note}$(basename "$slow") replays in ${took}s (load, not a finding) "
      mv "$slow" "$dir/load-$(basename "$slow")"
    fi
  done
  found=$(ls "$dir" | grep -E '^(crash|leak|timeout|oom|slow-confirmed)-' | head -3 | tr '\n' ' ')
  printf '%-24s %6ss %11s runs %7s exec/s %5s MB %5s inputs  %s\n' "$t" "$SECONDS_EACH" "${runs:-?}" "${eps:-?}" \
    "${peak:-?}" "$(ls "$dir/corpus" | wc -l)" "$([ $rc -eq 0 ] && [ -z "$found" ] && echo "ok${note:+ ($note)}" || echo "FOUND: ${found:-exit $rc} (see $dir/log)")"
  if [ $rc -ne 0 ] || [ -n "$found" ]; then
    # CI keeps only what is printed: the report's cause, the first frames in tfx's own code, and
    # the input itself (base64, when small) so the finding can be replayed on another machine
    {
      grep -m1 -E '^==[0-9]+== ?ERROR|^SUMMARY' "$dir/log"
      grep -E '^ +#[0-9]+ .* /.*/(src|include|tests)/' "$dir/log" | grep -v '/usr/' | head -6 | sed -E 's/^ +//; s/ \(BuildId.*//'
      grep -m1 '^SUMMARY' "$dir/log"
      for f in "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-* "$dir"/slow-confirmed-*; do
        [ -f "$f" ] || continue
        if [ "$(stat -c %s "$f")" -le 8192 ]; then
          echo "input $(basename "$f") (base64; replay: base64 -d > tests/fuzz/regressions/$t/$(basename "$f")):"
          base64 -w 100 "$f"
        fi
      done
    } | sed "s/^/  $t: /"
  fi
  [ $rc -eq 0 ] && [ -z "$found" ]
}
export -f run_one
export BUILD_DIR SECONDS_EACH KEEP_GOING out_root

echo "fuzz: ${#targets[@]} targets × ${SECONDS_EACH}s, $JOBS at a time ($BUILD_DIR)"
printf '%s\n' "${targets[@]}" | xargs -P "$JOBS" -I{} bash -c 'run_one {}'
