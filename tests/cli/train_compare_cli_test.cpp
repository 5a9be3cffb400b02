// `tfx train --compare`: experiments side by side, each checked for the direction the notes claim
// (at small, fast sizes; Release about 1–4 s each):
// - word order (notes 002): on --corpus en-ko, pe ≥ 90 % held-out, no-pe ≤ 60 %; one table row per
//   experiment, the experiments named in the title (text and SVG);
// - LayerNorm placement (notes 004; Xiong et al. 2020, fig. 3): at initialization, post-LN's FFN
//   gradient norms grow toward the output (last decoder layer over first > 1.5), pre-LN's do not
//   (< 1.2); without warm-up at the same learning rate post-LN does not train where pre-LN does;
// - scaling (notes 003): at d_k = 64, without 1/√d_k the attention rows at initialization are
//   sharper (lower entropy) than with it.
// The learning rate of --no-warmup and the attention entropy are checked against closed forms, the
// entropy and the gradient at the softmax's input against PyTorch autograd
// (tests/reference/gen_train_attention_reference.py).
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "reference_files.hpp"
#include "tfx/attention/schedule.hpp"
#include "tfx/model/train.hpp"

using namespace tfx::test;

namespace {

// the compare table's row of `experiment`
nlohmann::json row_of(const nlohmann::json& j, const std::string& experiment) {
  for (const auto& row : j["data"])
    if (row["experiment"] == experiment) return row;
  FAIL("no row for " << experiment);
  return {};
}

}  // namespace

TEST_CASE("train --compare pe,no-pe on en-ko: one row per experiment, pe ≥ 90 % held-out, no-pe ≤ 60 %, the same run as alone") {
  if (skip_learning_outcome_under_sanitizer()) return;
  TempDir dir;
  const std::string args = "train --corpus en-ko --steps 400 --d-model 32 --heads 2 --layers 1 --ffn 64 --threads 2 --no-progress";
  const Run r = run_tfx(args + " --compare pe,no-pe --format json --svg c.svg", dir.path);
  REQUIRE(r.code == 0);
  const nlohmann::json j = json_of(r);
  REQUIRE(j["data"].size() == 2);
  const nlohmann::json pe = row_of(j, "pe"), no_pe = row_of(j, "no-pe");
  MESSAGE("held-out exact with PE " << pe["held_out_exact"] << ", without " << no_pe["held_out_exact"]);
  CHECK(pe["held_out_exact"].get<double>() >= 0.90);
  CHECK(no_pe["held_out_exact"].get<double>() <= 0.60);
  CHECK(has(j["notes"][0].get<std::string>(), "--compare pe,no-pe --corpus en-ko"));
  // the curves start at initialization (step 0) and end at the last step, for each run
  std::size_t starts = 0, ends = 0;
  for (const auto& row : j["tables"]["curves"]) {
    starts += row["step"] == 0;
    ends += row["step"] == 400;
  }
  CHECK(starts == 2);
  CHECK(ends == 2);
  CHECK(has(read_file(dir / "c.svg"), "--compare pe,no-pe --corpus en-ko"));
  // the same seed and batches: the no-pe run is the run `--no-pe` alone makes (the existing
  // word-order test measured 50/108 there)
  const Run alone = run_tfx(args + " --no-pe --format json");
  REQUIRE(alone.code == 0);
  CHECK(json_of(alone)["summary"]["held_out_exact"].get<double>() == doctest::Approx(no_pe["held_out_exact"].get<double>()));
}

TEST_CASE("train --compare post-ln,pre-ln --layers 6: post-LN's gradient norms at initialization grow toward the output, pre-LN's do not") {
  const Run r = run_tfx("train --compare post-ln,pre-ln --layers 6 --steps 1 --threads 2 --no-progress --format json");
  REQUIRE(r.code == 0);
  const nlohmann::json j = json_of(r);
  const double post = row_of(j, "post-ln")["grad_last_over_first"].get<double>();
  const double pre = row_of(j, "pre-ln")["grad_last_over_first"].get<double>();
  MESSAGE("last over first decoder layer's ‖∂loss/∂W₂‖: post-LN " << post << ", pre-LN " << pre);
  CHECK(post > 1.5);
  CHECK(pre < 1.2);
  // post-LN's decoder norms rise layer by layer (allowing one dip)
  std::vector<double> dec;
  for (const auto& row : j["tables"]["grad_norms_at_init"])
    if (row["experiment"] == "post-ln" && row["part"] == "decoder") dec.push_back(row["grad_norm"].get<double>());
  REQUIRE(dec.size() == 6);
  int rises = 0;
  for (std::size_t i = 1; i < dec.size(); ++i) rises += dec[i] > dec[i - 1];
  CHECK(rises >= 4);
}

TEST_CASE("train --compare without warm-up: post-LN does not train at the learning rate where pre-LN does") {
  if (skip_learning_outcome_under_sanitizer()) return;
  const Run r = run_tfx("train --corpus en-ko --compare post-ln+no-warmup,pre-ln+no-warmup --layers 4 --d-model 32 --heads 2 --ffn 64 "
                        "--steps 150 --batch 16 --every 150 --threads 2 --no-progress --format json");
  REQUIRE(r.code == 0);
  const nlohmann::json j = json_of(r);
  const double post = row_of(j, "post-ln+no-warmup")["held_out_exact"].get<double>();
  const double pre = row_of(j, "pre-ln+no-warmup")["held_out_exact"].get<double>();
  MESSAGE("held-out exact without warm-up: post-LN " << post << ", pre-LN " << pre);
  CHECK(post <= 0.2);
  CHECK(pre >= 0.9);
}

