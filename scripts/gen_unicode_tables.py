#!/usr/bin/python3
"""Writes src/text/unicode_tables.inc: the Unicode data BERT's basic tokenizer needs, taken from
Python's own unicodedata and str.lower (the very functions BERT's tokenization.py calls), so
tfx splits and lower-cases text as BERT does without a Unicode library.

    /usr/bin/python3 scripts/gen_unicode_tables.py > src/text/unicode_tables.inc

Tables (each sorted by first code point, spans never overlap):
  kCharFlags   {first, last, flags}: BERT's classes (punctuation, whitespace, dropped control
               characters), categories Mn, L* and N* (the byte-level BPE split patterns' \p{L},
               \p{N}), and the two properties of str.lower's final-sigma rule
               (cased, case-ignorable), measured from str.lower itself, and category M*
               (what Hugging Face's strip-accents drops).
  kLowerRanges {first, last, delta, stride}: str.lower of one code point, cp → cp + delta for
               cp = first, first + stride, … ≤ last (the one-to-many mapping U+0130 → i̇ is
               in kLowerSpecial).
  kDecompositions {cp, a, b}: one level of canonical decomposition (b = 0 for a singleton);
               applied recursively it gives NFD. Hangul syllables are decomposed by the
               algorithm of Unicode §3.12 in the C++ code, not listed.
  kCombiningClasses {first, last, ccc}: canonical combining class ≠ 0 (NFD's reordering).
  kCompatDecompositions {cp, offset, length} into kCompatData: the full compatibility
               decomposition (NFKD) of each code point whose NFKD differs from its NFD (ﬁ → f i,
               ① → 1, Ｈ → H), for the NFKC / NFKD normalizers of Hugging Face tokenizers.
  kCompositions {a, b, c}: the primary composites (canonical pairs a b → c not excluded from
               composition), sorted by (a, b): NFC's and NFKC's composition step. Hangul is
               composed by arithmetic in the C++ code.
"""
import sys
import unicodedata

SIGMA = "\u03a3"
CODE_POINTS = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]


# BERT's tokenization.py (google-research/bert), the character classes verbatim
def bert_is_whitespace(ch):
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def bert_is_control(ch):
    return ch not in "\t\n\r" and unicodedata.category(ch) in ("Cc", "Cf")


def bert_is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


MN, PUNCT, SPACE, DROPPED, CASED, IGNORABLE, LETTER, NUMBER, MARK = 1, 2, 4, 8, 16, 32, 64, 128, 256


def flags_of(cp):
    ch = chr(cp)
    f = 0
    if unicodedata.category(ch) == "Mn":
        f |= MN
    if bert_is_punctuation(ch):
        f |= PUNCT
    if cp == 0 or cp == 0xFFFD or bert_is_control(ch):
        f |= DROPPED  # _clean_text removes these
    elif bert_is_whitespace(ch) or ch.isspace():
        f |= SPACE  # _clean_text turns these into " "; str.split() splits at the rest (U+2028, U+2029)
    # str.lower's final sigma: Σ becomes ς after a cased letter (case-ignorable ones skipped) and
    # not before one. "cased" here means cased and not case-ignorable, the only case CPython asks.
    cased = (ch + SIGMA).lower()[-1] == "\u03c2"
    ignorable = not cased and ("A" + ch + SIGMA).lower()[-1] == "\u03c2"
    # \p{L} and \p{N} of the byte-level BPE pre-tokenizers' split patterns (GPT-2, Llama 3, Qwen2)
    if unicodedata.category(ch).startswith("L"):
        f |= LETTER
    if unicodedata.category(ch).startswith("N"):
        f |= NUMBER
    if unicodedata.category(ch).startswith("M"):
        f |= MARK  # Hugging Face's StripAccents drops every mark (is_combining_mark: Mn, Mc, Me)
    if cased:
        f |= CASED
    if ignorable:
        f |= IGNORABLE
    return f


def ranges(values):
    """(first, last, value) runs of equal non-zero values over consecutive code points."""
    out = []
    for cp in CODE_POINTS:
        v = values(cp)
        if not v:
            continue
        if out and out[-1][1] == cp - 1 and out[-1][2] == v:
            out[-1][1] = cp
        else:
            out.append([cp, cp, v])
    return out


