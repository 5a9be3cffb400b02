#!/usr/bin/env bash
# tfx quick start. Installs the Debian packages tfx builds with (apt-get, through sudo when not
# root; packages already installed are skipped; without root and sudo it names the missing packages
# and the command to install them, and exits 1), configures and builds, then:
#   ./setup.sh demo   run the main job: tfx pe --len 50 --dim 128 --png
#   ./setup.sh test   run every test through ctest
#   ./setup.sh build  only set up and build
set -euo pipefail
cd "$(dirname "$0")"
what="${1:-demo}"
BUILD_DIR="${BUILD_DIR:-build}"

packages=(g++ make cmake libcli11-dev libfmt-dev nlohmann-json3-dev libstb-dev doctest-dev zlib1g-dev
          libfontconfig-dev fonts-dejavu-core fonts-nanum)
# the Python helper's and the sample notebooks' tests (ctest python_helper, notebook_*) run with these
if [ "$what" = test ]; then packages+=(python3-numpy jupyter-nbconvert python3-ipykernel); fi
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
cmake --build "$BUILD_DIR" -j "$(nproc)"

case "$what" in
  demo)
    echo "+ tfx pe --len 50 --dim 128 --png" >&2
    "$BUILD_DIR/tfx" pe --len 50 --dim 128 --png
    ;;
  test)
    status=0
    ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)" || status=$?
    # ctest lists skipped tests without their reason; print each one's "TFX-SKIP: why" line
    awk '/^[0-9]+\/[0-9]+ Testing: /{sub(/^[0-9]+\/[0-9]+ Testing: /, ""); name=$0}
         /^TFX-SKIP: /{sub(/^TFX-SKIP: /, ""); if (!seen[name]++) print "skipped: " name "\n    because " $0}' \
      "$BUILD_DIR/Testing/Temporary/LastTest.log"
    exit "$status"
    ;;
  build) ;;
  *)
    echo "usage: ./setup.sh [demo|test|build]" >&2
    exit 2
    ;;
esac
