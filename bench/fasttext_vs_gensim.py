#!/usr/bin/python3
"""Compares tfx with gensim on every fastText .bin model in DATA_DIR: every vocabulary vector
(tfx embeddings convert --to-format word2vec, shortest round-trip floats) against
load_facebook_model(...).wv.vectors, and out-of-vocabulary words (tfx lookup --words, JSON)
against wv[word]. Prints the max |difference| per model; exits 1 above 1e-5.

    /usr/bin/python3 bench/fasttext_vs_gensim.py [TFX=build/tfx] [DATA_DIR=../shared/data]

cp852_fasttext.bin is left out: its words are not UTF-8, and gensim hashes their UTF-8
re-encoding where fastText (and tfx) hash the bytes (tests/reference/gen_fasttext_reference.py).
"""
import json, os, subprocess, sys, tempfile

import numpy as np
from gensim.models.fasttext import load_facebook_model

os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp()  # the caches written here are thrown away
tfx = sys.argv[1] if len(sys.argv) > 1 else "build/tfx"
data = sys.argv[2] if len(sys.argv) > 2 else "../shared/data"
oov = ["tfxunknownword", "governmentally", "naïve", "안녕하세요", "Quantenmechanik", "zzzz", "anarchy", "ñandú"]
worst_all = 0.0
for name in ["lee_fasttext.bin", "lee_fasttext_new.bin", "toy-model.bin", "toy-model-pretrained.bin", "non_ascii_fasttext.bin"]:
    path = os.path.join(data, name)
    wv = load_facebook_model(path).wv
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "v.txt")
        subprocess.run([tfx, "embeddings", "convert", path, out, "--to-format", "word2vec"], check=True,
                       capture_output=True)
        with open(out, "rb") as f:
            n, dim = map(int, f.readline().split())
            rows = {}
            for line in f:
                parts = line.rstrip(b"\n").split(b" ")
                rows[b" ".join(parts[:-dim]).decode()] = np.array([float(x) for x in parts[-dim:]], dtype=np.float64)
    assert n == len(wv.index_to_key) and dim == wv.vector_size, (name, n, dim)
    worst_vocab = max(float(np.abs(rows[w] - wv.vectors[i]).max()) for i, w in enumerate(wv.index_to_key))
    words = [w for w in oov if w not in wv.key_to_index]
    r = subprocess.run([tfx, "lookup", "--words", ",".join(words), "--embeddings", path, "--no-cache", "--format", "json"],
                       check=True, capture_output=True, text=True)
    got = np.array(json.loads(r.stdout)["data"], dtype=np.float64)
    worst_oov = max(float(np.abs(got[k] - wv[w]).max()) for k, w in enumerate(words))
    print(f"{name}: {n} words × {dim}; max |tfx − gensim| vocabulary {worst_vocab:.2e}, "
          f"{len(words)} out-of-vocabulary words {worst_oov:.2e}")
    worst_all = max(worst_all, worst_vocab, worst_oov)
print(f"max |difference| over all models: {worst_all:.2e}")
sys.exit(0 if worst_all <= 1e-5 else 1)
