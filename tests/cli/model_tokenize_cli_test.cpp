// `tfx model tokenize` end to end on the real GPT-2 and BERT uncased tokenizer folders (skipped
// when ../shared/data is absent): the ids Hugging Face gives (the data README's known answers),
// JSON {"tokens", "ids"}, --no-special, readable tokens.
#include <nlohmann/json.hpp>

#include "helpers.hpp"

using namespace tfx::test;

TEST_CASE("model tokenize: GPT-2 and BERT folders give Hugging Face's ids as table, JSON and CSV") {
  const auto dir = shared_data("tokenizers");
  if (dir.empty()) return;
  const std::string gpt2 = shell_quote((dir / "gpt2").string()), bert = shell_quote((dir / "bert-base-uncased").string());
  const Run g = run_tfx("model tokenize " + gpt2 + " 'Hello, my dog is cute' --format json");
  REQUIRE(g.code == 0);
  const auto gj = json_of(g);
  CHECK(gj["summary"]["ids"] == nlohmann::json::array({15496, 11, 616, 3290, 318, 13779}));
  CHECK(gj["summary"]["tokens"][2] == "Ġmy");
  CHECK(gj["summary"]["readable"][2] == "␣my");
  const Run b = run_tfx("model tokenize " + bert + " 'Hello, my dog is cute' --format csv");
  REQUIRE(b.code == 0);
  CHECK(b.out.find("0,[CLS],[CLS],101,0,0,0,0\n") != std::string::npos);  // the post-processor's tokens are at [0, 0)
  CHECK(b.out.find("7,[SEP],[SEP],102,0,0,0,0\n") != std::string::npos);
  const auto ns = json_of(run_tfx("model tokenize " + bert + " 'Hello, my dog is cute' --no-special --format json"));
  CHECK(ns["summary"]["ids"] == nlohmann::json::array({7592, 1010, 2026, 3899, 2003, 10140}));
  // a special token written in the text stays one token
  const auto m = json_of(run_tfx("model tokenize " + bert + " 'the [MASK] sat' --format json"));
  CHECK(m["summary"]["ids"] == nlohmann::json::array({101, 1996, 103, 2938, 102}));
  const Run t = run_tfx("model tokenize " + gpt2 + " '나'");
  CHECK(t.out.find("나(1/3)") != std::string::npos);
}

TEST_CASE("model tokenize: json and csv written row by row hold what the one-document path (--stats) holds, for one sequence and --lines") {
  // two writers of the same listing: csv/json are streamed as rows are made; with --stats the
  // result is one document; every key they share is equal, for special tokens ([0, 0) offsets),
  // byte-level pieces of a syllable, an empty line and the in-repo GPT-2 and BERT folders
  const auto folder = [](const char* name) { return shell_quote((std::filesystem::path(TFX_SOURCE_DIR) / "tests/data/hf_models" / name).string()); };
  TempDir t;
  write_file(t / "doc.txt", "H\xC3\xA9llo \xEB\x82\x98\xEB\x8A\x94\n\n\"\xED\x95\x99\xEC\x83\x9D\", x");
  for (const char* name : {"gpt2", "bert"})
    for (const std::string lines : {"", " --lines"}) {
      CAPTURE(name);
      CAPTURE(lines);
      const std::string args = "model tokenize " + folder(name) + " --file doc.txt" + lines;
      const Run streamed = run_tfx(args + " --format json", t.path), whole = run_tfx(args + " --format json --stats", t.path);
      REQUIRE(streamed.code == 0);
      REQUIRE(whole.code == 0);
      const nlohmann::json s = nlohmann::json::parse(streamed.out), w = nlohmann::json::parse(whole.out);
      CHECK(streamed.out.back() == '\n');
      for (const char* key : {"columns", "command", "data", "name", "params", "shape"}) CHECK(s.at(key) == w.at(key));
      for (const char* key : {"byte_offsets", "ids", "offsets", "readable", "tokens"}) CHECK(s.at("summary").at(key) == w.at("summary").at(key));
      CHECK(s.at("notes").at(0) == w.at("notes").at(0));
      CHECK(s.at("data").size() == s.at("shape").at(0));
      // the csv's rows are the json's data, cell for cell
      const Run csv = run_tfx(args + " --format csv", t.path);
      REQUIRE(csv.code == 0);
      std::istringstream in(csv.out);
      std::string line;
      std::getline(in, line);
      std::size_t k = 0;
      for (; std::getline(in, line); ++k) {
        REQUIRE(k < s.at("data").size());
        const nlohmann::json& row = s.at("data")[k];
        CHECK(line.substr(line.rfind(',') + 1) == std::to_string(row.at("byte end").get<long long>()));
      }
      CHECK(k == s.at("data").size());
    }
}
