// The word tokenizer against BERT's BasicTokenizer: HF's documented cases (their
// test_tokenization_bert.py strings, typed here), sample sentences in many scripts and every
// code point (block hashes), both from tests/reference/gen_bert_basic_reference.py, which runs
// BERT's algorithm on Python's unicodedata; and `tfx tokenize --lower` end to end.
#include <fmt/format.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "tfx/text/unicode.hpp"
#include "helpers.hpp"
#include "tfx/text/tokenizer.hpp"

using namespace tfx;
using namespace tfx::test;
using namespace std::literals;

namespace {

struct BertSample {
  std::string_view text, cased, uncased;
};
#include "reference/bert_basic_reference.inc"

using Tokens = std::vector<std::string>;

std::string joined(const Tokens& t) {
  std::string s;
  for (const auto& x : t) s += (s.empty() ? "" : " ") + x;
  return s;
}

// The reference script's probe(c) and FNV-1a 64 over "token\x1f…\x1e" per code point.
std::uint64_t fnv1a(std::uint64_t h, std::string_view data) {
  for (unsigned char b : data) h = (h ^ b) * 0x100000001B3ull;
  return h;
}

std::uint64_t block_hash(std::uint32_t block, Casing casing) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (char32_t c = block << 12; c < (block + 1) << 12; ++c) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    std::string ch;
    unicode::append_utf8(ch, c);
    const std::string probe = ch + "Σ A" + ch + "Σ AΣ" + ch + " " + ch;
    for (const std::string& t : word_tokens(probe, casing)) h = fnv1a(fnv1a(h, t), "\x1f");
    h = fnv1a(h, "\x1e");
  }
  return h;
}

void check_every_code_point(Casing casing, const std::uint64_t (&want)[0x110]) {
  REQUIRE(std::string_view(unicode::version()) == kBertUnicodeVersion);
  std::vector<std::string> wrong;
  for (std::uint32_t b = 0; b < 0x110; ++b)
    if (block_hash(b, casing) != want[b]) wrong.push_back(fmt::format("U+{:04X}–U+{:04X}", b << 12, ((b + 1) << 12) - 1));
  CAPTURE(wrong);
  CHECK(wrong.empty());
}

}  // namespace

TEST_CASE("BERT basic tokenizer: HF's documented cases and the issue's examples") {
  // HF test_tokenization_bert.py: test_basic_tokenizer_lower, _no_lower, _lower_strip_accents_default, _chinese
  CHECK(word_tokens(" \tHeLLo!how  \n Are yoU?  ", Casing::bert_uncased) == Tokens{"hello", "!", "how", "are", "you", "?"});
  CHECK(word_tokens("H\u00E9llo", Casing::bert_uncased) == Tokens{"hello"});
  CHECK(word_tokens(" \tHäLLo!how  \n Are yoU?  ", Casing::bert_uncased) == Tokens{"hallo", "!", "how", "are", "you", "?"});
  CHECK(word_tokens(" \tHeLLo!how  \n Are yoU?  ", Casing::keep) == Tokens{"HeLLo", "!", "how", "Are", "yoU", "?"});
  CHECK(word_tokens("ah\u535A\u63A8zz", Casing::keep) == Tokens{"ah", "\u535A", "\u63A8", "zz"});
  // test_basic_tokenizer_respects_never_split_tokens (BertTokenizer passes its special tokens)
  CHECK(word_tokens(" \tHeLLo!how  \n Are yoU? [UNK]", Casing::keep) == Tokens{"HeLLo", "!", "how", "Are", "yoU", "?", "[UNK]"});
  CHECK(word_tokens("[CLS] Hello [SEP]", Casing::bert_uncased) == Tokens{"[CLS]", "hello", "[SEP]"});
  CHECK(joined(word_tokens("Héllo WORLD Ünïcödé", Casing::bert_uncased)) == "hello world unicode");
  CHECK(joined(word_tokens("ΑΒΓ", Casing::bert_uncased)) == "αβγ");
  // Casing::lower: str.lower only, accents and Hangul syllables kept (the sentence commands)
  CHECK(normalize_case("Héllo ΟΔΟΣ Ёж 나는", Casing::lower) == "héllo οδος ёж 나는");
  // Hangul under BERT uncased: NFD splits the syllable into conjoining jamo (나 → U+1102 U+1161)
  CHECK(normalize_case("나", Casing::bert_uncased) == "\u1102\u1161");
}

TEST_CASE("BERT basic tokenizer: sample sentences in many scripts equal the Python reference, cased and uncased") {
  for (const BertSample& s : kBertSamples) {
    CAPTURE(s.text);
    CHECK(joined(word_tokens(s.text, Casing::keep)) == s.cased);
    CHECK(joined(word_tokens(s.text, Casing::bert_uncased)) == s.uncased);
  }
}

TEST_CASE("BERT basic tokenizer: every code point as the Python reference does it (cased)") {
  check_every_code_point(Casing::keep, kBertCasedBlockHashes);
}

TEST_CASE("BERT basic tokenizer: every code point as the Python reference does it (do_lower_case)") {
  check_every_code_point(Casing::bert_uncased, kBertUncasedBlockHashes);
}

TEST_CASE("tfx tokenize --lower: BERT uncased's lower-casing and accent stripping before WordPiece") {
  TempDir d;
  write_file(d / "vocab.txt", "[PAD]\n[UNK]\nhello\nworld\nuni\n##code\nαβγ\nпривет\n,\n");
  const Run r = run_tfx("tokenize 'Héllo WORLD Ünïcödé ΑΒΓ ПРИВЕТ,' --lower --format json --vocab " + shell_quote((d / "vocab.txt").string()));
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["summary"]["tokens"].get<Tokens>() == Tokens{"hello", "world", "uni", "##code", "αβγ", "привет", ","});
  CHECK(j["summary"]["ids"].get<std::vector<long long>>() == std::vector<long long>{2, 3, 4, 5, 6, 7, 8});
  // without --lower the cased words are not in this uncased vocabulary
  const Run cased = run_tfx("tokenize 'Héllo' --format json --vocab " + shell_quote((d / "vocab.txt").string()));
  CHECK(nlohmann::json::parse(cased.out)["summary"]["tokens"].get<Tokens>() == Tokens{"[UNK]"});
  // Korean under --lower: jamo, with a note saying so
  const Run ko = run_tfx("tokenize '나는' --lower --mode char");
  CHECK(ko.code == 0);
  CHECK(has(ko.out, "jamo"));
}
