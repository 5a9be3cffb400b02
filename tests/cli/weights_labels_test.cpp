// Figures and tables say what their numbers are: attention and encoder/decoder figures from
// seeded weights carry "random weights, seed N" (N the --seed given), from the trained translator
// "trained teaching translator"; the layer-norm example says which of the lecture's numbers differ.
#include "helpers.hpp"

using namespace tfx::test;

TEST_CASE("attention: the figure title and the header name the weights (random with its seed, or the trained translator)") {
  for (int seed : {42, 7}) {
    const std::string label = "random weights, seed " + std::to_string(seed);
    const Run svg = run_tfx("attention --sentence 'I love playing football' --random --seed " + std::to_string(seed) +
                            " --format svg -o -");
    REQUIRE(svg.code == 0);
    CHECK(has(svg.out, label));
    const Run multi = run_tfx("attention --sentence 'I love playing football' --random --heads 2 --seed " + std::to_string(seed) +
                              " --format svg -o -");
    CHECK(has(multi.out, label));
    const Run table = run_tfx("attention --sentence 'I love playing football' --random --seed " + std::to_string(seed));
    CHECK(has(table.out, label));
  }
  const Run trained = run_tfx("attention --sentence '나는 학생 이다' --format svg -o -");
  REQUIRE(trained.code == 0);
  CHECK(has(trained.out, "trained teaching translator"));
  CHECK_FALSE(has(trained.out, "random weights"));
}

TEST_CASE("encoder and decoder: figure titles name the weights") {
  const Run r = run_tfx("encoder --sentence 'I love playing football' --random --seed 5 --format svg -o -");
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "random weights, seed 5"));
  const Run t = run_tfx("encoder --sentence '나는 학생 이다' --format svg -o -");
  REQUIRE(t.code == 0);
  CHECK(has(t.out, "trained teaching translator"));
  const Run d = run_tfx("decoder --sentence 'I am a' --memory '나는 학생 이다' --format svg -o -");
  REQUIRE(d.code == 0);
  CHECK(has(d.out, "trained teaching translator"));
}

TEST_CASE("layernorm: the lecture's example says its μ = 2.5 is a slip and its normalized table illustrative") {
  const Run r = run_tfx("layernorm");
  REQUIRE(r.code == 0);
  // (4 + 2 + 3 + 5) / 4
  CHECK(has(r.out, "prints μ = 2.5 for thinking, but its values 4, 2, 3, 5 average 3.5"));
  // the notes' normalized thinking column 0.65 −0.85 −1.35 1.25 has mean −0.075
  CHECK(has(r.out, "mean is -0.075, not 0"));
  CHECK_FALSE(has(run_tfx("layernorm --x '1,2,3,4'").out, "μ = 2.5"));  // other inputs get no note about the lecture
}

TEST_CASE("small wording: --ignore-case named as a flag, Korean pe shift header ω, translator layers in Korean") {
  check_one_line_error(run_tfx("lookup --words King --table named-dims"), 1, "'king' is (lookup is case-sensitive: add --ignore-case)");
  const Run shift = run_tfx("pe shift --lang ko");
  REQUIRE(shift.code == 0);
  CHECK_FALSE(has(shift.out, "omega"));
  CHECK(has(shift.out, "ω"));
  const Run tr = run_tfx("translate '나는 학생 이다' --lang ko");
  REQUIRE(tr.code == 0);
  CHECK(has(tr.out, "인코더 층 2개 + 디코더 층 2개"));
}

TEST_CASE("model attention: the model view's grid names the checkpoint and the sentence, and labels the first panel with tokens") {
  const std::string dir = std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/gpt2";
  const Run r = run_tfx("model attention " + dir + " 'The cat sat' --format svg -o -");
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "Model view of gpt2:"));
  CHECK_FALSE(has(r.out, std::string(TFX_SOURCE_DIR) + "/tests"));  // the folder's name, not its path
  // the first panel's tick labels: the tokens, as the table's rows name them
  const Run t = run_tfx("model attention " + dir + " 'The cat sat' --layer 0 --head 0 --format json");
  REQUIRE(t.code == 0);
  const auto j = json_of(t);  // a named value: the loop below must not walk a destroyed temporary
  for (const auto& tok : j["rows"]) CHECK(has(r.out, ">" + tok.get<std::string>() + "<"));
}
