#!/usr/bin/python3
"""Reference tokens for tests/bert_basic_tokenizer_test.cpp: BERT's BasicTokenizer, the
algorithm of google-research/bert tokenization.py (which HF's BertTokenizer runs as its
basic_tokenizer, with the special tokens as never_split), written out below on Python's own unicodedata and str.lower — independent of
tfx's tables and code.

    /usr/bin/python3 tests/reference/gen_bert_basic_reference.py > tests/reference/bert_basic_reference.inc

It writes (1) the tokens of sample sentences in several scripts, cased and uncased, and (2) for
every block of 4096 code points an FNV-1a 64 hash over the tokens of a probe string per code
point, so the test checks every code point (case mapping, final sigma, NFD, accents,
punctuation, whitespace, control characters, CJK) and names the block that differs.
"""
import sys
import unicodedata


# ---- BERT's BasicTokenizer (tokenization.py), the same steps and character classes ----------
def is_whitespace(ch):
    if ch in " \t\n\r":
        return True
    return unicodedata.category(ch) == "Zs"


def is_control(ch):
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch) in ("Cc", "Cf")


def is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def is_chinese_char(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF or
            0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF or
            0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def clean_text(text):
    out = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or is_control(ch):
            continue
        out.append(" " if is_whitespace(ch) else ch)
    return "".join(out)


def tokenize_chinese_chars(text):
    return "".join(" " + ch + " " if is_chinese_char(ord(ch)) else ch for ch in text)


def strip_accents(text):
    return "".join(ch for ch in unicodedata.normalize("NFD", text) if unicodedata.category(ch) != "Mn")


def split_on_punc(text):
    out, start_new = [], True
    for ch in text:
        if is_punctuation(ch):
            out.append([ch])
            start_new = True
        else:
            if start_new:
                out.append([])
            start_new = False
            out[-1].append(ch)
    return ["".join(x) for x in out]


# HF's BertTokenizer passes its special tokens as never_split: such a word is neither cased nor split
NEVER_SPLIT = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}


def basic_tokenize(text, do_lower_case):
    text = tokenize_chinese_chars(clean_text(text))
    split = []
    for token in text.strip().split():
        if token in NEVER_SPLIT:
            split.append(token)
            continue
        if do_lower_case:
            token = strip_accents(token.lower())
        split.extend(split_on_punc(token))
    return " ".join(split).strip().split()


# ---- output -------------------------------------------------------------------------------------
SAMPLES = [
    "Héllo WORLD Ünïcödé",
    "ΑΒΓ",
    "ΟΔΥΣΣΕΥΣ ΚΑΙ Η ΘΑΛΑΣΣΑ.",
    "Σ ΣΑ ΑΣ ΑΣ'Α",
    "ПРИВЕТ, Мир! Ёлка й",
    "ＡＢＣ ｆｕｌｌ－ｗｉｄｔｈ！",
    "İstanbul ışık STRASSE Straße",
    "Tiếng Việt có dấu",
    "¿Qué tal? «Ça va» — très bien…",
    "naïve café résumé coöperate",
    "e\u0301 E\u0301 o\u0308\u0301 a\u0323\u0302",
    "I love playing football.",
    "Don't stop!",
    "我爱 NLP 中文",
    "나는 학생 이다",
    "がぎぐ パピプ",
    "tab\tnew\nline\u00a0nbsp\u2003em\u2028ls",
    "zero\u200bwidth soft\u00adhyphen bom\ufeffx ctl\u0007x nul\u0000x rep\ufffdx",
    "x²+y³ ½ ﬁ ℃",
    "ǅemal ǈubljana ǋ",
    "Ωmega Å Ǻ",
    "\u1f88 ᾈ ΐ",
    "مرحبا بالعالم",
    "שָׁלוֹם",
    "नमस्ते दुनिया",
    "emoji 👍🏽 ok",
    "[CLS] Héllo, WORLD! [SEP] [MASK]x [cls] [UNK]",
]


def c_string(s):
    """A C++ string_view literal: printable characters as they are; marks, controls, spaces
    other than " ", conjoining jamo (which a terminal draws as syllables) and U+FFFD as octal
    UTF-8 bytes."""
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif (ch.isprintable() and unicodedata.category(ch) not in ("Mn", "Me", "Cf", "Zs")
              and not 0x1100 <= ord(ch) <= 0x11FF and ch != "\ufffd") or ch == " ":
            out.append(ch)
        else:
            out.append("".join("\\{:03o}".format(b) for b in ch.encode("utf-8")))
    return '"' + "".join(out) + '"sv'


# The probe for code point c: c before Σ (is c cased?), between A and Σ (case-ignorable?), after
# Σ, and alone, so the lower-casing context and every class of c show in the tokens.
def probe(c):
    ch = chr(c)
    return ch + "\u03a3 A" + ch + "\u03a3 A\u03a3" + ch + " " + ch


def fnv1a(h, data):
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def block_hashes(do_lower_case):
    hashes = []
    for block in range(0x110):
        h = 0xCBF29CE484222325
        for c in range(block << 12, (block + 1) << 12):
            if 0xD800 <= c <= 0xDFFF:
                continue
            for t in basic_tokenize(probe(c), do_lower_case):
                h = fnv1a(h, t.encode("utf-8") + b"\x1f")
            h = fnv1a(h, b"\x1e")
        hashes.append(h)
    return hashes


def main():
    w = sys.stdout.write
    w("// Generated by tests/reference/gen_bert_basic_reference.py (BERT's BasicTokenizer in Python {},\n"
      "// Unicode {}); do not edit.\n".format(sys.version.split()[0], unicodedata.unidata_version))
    w("constexpr const char* kBertUnicodeVersion = \"{}\";\n\n".format(unicodedata.unidata_version))
    w("// {text, cased tokens, uncased tokens}; tokens joined by one space\n")
    w("constexpr BertSample kBertSamples[] = {\n")
    for s in SAMPLES:
        w("    {{{},\n     {},\n     {}}},\n".format(c_string(s), c_string(" ".join(basic_tokenize(s, False))),
                                                  c_string(" ".join(basic_tokenize(s, True)))))
    w("};\n\n")
    for name, lower in (("kBertCasedBlockHashes", False), ("kBertUncasedBlockHashes", True)):
        w("// FNV-1a 64 of the tokens of probe(c) for c in each block of 4096 code points ({})\n"
          .format("do_lower_case" if lower else "cased"))
        w("constexpr std::uint64_t {}[0x110] = {{\n".format(name))
        hs = block_hashes(lower)
        for i in range(0, len(hs), 4):
            w("    " + " ".join("0x{:016X}u,".format(h) for h in hs[i:i + 4]) + "\n")
        w("};\n\n")


if __name__ == "__main__":
    main()
