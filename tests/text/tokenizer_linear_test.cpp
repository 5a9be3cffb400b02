// Tokenizers in linear time, checked by counting work (HfTokenizer::encode_work, WordPiece's
// probes), not by timing: doubling the text at most doubles the work (ratio ≤ 2.2) for the inputs
// that were quadratic or worse — one long word under WordPiece with a 2^20-character limit, a text
// full of nested added tokens, one long BPE word — with the ids checked against their closed form.
// Also the Unicode normalization forms' known answers (UAX #15's examples).
#include <nlohmann/json.hpp>

#include <string>

#include "helpers.hpp"
#include "tfx/text/hf_tokenizer.hpp"
#include "tfx/text/tokenizer.hpp"
#include "tfx/text/unicode.hpp"

using namespace tfx;

namespace {

std::string repeat(const std::string& s, std::size_t n) {
  std::string o;
  o.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) o += s;
  return o;
}

// encode_work() spent encoding `text`.
std::uint64_t work_of(const HfTokenizer& t, const std::string& text, HfEncoding* e = nullptr) {
  const std::uint64_t before = HfTokenizer::encode_work();
  HfEncoding r = t.encode(text, false);
  const std::uint64_t w = HfTokenizer::encode_work() - before;
  if (e) *e = std::move(r);
  return w;
}

std::string u8(std::u32string_view s) { return unicode::to_utf8(s); }

}  // namespace

TEST_CASE("tokenizer linear: WordPiece probes grow linearly in a word's length (the longest token bounds each match)") {
  // "a" then "##a" each: a word of n a's is n pieces; the longest token (30 bytes) bounds the ends tried
  const Vocabulary v = parse_vocab("[UNK]\na\n##a\n" + std::string(30, 'b') + "\n", "v");
  std::size_t p1 = 0, p2 = 0;
  const auto w1 = wordpiece(std::string(2000, 'a'), v, 1u << 20, &p1);
  const auto w2 = wordpiece(std::string(4000, 'a'), v, 1u << 20, &p2);
  REQUIRE(w1.size() == 2000);
  CHECK(w1[0] == "a");
  CHECK(w1[1999] == "##a");
  CHECK(w2.size() == 4000);
  CHECK(static_cast<double>(p2) / static_cast<double>(p1) <= 2.2);
  CHECK(p2 <= 30u * 4000u);  // O(n · longest), where trying every end was n²/2 = 8·10^6
}

TEST_CASE("tokenizer linear: an HF WordPiece with max_input_chars_per_word 2^20 and 100k-character words stays linear") {
  nlohmann::json j = {{"model",
                       {{"type", "WordPiece"},
                        {"vocab", {{"[UNK]", 0}, {"a", 1}, {"##a", 2}, {"[CLS]", 3}}},
                        {"unk_token", "[UNK]"},
                        {"max_input_chars_per_word", 1 << 20}}},
                      {"normalizer", {{"type", "BertNormalizer"}, {"lowercase", true}}},
                      {"pre_tokenizer", {{"type", "BertPreTokenizer"}}}};
  const HfTokenizer t = HfTokenizer::from_json(j.dump(), "wp.json");
  HfEncoding e;
  const auto w1 = work_of(t, std::string(50000, 'A'), &e);
  REQUIRE(e.ids.size() == 50000);
  CHECK(e.ids[0] == 1);
  CHECK(e.ids[49999] == 2);
  const auto w2 = work_of(t, std::string(100000, 'A'));
  CHECK(static_cast<double>(w2) / static_cast<double>(w1) <= 2.2);
}

TEST_CASE("tokenizer linear: 20,000 added tokens, nested prefixes of one another, cost O(text) automaton steps") {
  nlohmann::json vocab = nlohmann::json::object(), added = nlohmann::json::array();
  vocab["<unk>"] = 0;
  std::size_t id = 1;
  for (const char* c : {"a", "b", "x", " "}) vocab[c] = id++;
  // a, aa, aaa, … (200 nested prefixes) and 19,800 tokens "x<i>b"
  for (std::size_t k = 1; k <= 200; ++k) added.push_back({{"id", id}, {"content", std::string(k, 'a')}, {"special", true}}), vocab[std::string(k, 'a')] = id++;
  for (std::size_t k = 0; k < 19800; ++k) {
    const std::string c = "x" + std::to_string(k) + "b";
    added.push_back({{"id", id}, {"content", c}, {"special", true}});
    vocab[c] = id++;
  }
  for (const char* c : {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}) vocab[c] = id++;
  nlohmann::json j = {{"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", nlohmann::json::array()}, {"unk_token", "<unk>"}}},
                      {"added_tokens", added}};
  const HfTokenizer t = HfTokenizer::from_json(j.dump(), "added.json");
  HfEncoding e;
  // 60,000 a's: the longest token (200 a's) 300 times, leftmost-longest as Hugging Face matches
  const auto w1 = work_of(t, std::string(60000, 'a'), &e);
  REQUIRE(e.tokens.size() == 300);
  CHECK(e.tokens[0] == std::string(200, 'a'));
  const auto w2 = work_of(t, std::string(120000, 'a'));
  CHECK(static_cast<double>(w2) / static_cast<double>(w1) <= 2.2);
  CHECK(w2 <= 3u * 120000u);
  // "x123b x19799b x5 " → x123b, ' ', x19799b, then " x5 " as ordinary text: ' ', x, 5, ' ' (no
  // pre-tokenizer, no merges: one symbol per character)
  const auto w3 = work_of(t, repeat("x123b x19799b x5 ", 4000), &e);
  CHECK(e.tokens.size() == 4000u * 7u);
  CHECK(e.tokens[0] == "x123b");
  CHECK(e.tokens[2] == "x19799b");
  CHECK(e.tokens[4] == "x");
  const auto w4 = work_of(t, repeat("x123b x19799b x5 ", 8000));
  CHECK(static_cast<double>(w4) / static_cast<double>(w3) <= 2.2);
}

