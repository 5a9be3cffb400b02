// Byte-level BPE training (tfx/text/bpe_train.hpp) against Hugging Face's Rust `tokenizers` (npm,
// tests/reference/gen_bpe_reference.mjs wrote the constants): the merges HF's own trainer learns
// from tests/data/bpe/train.txt, and the ids HF's engine gives for 220 texts with the
// tokenizer.json tfx writes; plus a merge sequence worked out by hand and the bad inputs.
#include <nlohmann/json.hpp>

#include <filesystem>

#include "helpers.hpp"
#include "tfx/core/error.hpp"
#include "tfx/text/bpe_train.hpp"
#include "tfx/text/hf_tokenizer.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

#include "../reference/bpe_reference.inc"

std::string train_text() { return read_file(std::filesystem::path(TFX_SOURCE_DIR) / "tests/data/bpe/train.txt"); }

std::vector<std::string> merge_strings(const BpeTraining& t) {
  std::vector<std::string> out;
  for (const auto& [l, r] : t.merges) out.push_back(t.vocab[l] + " " + t.vocab[r]);
  return out;
}

}  // namespace

TEST_CASE("bpe train: a merge sequence worked out by hand (counts, then the smaller pair of ids)") {
  // "hug hug hugs bun" → words hug, Ġhug, Ġhugs, Ġbun (GPT-2's split; Ġ = the space byte, id 220
  // as in GPT-2; '!'..'~' are ids 0..93, so h = 71, u = 84, g = 70, b = 65, n = 77, s = 82).
  // Pairs: hu 3, ug 3, Ġh 2, the rest 1. hu and ug tie at 3: (71, 84) < (84, 70), so hu first;
  // then hug 3, Ġhug 2; then all at 1: (b, u) = (65, 84) is the smallest, then (Ġ, bu) =
  // (220, 259), then (Ġhug, s) = (258, 82), then (Ġbu, n) = (260, 77); then no pair is left.
  const BpeTraining t = train_byte_level_bpe("hug hug hugs bun", 263);
  CHECK(merge_strings(t) == std::vector<std::string>{"h u", "hu g", "Ġ hug", "b u", "Ġ bu", "Ġhug s", "Ġbu n"});
  REQUIRE(t.steps.size() == 7);
  CHECK(t.steps[0].count == 3);
  CHECK(t.steps[2].count == 2);
  CHECK(t.steps[3].count == 1);
  CHECK(t.vocab[0] == "!");
  CHECK(t.vocab[220] == "Ġ");
  CHECK(t.vocab[71] == "h");
  CHECK(t.vocab[262] == "Ġbun");
  CHECK(t.bytes[262] == " bun");
  CHECK(t.words == 4);
  CHECK(t.distinct_words == 4);
  CHECK(byte_level_bpe_reachable("hug hug hugs bun") == 263);
  // one fewer token stops one merge earlier
  CHECK(train_byte_level_bpe("hug hug hugs bun", 262).merges.size() == 6);
  CHECK(train_byte_level_bpe("hug hug hugs bun", 256).merges.empty());
}

TEST_CASE("bpe train: the merges equal those Hugging Face's trainer learns from the same file") {
  const std::string text = train_text();
  const std::size_t reachable = byte_level_bpe_reachable(text);
  const BpeTraining t = train_byte_level_bpe(text, reachable);
  const auto hf = nlohmann::json::parse(kBpeHfMerges);
  std::vector<std::string> expected;
  for (const auto& m : hf) expected.push_back(m[0].get<std::string>() + " " + m[1].get<std::string>());
  const std::vector<std::string> got = merge_strings(t);
  CHECK(got.size() == expected.size());
  std::size_t first_difference = 0;
  while (first_difference < got.size() && first_difference < expected.size() && got[first_difference] == expected[first_difference])
    ++first_difference;
  INFO("first difference at merge " << first_difference);
  CHECK(first_difference == expected.size());
  // the smaller vocabulary is the same merges cut short
  const BpeTraining small = train_byte_level_bpe(text, kBpeVocabSize);
  CHECK(small.vocab.size() == kBpeVocabSize);
  const std::vector<std::string> small_merges = merge_strings(small);
  CHECK(std::equal(small_merges.begin(), small_merges.end(), expected.begin()));
}

