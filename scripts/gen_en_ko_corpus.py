#!/usr/bin/env python3
"""Writes data/teaching_model/corpus_en_ko.tsv: the built-in English -> Korean corpus of
`tfx train --corpus en-ko`, the word-order experiment (issue 47).

Every sentence is "the A <verb>s the B" -> "A가 B를 <verb>다": who does what is carried by the
English word order alone (the same five words in either order), while Korean marks the roles with
particles (이/가 on the subject, 을/를 on the object, chosen by the noun's final consonant) and
puts the verb last. A model without positional encoding sees a bag of words and cannot tell
"the dog bites the man" (개가 남자를 문다) from "the man bites the dog" (남자가 개를 문다).

Held out: a seeded 15 % of the pairs, each one whose swapped pair ("the B <verb>s the A") stays
in training, so the held-out score asks exactly the order question. Every noun is seen in
training as subject and as object with every verb.

The file has the columns of data/teaching_model/corpus.tsv (split, source, target, alignment:
for each target word the index of its source word); here the source is English.
Deterministic: the same seed writes the same bytes.
    python3 scripts/gen_en_ko_corpus.py        # writes data/teaching_model/corpus_en_ko.tsv
    python3 scripts/gen_en_ko_corpus.py --seed 7 -o /tmp/c.tsv
"""
import argparse
import os
import random

# nouns: English, Korean (people and animals: either can do the action to the other)
NOUNS = [("dog", "개"), ("man", "남자"), ("cat", "고양이"), ("woman", "여자"), ("boy", "소년"),
         ("girl", "소녀"), ("teacher", "선생님"), ("student", "학생"), ("child", "아이"), ("doctor", "의사")]
# verbs: English third person singular, Korean plain present
VERBS = [("bites", "문다"), ("sees", "본다"), ("likes", "좋아한다"), ("helps", "돕는다"),
         ("chases", "쫓는다"), ("calls", "부른다"), ("finds", "찾는다"), ("follows", "따라간다")]


def has_final_consonant(word):
    """True when the last syllable has a final consonant (jongseong): (code - 0xAC00) % 28 != 0."""
    code = ord(word[-1])
    assert 0xAC00 <= code <= 0xD7A3, word
    return (code - 0xAC00) % 28 != 0


def subject(ko):
    return ko + ("이" if has_final_consonant(ko) else "가")


def obj(ko):
    return ko + ("을" if has_final_consonant(ko) else "를")


def pairs():
    out = []
    for a_en, a_ko in NOUNS:
        for b_en, b_ko in NOUNS:
            if a_en == b_en:
                continue
            for v_en, v_ko in VERBS:
                src = f"the {a_en} {v_en} the {b_en}"
                tgt = f"{subject(a_ko)} {obj(b_ko)} {v_ko}"
                # target word k comes from source word: subject <- 1, object <- 4, verb <- 2
                out.append(((a_en, b_en, v_en), src, tgt, "1 4 2"))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=47)
    ap.add_argument("-o", default=os.path.join(os.path.dirname(__file__), "..", "data", "teaching_model", "corpus_en_ko.tsv"))
    args = ap.parse_args()
    ps = pairs()
    rng = random.Random(args.seed)
    order = list(range(len(ps)))
    rng.shuffle(order)
    want = round(0.15 * len(ps))
    test = set()
    index = {p[0]: i for i, p in enumerate(ps)}
    for i in order:
        if len(test) == want:
            break
        a, b, v = ps[i][0]
        if index[(b, a, v)] in test:
            continue  # its swap stays in training
        test.add(i)
    # every noun as subject and as object with every verb in training
    for n, _ in NOUNS:
        for v, _ in VERBS:
            assert any(i not in test and p[0][0] == n and p[0][2] == v for i, p in enumerate(ps)), (n, v)
            assert any(i not in test and p[0][1] == n and p[0][2] == v for i, p in enumerate(ps)), (n, v)
    with open(args.o, "w", encoding="utf-8", newline="\n") as f:
        f.write("split\tenglish\tkorean\talignment\n")
        for i, (_, src, tgt, align) in enumerate(ps):
            f.write(f"{'test' if i in test else 'train'}\t{src}\t{tgt}\t{align}\n")
    print(f"wrote {args.o}: {len(ps)} pairs, {len(test)} held out")


if __name__ == "__main__":
    main()