TEST_CASE("tokenizer linear: GPT-2's BPE on one 64k / 128k-character word does linear heap work") {
  const auto dir = test::shared_data("tokenizers/gpt2");
  if (dir.empty()) return;
  const HfTokenizer t = HfTokenizer::load(dir.string());
  // no space: one word of letters; and a word of Hangul (3 bytes each, merged from byte symbols)
  const std::pair<std::string, std::size_t> cases[] = {{"abcdefghij", 6400}, {"가나다라마바사아자차", 2000}};
  for (const auto& c : cases) {  // no structured binding: CAPTURE is a lambda, and clang 14 cannot capture one
    const std::string& unit = c.first;
    const std::size_t reps = c.second;
    const auto w1 = work_of(t, repeat(unit, reps));
    const auto w2 = work_of(t, repeat(unit, 2 * reps));
    CAPTURE(unit);
    CHECK(static_cast<double>(w2) / static_cast<double>(w1) <= 2.2);
  }
}

TEST_CASE("unicode: NFC, NFD, NFKC and NFKD give the Unicode standard's answers") {
  // UAX #15 figure 3–6 examples and Hangul (Unicode §3.12)
  CHECK(u8(unicode::nfc(U"cafe\u0301")) == "café");
  CHECK(u8(unicode::nfd(U"é")) == "e\xCC\x81");
  CHECK(u8(unicode::nfc(U"\u212B")) == "Å");                           // Ångström sign → Å (singleton)
  CHECK(u8(unicode::nfc(U"\u1E0B\u0323")) == "\xE1\xB8\x8D\xCC\x87");  // ḋ + dot below → ḍ + dot above
  CHECK(u8(unicode::nfc(U"q\u0307\u0323")) == "q\xCC\xA3\xCC\x87");   // reordered, nothing composes
  CHECK(u8(unicode::nfc(U"\u1112\u1161\u11AB\u1100\u1173\u11AF")) == "한글");
  CHECK(unicode::nfd(U"한") == std::u32string(U"\u1112\u1161\u11AB"));
  CHECK(u8(unicode::nfkc(U"\uFB01")) == "fi");
  CHECK(u8(unicode::nfkc(U"\u2460\uFF28")) == "1H");
  CHECK(u8(unicode::nfkd(U"\u1E9B\u0323")) == "s\xCC\xA3\xCC\x87");  // ẛ̣ → s + dot below + dot above
  CHECK(u8(unicode::nfkc(U"\u1E9B\u0323")) == "\xE1\xB9\xA9");       // → ṩ
  CHECK(u8(unicode::nfc(U"\u1E9B\u0323")) == "\xE1\xBA\x9B\xCC\xA3"); // NFC keeps ẛ
  CHECK(u8(unicode::lower(U"ΟΔΥΣΣΕΥΣ", false)) == "οδυσσευσ");
  CHECK(u8(unicode::lower(U"ΟΔΥΣΣΕΥΣ", true)) == "οδυσσευς");
}

TEST_CASE("tokenize: an empty or blank text gives no tokens and exit 0, as Hugging Face gives no ids") {
  const Vocabulary v = parse_vocab("[UNK]\nhello\n", "v");
  CHECK(tokenize("", TokenizerMode::subword, v, Casing::bert_uncased, true).ids.empty());
  CHECK(tokenize(" \n\t ", TokenizerMode::subword, v, Casing::bert_uncased, true).ids.empty());
  CHECK_THROWS(tokenize("", TokenizerMode::subword, v, Casing::keep));
  test::TempDir d;
  test::write_file(d / "v.txt", "[UNK]\nhello\n");
  for (const char* text : {"''", "'   '"}) {
    const test::Run r = test::run_tfx(std::string("tokenize ") + text + " --vocab v.txt --format json", d.path);
    CHECK(r.code == 0);
    CHECK(test::json_of(r)["summary"]["ids"] == nlohmann::json::array());
  }
}
