// The Unicode operations of BERT's basic tokenizer, on code points: the character classes it
// splits and drops by, str.lower (full lower-case mapping with the final-sigma rule) and NFD
// (canonical decomposition and reordering). The data is src/text/unicode_tables.inc, generated from
// Python's unicodedata by scripts/gen_unicode_tables.py — the functions BERT itself calls.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace tfx::unicode {

// The classes of one code point (bits of char_flags).
enum : unsigned {
  kNonspacingMark = 1,  // general category Mn (what strip-accents drops after NFD)
  kPunctuation = 2,     // BERT's _is_punctuation: ASCII non-alphanumerics and categories P*
  kWhitespace = 4,      // BERT's _is_whitespace (\t \n \r, Zs) and what str.split() splits at
  kDropped = 8,         // U+0000, U+FFFD and controls (Cc, Cf other than \t \n \r): removed
  kCased = 16,          // cased and not case-ignorable (str.lower's final-sigma context)
  kCaseIgnorable = 32,  // case-ignorable (skipped by that context)
  kLetter = 64,         // general category L* (\p{L} of the byte-level BPE split patterns)
  kNumber = 128,        // general category N* (\p{N})
  kMark = 256,          // general category M* (Mn, Mc, Me: what Hugging Face's StripAccents drops)
};
unsigned char_flags(char32_t cp);

// The White_Space property (\s of Hugging Face's split patterns): \t \n \v \f \r, space, U+0085,
// U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
bool is_white_space(char32_t cp);
// CJK ideographs as BERT's _is_chinese_char (not Hangul, not kana): a token each.
bool is_cjk_ideograph(char32_t cp);

// The UTF-8 sequence at s[i]: its length (0 when invalid: truncated, overlong, a surrogate or
// above U+10FFFF) and, when cp is given, the code point.
std::size_t utf8_decode(std::string_view s, std::size_t i, char32_t* cp = nullptr);
void append_utf8(std::string& out, char32_t cp);
// s with every byte that is not part of valid UTF-8 written as \xNN (a cp852 word "v\xa0ce"), so
// a word from a file in another encoding can be printed; `bad`, when given, counts those bytes.
std::string escape_invalid_utf8(std::string_view s, std::size_t* bad = nullptr);
std::string to_utf8(std::u32string_view s);

// Python's str.lower: the full lower-case mapping (U+0130 İ → i + U+0307) and Σ → ς at the end
// of a word (after a cased letter, not before one, case-ignorable characters skipped). Without
// `final_sigma` each character is lower-cased alone (Σ → σ always), as Rust's char::to_lowercase
// and so Hugging Face's BertNormalizer and Lowercase normalizers do.
std::u32string lower(std::u32string_view s, bool final_sigma = true);

// Private use (category Co): U+E000–U+F8FF and planes 15–16 (Hugging Face's clean_text drops them).
bool is_private_use(char32_t cp);

// Unicode normalization form D: canonical decomposition (Hangul syllables into jamo) and the
// canonical ordering of combining marks.
std::u32string nfd(std::u32string_view s);
// Form KD: compatibility decomposition (ﬁ → f i, ① → 1, Ｈ → H, ㎏ → k g) then canonical ordering.
std::u32string nfkd(std::u32string_view s);
// Forms C and KC: NFD / NFKD, then canonical composition (UAX #15: a mark composes with the last
// starter unless a character of the same or a higher class, or a starter, lies between them;
// Hangul L V (T) by arithmetic). O(n) in the text, O(k log k) per run of k marks.
std::u32string nfc(std::u32string_view s);
std::u32string nfkc(std::u32string_view s);
// UTF-8 text in form C (decomposed Hangul jamo composed into syllables, e + U+0301 into é: what
// macOS file names and some editors write); text that is not valid UTF-8 comes back unchanged.
std::string nfc_utf8(std::string_view s);

// BERT's _run_strip_accents: NFD, then every Mn code point removed (é → e, Ü → U, が → か).
std::u32string strip_accents(std::u32string_view s);

// The Unicode version of the tables.
const char* version();

}  // namespace tfx::unicode
