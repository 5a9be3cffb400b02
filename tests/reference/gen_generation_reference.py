#!/usr/bin/python3
"""Greedy generation references for `tfx model generate` (tests/model/generate_test.cpp): for tiny
checkpoints of tests/data/hf_models (gpt2, gpt2_bf16, llama with grouped-query attention,
llama_llama3 with llama3 RoPE scaling, qwen2 with q/k/v biases), the whole-prefix forward of
gen_hf_models.py (plain torch after Hugging Face's modeling code, no KV cache) is re-run on the
prompt plus everything generated so far at every step; the argmax of the last position's logits is
the next token. Writes <name>/generation.safetensors: prompt (P), tokens (N), logits (N, V) — the
logits each token was chosen from. tfx generates with its KV cache and must choose the same tokens
with logits within 1e-4. Deterministic; rerun after gen_hf_models.py:

    /usr/bin/python3 tests/reference/gen_generation_reference.py
"""
import json
import os
import struct
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_hf_models as hf  # noqa: E402  (the families' forwards, written after HF's modeling code)

OUT = os.path.join(HERE, "..", "data", "hf_models")

# name → (family, prompt ids, new tokens); prompt + new tokens stay within the positions
CASES = {
    "gpt2": ("gpt2", [256, 105, 72, 259], 12),        # n_positions 16
    "gpt2_bf16": ("gpt2", [256, 105, 72, 259], 12),
    "llama": ("llama", [1, 259, 311, 361, 259], 14),  # max_position_embeddings 32; 4 heads, 2 KV heads
    "llama_llama3": ("llama", [1, 259, 311, 361, 259], 14),
    "qwen2": ("llama", [1, 259, 311, 361, 259], 14),
}


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    base = 8 + n
    out = {}
    for name, h in header.items():
        if name == "__metadata__":
            continue
        b, e = h["data_offsets"]
        raw = bytearray(data[base + b:base + e])
        if h["dtype"] == "F32":
            t = torch.frombuffer(raw, dtype=torch.float32)
        elif h["dtype"] == "F16":
            t = torch.frombuffer(raw, dtype=torch.float16).float()
        elif h["dtype"] == "BF16":
            t = torch.frombuffer(raw, dtype=torch.int16).view(torch.bfloat16).float()
        else:
            raise ValueError(h["dtype"])
        out[name] = t.reshape(h["shape"]).clone()
    return out


def main():
    for name, (family, prompt, n) in CASES.items():
        d = os.path.join(OUT, name)
        with open(os.path.join(d, "config.json")) as f:
            config = json.load(f)
        w = read_safetensors(os.path.join(d, "model.safetensors"))
        if family == "gpt2":
            w = {("transformer." + k if not k.startswith("transformer.") else k): v for k, v in w.items()}
        ids, tokens, logits = list(prompt), [], []
        for _ in range(n):
            # the whole prefix again, no cache
            if family == "gpt2":
                _, _, lg = hf.gpt2_forward(config, w, ids)
            else:
                _, _, lg = hf.llama_forward(config, w, ids)
            last = lg[-1]
            t = int(torch.argmax(last))
            tokens.append(t)
            logits.append(last.clone())
            ids.append(t)
        hf.write_safetensors(os.path.join(d, "generation.safetensors"),
                             {"prompt": torch.tensor(prompt, dtype=torch.float32),
                              "tokens": torch.tensor(tokens, dtype=torch.float32),
                              "logits": torch.stack(logits).contiguous()})
        print(name, "prompt", prompt, "→", tokens)


if __name__ == "__main__":
    with torch.no_grad():
        main()
