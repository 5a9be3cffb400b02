#!/usr/bin/env bash
# Benchmark: one optimizer step of `tfx train gpt` (GPT-2 layout, d_model 256, 4 layers, 4 heads,
# context 128, batch 8: forward, backward and Adam) against the same step in PyTorch 1.13
# (Debian's python3-torch; the model written out in plain tensor ops after modeling_gpt2.py, as
# tests/reference/gen_train_gpt_reference.py does, float32, torch.optim.Adam), with the same number
# of threads, on the same vocabulary (tfx learns a 512-token BPE from data/teaching_gpt/corpus.txt).
# Each side's time per step is measured inside its own process over STEPS steps after its first
# step (tfx: the training time it reports / steps; PyTorch: time.perf_counter around the loop).
# Prints both, tokens/s, peak RSS, and the ratio tfx / PyTorch.
# With LLM_C=DIR (a checkout of karpathy/llm.c, or the bare git directory `fetch` leaves under
# /work/.mirror/karpathy+llm.c/), also llm.c's CPU trainer train_gpt2.c, the reference C
# implementation of the same step: built as its Makefile builds it (-Ofast -march=native -fopenmp
# -DOMP), its main() set to the same batch, context and step count, started from a checkpoint and
# token files in its own formats (random weights, the same shape and vocabulary size; written by
# this script), OMP_NUM_THREADS=THREADS; its time is the mean of its "took N ms" lines after the
# first step (forward, backward and AdamW, as tfx's).
# Usage: [LLM_C=DIR] bench/train_gpt.sh [build/tfx] [THREADS] [STEPS]   (default: 2 threads, 10 steps)
set -euo pipefail
TFX=${1:-build/tfx}
THREADS=${2:-2}
STEPS=${3:-10}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
SHAPE="--d-model 256 --layers 4 --heads 4 --context 128 --batch 8 --vocab-size 512"
/usr/bin/time -f '%M' -o "$work/tfx.rss" "$TFX" train gpt --text "$here/data/teaching_gpt/corpus.txt" -o "$work/gpt" $SHAPE \
  --steps "$STEPS" --every 1000000 --threads "$THREADS" --no-progress --format json >"$work/tfx.json"
read -r t_tfx c_tfx < <(/usr/bin/python3 -c "import json; s=json.load(open('$work/tfx.json'))['summary']; print(s['seconds_per_step'], s['cpu_seconds_per_step'])")
echo "tfx train gpt: $t_tfx s per step, $c_tfx s of CPU ($(cat "$work/tfx.rss") kB peak RSS, threads $THREADS)"
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "PyTorch skipped (no python3-torch)"
  exit 0
fi
cat >"$work/pt_step.py" <<'PY'
import math, sys, time
import torch
import torch.nn.functional as F
threads, steps = int(sys.argv[1]), int(sys.argv[2])
torch.set_num_threads(threads)
V, D, L, H, T, B = 512, 256, 4, 4, 128, 8
g = torch.Generator().manual_seed(0)
def p(*shape, std=0.02):
    return (std * torch.randn(*shape, generator=g)).requires_grad_(True)
w = {"wte": p(V, D), "wpe": p(T, D), "lnf_w": torch.ones(D, requires_grad=True), "lnf_b": torch.zeros(D, requires_grad=True)}
for i in range(L):
    w.update({f"{i}.ln1_w": torch.ones(D, requires_grad=True), f"{i}.ln1_b": torch.zeros(D, requires_grad=True),
              f"{i}.attn_w": p(D, 3 * D), f"{i}.attn_b": torch.zeros(3 * D, requires_grad=True),
              f"{i}.proj_w": p(D, D), f"{i}.proj_b": torch.zeros(D, requires_grad=True),
              f"{i}.ln2_w": torch.ones(D, requires_grad=True), f"{i}.ln2_b": torch.zeros(D, requires_grad=True),
              f"{i}.fc_w": p(D, 4 * D), f"{i}.fc_b": torch.zeros(4 * D, requires_grad=True),
              f"{i}.fcp_w": p(4 * D, D), f"{i}.fcp_b": torch.zeros(D, requires_grad=True)})
causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
def loss_of(ids):
    x = w["wte"][ids[:, :-1]] + w["wpe"][:T]
    for i in range(L):
        a = F.layer_norm(x, (D,), w[f"{i}.ln1_w"], w[f"{i}.ln1_b"])
        q, k, v = (a @ w[f"{i}.attn_w"] + w[f"{i}.attn_b"]).split(D, dim=-1)
        q, k, v = (t.view(B, T, H, D // H).transpose(1, 2) for t in (q, k, v))
        s = (q @ k.transpose(-1, -2)) / math.sqrt(D // H)
        z = (torch.softmax(s.masked_fill(~causal, float("-inf")), -1) @ v).transpose(1, 2).reshape(B, T, D)
        x = x + z @ w[f"{i}.proj_w"] + w[f"{i}.proj_b"]
        m = F.layer_norm(x, (D,), w[f"{i}.ln2_w"], w[f"{i}.ln2_b"])
        x = x + F.gelu(m @ w[f"{i}.fc_w"] + w[f"{i}.fc_b"], approximate="tanh") @ w[f"{i}.fcp_w"] + w[f"{i}.fcp_b"]
    x = F.layer_norm(x, (D,), w["lnf_w"], w["lnf_b"])
    return F.cross_entropy((x @ w["wte"].T).reshape(-1, V), ids[:, 1:].reshape(-1))
opt = torch.optim.Adam(list(w.values()), lr=1e-3)
def step():
    ids = torch.randint(0, V, (B, T + 1), generator=g)
    opt.zero_grad()
    loss_of(ids).backward()
    opt.step()
step()
start, cpu = time.perf_counter(), time.process_time()
for _ in range(steps):
    step()
print((time.perf_counter() - start) / steps, (time.process_time() - cpu) / steps)
PY
read -r t_pt c_pt < <(/usr/bin/time -f '%M' -o "$work/pt.rss" /usr/bin/python3 "$work/pt_step.py" "$THREADS" "$STEPS")
echo "PyTorch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)'): $t_pt s per step, $c_pt s of CPU ($(cat "$work/pt.rss") kB peak RSS, threads $THREADS)"
if [[ -n ${LLM_C:-} ]]; then
  mkdir -p "$work/llmc"
  if [[ -f $LLM_C/HEAD && ! -f $LLM_C/train_gpt2.c ]]; then
    git --git-dir="$LLM_C" archive HEAD -- train_gpt2.c llmc | tar x -C "$work/llmc"
    echo "llm.c: $(git --git-dir="$LLM_C" log -1 --format='%h %cs')"
  else
    cp -r "$LLM_C/train_gpt2.c" "$LLM_C/llmc" "$work/llmc/"
  fi
  # the same shape: batch 8, context 128, STEPS steps after the first (no sampling: that is at step 20)
  sed -i -e 's/int B = 4;/int B = 8;/' -e 's/int T = 64;/int T = 128;/' -e "s/step <= 40;/step <= $STEPS;/" "$work/llmc/train_gpt2.c"
  (cd "$work/llmc" && cc -Ofast -march=native -fopenmp -DOMP -Wno-unused-result -I. train_gpt2.c -lm -o train_gpt2)
  /usr/bin/python3 - "$work/llmc" <<'PY'
import os, sys
import numpy as np
d = sys.argv[1]
V, C, L, NH, maxT = 512, 256, 4, 4, 128
rng = np.random.default_rng(0)
header = np.zeros(256, np.int32)
header[:8] = [20240326, 3, maxT, V, L, NH, C, V]  # version 3: fp32, padded vocabulary (= V here)
sizes = [V * C, maxT * C, L * C, L * C, L * 3 * C * C, L * 3 * C, L * C * C, L * C, L * C, L * C,
         L * 4 * C * C, L * 4 * C, L * C * 4 * C, L * C, C, C]
with open(os.path.join(d, "gpt2_124M.bin"), "wb") as f:
    f.write(header.tobytes())
    f.write((0.02 * rng.standard_normal(sum(sizes))).astype(np.float32).tobytes())
os.makedirs(os.path.join(d, "dev/data/tinyshakespeare"), exist_ok=True)
for name, n in (("train", 8 * 128 * 64 + 1), ("val", 8 * 128 * 6 + 1)):
    h = np.zeros(256, np.int32)
    h[:3] = [20240520, 1, n]
    with open(os.path.join(d, f"dev/data/tinyshakespeare/tiny_shakespeare_{name}.bin"), "wb") as f:
        f.write(h.tobytes())
        f.write(rng.integers(0, V, n).astype(np.uint16).tobytes())
PY
  (cd "$work/llmc" && OMP_NUM_THREADS=$THREADS /usr/bin/time -f '%M' -o "$work/llmc.rss" ./train_gpt2 >"$work/llmc.out" 2>&1) || {
    echo "llm.c failed:"; tail -5 "$work/llmc.out"; exit 1; }
  t_llmc=$(awk '/^step [0-9]+: train loss/ && $2 != "0:" { gsub(/[(]/, ""); ms += $(NF-1); n++ } END { if (n) printf "%.6f", ms / n / 1000 }' "$work/llmc.out")
  [[ -n $t_llmc ]] || { echo "llm.c printed no step times:"; tail -5 "$work/llmc.out"; exit 1; }
  echo "llm.c train_gpt2.c: $t_llmc s per step ($(cat "$work/llmc.rss") kB peak RSS, OMP_NUM_THREADS $THREADS)"
  awk -v a="$t_tfx" -v b="$t_llmc" 'BEGIN { printf "tokens/s: tfx %.0f, llm.c %.0f; tfx / llm.c time per step = %.3f\n", 1024 / a, 1024 / b, a / b }'
fi
# on a loaded machine wall times say little (PyTorch's OpenMP threads spin while waiting for a core); CPU time is the fairer row
awk -v a="$t_tfx" -v b="$t_pt" -v ca="$c_tfx" -v cb="$c_pt" 'BEGIN {
  printf "tokens/s: tfx %.0f, PyTorch %.0f; tfx / PyTorch time per step = %.3f\n", 1024 / a, 1024 / b, a / b
  printf "CPU per step: tfx %.3f s, PyTorch %.3f s; tfx / PyTorch = %.3f\n", ca, cb, ca / cb }'
