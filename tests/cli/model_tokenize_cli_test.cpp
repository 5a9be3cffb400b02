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
