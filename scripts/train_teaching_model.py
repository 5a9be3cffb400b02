#!/usr/bin/python3
# Trains tfx's built-in Korean→English teaching translator, the lecture's architecture and nothing
# more: token embedding + sinusoidal PE, 2 post-LN encoder layers, 2 post-LN decoder layers
# (PyTorch's nn.TransformerEncoderLayer / nn.TransformerDecoderLayer: multi-head attention, FFN
# 4·d with ReLU, add & norm), a causal mask, cross-attention, an output projection. d_model 64,
# 4 heads. One word-level vocabulary for both languages (split at spaces; a Korean word keeps its
# particle: 커피를 is one token).
#
# The corpus is generated here from the lecture's templates (subjects × nouns with 이다/이었다,
# subjects × object–verb pairs, present and past), with each pair's gold word alignment, and split
# so that the test pairs are combinations never seen in training (every word of a test pair is
# seen in training, in other combinations).
#
# Writes (default: data/teaching_model/ of the repository):
#   model.safetensors  F32, PyTorch's state_dict names (embedding.weight, encoder.layers.{i}.*,
#                      decoder.layers.{i}.*, generator.weight/bias); metadata: d_model, nhead, …
#   vocab.txt          one token per line, id = line number − 1 (the embedding's row)
#   corpus.tsv         split, korean, english, alignment (for each English token the index of the
#                      Korean token it translates, or - for a, an, the)
#   train_log.tsv      step and loss of every step (a short run from the seed must reproduce the
#                      first lines: tests/python/test_train_teaching_model.py)
#   reference.json     the PyTorch forward pass of the trained model on a few sentences (logits,
#                      cross-attention), which tfx's C++ forward pass is tested against
#
# Usage: /usr/bin/python3 scripts/train_teaching_model.py [--steps N] [--out DIR]
# CPU, Debian's python3-torch (1.13), fixed seed, 2 threads: about a minute.
import argparse
import json
import math
import os
import random
import struct
import sys
import time

import torch
from torch import nn

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED = 20261125
D_MODEL, HEADS, LAYERS, FFN = 64, 4, 2, 256
PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"

# ---- the domain ----

SUBJECTS = [("나는", "I"), ("너는", "you"), ("그는", "he"), ("그녀는", "she"), ("우리는", "we"), ("그들은", "they")]
# Korean noun, English singular (with its article), English plural
NOUNS = [("학생", "a student", "students"), ("선생님", "a teacher", "teachers"), ("의사", "a doctor", "doctors"),
         ("가수", "a singer", "singers"), ("요리사", "a cook", "cooks"), ("화가", "a painter", "painters"),
         ("기자", "a reporter", "reporters"), ("배우", "an actor", "actors"), ("엔지니어", "an engineer", "engineers"),
         ("경찰", "a police officer", "police officers")]
# verb: Korean present, Korean past, English base, 3rd person singular, past; objects with their English
VERBS = [
    ("먹는다", "먹었다", "eat", "eats", "ate", [("사과", "an apple"), ("빵", "bread"), ("밥", "rice")]),
    ("마신다", "마셨다", "drink", "drinks", "drank", [("물", "water"), ("우유", "milk"), ("커피", "coffee")]),
    ("읽는다", "읽었다", "read", "reads", "read", [("책", "a book"), ("신문", "a newspaper"), ("편지", "a letter")]),
    ("쓴다", "썼다", "write", "writes", "wrote", [("편지", "a letter"), ("시", "a poem")]),
    ("본다", "봤다", "watch", "watches", "watched", [("영화", "a movie"), ("뉴스", "the news")]),
    ("부른다", "불렀다", "sing", "sings", "sang", [("노래", "a song")]),
]
FUNCTION_WORDS = {"a", "an", "the"}


def object_particle(noun):
    """를 after a vowel, 을 after a consonant (a Hangul syllable with a final consonant)."""
    code = ord(noun[-1]) - 0xAC00
    return "을" if 0 <= code < 11172 and code % 28 != 0 else "를"