TEST_CASE("bpe train: Hugging Face's engine reading tfx's tokenizer.json gives tfx's ids on every text") {
  const BpeTraining t = train_byte_level_bpe(train_text(), kBpeVocabSize);
  const HfTokenizer tok = HfTokenizer::from_json(byte_level_bpe_json(t), "tokenizer.json");
  CHECK(tok.kind() == "byte-level BPE");
  CHECK(tok.vocab_size() == kBpeVocabSize);
  const auto cases = nlohmann::json::parse(kBpeCases);
  REQUIRE(cases.size() >= 200);
  std::size_t equal = 0;
  for (const auto& c : cases) {
    const std::string text = c["text"].get<std::string>();
    const std::vector<std::size_t> want = c["ids"].get<std::vector<std::size_t>>();
    const HfEncoding e = tok.encode(text, true, false);
    if (e.ids == want) {
      ++equal;
    } else {
      INFO("text: " << text);
      CHECK(e.ids == want);
    }
    // and the ids decode to the text (byte-level BPE covers every UTF-8 input)
    std::string back;
    for (std::size_t id : e.ids) back += tok.token_bytes(id);
    CHECK(back == text);
  }
  CHECK(equal == cases.size());
}

TEST_CASE("bpe train: the tokenizer.json as Hugging Face writes GPT-2's") {
  const BpeTraining t = train_byte_level_bpe("the cat sat on the mat; 고양이가 앉았다", 270);
  const auto j = nlohmann::json::parse(byte_level_bpe_json(t));
  CHECK(j["model"]["type"] == "BPE");
  CHECK(j["pre_tokenizer"]["type"] == "ByteLevel");
  CHECK(j["pre_tokenizer"]["add_prefix_space"] == false);
  CHECK(j["pre_tokenizer"]["use_regex"] == true);
  CHECK(j["decoder"]["type"] == "ByteLevel");
  CHECK(j["normalizer"].is_null());
  CHECK(j["added_tokens"].empty());
  CHECK(j["model"]["vocab"].size() == 270);
  CHECK(j["model"]["vocab"]["Ġ"] == 220);
  CHECK(j["model"]["merges"].size() == 14);
  CHECK(j["model"]["merges"][0].is_array());
  // the same text and size give the same bytes
  CHECK(byte_level_bpe_json(train_byte_level_bpe("the cat sat on the mat; 고양이가 앉았다", 270)) == byte_level_bpe_json(t));
}

TEST_CASE("bpe train: what each token holds (the lesson's kinds)") {
  CHECK(token_kind("the") == TokenKind::latin);
  CHECK(token_kind(" the") == TokenKind::latin);
  CHECK(token_kind("학생") == TokenKind::hangul);
  CHECK(token_kind(" 나는") == TokenKind::hangul);
  CHECK(token_kind("\xEB\x82") == TokenKind::partial);  // the first two bytes of 나
  CHECK(token_kind("\x82\x98") == TokenKind::partial);
  CHECK(token_kind(" 2017") == TokenKind::other);
  CHECK(token_kind("a나") == TokenKind::other);
  CHECK(token_kind(" ") == TokenKind::other);
}

TEST_CASE("bpe train: a vocabulary below 256 or beyond the text, empty text and invalid UTF-8 are one clear error") {
  CHECK_THROWS_WITH_AS(train_byte_level_bpe("abc", 255), doctest::Contains("vocab_size 255: expected at least 256"), Error);
  CHECK_THROWS_WITH_AS(train_byte_level_bpe("hug hug hugs bun", 264),
                       doctest::Contains("no pair is left to merge at 263 tokens (the largest reachable size: give at most 263"),
                       Error);
  CHECK_THROWS_WITH_AS(train_byte_level_bpe("a", 257), doctest::Contains("at most 256"), Error);
  CHECK(train_byte_level_bpe("a", 256).vocab.size() == 256);
  CHECK_THROWS_WITH_AS(train_byte_level_bpe("", 300), doctest::Contains("empty"), Error);
  CHECK_THROWS_WITH_AS(train_byte_level_bpe("ok \xFF\xFE", 300), doctest::Contains("invalid UTF-8 at byte 3"), Error);
}
