#!/usr/bin/env bash
# tfx quick start. Installs the Debian packages tfx builds with (apt-get, through sudo when not
# root; packages already installed are skipped; without root and sudo it names the missing packages
# and the command to install them, and exits 1), configures and builds, then:
#   ./setup.sh demo   run the main job: tfx pe --len 50 --dim 128 --png
#   ./setup.sh test   what CI runs: every test through ctest (Release build, fuzz regressions too),
#                     the whole suite again built with AddressSanitizer + UndefinedBehaviorSanitizer
#                     (build-asan, clang), then each fuzz target for 20 s
#   ./setup.sh check  the Release suite only (the quick check while working)
#   ./setup.sh sanitize  the sanitizer suite and the fuzzing only
#   ./setup.sh build  only set up and build
set -euo pipefail
cd "$(dirname "$0")"
what="${1:-demo}"
BUILD_DIR="${BUILD_DIR:-build}"

packages=(g++ make cmake libcli11-dev libfmt-dev nlohmann-json3-dev libstb-dev doctest-dev zlib1g-dev libxxhash-dev libsleef-dev
          libfontconfig-dev fonts-dejavu-core fonts-nanum libgif-dev gettext)
# the Python helper's and the sample notebooks' tests (ctest python_helper, notebook_*) run with these
# and headless Chromium opens the --html attention page (ctest attention_html_chromium); python3-venv,
# setuptools and wheel let ctest python_pip_install `pip install .` offline in a fresh venv
case "$what" in check | test | sanitize) packages+=(python3-numpy python3-pandas jupyter-nbconvert python3-ipykernel chromium python3-venv python3-setuptools python3-wheel) ;; esac
# the sanitizer build and the fuzzers need clang with its runtimes (and llvm-symbolizer for traces)
case "$what" in test | sanitize) packages+=(clang libclang-rt-14-dev llvm) ;; esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
      # not root and no sudo: say what is missing and the one command that installs it, then stop
      {
        echo "setup: missing Debian packages: ${missing[*]}"
        echo "setup: installing them needs root, and sudo is not available; as root, run:"
        echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
        echo "setup: then run $0 ${what} again"
      } >&2
      exit 1
    fi
    sudo="sudo"
  fi
  echo "setup: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DTFX_BUILD_TESTS=ON >/dev/null
# the main job needs only the tool: `demo` builds the tfx target alone (not the tests and
# benchmarks), the other modes everything
if [ "$what" = demo ]; then
  cmake --build "$BUILD_DIR" -j "$(nproc)" --target tfx
else
  cmake --build "$BUILD_DIR" -j "$(nproc)"
fi

# Runs every test of build dir $1 through ctest; exits on failure after listing skipped tests.
suite() {
  local status=0
  ctest --test-dir "$1" --output-on-failure -j "$(nproc)" || status=$?
  # ctest lists skipped tests without their reason; print each one's "TFX-SKIP: why" line
  awk '/^[0-9]+\/[0-9]+ Testing: /{sub(/^[0-9]+\/[0-9]+ Testing: /, ""); name=$0}
       /^TFX-SKIP: /{sub(/^TFX-SKIP: /, ""); if (!seen[name]++) print "skipped: " name "\n    because " $0}' \
    "$1/Testing/Temporary/LastTest.log"
  [ "$status" -eq 0 ] || exit "$status"
}

case "$what" in
  demo)
    echo "+ tfx pe --len 50 --dim 128 --png" >&2
    "$BUILD_DIR/tfx" pe --len 50 --dim 128 --png
    ;;
  check) suite "$BUILD_DIR" ;;
  test | sanitize)
    # 1. Release  2. the same suite under ASan + UBSan (any report fails its test)  3. fuzzing
    [ "$what" = sanitize ] || suite "$BUILD_DIR"
    echo "+ the whole suite again with AddressSanitizer + UndefinedBehaviorSanitizer (build-asan)" >&2
    cmake --preset asan >/dev/null
    cmake --build build-asan -j "$(nproc)"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      suite build-asan
    echo "+ each fuzz target for 20 s (tests/fuzz/run.sh)" >&2
    BUILD_DIR=build-asan SECONDS_EACH=20 JOBS=2 tests/fuzz/run.sh
    ;;
  build) ;;
  *)
    echo "usage: ./setup.sh [demo|check|test|sanitize|build]" >&2
    exit 2
    ;;
esac