def be(subject, past):
    if past:
        return "was" if subject in ("I", "he", "she") else "were"
    return {"I": "am", "he": "is", "she": "is"}.get(subject, "are")


def aligned(parts):
    """parts: (English words, Korean index or None) → English tokens and their alignment."""
    tokens, align = [], []
    for words, k in parts:
        for w in words.split():
            tokens.append(w)
            align.append(None if w in FUNCTION_WORDS else k)
    return tokens, align


def corpus():
    """Every pair of the domain: (kind, key, korean tokens, english tokens, alignment)."""
    pairs = []
    for s_ko, s_en in SUBJECTS:
        plural = s_en in ("we", "they")
        for n_ko, n_sg, n_pl in NOUNS:
            for past in (False, True):
                ko = [s_ko, n_ko, "이었다" if past else "이다"]
                en, al = aligned([(s_en, 0), (be(s_en, past), 2), (n_pl if plural else n_sg, 1)])
                pairs.append(("copula", (s_ko, n_ko, past), ko, en, al))
        for v_ko, v_ko_past, base, third, v_past, objects in VERBS:
            for o_ko, o_en in objects:
                for past in (False, True):
                    ko = [s_ko, o_ko + object_particle(o_ko), v_ko_past if past else v_ko]
                    verb = v_past if past else (third if s_en in ("he", "she") else base)
                    en, al = aligned([(s_en, 0), (verb, 2), (o_en, 1)])
                    pairs.append(("object", (s_ko, o_ko, v_ko, past), ko, en, al))
    return pairs


def split(pairs, rng):
    """Holds out ≥ 15 % of the combinations of each kind, every test word seen in training, and
    the lecture's 나는 학생 이다 kept in training."""
    order = list(range(len(pairs)))
    rng.shuffle(order)
    test = set()
    for kind in ("copula", "object"):
        members = [i for i in order if pairs[i][0] == kind]
        want = math.ceil(0.17 * len(members))
        for i in members:
            if len(test & set(members)) >= want:
                break
            if pairs[i][2] == ["나는", "학생", "이다"]:
                continue
            trial = test | {i}
            seen = set()
            for j, p in enumerate(pairs):
                if j not in trial:
                    seen.update(p[2])
                    seen.update(p[3])
            if all(w in seen for j in trial for w in pairs[j][2] + pairs[j][3]):
                test = trial
    return ["test" if i in test else "train" for i in range(len(pairs))]


# ---- the model ----


def sinusoidal(T, d):
    pe = torch.zeros(T, d)
    pos = torch.arange(T, dtype=torch.float64)[:, None]
    i = torch.arange(0, d, 2, dtype=torch.float64)
    angle = pos / torch.pow(10000.0, i / d)
    pe[:, 0::2] = torch.sin(angle).float()
    pe[:, 1::2] = torch.cos(angle).float()
    return pe


