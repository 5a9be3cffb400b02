#!/usr/bin/python3
"""Writes a deterministic English + Korean text of about SIZE bytes (default 5 MB) to stdout, for
bench/tokenize_vs_hf.sh: paragraphs of sentences drawn by a seeded generator from the word lists
below (made up here, not copied from anywhere), about 60 % English and 40 % Korean lines, with
numbers, punctuation, contractions and the odd emoji, so every branch of the split patterns runs.

    bench/gen_mixed_text.py [SIZE_BYTES] > text.txt
"""
import random
import sys

EN = ("the a of to and in is it that for on with as was at by this be from or have an they which one you were her all "
      "she there would their we him been has when who will more no if out so said what up its about into than them can "
      "only other new some could time these two may then do first any my now such like our over man me even most made "
      "after also did many before must through back years where much your way well down should because each just those "
      "people how too little state good very make world still own see men work long get here between both life being "
      "under never day same another know while last might us great old year off come since against go came right used "
      "take three attention transformer token embedding vector model layer head query key value softmax position rotary "
      "encoder decoder sequence language student teacher school coffee football playing learning network gradient").split()
KO = ("나는 학생 이다 그녀는 커피를 마셨다 우리는 학교에 간다 오늘 날씨가 좋다 언어 모델은 문장을 토큰으로 나눈다 "
      "어텐션은 단어 사이의 관계를 계산한다 위치 인코딩은 순서를 알려준다 임베딩 벡터 행렬 곱셈 선생님 친구 도서관 "
      "공부를 했다 축구를 좋아한다 한국어 영어 번역 문장 단어 글자 음절 자모 사전 확률 다음 토큰을 예측한다 "
      "트랜스포머 인코더 디코더 층 머리 질문 열쇠 값 정규화 잔차 연결").split()
PUNCT = [".", ".", ".", ",", "!", "?", ";", ":"]


def sentence(rng, words, cap):
    n = rng.randint(4, 16)
    ws = [rng.choice(words) for _ in range(n)]
    if cap:
        ws[0] = ws[0].capitalize()
    r = rng.random()
    if r < 0.08:
        ws.insert(rng.randrange(len(ws)), str(rng.randint(0, 99999)))
    elif r < 0.12:
        ws.insert(rng.randrange(len(ws)), rng.choice(["don't", "it's", "we'll", "they've", "I'm", "(e.g.", "3.14", "2024년"]))
    elif r < 0.13:
        ws.insert(rng.randrange(len(ws)), rng.choice(["🙂", "👍", "★", "—", "…"]))
    return " ".join(ws) + rng.choice(PUNCT)


def main():
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 5_000_000
    rng = random.Random(20241127)
    out, total = [], 0
    while total < size:
        korean = rng.random() < 0.4
        line = " ".join(sentence(rng, KO if korean else EN, not korean) for _ in range(rng.randint(1, 4)))
        if rng.random() < 0.15:
            line += "\n"  # a blank line between paragraphs
        out.append(line)
        total += len(line.encode()) + 1
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
