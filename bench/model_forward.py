#!/usr/bin/python3
"""The real-model row of bench/run: a GPT-2-small-shaped checkpoint (12 layers, d 768, 12 heads,
vocabulary 50,257, 1024 positions; random F32 weights made here, in Hugging Face's layout) over
128 tokens.

    bench/model_forward.py make DIR        writes DIR/config.json and DIR/model.safetensors (498 MB)
    bench/model_forward.py torch DIR       PyTorch 1.13's forward of the same weights with the
                                           attentions, without the LM head, loading excluded:
                                           prints "torch_forward_seconds S" (best of 5); beside
                                           bench_model_forward (tfx's forward, loading excluded)
    bench/model_forward.py process DIR OUT PyTorch's whole process: import, map the weights, the
                                           same forward, np.save the (12, 12, 128, 128) float32
                                           attentions to OUT; beside the whole `tfx model
                                           attention DIR --ids … -o OUT` (load, forward, write)

Both sides skip the LM head, which the attentions do not need. PyTorch reads the safetensors file
through np.memmap (no copy, pages read when used), the cheapest load it has without the
safetensors package.
"""
import json
import math
import os
import sys
import time
import warnings

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "reference"))
from gen_hf_models import gpt2_forward, gpt2_weights, write_safetensors  # noqa: E402

CONFIG = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_embd": 768, "n_layer": 12, "n_head": 12,
          "n_positions": 1024, "vocab_size": 50257, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new", "n_inner": None}
IDS = [(i * 7919 + 13) % 50257 for i in range(128)]


def make(d):
    os.makedirs(d, exist_ok=True)
    w = gpt2_weights(CONFIG, torch.Generator().manual_seed(1))
    w = {k: v for k, v in w.items() if not k.endswith(".attn.bias")}
    write_safetensors(os.path.join(d, "model.safetensors"), w, {"format": "pt"})
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(dict(CONFIG, tfx_random_weights=True), f)  # tfx says so in every output
    print(",".join(map(str, IDS)))


def read_weights(path):
    """The F32 tensors of a safetensors file, as views of one read-only np.memmap (no copy)."""
    with open(path, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "the given NumPy array is not writable": it is only read
        for k, v in header.items():
            if k == "__metadata__":
                continue
            b, e = v["data_offsets"]
            out[k] = torch.from_numpy(data[b:e].view(np.float32)).view(v["shape"])
    return out


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    elif sys.argv[1] == "ids":
        print(",".join(map(str, IDS)))
    elif sys.argv[1] == "process":
        torch.set_num_threads(os.cpu_count())
        w = read_weights(os.path.join(sys.argv[2], "model.safetensors"))
        with torch.no_grad():
            _, attns, _ = gpt2_forward(CONFIG, w, IDS, logits=False)
        np.save(sys.argv[3], torch.stack(attns).numpy())
    else:
        torch.set_num_threads(os.cpu_count())
        w = read_weights(os.path.join(sys.argv[2], "model.safetensors"))
        best = math.inf
        with torch.no_grad():
            for _ in range(5):
                t = time.perf_counter()
                gpt2_forward(CONFIG, w, IDS, logits=False)
                best = min(best, time.perf_counter() - t)
        print(f"torch_forward_seconds {best:.4f}")