TEST_CASE("train --compare scale,no-scale at d_k = 64: without 1/√d_k the attention at initialization is sharper") {
  const Run r = run_tfx("train --compare scale,no-scale --d-model 128 --heads 2 --ffn 256 --steps 1 --threads 2 --no-progress --format json");
  REQUIRE(r.code == 0);
  const nlohmann::json j = json_of(r);
  const double scaled = row_of(j, "scale")["entropy_init"].get<double>();
  const double unscaled = row_of(j, "no-scale")["entropy_init"].get<double>();
  MESSAGE("encoder self-attention entropy at initialization: scaled " << scaled << " nats, unscaled " << unscaled);
  CHECK(unscaled < 0.6 * scaled);
  // --threads 2 trains the two runs side by side, one thread each; --threads 1 one after another:
  // the same numbers (a run's result does not depend on its thread count)
  const Run one = run_tfx("train --compare scale,no-scale --d-model 128 --heads 2 --ffn 256 --steps 3 --every 1 --threads 1 --no-progress "
                          "--format json");
  const Run two = run_tfx("train --compare scale,no-scale --d-model 128 --heads 2 --ffn 256 --steps 3 --every 1 --threads 2 --no-progress "
                          "--format json");
  REQUIRE(one.code == 0);
  REQUIRE(two.code == 0);
  CHECK(json_of(one)["data"] == json_of(two)["data"]);
  CHECK(json_of(one)["tables"]["curves"] == json_of(two)["tables"]["curves"]);
}

TEST_CASE("train_learning_rate: --no-warmup starts at the warm-up schedule's peak and decays as it does after the peak") {
  tfx::TrainOptions o;
  o.warmup = 200;
  o.no_warmup = true;
  const double peak = 1 / std::sqrt(64.0) / std::sqrt(200.0);  // D^−0.5 · W^−0.5
  CHECK(tfx::train_learning_rate(1, 64, o) == doctest::Approx(peak).epsilon(1e-12));
  CHECK(tfx::train_learning_rate(200, 64, o) == doctest::Approx(peak).epsilon(1e-12));
  CHECK(tfx::train_learning_rate(800, 64, o) == doctest::Approx(peak / 2).epsilon(1e-12));  // 1/√step: four times the steps, half
  o.no_warmup = false;
  CHECK(tfx::train_learning_rate(1, 64, o) == doctest::Approx(peak / 200).epsilon(1e-12));  // the linear rise
  CHECK(tfx::train_learning_rate(800, 64, o) == doctest::Approx(peak / 2).epsilon(1e-12));
}

TEST_CASE("train_loss attention stats: with zero query and key projections every row is uniform, entropy = mean ln(sentence length)") {
  tfx::TrainConfig c;
  c.vocab = 9;
  c.d_model = 8;
  c.heads = 2;
  c.layers = 2;
  c.ffn = 16;
  tfx::TensorMap params = tfx::init_train_parameters(c, 7);
  for (auto& [name, t] : params)
    if (name.find("encoder") == 0 && name.find("in_proj_weight") != std::string::npos)
      for (std::size_t i = 0; i < 2 * c.d_model * c.d_model; ++i) t.values()[i] = 0;  // W_Q, W_K rows: scores all 0
  // two sentences of 3 and 5 words (the first padded): rows 3·ln 3 + 5·ln 5 over 8
  const std::vector<tfx::IdPair> pairs = {{{4, 5, 6}, {7, 8}, {}}, {{4, 5, 6, 7, 8}, {5}, {}}};
  const tfx::TrainBatch b = tfx::make_train_batch(pairs, {0, 1}, c.pad);
  tfx::TensorMap grads;
  tfx::ForwardExtras ex;
  ex.want_attention_stats = true;
  tfx::train_loss(c, params, b, &grads, 1, &ex);
  CHECK(ex.attention_entropy == doctest::Approx((3 * std::log(3.0) + 5 * std::log(5.0)) / 8).epsilon(1e-6));
  CHECK(ex.score_gradient_norm > 0);
}

TEST_CASE("train_loss attention stats equal PyTorch autograd's: encoder self-attention entropy and ‖∂loss/∂s‖ at the softmax's input") {
  // tests/reference/gen_train_attention_reference.py on train_reference.safetensors' tiny model and
  // batch 0 (post-LN, PE, 1/√d_k, label smoothing 0.1), in float64
  const tfx::TensorMap ref = tfx::read_safetensors(ref_path("train_reference.safetensors"));
  tfx::TrainConfig c;
  c.vocab = 11;
  c.d_model = 8;
  c.heads = 2;
  c.layers = 2;
  c.ffn = 16;
  c.label_smoothing = 0.1;
  tfx::TensorMap params;
  for (const auto& [name, t] : ref)
    if (name.rfind("param.", 0) == 0) params.emplace(name.substr(6), t);
  const auto ids = [&](const char* what) {
    std::vector<std::size_t> v;
    for (float x : ref.at(fmt::format("batch0.{}", what)).values()) v.push_back(static_cast<std::size_t>(x));
    return v;
  };
  tfx::TrainBatch b;
  b.source = ids("source");
  b.target_in = ids("target_in");
  b.target_out = ids("target_out");
  b.batch = ref.at("batch0.source").dim(0);
  b.source_len = ref.at("batch0.source").dim(1);
  b.target_len = ref.at("batch0.target_in").dim(1);
  tfx::TensorMap grads;
  tfx::ForwardExtras ex;
  ex.want_attention_stats = true;
  tfx::train_loss(c, params, b, &grads, 1, &ex);
  CHECK(ex.attention_entropy == doctest::Approx(0.988671833).epsilon(1e-5));
  CHECK(ex.score_gradient_norm == doctest::Approx(0.008886753).epsilon(1e-4));
}
