#!/usr/bin/env python3
"""Writes data/teaching_gpt/corpus.txt: the built-in corpus `teaching-gpt` learns from.

Thousands of short English and Korean sentences of a small world -- people, places, things,
actions and facts ("Paris is the capital of France." / "파리는 프랑스의 수도 이다.") -- one
sentence a line, in the teaching translator's spacing (the copula 이다 written apart, as in
"나는 학생 이다"). The grammar is what a model can learn from it:
  * English agreement: he / she / a name take "eats", "is", "has"; I / we / you / they and two
    names take "eat", "are", "have"; a / an before a consonant / vowel sound;
  * English word order subject-verb-object, Korean subject-object-verb;
  * Korean particles chosen by the last syllable's final consonant (jongseong): 은/는 (topic),
    이/가 (subject), 을/를 (object), 과/와 (and) -- 은 이 을 과 after a final consonant, 는 가 를 와
    after a vowel. tests/text/teaching_corpus_test.cpp checks every particle with its own
    computation of the final consonant (U+AC00 + 28·(19·initial + medial) + final).

Deterministic: the same seed writes the same bytes (random.Random(seed), no hash order).
    python3 scripts/gen_teaching_corpus.py            # writes data/teaching_gpt/corpus.txt
    python3 scripts/gen_teaching_corpus.py --seed 7 -o /tmp/c.txt
"""
import argparse
import os
import random

# --- the world -------------------------------------------------------------------------------
# people: English spelling, Korean spelling, pronoun
PEOPLE = [
    ("Minsu", "민수", "he"), ("Jiyoung", "지영", "she"), ("Junho", "준호", "he"), ("Seojun", "서준", "he"),
    ("Hana", "하나", "she"), ("Taemin", "태민", "he"), ("Eunji", "은지", "she"), ("Dongwook", "동욱", "he"),
    ("Alice", "앨리스", "she"), ("Tom", "톰", "he"), ("Emma", "엠마", "she"), ("James", "제임스", "he"),
    ("Sarah", "사라", "she"), ("David", "데이비드", "he"), ("Yuna", "유나", "she"), ("Jimin", "지민", "she"),
]
PRONOUNS_KO = {"he": "그", "she": "그녀", "they": "그들", "I": "나", "we": "우리", "you": "너"}
PRONOUNS_EN = {"he": "He", "she": "She", "they": "They", "I": "I", "we": "We", "you": "You"}

# city, country, language: English and Korean
COUNTRIES = [
    ("Paris", "파리", "France", "프랑스", "French", "프랑스어"),
    ("Seoul", "서울", "Korea", "한국", "Korean", "한국어"),
    ("Tokyo", "도쿄", "Japan", "일본", "Japanese", "일본어"),
    ("London", "런던", "England", "영국", "English", "영어"),
    ("Berlin", "베를린", "Germany", "독일", "German", "독일어"),
    ("Rome", "로마", "Italy", "이탈리아", "Italian", "이탈리아어"),
    ("Madrid", "마드리드", "Spain", "스페인", "Spanish", "스페인어"),
    ("Beijing", "베이징", "China", "중국", "Chinese", "중국어"),
    ("Moscow", "모스크바", "Russia", "러시아", "Russian", "러시아어"),
    ("Cairo", "카이로", "Egypt", "이집트", "Arabic", "아랍어"),
    ("Athens", "아테네", "Greece", "그리스", "Greek", "그리스어"),
    ("Lisbon", "리스본", "Portugal", "포르투갈", "Portuguese", "포르투갈어"),
    ("Vienna", "빈", "Austria", "오스트리아", "German", "독일어"),
    ("Bangkok", "방콕", "Thailand", "태국", "Thai", "태국어"),
    ("Hanoi", "하노이", "Vietnam", "베트남", "Vietnamese", "베트남어"),
    ("Ottawa", "오타와", "Canada", "캐나다", "English", "영어"),
]

# things: English (with its article), English plural, Korean
THINGS = [
    ("an apple", "apples", "사과"), ("a book", "books", "책"), ("bread", "bread", "빵"), ("water", "water", "물"),
    ("coffee", "coffee", "커피"), ("milk", "milk", "우유"), ("rice", "rice", "밥"), ("a letter", "letters", "편지"),
    ("a song", "songs", "노래"), ("music", "music", "음악"), ("a movie", "movies", "영화"), ("a newspaper", "newspapers", "신문"),
    ("a ball", "balls", "공"), ("tea", "tea", "차"), ("an orange", "oranges", "오렌지"), ("a cake", "cakes", "케이크"),
    ("an egg", "eggs", "달걀"), ("a picture", "pictures", "그림"), ("a bag", "bags", "가방"), ("a flower", "flowers", "꽃"),
]

