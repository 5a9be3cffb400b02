#!/usr/bin/env bash
# Benchmark: the big case — a 2,000,000 × 300 GloVe-format text file (5.1 GB, like
# glove.840B.300d / crawl-300d-2M), in the page cache.
#   1. tfx first load: parse on all cores + write the cache (`tfx embeddings info`, fresh cache),
#      best of 2, the text read into the page cache again before each (a first load drops it)
#   2. tfx cached query as a whole process (`tfx analogy king man woman`, mean of 10)
#   3. gensim KeyedVectors.load_word2vec_format(no_header=True) + most_similar, once (minutes);
#      --no-gensim skips it and prints the time recorded below instead.
# Peak memory is /usr/bin/time -v's max RSS; the float32 matrix is 2,000,000·300·4 B = 2.4 GB.
# Goals (issue 27): first load ≤ 6 s on 2 cores, peak RSS ≤ 1.1× the matrix, cached query ≤ 0.3 s;
# (issue 39) every first use ≤ 6 s: info, similar, analogy and similar --no-cache (rows 1b).
#
#   bench/embeddings_load_2m.sh [--no-gensim] [BUILD_DIR=build] [WORK_DIR=/tmp/tfx-bench-2m]
#
# The file needs 5.1 GB in WORK_DIR and its cache 2.4 GB more (check `df -h`); the machine is
# shared, so the load average is printed with the numbers.
#
# Recorded gensim run (Debian python3-gensim 4.2, same file, same 2-core machine, 2026-11-23,
# at normal priority while other jobs ran under nice 19; docs/bench.md has tfx beside it).
RECORDED_GENSIM="gensim 4.2 load + most_similar, recorded 2026-11-23 (normal priority, other jobs at nice 19) | 204.13 | 196.42 | 4974"
set -euo pipefail
GENSIM=1
if [[ ${1:-} == --no-gensim ]]; then GENSIM=0; shift; fi
BUILD=${1:-build}
WORK=${2:-/tmp/tfx-bench-2m}
N=2000000
D=300
PY=/usr/bin/python3
TFX=$BUILD/tfx
FILE=$WORK/glove_${N}x${D}.txt
[[ -x $TFX && -x $BUILD/gen_glove ]] || { echo "build first: cmake --build $BUILD (needs tfx and gen_glove)" >&2; exit 2; }
mkdir -p "$WORK"
if [[ ! -s $FILE ]]; then
  echo "generating $FILE (5.1 GB) ..." >&2
  "$BUILD/gen_glove" "$FILE" "$N" "$D"
fi

# measure CMD... -> "seconds max_rss_kb cpu_seconds" from /usr/bin/time -v
measure() {
  local log=$WORK/time.log
  /usr/bin/time -v "$@" > "$WORK/out.txt" 2> "$log"
  awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; t = s }
              /Maximum resident set size/ { m = $2 }
              /User time/ { u = $2 } /System time/ { y = $2 }
              END { printf "%.2f %d %.2f\n", t, m, u + y }' "$log"
}

echo "file: $FILE ($(du -mL "$FILE" | cut -f1) MB, $N words × $D dims); cores: $(nproc); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# 1. first load, best of 2, each into a fresh cache directory
best=""
for k in 1 2; do
  rm -rf "$WORK/cache"
  cat "$FILE" > /dev/null  # into the page cache again: a first load drops the text from it as it goes
  r=$(XDG_CACHE_HOME=$WORK/cache measure "$TFX" embeddings info "$FILE" --format csv)
  if [[ -z $best ]] || awk -v a="${r%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then best=$r; fi
