#!/usr/bin/env python3
"""Writes data/teaching_model/corpus_lengths.tsv: the built-in corpus of the extrapolation
experiment (`tfx train --corpus lengths --train-max-len N`, issue 47).

Every pair is a list of distinct animals, English -> Korean, word for word and in order:
"dog cat bird" -> "개 고양이 새". The words are easy (20 of them, each always translated the
same way); what is hard is the order: target word k is the translation of source word k, so the
decoder must find source position k, at every length. A model without positional encoding sees
the source as a bag of words and cannot keep the order of a list of two or more.

Lengths: the training split has PER_LENGTH_TRAIN lists of each length 1 ... TRAIN_LONGEST (all 20
lists of length 1); the held-out split PER_LENGTH_TEST lists of each length 1 ... TEST_LONGEST
(length 1: four of the twenty words, which are then not in training as lists of one). Train with
--train-max-len N <= TRAIN_LONGEST to see only the lists of at most N words, and read held-out
accuracy by length up to 3N. No held-out list is a training list.

The file has the columns of data/teaching_model/corpus.tsv (split, source, target, alignment:
for each target word the index of its source word); here the source is English.
Deterministic: the same seed writes the same bytes.
    python3 scripts/gen_lengths_corpus.py        # writes data/teaching_model/corpus_lengths.tsv
    python3 scripts/gen_lengths_corpus.py --seed 7 -o /tmp/c.tsv
"""
import argparse
import os
import random

ANIMALS = [("dog", "개"), ("cat", "고양이"), ("bird", "새"), ("horse", "말"), ("cow", "소"), ("bear", "곰"),
           ("fox", "여우"), ("mouse", "쥐"), ("pig", "돼지"), ("sheep", "양"), ("chicken", "닭"), ("duck", "오리"),
           ("rabbit", "토끼"), ("lion", "사자"), ("tiger", "호랑이"), ("wolf", "늑대"), ("snake", "뱀"),
           ("goat", "염소"), ("deer", "사슴"), ("turtle", "거북")]
TRAIN_LONGEST, TEST_LONGEST = 12, 18
PER_LENGTH_TRAIN, PER_LENGTH_TEST = 150, 20


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=47)
    ap.add_argument("-o", default=os.path.join(os.path.dirname(__file__), "..", "data", "teaching_model", "corpus_lengths.tsv"))
    args = ap.parse_args()
    rng = random.Random(args.seed)
    n = len(ANIMALS)
    rows, seen = [], set()

    def draw(k):
        while True:
            lst = tuple(rng.sample(range(n), k))
            if lst not in seen:
                seen.add(lst)
                return lst

    # held out first, so no training list repeats one
    test = {1: [(i,) for i in rng.sample(range(n), 4)]}
    for lst in test[1]:
        seen.add(lst)
    for k in range(2, TEST_LONGEST + 1):
        test[k] = [draw(k) for _ in range(PER_LENGTH_TEST)]
    train = {1: [(i,) for i in range(n) if (i,) not in seen]}
    for k in range(2, TRAIN_LONGEST + 1):
        train[k] = [draw(k) for _ in range(PER_LENGTH_TRAIN)]
    for split, lists in (("train", train), ("test", test)):
        for k in sorted(lists):
            for lst in lists[k]:
                src = " ".join(ANIMALS[i][0] for i in lst)
                tgt = " ".join(ANIMALS[i][1] for i in lst)
                rows.append(f"{split}\t{src}\t{tgt}\t{' '.join(str(j) for j in range(k))}\n")
    with open(args.o, "w", encoding="utf-8", newline="\n") as f:
        f.write("split\tenglish\tkorean\talignment\n")
        f.writelines(rows)
    n_test = sum(len(v) for v in test.values())
    print(f"wrote {args.o}: {len(rows)} pairs, {n_test} held out (lengths 1-{TEST_LONGEST}), training lengths 1-{TRAIN_LONGEST}")


if __name__ == "__main__":
    main()