class Translator(nn.Module):
    def __init__(self, vocab_size):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, D_MODEL)
        enc = nn.TransformerEncoderLayer(D_MODEL, HEADS, FFN, dropout=0.1, batch_first=True)
        dec = nn.TransformerDecoderLayer(D_MODEL, HEADS, FFN, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(enc, LAYERS, enable_nested_tensor=False)
        self.decoder = nn.TransformerDecoder(dec, LAYERS)
        self.generator = nn.Linear(D_MODEL, vocab_size)
        self.register_buffer("pe", sinusoidal(32, D_MODEL), persistent=False)

    def embed(self, ids):
        # X = Embedding(ids) + PE, as the lecture writes it (no √d_model scaling)
        return self.embedding(ids) + self.pe[: ids.shape[1]][None]

    def forward(self, src, tgt_in, src_pad, tgt_pad):
        T = tgt_in.shape[1]
        causal = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
        memory = self.encoder(self.embed(src), src_key_padding_mask=src_pad)
        y = self.decoder(self.embed(tgt_in), memory, tgt_mask=causal, tgt_key_padding_mask=tgt_pad,
                         memory_key_padding_mask=src_pad)
        return self.generator(y)


def cross_attention(model, src, tgt_in):
    """Per decoder layer, the head-averaged cross-attention weights (T, S) of one pair (eval)."""
    T = tgt_in.shape[1]
    causal = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
    x = model.embed(tgt_in)
    memory = model.encoder(model.embed(src))
    per_layer = []
    for layer in model.decoder.layers:
        h1 = layer.norm1(x + layer.self_attn(x, x, x, attn_mask=causal, need_weights=False)[0])
        att, w = layer.multihead_attn(h1, memory, memory, need_weights=True, average_attn_weights=True)
        per_layer.append(w[0])
        h2 = layer.norm2(h1 + att)
        x = layer.norm3(h2 + layer.linear2(torch.relu(layer.linear1(h2))))
    return per_layer


def greedy(model, vocab, ids, src_tokens, limit=12):
    src = torch.tensor([[ids[w] for w in src_tokens]])
    out = [ids[BOS]]
    with torch.no_grad():
        for _ in range(limit):
            logits = model(src, torch.tensor([out]), None, None)[0, -1]
            nxt = int(logits.argmax())
            if vocab[nxt] == EOS:
                break
            out.append(nxt)
    return [vocab[i] for i in out[1:]]


def write_safetensors(path, tensors, metadata):
    header, blobs, offset = {"__metadata__": metadata}, [], 0
    for name in sorted(tensors):
        flat = tensors[name].detach().contiguous().to(torch.float32).reshape(-1)
        blob = struct.pack("<%df" % flat.numel(), *flat.tolist())
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser(description="Trains tfx's built-in Korean→English teaching translator")
    ap.add_argument("--steps", type=int, default=3000, help="optimizer steps (default 3000)")
    ap.add_argument("--out", default=os.path.join(REPO, "data", "teaching_model"), help="output folder")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    start = time.time()
    torch.manual_seed(SEED)
    torch.set_num_threads(2)
    rng = random.Random(SEED)

    pairs = corpus()
    splits = split(pairs, rng)
    words = sorted({w for p in pairs for w in p[2]}) + sorted({w for p in pairs for w in p[3]})
    vocab = [PAD, BOS, EOS, UNK] + words
    ids = {w: i for i, w in enumerate(vocab)}
    train = [p for p, s in zip(pairs, splits) if s == "train"]
    test = [p for p, s in zip(pairs, splits) if s == "test"]

    def batch(items):
        S = max(len(p[2]) for p in items)
        T = max(len(p[3]) for p in items) + 1
        src = torch.full((len(items), S), ids[PAD])
        tin = torch.full((len(items), T), ids[PAD])
        tout = torch.full((len(items), T), ids[PAD])
        for b, p in enumerate(items):
            src[b, : len(p[2])] = torch.tensor([ids[w] for w in p[2]])
            seq = [ids[BOS]] + [ids[w] for w in p[3]] + [ids[EOS]]
            tin[b, : len(seq) - 1] = torch.tensor(seq[:-1])
            tout[b, : len(seq) - 1] = torch.tensor(seq[1:])
        return src, tin, tout, src == ids[PAD], tin == ids[PAD]

    model = Translator(len(vocab))
    opt = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    warmup = 200
    # the lecture's warm-up schedule: lr = d^-0.5 · min(step^-0.5, step · warmup^-1.5)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: D_MODEL ** -0.5 * min((s + 1) ** -0.5, (s + 1) * warmup ** -1.5))
    loss_fn = nn.CrossEntropyLoss(ignore_index=ids[PAD], label_smoothing=0.05)
    log = []
    model.train()
    order = []
    for step in range(args.steps):
        if len(order) < 32:
            extra = list(range(len(train)))
            rng.shuffle(extra)
            order += extra
        chosen, order = order[:32], order[32:]
        src, tin, tout, sp, tp = batch([train[i] for i in chosen])
        logits = model(src, tin, sp, tp)
        loss = loss_fn(logits.reshape(-1, len(vocab)), tout.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        log.append((step + 1, float(loss)))
        if not args.quiet and (step + 1) % 500 == 0:
            print("step %d loss %.4f (%.0f s)" % (step + 1, float(loss), time.time() - start), flush=True)
    model.eval()

    # accuracy and alignment on the test split
    exact = 0
    hits = total = 0
    per_layer_hits = [0] * LAYERS
    with torch.no_grad():
        for p in test:
            out = greedy(model, vocab, ids, p[2])
            exact += out == p[3]
            src = torch.tensor([[ids[w] for w in p[2]]])
            tin = torch.tensor([[ids[BOS]] + [ids[w] for w in p[3]]])
            ws = cross_attention(model, src, tin)
            for t, k in enumerate(p[4]):
                if k is None:
                    continue
                total += 1
                for li in range(LAYERS):
                    per_layer_hits[li] += int(ws[li][t].argmax()) == k
    os.makedirs(args.out, exist_ok=True)
    summary = {
        "pairs": len(pairs), "train": len(train), "test": len(test), "steps": args.steps, "vocab": len(vocab),
        "test_exact": exact, "test_exact_fraction": exact / len(test),
        "alignment_per_layer": [h / total for h in per_layer_hits], "content_words": total,
        "seconds": round(time.time() - start, 1), "torch": torch.__version__,
    }
    print(json.dumps(summary, ensure_ascii=False))
    with open(os.path.join(args.out, "train_log.tsv"), "w") as f:
        f.write("step\tloss\n" + "".join("%d\t%.6f\n" % (s, l) for s, l in log))
    if args.steps < 100:
        return  # a short reproducibility run: the log is what it is for
    with open(os.path.join(args.out, "vocab.txt"), "w") as f:
        f.write("".join(w + "\n" for w in vocab))
    with open(os.path.join(args.out, "corpus.tsv"), "w") as f:
        f.write("split\tkorean\tenglish\talignment\n")
        for p, s in zip(pairs, splits):
            f.write("%s\t%s\t%s\t%s\n" % (s, " ".join(p[2]), " ".join(p[3]), " ".join("-" if k is None else str(k) for k in p[4])))
    state = {k: v for k, v in model.state_dict().items()}
    meta = {"format": "pt", "module": "tfx teaching translator", "d_model": str(D_MODEL), "nhead": str(HEADS),
            "layers": str(LAYERS), "dim_feedforward": str(FFN), "seed": str(SEED), "steps": str(args.steps)}
    write_safetensors(os.path.join(args.out, "model.safetensors"), state, meta)
    # the reference forward pass for tfx's tests: teacher-forced logits and cross-attention
    ref = {"summary": summary, "sentences": []}
    with torch.no_grad():
        for ko, en in (("나는 학생 이다", "I am a student"), ("그녀는 커피를 마셨다", "she drank coffee"),
                       ("그들은 경찰 이었다", "they were police officers")):
            src = torch.tensor([[ids[w] for w in ko.split()]])
            tin = torch.tensor([[ids[BOS]] + [ids[w] for w in en.split()]])
            logits = model(src, tin, None, None)[0]
            ws = cross_attention(model, src, tin)
            ref["sentences"].append({"korean": ko, "english": en, "logits": logits.tolist(),
                                     "cross_attention": [w.tolist() for w in ws],
                                     "greedy": greedy(model, vocab, ids, ko.split())})
    with open(os.path.join(args.out, "reference.json"), "w") as f:
        json.dump(ref, f, ensure_ascii=False)


if __name__ == "__main__":
    sys.exit(main())