done
read -r t_first rss_first cpu_first <<< "$best"
# 1b. a user's first command is rarely `embeddings info`: the first `similar` and `analogy` (fresh
#     cache, which they write) and `similar --no-cache` (a read-only home: parse every time, into
#     anonymous memory), each best of 2 with the text put back in the page cache and IDLE seconds
#     (default 10) of quiet before it — this VM's host takes back memory the guest freed, and a
#     run straight after another would find the last run's pages still backed (docs/bench.md)
IDLE=${IDLE:-10}
first_use() {  # first_use ARGS... -> "seconds max_rss_kb cpu_seconds", best of 2
  local best="" r k
  for k in 1 2; do
    rm -rf "$WORK/cache"
    cat "$FILE" > /dev/null
    sleep "$IDLE"
    r=$(XDG_CACHE_HOME=$WORK/cache measure "$TFX" "$@" --embeddings "$FILE" --format csv)
    if [[ -z $best ]] || awk -v a="${r%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then best=$r; fi
  done
  echo "$best"
}
read -r t_sim rss_sim cpu_sim <<< "$(first_use similar w11)"
read -r t_ana rss_ana cpu_ana <<< "$(first_use analogy king man woman)"
read -r t_nc rss_nc cpu_nc <<< "$(first_use similar w11 --no-cache)"
# 2. cached query, whole process
XDG_CACHE_HOME=$WORK/cache "$TFX" analogy king man woman --embeddings "$FILE" > /dev/null  # warm
read -r _ rss_cached _ <<< "$(XDG_CACHE_HOME=$WORK/cache measure "$TFX" analogy king man woman --embeddings "$FILE" --format csv)"
start=$(date +%s.%N)
for ((i = 0; i < 10; i++)); do XDG_CACHE_HOME=$WORK/cache "$TFX" analogy king man woman --embeddings "$FILE" --format csv > /dev/null; done
t_cached=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", (b - a) / 10 }')
cached_out=$(XDG_CACHE_HOME=$WORK/cache "$TFX" analogy king man woman --embeddings "$FILE" --format csv)
matrix_kb=$((N * D * 4 / 1024))

printf '\n| run | seconds | CPU seconds | max RSS (MB) |\n| --- | ---: | ---: | ---: |\n'
printf '| tfx first load (parse + write cache) | %s | %s | %d |\n' "$t_first" "$cpu_first" $((rss_first / 1024))
printf '| tfx first `similar w11` (parse + write cache + query) | %s | %s | %d |\n' "$t_sim" "$cpu_sim" $((rss_sim / 1024))
printf '| tfx first `analogy king man woman` (parse + write cache + query) | %s | %s | %d |\n' "$t_ana" "$cpu_ana" $((rss_ana / 1024))
printf '| tfx `similar w11 --no-cache` (parse into memory + query) | %s | %s | %d |\n' "$t_nc" "$cpu_nc" $((rss_nc / 1024))
printf '| tfx analogy, cached (whole process, mean of 10) | %s | | %d |\n' "$t_cached" $((rss_cached / 1024))
if ((GENSIM)); then
  cat "$FILE" > /dev/null
  cat > "$WORK/gensim_load.py" <<'PYEOF'
import sys
from gensim.models import KeyedVectors
kv = KeyedVectors.load_word2vec_format(sys.argv[1], binary=False, no_header=True)
for w, s in kv.most_similar(positive=["king", "woman"], negative=["man"], topn=5):
    print(w, s)
PYEOF
  read -r t_g rss_g cpu_g <<< "$(measure $PY "$WORK/gensim_load.py" "$FILE")"
  printf '| gensim load + most_similar (whole process) | %s | %s | %d |\n' "$t_g" "$cpu_g" $((rss_g / 1024))
else
  printf '| %s |\n' "$RECORDED_GENSIM"
fi
printf '\nload average after: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
awk -v r="$rss_first" -v m="$matrix_kb" -v t="$t_first" -v c="$t_cached" 'BEGIN {
  printf "first-load peak RSS / float32 matrix = %.2f (goal ≤ 1.1); first load %.1f s (goal ≤ 6); cached query %.3f s (goal ≤ 0.3)\n", r / m, t, c }'
printf 'first use (goal ≤ 6 s each, issue 39): info %s s, similar %s s, analogy %s s, similar --no-cache %s s\n' "$t_first" "$t_sim" "$t_ana" "$t_nc"
printf '\ncached tfx answer:\n%s\n' "$cached_out"
