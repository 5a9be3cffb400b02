// Hugging Face tokenizers against Hugging Face's Rust engine (its Node binding, npm `tokenizers`):
// every id of 230 sentences (English, Korean, mixed scripts, emoji, whitespace runs, numbers,
// special tokens inside text) and 320 hostile texts (final sigma, private-use characters,
// decomposed and compatibility forms, controls, every space, long runs) under the real GPT-2, BERT
// uncased, Llama 3 and Qwen3 (NFC) tokenizer.json, BERT behind NFKC / NFD / NFKD, Llama 3's and
// Qwen2's split patterns and RobertaProcessing over GPT-2's vocabulary, and a small Llama-2-style
// ▁-BPE with byte fallback (tests/reference/gen_tokenizer_reference.mjs wrote the constants).
// Also the known answers the data's README prints, and the vocab.txt / vocab.json + merges.txt
// fallbacks giving the tokenizer.json's ids.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "helpers.hpp"
#include "reference_files.hpp"
#include "tfx/core/error.hpp"
#include "tfx/text/hf_tokenizer.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

#include "../reference/hf_tokenizer_reference.inc"

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The variants gen_tokenizer_reference.mjs builds from GPT-2's tokenizer.json, built the same way.
const char* kLlama3 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const char* kQwen2 = R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

HfTokenizer variant(const nlohmann::json& gpt2, const std::string& kind) {
  nlohmann::json t = gpt2;
  if (kind == "llama3" || kind == "qwen2") {
    t["pre_tokenizer"] = {{"type", "Sequence"},
                          {"pretokenizers",
                           {{{"type", "Split"}, {"pattern", {{"Regex", kind == "llama3" ? kLlama3 : kQwen2}}}, {"behavior", "Isolated"}},
                            {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}}}};
    t["model"]["ignore_merges"] = true;
    if (kind == "llama3")
      t["post_processor"] = {
          {"type", "TemplateProcessing"},
          {"single", {{{"SpecialToken", {{"id", "<|endoftext|>"}}}}, {{"Sequence", {{"id", "A"}}}}}},
          {"special_tokens", {{"<|endoftext|>", {{"id", "<|endoftext|>"}, {"ids", {50256}}, {"tokens", {"<|endoftext|>"}}}}}}};
  } else if (kind == "roberta") {
    t["post_processor"] = {{"type", "RobertaProcessing"}, {"sep", {"<|endoftext|>", 50256}}, {"cls", {"<|endoftext|>", 50256}}};
  }
  return HfTokenizer::from_json(t.dump(), kind);
}

std::size_t check_kind(const HfTokenizer& tok, const std::string& kind) {
  std::size_t n = 0;
  for (const HfTokenizerCase& c : kHfTokenizerCases) {
    if (c.kind != kind) continue;
    CAPTURE(kind);
    const std::string text(c.text);
    CAPTURE(text);
    const std::vector<std::size_t> want(kHfTokenizerIds + c.first, kHfTokenizerIds + c.first + c.count);
    CHECK(tok.encode(c.text).ids == want);
    ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("hf tokenizer: GPT-2 and BERT uncased give Hugging Face's ids on 230 sentences and 320 hostile texts, specials inside text included") {
  const auto dir = shared_data("tokenizers");
  if (dir.empty()) return;
  const HfTokenizer gpt2 = HfTokenizer::load((dir / "gpt2").string());
  const HfTokenizer bert = HfTokenizer::load((dir / "bert-base-uncased").string());
  CHECK(check_kind(gpt2, "gpt2") >= 500);
  CHECK(check_kind(bert, "bert") >= 500);
  // the data README's checks
  CHECK(gpt2.encode("Hello, my dog is cute").ids == std::vector<std::size_t>{15496, 11, 616, 3290, 318, 13779});
  CHECK(bert.encode("Hello, my dog is cute").ids == std::vector<std::size_t>{101, 7592, 1010, 2026, 3899, 2003, 10140, 102});
  CHECK(gpt2.kind() == "byte-level BPE");
  CHECK(bert.kind() == "WordPiece");
  CHECK(bert.mask_token() == "[MASK]");
}

TEST_CASE("hf tokenizer: the real Llama 3 and Qwen3 (NFC) tokenizer.json give Hugging Face's ids on sentences and hostile texts") {
  const auto dir = shared_data("tokenizers");
  if (dir.empty()) return;
  CHECK(check_kind(HfTokenizer::load((dir / "llama3").string()), "llama3_real") >= 500);
  CHECK(check_kind(HfTokenizer::load((dir / "qwen3").string()), "qwen3") >= 500);
}

// The reference script's big text: the 230 sentences (the first 230 "gpt2" cases) joined by "\n",
// repeated until 1,200,000 bytes or more — big enough for encode to cut it and use every core.
static std::string big_text() {
  std::string one;
  std::size_t n = 0;
  for (const HfTokenizerCase& c : kHfTokenizerCases)
    if (std::string_view(c.kind) == "gpt2" && n++ < 230) one += std::string(c.text) + "\n";
  std::string big;
  while (big.size() < 1200000) big += one;
  return big;
}

static std::uint64_t fnv1a_ids(const std::vector<std::size_t>& ids) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t id : ids)
    for (int b = 0; b < 4; ++b) h = (h ^ ((id >> (8 * b)) & 255)) * 0x100000001b3ull;
  return h;
}

