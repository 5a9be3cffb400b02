#!/usr/bin/env python3
"""Reference K-quant blocks from ggml's own C quantizers, for tests/core/quantize_test.cpp.

Usage: gen_kquant_reference.py GGML_SNAPSHOT
  GGML_SNAPSHOT: a checkout of github.com/ggml-org/ggml (or llama.cpp's ggml/ folder): the
  directory holding src/ggml-quants.c, src/ggml-common.h, src/ggml-impl.h and include/ggml.h.
  Nothing of it is copied into tfx: it is compiled in a temporary folder.

Writes tests/data/gguf/quantize_<type>.bin for q4_k, q5_k, q6_k in the layout the other
quantize_*.bin use: u32 n, u32 block bytes, n float32 inputs, then the blocks
quantize_row_q4_K_ref / quantize_row_q5_K_ref / quantize_row_q6_K_ref (what llama-quantize calls
without an importance matrix) write for them.

The inputs (seeded numpy, 12 super-blocks of 256): normal rows at scales 1, 0.02 and 1e-3, a
row with a few large outliers, an all-zero block, a constant block, an all-positive block, an
all-negative block, a block with one sub-block of zeros, uniform values, a heavy-tailed (Student t)
block and a block of float16-subnormal-sized values.

The C is compiled with cc -O2 -ffp-contract=off -DNDEBUG (no fused multiply-adds: tfx's
src/core/kernels/quantize_k.cpp is built the same way).
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "data", "gguf")

HARNESS = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ggml-quants.h"
#include "ggml-common.h"
int main(int argc, char** argv) {
  /* argv: type (4, 5, 6), n; float32 values on stdin, blocks on stdout */
  int type = atoi(argv[1]);
  long n = atol(argv[2]);
  float* x = malloc(n * sizeof(float));
  if (fread(x, sizeof(float), n, stdin) != (size_t)n) return 1;
  size_t nb = n / QK_K, bytes;
  void* y;
  if (type == 4) { bytes = nb * sizeof(block_q4_K); y = malloc(bytes); quantize_row_q4_K_ref(x, y, n); }
  else if (type == 5) { bytes = nb * sizeof(block_q5_K); y = malloc(bytes); quantize_row_q5_K_ref(x, y, n); }
  else { bytes = nb * sizeof(block_q6_K); y = malloc(bytes); quantize_row_q6_K_ref(x, y, n); }
  fwrite(y, 1, bytes, stdout);
  return 0;
}
"""

# what ggml-quants.c needs from the rest of ggml (logging and aborts only on paths not taken here)
STUBS = r"""
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdint.h>
void ggml_abort(const char* file, int line, const char* fmt, ...) { fprintf(stderr, "abort %s:%d\n", file, line); abort(); }
size_t ggml_row_size(int type, int64_t ne) { abort(); }
size_t ggml_type_size(int type) { abort(); }
const char* ggml_type_name(int type) { abort(); }
"""

BLOCK_BYTES = {"q4_k": 144, "q5_k": 176, "q6_k": 210}
TYPE_ARG = {"q4_k": "4", "q5_k": "5", "q6_k": "6"}


def inputs(seed):
    rng = np.random.default_rng(seed)
    rows = [
        rng.normal(0, 1, 256),
        rng.normal(0, 0.02, 256),
        rng.normal(0, 1e-3, 256),
        np.where(rng.random(256) < 0.02, rng.normal(0, 8, 256), rng.normal(0, 0.05, 256)),
        np.zeros(256),
        np.full(256, 0.37),
        np.abs(rng.normal(0.5, 0.2, 256)),
        -np.abs(rng.normal(0.1, 0.3, 256)),
        np.concatenate([np.zeros(32), rng.normal(0, 0.1, 224)]),
        rng.uniform(-2, 3, 256),
        rng.standard_t(3, 256) * 0.01,
        rng.normal(0, 3e-6, 256),
    ]
    return np.concatenate(rows).astype(np.float32)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    ggml = os.path.abspath(sys.argv[1])
    src = os.path.join(ggml, "src")
    if not os.path.exists(os.path.join(src, "ggml-quants.c")):
        sys.exit(f"{ggml}: no src/ggml-quants.c (give a ggml checkout)")
    cc = os.environ.get("CC", "cc")
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "harness.c"), "w") as f:
            f.write(HARNESS)
        with open(os.path.join(tmp, "stubs.c"), "w") as f:
            f.write(STUBS)
        exe = os.path.join(tmp, "kquant")
        flags = ["-O2", "-ffp-contract=off", "-DNDEBUG", "-I", src, "-I", os.path.join(ggml, "include")]
        subprocess.run([cc, *flags, "-o", exe, os.path.join(tmp, "harness.c"), os.path.join(src, "ggml-quants.c"),
                        os.path.join(tmp, "stubs.c"), "-lm"], check=True)
        for name, seed in [("q4_k", 21), ("q5_k", 22), ("q6_k", 23)]:
            x = inputs(seed)
            out = subprocess.run([exe, TYPE_ARG[name], str(x.size)], input=x.tobytes(), stdout=subprocess.PIPE, check=True).stdout
            assert len(out) == x.size // 256 * BLOCK_BYTES[name]
            with open(os.path.join(OUT, f"quantize_{name}.bin"), "wb") as f:
                f.write(np.array([x.size, BLOCK_BYTES[name]], dtype="<u4").tobytes())
                f.write(x.astype("<f4").tobytes())
                f.write(out)
            print(f"quantize_{name}.bin: {x.size} values, {len(out)} bytes of blocks")


if __name__ == "__main__":
    main()
