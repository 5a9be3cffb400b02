#!/usr/bin/env python3
"""Checks the GGUF files `tfx model quantize` writes with llama.cpp's own reader (gguf-py's
GGUFReader; gguf-py on PYTHONPATH as gen_gguf_reference.py says): every type opens and gguf-py
dequantizes each tensor to finite values; and the llama folder's Q8_0 file (with --fallback f32) holds exactly the bytes gguf-py wrote
into tests/data/gguf/llama_q8_0.gguf from the same weights.

    PYTHONPATH=/path/to/llama.cpp/gguf-py:/path/to/stub /usr/bin/python3 tests/reference/check_quantize_gguf.py build/tfx
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
from gguf import GGUFReader
from gguf import quants

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")


def main():
    tfx = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "build", "tfx")
    failures = 0
    with tempfile.TemporaryDirectory() as d:
        for src, types in [("hf_models/gpt2", ["f32", "f16", "bf16", "q8_0", "q5_1", "q5_0", "q4_1", "q4_0"]),
                           ("hf_models/qwen3", ["q8_0"]), ("gguf/gpt2.gguf", ["q4_0"])]:
            for t in types:
                out = os.path.join(d, f"{os.path.basename(src)}_{t}.gguf")
                subprocess.run([tfx, "model", "quantize", os.path.join(DATA, src), "--type", t, "--fallback", "f32", "-o", out],
                               check=True, stdout=subprocess.DEVNULL)
                r = GGUFReader(out)
                names = [x.name for x in r.tensors]
                kinds = sorted({x.tensor_type.name for x in r.tensors})
                arch = bytes(r.fields["general.architecture"].parts[-1]).decode()
                print(f"{src} {t}: GGUFReader reads {len(names)} tensors ({', '.join(kinds)}), architecture {arch}")
                for x in r.tensors:
                    w = quants.dequantize(x.data, x.tensor_type)
                    if not np.all(np.isfinite(w)):
                        print(f"  {x.name}: not finite"); failures += 1
        # byte equality with gguf-py's own Q8_0 file of the same weights
        out = os.path.join(d, "llama_q8_0.gguf")
        subprocess.run([tfx, "model", "quantize", os.path.join(DATA, "hf_models/llama"), "--type", "q8_0", "--fallback", "f32", "-o", out],
                       check=True, stdout=subprocess.DEVNULL)
        a = {x.name: x for x in GGUFReader(out).tensors}
        b = {x.name: x for x in GGUFReader(os.path.join(DATA, "gguf", "llama_q8_0.gguf")).tensors}
        same = sum(1 for n in b if n in a and a[n].tensor_type == b[n].tensor_type and a[n].data.tobytes() == b[n].data.tobytes())
        print(f"llama Q8_0: {same} of {len(b)} tensors byte-identical to gguf-py's llama_q8_0.gguf")
        failures += same != len(b) or len(a) != len(b)
    print("OK" if not failures else f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
