#!/usr/bin/python3
"""Benchmark: `tfx eval-analogies` (batched matmul) against gensim's evaluate_word_analogies
(one most_similar per question), measured in the same run on the same synthetic vectors.

    /usr/bin/python3 bench/eval_analogies_vs_gensim.py [--tfx build/tfx] [--words 20000] [--dim 100]
        [--questions ../shared/data/questions-words.txt]

The vocabulary is every word of the question file (lower-cased, so every question is answered),
then filler words up to --words; the vectors are seeded Gaussian noise, so both tools do the full
work of all 19,544 questions. Reported: gensim's evaluation time (load excluded), tfx's whole
process time with its cache warm (load included), their ratio, and both accuracies (which must be
equal: near 0 on noise, but the same questions right).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from gensim.models import KeyedVectors


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--tfx", default=os.path.join(here, "..", "build", "tfx"))
    ap.add_argument("--words", type=int, default=20000)
    ap.add_argument("--dim", type=int, default=100)
    ap.add_argument("--questions", default=os.path.join(here, "..", "..", "shared", "data", "questions-words.txt"))
    args = ap.parse_args()

    vocab, seen = [], set()
    with open(args.questions, encoding="utf8") as f:
        for line in f:
            if line.startswith(":"):
                continue
            for w in line.lower().split():
                if w not in seen:
                    seen.add(w)
                    vocab.append(w)
    vocab += ["filler%d" % i for i in range(max(0, args.words - len(vocab)))]
    rng = np.random.default_rng(42)
    vectors = rng.standard_normal((len(vocab), args.dim)).astype(np.float32)

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "noise.txt")
        with open(path, "w", encoding="utf8") as f:
            for w, v in zip(vocab, vectors):
                f.write(w + " " + " ".join("%.5f" % x for x in v) + "\n")
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))

        kv = KeyedVectors.load_word2vec_format(path, no_header=True)
        t0 = time.perf_counter()
        g_score, _ = kv.evaluate_word_analogies(args.questions)
        t_gensim = time.perf_counter() - t0

        cmd = [args.tfx, "eval-analogies", args.questions, "--embeddings", path, "--format", "json"]
        subprocess.run(cmd, env=env, check=True, capture_output=True)  # writes the cache
        best = None
        for _ in range(3):
            t0 = time.perf_counter()
            out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
            dt = time.perf_counter() - t0
            best = dt if best is None else min(best, dt)
        import json
        t_score = json.loads(out)["summary"]["accuracy"]

    print(f"vectors: {len(vocab)} words x {args.dim} dims (noise); questions: {args.questions}")
    print(f"gensim evaluate_word_analogies: {t_gensim:.2f} s (load excluded), accuracy {g_score:.6f}")
    print(f"tfx eval-analogies (whole process, cache warm, best of 3): {best:.2f} s, accuracy {t_score:.6f}")
    print(f"speed-up: {t_gensim / best:.1f}x")
    if abs(g_score - t_score) > 0.001:
        print("ACCURACY DIFFERS", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