TEST_CASE("hf tokenizer: a 1.2 MB text (cut and encoded on all cores) gives Hugging Face's ids under the real tokenizers") {
  const auto dir = shared_data("tokenizers");
  if (dir.empty()) return;
  const std::string big = big_text();
  const std::pair<const char*, const char*> folders[] = {
      {"gpt2", "gpt2"}, {"bert", "bert-base-uncased"}, {"llama3_real", "llama3"}, {"qwen3", "qwen3"}};
  for (const auto& kf : folders) {  // no structured binding: CAPTURE is a lambda, and clang 14 cannot capture one
    const char* kind = kf.first;
    const char* folder = kf.second;
    CAPTURE(kind);
    const HfEncoding e = HfTokenizer::load((dir / folder).string()).encode(big, true, false);
    for (const HfBigCase& c : kHfBigCases)
      if (std::string_view(c.kind) == kind) {
        CHECK(e.ids.size() == c.count);
        CHECK(fnv1a_ids(e.ids) == c.hash);
      }
  }
}

TEST_CASE("hf tokenizer: BERT uncased behind NFKC, NFD and NFKD normalizers gives Hugging Face's ids on hostile texts") {
  const auto file = shared_data("tokenizers/bert-base-uncased/tokenizer.json");
  if (file.empty()) return;
  const nlohmann::json bert = nlohmann::json::parse(slurp(file));
  for (const char* form : {"NFKC", "NFD", "NFKD"}) {
    nlohmann::json t = bert;
    t["normalizer"] = {{"type", "Sequence"}, {"normalizers", {{{"type", form}}, bert["normalizer"]}}};
    std::string kind = std::string("bert_") + form;
    std::transform(kind.begin(), kind.end(), kind.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    CHECK(check_kind(HfTokenizer::from_json(t.dump(), kind), kind) >= 300);
  }
}

TEST_CASE("hf tokenizer: Llama 3 and Qwen2 split patterns, RobertaProcessing (over GPT-2's vocabulary) give Hugging Face's ids") {
  const auto file = shared_data("tokenizers/gpt2/tokenizer.json");
  if (file.empty()) return;
  const nlohmann::json gpt2 = nlohmann::json::parse(slurp(file));
  for (const char* kind : {"llama3", "qwen2", "roberta"}) CHECK(check_kind(variant(gpt2, kind), kind) >= 200);
}

TEST_CASE("hf tokenizer: a Llama-2-style ▁-BPE with byte fallback gives Hugging Face's ids") {
  const std::string dir = std::string(TFX_SOURCE_DIR) + "/tests/data/hf_tokenizers/llama2_tiny";
  const HfTokenizer t = HfTokenizer::load(dir);
  CHECK(check_kind(t, "llama2") >= 200);
  CHECK(t.kind() == "BPE over ▁ with byte fallback");
  // a Hangul syllable outside the vocabulary falls back to its three UTF-8 bytes, shown as one character
  const HfEncoding e = t.encode("한");
  REQUIRE(e.tokens.size() == 5);  // <s> ▁ <0xED> <0x95> <0x9C>
  CHECK(e.tokens[2] == "<0xED>");
  CHECK(e.readable[2] == "한(1/3)");
  CHECK(e.readable[4] == "한(3/3)");
}

TEST_CASE("hf tokenizer: Gemma's layout (a Replace normalizer, no ▁ in front, <bos>) gives Hugging Face's ids") {
  const HfTokenizer t = HfTokenizer::load(std::string(TFX_SOURCE_DIR) + "/tests/data/hf_tokenizers/gemma_tiny");
  CHECK(check_kind(t, "gemma") >= 200);
  // no dummy prefix: "the" is t h e, not ▁the; a space inside is ▁
  const HfEncoding e = t.encode("the cat");
  REQUIRE(!e.tokens.empty());
  CHECK(e.tokens.front() == "<bos>");
  CHECK(e.tokens[1] != "▁the");
}

TEST_CASE("hf tokenizer: readable tokens show GPT-2's Ġ as ␣ and byte pieces as the character they form") {
  const auto dir = shared_data("tokenizers/gpt2");
  if (dir.empty()) return;
  const HfEncoding e = HfTokenizer::load(dir.string()).encode("my 나");
  REQUIRE(e.tokens.size() == 4);  // my Ġë Ĥ ĺ
  CHECK(e.tokens[1] == "Ġë");
  CHECK(e.readable[0] == "my");
  CHECK(e.readable[1] == "␣나(1/3)");
  CHECK(e.readable[3] == "나(3/3)");
}

TEST_CASE("hf tokenizer: vocab.txt and vocab.json + merges.txt without tokenizer.json give the same ids") {
  const auto dir = shared_data("tokenizers");
  if (dir.empty()) return;
  TempDir tmp;
  std::filesystem::create_directories(tmp.path / "bert");
  std::filesystem::create_directories(tmp.path / "gpt2");
  std::filesystem::copy_file(dir / "bert-base-uncased/vocab.txt", tmp.path / "bert/vocab.txt");
  std::filesystem::copy_file(dir / "gpt2/vocab.json", tmp.path / "gpt2/vocab.json");
  std::filesystem::copy_file(dir / "gpt2/merges.txt", tmp.path / "gpt2/merges.txt");
  const HfTokenizer bert = HfTokenizer::load((tmp.path / "bert").string());
  const HfTokenizer gpt2 = HfTokenizer::load((tmp.path / "gpt2").string());
  CHECK(check_kind(bert, "bert") >= 200);
  CHECK(check_kind(gpt2, "gpt2") >= 200);
}

TEST_CASE("hf tokenizer: bad folders and files are one-line errors naming them") {
  TempDir tmp;
  CHECK_THROWS_WITH_AS(HfTokenizer::load((tmp.path / "missing").string()), doctest::Contains("not a directory"), tfx::Error);
  CHECK_THROWS_WITH_AS(HfTokenizer::load(tmp.path.string()), doctest::Contains("no tokenizer.json, vocab.txt or vocab.json + merges.txt"),
                       tfx::Error);
  CHECK_THROWS_WITH_AS(HfTokenizer::from_json("{", "t.json"), doctest::Contains("t.json: not valid JSON"), tfx::Error);
  CHECK_THROWS_WITH_AS(HfTokenizer::from_json(R"({"model": {"type": "Unigram", "vocab": {}}})", "t.json"),
                       doctest::Contains("model type 'Unigram' is not supported (supported: BPE, WordPiece)"), tfx::Error);
  CHECK_THROWS_WITH_AS(HfTokenizer::from_json(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}})", "t.json"),
                       doctest::Contains("merge 0 'a b': a token of it is not in the vocabulary"), tfx::Error);
  CHECK_THROWS_WITH_AS(HfTokenizer::from_json(R"({"model": {"type": "BPE", "vocab": {"a": -1}, "merges": []}})", "t.json"),
                       doctest::Contains("should be a whole number"), tfx::Error);
  // a field of the wrong type names itself (the fuzzer's find: "special": "[MASK]" escaped as
  // nlohmann's type_error and aborted the process)
  CHECK_THROWS_WITH_AS(HfTokenizer::from_json(R"({"added_tokens": [{"id": 0, "content": "[CLS]", "special": "[MASK]"}],
                                                  "model": {"type": "WordPiece", "vocab": {"[CLS]": 0}}})", "t.json"),
                       doctest::Contains("t.json: \"special\" should be true or false, got \"[MASK]\""), tfx::Error);
  CHECK_THROWS_WITH_AS(HfTokenizer::from_json(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [], "byte_fallback": 1}})", "t.json"),
                       doctest::Contains("\"byte_fallback\" should be true or false, got 1"), tfx::Error);
  CHECK_THROWS_WITH_AS(HfTokenizer::from_json(R"({"model": {"type": "WordPiece", "vocab": {"a": 0}, "continuing_subword_prefix": []}})", "t.json"),
                       doctest::Contains("\"continuing_subword_prefix\" should be a string, got []"), tfx::Error);
  CHECK_THROWS_WITH_AS(HfTokenizer::from_json(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
                                                  "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": "yes"}})", "t.json"),
                       doctest::Contains("\"add_prefix_space\" should be true or false"), tfx::Error);
  // an id far past the tokens listed is refused instead of allocating a table for it (fuzzer: 2 GB)
  CHECK_THROWS_WITH_AS(HfTokenizer::from_json(R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 47666666}, "merges": []}})", "t.json"),
                       doctest::Contains("the id 47666666 of 'b' is far past the 2 tokens the file declares"), tfx::Error);
}

TEST_CASE("hf tokenizer: a token that only looks like a byte token (<0xZZ>, <0x4G>) is an ordinary token, <0x41> is the byte A") {
  const HfTokenizer t = HfTokenizer::from_json(
      R"({"model": {"type": "BPE", "vocab": {"<0xZZ>": 0, "<0x4G>": 1, "<0x41>": 2, "a": 3}, "merges": [], "byte_fallback": true}})", "t.json");
  CHECK(t.token_bytes(0) == "<0xZZ>");
  CHECK(t.token_bytes(1) == "<0x4G>");
  CHECK(t.token_bytes(2) == "A");
  CHECK(t.readable(0) == "<0xZZ>");
}
