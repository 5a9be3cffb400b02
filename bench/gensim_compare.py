#!/usr/bin/python3
"""Checks `tfx analogy` against gensim on real files: same top-k ranking and scores within 1e-4,
for 3CosAdd (most_similar) and 3CosMul (most_similar_cosmul).

    /usr/bin/python3 bench/gensim_compare.py [TFX] [DATA_DIR] [QUERIES_PER_FILE]

Queries: in-vocabulary questions from questions-words.txt (GloVe files, lower-cased), else random
word triples (seeded). Prints one line per file and exits 1 on any mismatch.
"""
import json, os, random, subprocess, sys, tempfile
from gensim.models import KeyedVectors

tfx = sys.argv[1] if len(sys.argv) > 1 else "build/tfx"
data = sys.argv[2] if len(sys.argv) > 2 else "../shared/data"
per_file = int(sys.argv[3]) if len(sys.argv) > 3 else 300
K = 10
files = [("glove.6B.100d.top2604.txt", False, True), ("glove.6B.50d.top2446.txt", False, True),
         ("test_glove.txt", False, True), ("euclidean_vectors.bin", True, False), ("poincare_vectors.bin", True, False),
         ("word2vec_pre_kv_c.txt", False, False), ("lee_fasttext.vec", False, False),
         ("crime-and-punishment.vec", False, False), ("toy-model.vec", False, False),
         ("EN.1-10.cbow1_wind5_hs0_neg10_size300_smpl1e-05.txt", False, False)]

questions = []
with open(os.path.join(data, "questions-words.txt"), encoding="utf-8") as f:
    for line in f:
        if not line.startswith(":"):
            questions.append(line.lower().split()[:3])

bad = 0
for name, binary, no_header in files:
    path = os.path.join(data, name)
    kv = KeyedVectors.load_word2vec_format(path, binary=binary, no_header=no_header)
    vocab = kv.index_to_key
    rng = random.Random(42)
    if no_header and name.startswith("glove"):
        qs = [q for q in questions if all(w in kv.key_to_index for w in q) and len(set(q)) == 3][:per_file]
    else:
        qs = []
        while len(qs) < min(per_file, 100):
            q = rng.sample(vocab, 3)
            if all(" " not in w for w in q):
                qs.append(q)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as tf:
        tf.write("".join(" ".join(q) + "\n" for q in qs))
    worst, rank_diff = 0.0, 0
    for method in ("add", "mul"):
        out = subprocess.run([tfx, "analogy", "--queries", tf.name, "--embeddings", path, "-k", str(K), "--method", method,
                              "--format", "json", "--no-cache"], capture_output=True, text=True, check=True)
        rows = json.loads(out.stdout)["data"]
        score = "cosine" if method == "add" else "3cosmul"
        for qi, q in enumerate(qs):
            ours = rows[qi * K:(qi + 1) * K]
            f = kv.most_similar if method == "add" else kv.most_similar_cosmul
            ref = f(positive=[q[0], q[2]], negative=[q[1]], topn=K)
            for r, (o, (w, s)) in enumerate(zip(ours, ref)):
                d = abs(o[score] - s)
                worst = max(worst, d)
                # a different word at a rank is only acceptable as a tie (equal scores within 1e-6)
                if o["word"] != w and abs(o[score] - s) > 1e-6:
                    rank_diff += 1
    os.unlink(tf.name)
    ok = worst < 1e-4 and rank_diff == 0
    bad += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {len(qs)} queries × top-{K} × add/mul, max |score diff| {worst:.2e}, ranking differences {rank_diff}")
sys.exit(1 if bad else 0)
