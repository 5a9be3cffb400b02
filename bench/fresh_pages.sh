#!/usr/bin/env bash
# The cost of fresh memory on this machine, which bounds the first load of a big embedding file:
# fresh_pages writes MB megabytes (default 2,400: the 2M × 300 matrix) into a new file through a
# shared mapping, three times back to back, then three times each after IDLE seconds (default 10)
# of doing nothing. On a VM whose host reclaims freed guest memory, the idle runs cost several
# times more: that part of a first load is the machine's, not the parser's.
#
#   bench/fresh_pages.sh [BUILD_DIR=build] [DIR=/tmp] [MB=2400] [IDLE=10]
set -euo pipefail
BUILD=${1:-build} DIR=${2:-/tmp} MB=${3:-2400} IDLE=${4:-10}
[[ -x $BUILD/fresh_pages ]] || cmake --build "$BUILD" --target fresh_pages >/dev/null
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for k in 1 2 3; do echo "back to back: $("$BUILD/fresh_pages" "$DIR" "$MB")"; done
for k in 1 2 3; do sleep "$IDLE"; echo "after ${IDLE} s idle: $("$BUILD/fresh_pages" "$DIR" "$MB")"; done
