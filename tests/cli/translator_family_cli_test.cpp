// A model trained as an experiment (tfx train --pre-ln --no-pe) opens in every command that opens
// the built-in translator and says what it is; a model carries its own training pairs, so the
// domain check of translate/trace --model uses them, and architecture --model shows one of them.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "helpers.hpp"

using namespace tfx::test;

TEST_CASE("translator family: a --pre-ln --no-pe model opens in translate, trace and architecture and says so") {
  TempDir dir;
  const Run t = run_tfx("train --steps 3 --every 3 --d-model 16 --heads 2 --layers 1 --ffn 32 --pre-ln --no-pe --no-progress "
                        "--format csv -o m.safetensors",
                        dir.path);
  REQUIRE(t.code == 0);
  const Run tr = run_tfx("translate --model m.safetensors '나는 학생 이다'", dir.path);
  REQUIRE(tr.code == 0);
  CHECK(has(tr.out, "pre-LN, no PE; trained with --pre-ln --no-pe"));
  const nlohmann::json j = json_of(run_tfx("translate --model m.safetensors '나는 학생 이다' --format json", dir.path));
  CHECK(j["params"]["trained_with"] == "--pre-ln --no-pe");
  // its own corpus (the built-in one here): a training sentence is in the domain
  CHECK(j["summary"]["domain"] == "train");
  const Run tc = run_tfx("trace --model m.safetensors '나는 학생 이다'", dir.path);
  REQUIRE(tc.code == 0);
  CHECK(has(tc.out, "pre-LN, no PE; trained with --pre-ln --no-pe"));
  // the steps name what this model computes: the norm before each sublayer and no PE row, never
  // the lecture's post-LN add & norm
  CHECK(has(tc.out, "residual (pre-LN): H = X + MultiHead(LayerNorm(X))"));
  CHECK(has(tc.out, "Q = LayerNorm(X)·W_Qᵀ + b"));
  CHECK(has(tc.out, "no positional encoding (this model was trained with --no-pe)"));
  CHECK(!has(tc.out, "add & norm"));
  CHECK(!has(tc.out, "p = PE(pos)"));
  // the built-in (post-LN, PE) model keeps the lecture's labels
  const Run lecture = run_tfx("trace '나는 학생 이다'");
  CHECK(has(lecture.out, "add & norm: H = LayerNorm(X + MultiHead(X))"));
  CHECK(!has(lecture.out, "pre-LN"));
  const Run a = run_tfx("architecture --model m.safetensors --format json", dir.path);
  REQUIRE(a.code == 0);
  CHECK(has(a.out, "trained with --pre-ln --no-pe"));
  // the built-in model says nothing new
  CHECK(!json_of(run_tfx("translate '나는 학생 이다' --format json"))["params"].contains("trained_with"));
}

TEST_CASE("translator family: a --pairs model checks the domain against its own pairs, and architecture shows one of them") {
  TempDir dir;
  std::string tsv;
  const char* en[] = {"one", "two", "three", "four"};
  const char* de[] = {"eins", "zwei", "drei", "vier"};
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 4; ++k) tsv += fmt::format("{} {}\t{} {}\n", en[i], en[k], de[i], de[k]);
  write_file(dir / "p.tsv", tsv);
  REQUIRE(run_tfx("train --pairs p.tsv --test-fraction 0.25 --steps 3 --every 3 --d-model 16 --heads 2 --layers 1 --ffn 32 "
                  "--no-progress --format csv -o m.safetensors",
                  dir.path)
              .code == 0);
  // every pair of the file is its own: training or held out, never "outside the training domain"
  for (const char* s : {"one two", "four three", "two two"}) {
    const Run r = run_tfx(fmt::format("translate --model m.safetensors '{}' --format json", s), dir.path);
    REQUIRE(r.code == 0);
    const nlohmann::json j = json_of(r);
    CHECK(j["summary"]["in_domain"] == true);
    CHECK((j["summary"]["domain"] == "train" || j["summary"]["domain"] == "test"));
    CHECK(!has(r.err, "outside the training domain"));
  }
  // a target-side word is outside, and the reason does not call the source Korean
  const Run w = run_tfx("translate --model m.safetensors 'eins zwei' --format json", dir.path);
  REQUIRE(w.code == 0);
  CHECK(json_of(w)["summary"]["in_domain"] == false);
  CHECK(has(w.err, "target side"));
  CHECK(!has(w.err, "Korean"));
  // architecture without --sentence runs on one of the model's own sentences
  const Run a = run_tfx("architecture --model m.safetensors --format json", dir.path);
  REQUIRE(a.code == 0);
  const nlohmann::json aj = json_of(a);
  CHECK(aj["params"]["tokens"].size() == 2);
}
