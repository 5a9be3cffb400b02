// `tfx tokenize train FILE --vocab-size N -o tokenizer.json` (issue 46): the file it writes is the
// tokenizer Hugging Face's engine gives the reference ids with (tests/reference/bpe_reference.inc,
// from gen_bpe_reference.mjs, which ran this very command), read back by `tfx model tokenize`;
// standard input, --lesson's merges and figure, and `tfx tokenize TEXT` unchanged beside it.
#include <nlohmann/json.hpp>

#include "helpers.hpp"

using namespace tfx::test;

namespace {

#include "../reference/bpe_reference.inc"

std::string train_file() { return (std::filesystem::path(TFX_SOURCE_DIR) / "tests/data/bpe/train.txt").string(); }

}  // namespace

TEST_CASE("tokenize train: the tokenizer.json gives Hugging Face's ids through tfx model tokenize") {
  TempDir d;
  std::filesystem::create_directory(d / "tok");
  const Run r = run_tfx("tokenize train " + shell_quote(train_file()) + " --vocab-size 600 -o tok/tokenizer.json --format json", d.path);
  const auto j = json_of(r);
  CHECK(j["summary"]["vocab_size"] == 600);
  CHECK(j["summary"]["merges"] == 344);
  REQUIRE(std::filesystem::exists(d / "tok/tokenizer.json"));
  const auto cases = nlohmann::json::parse(kBpeCases);
  for (std::size_t k : {0, 3, 4, 9, 14, 50}) {
    const std::string text = cases[k]["text"].get<std::string>();
    INFO(text);
    const auto m = json_of(run_tfx("model tokenize tok " + shell_quote(text) + " --format json", d.path));
    CHECK(m["summary"]["ids"] == cases[k]["ids"]);
  }
  // standard input gives the same file; an existing file is replaced whole, no temporary left
  write_file(d / "old.json", "not a tokenizer");
  const Run s = run_tfx("tokenize train - --vocab-size 600 -o old.json", d.path, "", train_file());
  CAPTURE(s.err);
  CHECK(s.code == 0);
  CHECK(read_file(d / "old.json") == read_file(d / "tok/tokenizer.json"));
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(d.path)) files += e.is_regular_file();
  CHECK(files == 1);
}

TEST_CASE("tokenize train --lesson: the first merges, what they hold, and the figure of the growing vocabulary") {
  TempDir d;
  const Run r = run_tfx("tokenize train " + shell_quote(train_file()) + " --vocab-size 400 --lesson --merges 5 --format json", d.path);
  const auto j = json_of(r);
  // the primary table: the first merges, in order
  REQUIRE(j["name"] == "merges");
  REQUIRE(j["data"].size() == 5);
  for (int k = 0; k < 5; ++k) CHECK(j["data"][k]["step"] == k + 1);
  CHECK(j["data"][0]["count"].get<long long>() >= j["data"][4]["count"].get<long long>());
  // the kinds: every one of the 400 − 256 merges is of one kind
  long long sum = 0;
  for (const auto& row : j["tables"]["kinds"]) sum += row["merges"].get<long long>();
  CHECK(sum == 144);
  CHECK(std::filesystem::exists(d / "tokenize_train_vocab400.png"));
  // the table names the kinds in words
  const Run t = run_tfx("tokenize train " + shell_quote(train_file()) + " --vocab-size 300 --lesson --no-progress", d.path, "NO_COLOR=1");
  CAPTURE(t.err);
  CHECK(t.code == 0);
  CHECK(has(t.out, "Hangul syllables"));
  CHECK(has(t.out, "part of a character"));
  CHECK(has(t.out, "English letters"));
}

TEST_CASE("tokenize TEXT still tokenizes beside its train subcommand") {
  const auto j = json_of(run_tfx("tokenize '나는 학생 이다' --format json"));
  CHECK(j["summary"]["count"] == 3);
  const auto w = json_of(run_tfx("tokenize 'I love playing football.' --vocab wordpiece --format json"));
  CHECK(w["summary"]["count"] == 7);
}