# verbs: base, third person, past, Korean present, Korean past, which things go with it
VERBS = [
    ("eat", "eats", "ate", "먹는다", "먹었다", ["an apple", "bread", "rice", "an orange", "a cake", "an egg"]),
    ("drink", "drinks", "drank", "마신다", "마셨다", ["water", "coffee", "milk", "tea"]),
    ("read", "reads", "read", "읽는다", "읽었다", ["a book", "a letter", "a newspaper"]),
    ("write", "writes", "wrote", "쓴다", "썼다", ["a letter", "a book", "a song"]),
    ("like", "likes", "liked", "좋아한다", "좋아했다", [t[0] for t in THINGS]),
    ("buy", "buys", "bought", "산다", "샀다", ["an apple", "a book", "bread", "milk", "a bag", "a flower", "a cake", "a ball"]),
    ("see", "sees", "saw", "본다", "봤다", ["a movie", "a picture", "a flower", "a ball"]),
    ("hear", "hears", "heard", "듣는다", "들었다", ["a song", "music"]),
    ("make", "makes", "made", "만든다", "만들었다", ["bread", "a cake", "rice", "coffee", "tea"]),
    ("draw", "draws", "drew", "그린다", "그렸다", ["a picture", "a flower"]),
]

# places people go to: English, Korean (followed by 에)
PLACES = [
    ("school", "학교"), ("the library", "도서관"), ("the park", "공원"), ("the market", "시장"), ("home", "집"),
    ("the station", "역"), ("the hospital", "병원"), ("the beach", "바다"), ("the museum", "박물관"), ("work", "회사"),
]

# roles: English singular with article, plural, Korean
ROLES = [
    ("a student", "students", "학생"), ("a teacher", "teachers", "선생님"), ("a doctor", "doctors", "의사"),
    ("a cook", "cooks", "요리사"), ("a singer", "singers", "가수"), ("a painter", "painters", "화가"),
    ("a nurse", "nurses", "간호사"), ("a pilot", "pilots", "조종사"),
]

# facts of nature: English, Korean
FACTS = [
    ("The sky is blue.", "하늘은 파랗다."), ("Snow is white.", "눈은 하얗다."), ("The sun is hot.", "해는 뜨겁다."),
    ("Ice is cold.", "얼음은 차갑다."), ("Grass is green.", "풀은 푸르다."), ("A cat is an animal.", "고양이는 동물 이다."),
    ("A dog is an animal.", "개는 동물 이다."), ("A rose is a flower.", "장미는 꽃 이다."),
    ("Fish live in water.", "물고기는 물에 산다."), ("Birds can fly.", "새는 날 수 있다."),
    ("The moon is bright at night.", "달은 밤에 밝다."), ("A week has seven days.", "일주일은 칠 일 이다."),
]


# --- Korean particles by the final consonant ---------------------------------------------------
def has_final(word):
    """Whether the last syllable of a Hangul word has a final consonant (jongseong)."""
    code = ord(word[-1]) - 0xAC00
    assert 0 <= code <= 11171, word
    return code % 28 != 0


def topic(w):   # 은/는
    return w + ("은" if has_final(w) else "는")


def subj(w):    # 이/가
    return w + ("이" if has_final(w) else "가")


def obj(w):     # 을/를
    return w + ("을" if has_final(w) else "를")


def and_(w):    # 과/와
    return w + ("과" if has_final(w) else "와")


def cap(s):
    return s[0].upper() + s[1:]


# --- sentences ------------------------------------------------------------------------------
def subject(rng):
    """A subject: (English words, Korean noun, agreement 'sg'|'pl', is-pronoun). Names, pronouns
    and pairs of names."""
    r = rng.random()
    if r < 0.45:
        en, ko, _ = rng.choice(PEOPLE)
        return en, ko, "sg"
    if r < 0.80:
        p = rng.choice(["he", "she", "they", "I", "we", "you"])
        return PRONOUNS_EN[p], PRONOUNS_KO[p], ("sg" if p in ("he", "she") else "pl" if p != "I" else "I")
    a, b = rng.sample(PEOPLE, 2)
    return f"{a[0]} and {b[0]}", f"{and_(a[1])} {b[1]}", "pl"


def be(agr):
    return {"sg": "is", "pl": "are", "I": "am"}[agr]


def have(agr):
    return "has" if agr == "sg" else "have"


def action(rng):
    en_s, ko_s, agr = subject(rng)
    base, third, past, ko_now, ko_past, things = rng.choice(VERBS)
    pick = rng.choice(things)
    thing = next(t for t in THINGS if t[0] == pick)
    past_tense = rng.random() < 0.35
    verb = past if past_tense else (third if agr == "sg" else base)
    en = f"{en_s} {verb} {thing[0]}."
    ko = f"{topic(ko_s)} {obj(thing[2])} {ko_past if past_tense else ko_now}."
    return cap(en), ko


