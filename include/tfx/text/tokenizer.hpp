// Tokenizers of the lecture: text → tokens → ids. Word level (whitespace, every punctuation
// character its own token: "I love playing football." → I, love, playing, football, "."),
// character level (one token per Unicode code point, spaces included, so Korean splits by
// syllable, not by byte), and WordPiece subwords as BERT does it (greedy longest match first
// within a word, "##" marks a continuation, the whole word becomes [UNK] when no segmentation
// exists). Vocabularies: a small built-in one that splits the notes' example (play ##ing,
// foot ##ball), or a BERT vocab.txt (one token per line, id = line number − 1). The word split
// and the casing are BERT's basic tokenizer (Casing::bert_uncased is its do_lower_case).
#pragma once
#include "tfx/core/i18n.hpp"
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tfx/core/choices.hpp"

namespace tfx {

enum class TokenizerMode { word, character, subword };
inline constexpr Choice<TokenizerMode> kTokenizerModeChoices[] = {
    {TokenizerMode::word, "word", N_("split at spaces, punctuation as its own token")},
    {TokenizerMode::character, "char", N_("one token per Unicode code point")},
    {TokenizerMode::subword, "subword", N_("WordPiece, as BERT")},
};

struct Vocabulary {
  std::string name;                                   // file path or "built-in WordPiece vocabulary"
  std::vector<std::string> tokens;                    // id → token
  std::unordered_map<std::string, std::size_t> ids;   // token → id
  std::size_t longest = 0;                            // bytes of the longest token (bounds WordPiece's
                                                      // match; 0: unknown, no bound)
  std::optional<std::size_t> find(const std::string& token) const;
  std::size_t size() const { return tokens.size(); }
};

// A vocab.txt held in `text`: one token per line ("\n" or "\r\n"; a final newline is optional),
// id = 0-based line number. An empty line, a duplicate token (naming both lines), a line with a
// tab or invalid UTF-8, or no token at all throws tfx::Error "where:line: …". Safe on arbitrary
// bytes (the fuzz target calls it).
Vocabulary parse_vocab(std::string_view text, const std::string& where);
// Reads `path` (a missing file or a directory is a data error naming it).
Vocabulary read_vocab(const std::string& path);
// The built-in teaching vocabulary: [PAD] [UNK] [CLS] [SEP] [MASK], punctuation, a few hundred
// words minus "playing"/"football" so WordPiece splits them as the notes do, ##-pieces, and the
// notes' Korean example words. Constructed by hand, not trained.
const Vocabulary& builtin_vocab();

// UTF-8 code points of `text` as strings; invalid UTF-8 throws tfx::Error naming the byte offset.
std::vector<std::string> utf8_characters(std::string_view text);

// How text is cased before it is split.
enum class Casing {
  keep,          // as typed (BERT cased)
  lower,         // every script lower-cased as Python's str.lower (Σ → ς at a word's end),
                 // accents and Hangul syllables kept: how the sentence commands match the
                 // lower-case teaching embedding
  bert_uncased,  // BERT uncased's do_lower_case: lower-cased, then NFD with the combining marks
                 // (category Mn) removed: "Héllo WORLD Ünïcödé" → "hello world unicode",
                 // "ΑΒΓ" → "αβγ"; Hangul syllables come out as their jamo (나 → ᄂ ᅡ)
};

// `text` (valid UTF-8) with `casing` applied to all of it.
std::string normalize_case(std::string_view text, Casing casing);

// Word-level split, BERT's BasicTokenizer: U+0000, U+FFFD and control characters are dropped;
// whitespace (Unicode Zs, \t \n \r) separates words; each CJK ideograph is a word of its own
// (Hangul and kana words stay whole); each word is cased, then every punctuation character
// (ASCII non-alphanumerics, Unicode P*) becomes a token of its own: "don't" → don, ', t;
// "¿Qué?" → ¿, Qué, ?; "中文" → 中, 文. A word that is one of BERT's special tokens [PAD] [UNK]
// [CLS] [SEP] [MASK] stays whole and as typed (HF BertTokenizer's never_split). Tables from
// Python's unicodedata (tfx/unicode.hpp).
std::vector<std::string> word_tokens(std::string_view text, Casing casing = Casing::keep);

// WordPiece of one word against `vocab`: longest prefix in the vocabulary, then the longest
// "##"-piece of the rest, …; the whole word is "[UNK]" when a remainder has no piece, or when
// the word is longer than `max_chars` code points. A piece is never longer than vocab.longest
// bytes, so a word of n characters costs O(n · longest) probes, not O(n²) (`probes`, when given,
// counts the dictionary probes: what the linear-time test counts).
std::vector<std::string> wordpiece(const std::string& word, const Vocabulary& vocab, std::size_t max_chars = 100,
                                   std::size_t* probes = nullptr);

struct Tokenized {
  std::vector<std::string> tokens;
  std::vector<long long> ids;  // vocabulary id ([UNK]'s id, or −1 when out of vocabulary and no [UNK]);
                               // character mode: the Unicode code point
};

// Tokenizes `text` in `mode` after `casing` (character mode: the cased text's code points);
// word and subword ids come from `vocab`. Throws a usage error for invalid UTF-8, and when no
// token results (empty or blank text) unless `allow_empty` (then no tokens, as Hugging Face gives
// no ids for such a text).
Tokenized tokenize(std::string_view text, TokenizerMode mode, const Vocabulary& vocab, Casing casing, bool allow_empty = false);

}  // namespace tfx