def lower_ranges():
    single = {}
    special = {}
    for cp in CODE_POINTS:
        low = chr(cp).lower()
        if low == chr(cp):
            continue
        if len(low) == 1:
            single[cp] = ord(low) - cp
        else:
            special[cp] = low
    out = []  # [first, last, delta, stride]
    for cp in sorted(single):
        d = single[cp]
        if out:
            r = out[-1]
            if r[2] == d and r[0] == r[1] and cp - r[1] in (1, 2) and (cp - r[1] == 1 or r[1] + 1 not in single):
                r[1], r[3] = cp, cp - r[0]
                continue
            if r[2] == d and r[1] != r[0] and cp - r[1] == r[3] and (r[3] == 1 or r[1] + 1 not in single):
                r[1] = cp
                continue
        out.append([cp, cp, d, 1])
    return out, special


def main():
    w = sys.stdout.write
    w("// Generated by scripts/gen_unicode_tables.py from Python {}'s unicodedata (Unicode {}); do not edit.\n"
      .format(sys.version.split()[0], unicodedata.unidata_version))
    w("// The data of BERT's basic tokenizer: see the script for what each table holds.\n")
    w("constexpr const char* kUnicodeVersion = \"{}\";\n\n".format(unicodedata.unidata_version))

    def emit(name, typ, rows, per_line):
        w("constexpr {} {}[] = {{\n".format(typ, name))
        for i in range(0, len(rows), per_line):
            w("    " + " ".join("{" + ", ".join(x) + "}," for x in rows[i:i + per_line]) + "\n")
        w("};\n\n")

    flags = ranges(flags_of)
    emit("kCharFlags", "CharFlagRange", [("0x{:X}".format(a), "0x{:X}".format(b), str(v)) for a, b, v in flags], 4)

    low, special = lower_ranges()
    emit("kLowerRanges", "LowerRange", [("0x{:X}".format(a), "0x{:X}".format(b), str(d), str(s)) for a, b, d, s in low], 4)
    emit("kLowerSpecial", "LowerSpecial",
         [("0x{:X}".format(cp), "{" + ", ".join("0x{:X}".format(ord(c)) for c in s) + "}") for cp, s in sorted(special.items())], 4)

    dec = []
    for cp in CODE_POINTS:
        d = unicodedata.decomposition(chr(cp))
        if d and not d.startswith("<"):
            parts = [int(x, 16) for x in d.split()]
            assert 1 <= len(parts) <= 2
            dec.append(("0x{:X}".format(cp), "0x{:X}".format(parts[0]), "0x{:X}".format(parts[1] if len(parts) == 2 else 0)))
    emit("kDecompositions", "Decomposition", dec, 5)

    ccc = ranges(lambda cp: unicodedata.combining(chr(cp)))
    emit("kCombiningClasses", "CombiningRange", [("0x{:X}".format(a), "0x{:X}".format(b), str(v)) for a, b, v in ccc], 5)

    compat, data = [], []
    for cp in CODE_POINTS:
        if 0xAC00 <= cp <= 0xD7A3:
            continue
        k = unicodedata.normalize("NFKD", chr(cp))
        if k != unicodedata.normalize("NFD", chr(cp)):
            compat.append(("0x{:X}".format(cp), str(len(data)), str(len(k))))
            data.extend(ord(c) for c in k)
    emit("kCompatDecompositions", "CompatDecomposition", compat, 5)
    w("constexpr char32_t kCompatData[] = {\n")
    for i in range(0, len(data), 10):
        w("    " + " ".join("0x{:X},".format(x) for x in data[i:i + 10]) + "\n")
    w("};\n\n")

    comp = []
    for cp in CODE_POINTS:
        d = unicodedata.decomposition(chr(cp))
        if not d or d.startswith("<"):
            continue
        parts = [int(x, 16) for x in d.split()]
        # a primary composite: a canonical pair that NFC composes back (not a composition exclusion)
        if len(parts) == 2 and unicodedata.normalize("NFC", chr(parts[0]) + chr(parts[1])) == chr(cp):
            comp.append((parts[0], parts[1], cp))
    comp.sort()
    emit("kCompositions", "Composition", [("0x{:X}".format(a), "0x{:X}".format(b), "0x{:X}".format(c)) for a, b, c in comp], 5)


if __name__ == "__main__":
    main()