def go(rng):
    en_s, ko_s, agr = subject(rng)
    place_en, place_ko = rng.choice(PLACES)
    past_tense = rng.random() < 0.35
    verb = "went" if past_tense else ("goes" if agr == "sg" else "go")
    to = "" if place_en in ("home",) else "to "
    en = f"{en_s} {verb} {to}{place_en}."
    # subject particle 이/가 here ("민수가 학교에 간다"), topic 은/는 for pronouns
    ko_subject = subj(ko_s) if ko_s not in PRONOUNS_KO.values() and " " not in ko_s else topic(ko_s)
    ko = f"{ko_subject} {place_ko}에 {'갔다' if past_tense else '간다'}."
    return cap(en), ko


def role(rng):
    en_s, ko_s, agr = subject(rng)
    r_en, r_pl, r_ko = rng.choice(ROLES)
    en = f"{en_s} {be(agr)} {r_en if agr != 'pl' else r_pl}."
    ko = f"{topic(ko_s)} {r_ko} 이다."
    return cap(en), ko


def lives(rng):
    en_s, ko_s, agr = subject(rng)
    city = rng.choice(COUNTRIES)
    verb = "lives" if agr == "sg" else "live"
    en = f"{en_s} {verb} in {city[0]}."
    ko = f"{topic(ko_s)} {city[1]}에 산다."
    return cap(en), ko


def speaks(rng):
    en_s, ko_s, agr = subject(rng)
    c = rng.choice(COUNTRIES)
    verb = "speaks" if agr == "sg" else "speak"
    en = f"{en_s} {verb} {c[4]}."
    ko = f"{topic(ko_s)} {obj(c[5])} 말한다."
    return cap(en), ko


def has_thing(rng):
    en_s, ko_s, agr = subject(rng)
    thing = rng.choice([t for t in THINGS if t[0].startswith(("a ", "an ")) and t[0] not in ("a movie", "a song")])
    en = f"{en_s} {have(agr)} {thing[0]}."
    ko = f"{topic(ko_s)} {subj(thing[2])} 있다."
    return cap(en), ko


def capital_fact(rng):
    city, city_ko, country, country_ko, lang, lang_ko = rng.choice(COUNTRIES)
    forms = [
        (f"{city} is the capital of {country}.", f"{topic(city_ko)} {country_ko}의 수도 이다."),
        (f"The capital of {country} is {city}.", f"{country_ko}의 수도는 {city_ko} 이다."),
        (f"{city} is in {country}.", f"{topic(city_ko)} {country_ko}에 있다."),
        (f"People in {country} speak {lang}.", f"{country_ko} 사람들은 {obj(lang_ko)} 말한다."),
    ]
    return rng.choice(forms)


KINDS = [(action, 30), (go, 14), (role, 10), (lives, 8), (speaks, 6), (has_thing, 8), (capital_fact, 18),
         (lambda rng: rng.choice(FACTS), 6)]


def corpus(seed, pairs):
    rng = random.Random(seed)
    funcs = [f for f, w in KINDS for _ in range(w)]
    lines = []
    # every fact once in each form first, so no fact is missing from the corpus
    for c in COUNTRIES:
        lines.append(f"{c[0]} is the capital of {c[2]}.")
        lines.append(f"{topic(c[1])} {c[3]}의 수도 이다.")
        lines.append(f"The capital of {c[2]} is {c[0]}.")
        lines.append(f"{c[3]}의 수도는 {c[1]} 이다.")
    for en, ko in FACTS:
        lines += [en, ko]
    while len(lines) < 2 * pairs:
        en, ko = rng.choice(funcs)(rng)
        lines += [en, ko]
    # shuffled in pairs, English first: the model sees each sentence next to its translation
    body = [(lines[i], lines[i + 1]) for i in range(0, len(lines), 2)]
    rng.shuffle(body)
    return "".join(f"{en}\n{ko}\n" for en, ko in body)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=2017)
    ap.add_argument("--pairs", type=int, default=5000, help="English-Korean sentence pairs")
    ap.add_argument("-o", default=os.path.join(here, "..", "data", "teaching_gpt", "corpus.txt"))
    a = ap.parse_args()
    text = corpus(a.seed, a.pairs)
    os.makedirs(os.path.dirname(os.path.abspath(a.o)), exist_ok=True)
    with open(a.o, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print(f"wrote {a.o}: {text.count(chr(10))} lines, {len(text.encode('utf-8'))} bytes")


if __name__ == "__main__":
    main()
