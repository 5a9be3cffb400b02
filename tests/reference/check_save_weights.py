#!/usr/bin/python3
# Checks that `tfx encoder/decoder --save-weights` files load into PyTorch unchanged
# (load_state_dict, strict) and that PyTorch's forward pass on them gives tfx's output.
# Usage: /usr/bin/python3 tests/reference/check_save_weights.py build/tfx
# (Debian python3-torch 1.13; not part of ctest, which must not need torch.)
import json
import os
import struct
import subprocess
import sys
import tempfile

import torch

tfx = sys.argv[1] if len(sys.argv) > 1 else "build/tfx"


def load(path):
    """A safetensors file read with struct + json (independently of tfx's reader)."""
    b = open(path, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    header, buf, out = json.loads(b[8:8 + n]), b[8 + n:], {}
    for k, v in header.items():
        if k == "__metadata__":
            continue
        s, e = v["data_offsets"]
        out[k] = torch.tensor(struct.unpack("<%df" % ((e - s) // 4), buf[s:e])).reshape(v["shape"])
    return out


def run(*args):
    return json.loads(subprocess.run([tfx, *args, "--format", "json"], check=True, capture_output=True, text=True).stdout)


worst = 0.0
with tempfile.TemporaryDirectory() as d, torch.no_grad():
    w = os.path.join(d, "enc.safetensors")
    e = run("encoder", "--sentence", "I love playing football.", "--layers", "2", "--d-model", "8", "--heads", "2",
            "--show", "x", "--save-weights", w)
    enc = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 32, dropout=0.0, batch_first=True), 2,
                                      enable_nested_tensor=False).eval()
    enc.load_state_dict(load(w))
    x = torch.tensor(e["matrices"]["layer1.x"]["data"])
    diff = (enc(x[None])[0] - torch.tensor(e["data"])).abs().max().item()
    print("encoder, 2 layers: max |tfx - torch| =", diff)
    worst = max(worst, diff)

    w = os.path.join(d, "dec.safetensors")
    o = run("decoder", "--sentence", "I am a student", "--memory", "나는 학생 이다", "--d-model", "8", "--heads", "2",
            "--norm-first", "--show", "x,memory", "--save-weights", w)
    dec = torch.nn.TransformerDecoderLayer(8, 2, 32, dropout=0.0, batch_first=True, norm_first=True).eval()
    dec.load_state_dict(load(w))
    x, m = torch.tensor(o["matrices"]["x"]["data"]), torch.tensor(o["matrices"]["memory"]["data"])
    mask = torch.triu(torch.full((x.shape[0], x.shape[0]), float("-inf")), diagonal=1)
    diff = (dec(x[None], m[None], tgt_mask=mask)[0] - torch.tensor(o["data"])).abs().max().item()
    print("decoder, pre-LN: max |tfx - torch| =", diff)
    worst = max(worst, diff)
sys.exit(0 if worst < 1e-5 else 1)
