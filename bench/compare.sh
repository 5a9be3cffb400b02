# Sourced by the peer benchmarks (attention.sh, pe_sim.sh): finds the tfx binary, checks that
# hyperfine and numpy are there, works in a temporary directory, times tfx and numpy in one
# hyperfine run, and prints the median ratio tfx / numpy and the largest difference between the
# two .npy outputs.
PY=/usr/bin/python3  # the interpreter with numpy (not a pyenv shim)

# require_peers NAME: exits with a hint when hyperfine or numpy is missing.
require_peers() {
  command -v hyperfine >/dev/null || { echo "$1: hyperfine is not installed (apt-get install hyperfine)" >&2; exit 1; }
  $PY -c 'import numpy' 2>/dev/null || { echo "$1: $PY has no numpy (apt-get install python3-numpy)" >&2; exit 1; }
}

# enter_temp_dir: cd into a new temporary directory, removed when the script exits.
enter_temp_dir() {
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  cd "$work"
}

# peer_setup NAME [TFX]: $TFX = TFX's absolute path (default build/tfx), the peers checked
# (require_peers NAME), then a new temporary directory entered (enter_temp_dir).
peer_setup() {
  TFX=$(realpath "${2:-build/tfx}")
  require_peers "$1"
  enter_temp_dir
}

# compare_with_numpy LABEL TFX_CMD TFX_NPY NUMPY_CMD NUMPY_NPY [TARGET]: runs both commands in the
# current directory (RUNS runs each, default 5, after one warm-up), then prints
# "LABEL: tfx … s, numpy … s (medians), ratio tfx/numpy = R [(target <= TARGET)]; max |tfx - numpy| = E".
compare_with_numpy() {
  hyperfine --warmup 1 --runs "${RUNS:-5}" --export-json times.json -n tfx "$2" -n numpy "$4" >&2
  LABEL="$1" TARGET="${6:-}" $PY - "$3" "$5" <<'PY'
import json, os, sys
import numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
assert a.shape == b.shape, (a.shape, b.shape)
t = {r["command"]: r for r in json.load(open("times.json"))["results"]}
ratio = t["tfx"]["median"] / t["numpy"]["median"]
target = f" (target <= {os.environ['TARGET']})" if os.environ["TARGET"] else ""
print(f"{os.environ['LABEL']}: tfx {t['tfx']['median']:.3f} s, numpy {t['numpy']['median']:.3f} s (medians), "
      f"ratio tfx/numpy = {ratio:.2f}{target}; max |tfx - numpy| = {np.abs(a - b).max():.2g}")
PY
}
