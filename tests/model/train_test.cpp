// The training pass against PyTorch 1.13's autograd and optimizer: gradients of every parameter,
// the first 50 steps' losses and Adam's update, from tests/reference/train_reference.safetensors
// (tests/reference/gen_train_reference.py). Plus properties: a finite-difference check of the
// loss, the thread count not changing the result, and the batch's padding.
#include "tfx/model/train.hpp"

#include <fmt/format.h>

#include <cmath>

#include "helpers.hpp"
#include "reference_files.hpp"
#include "tfx/attention/schedule.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

TrainConfig tiny_config() {
  TrainConfig c;
  c.vocab = 11;
  c.d_model = 8;
  c.heads = 2;
  c.layers = 2;
  c.ffn = 16;
  c.label_smoothing = 0.1;
  return c;
}

const TensorMap& reference() {
  static const TensorMap m = read_safetensors(ref_path("train_reference.safetensors"));
  return m;
}

TensorMap with_prefix(const std::string& prefix) {
  TensorMap out;
  for (const auto& [name, t] : reference())
    if (name.rfind(prefix, 0) == 0) out.emplace(name.substr(prefix.size()), t);
  return out;
}

TrainBatch ref_batch(int i) {
  const auto ids = [&](const char* what) {
    const Tensor& t = reference().at(fmt::format("batch{}.{}", i, what));
    std::vector<std::size_t> v;
    for (float x : t.values()) v.push_back(static_cast<std::size_t>(x));
    return std::make_pair(v, t.shape());
  };
  TrainBatch b;
  auto [src, ss] = ids("source");
  auto [tin, ts] = ids("target_in");
  b.source = src;
  b.target_in = tin;
  b.target_out = ids("target_out").first;
  b.batch = ss[0];
  b.source_len = ss[1];
  b.target_len = ts[1];
  return b;
}

// max over tensors of ‖g − g_ref‖ / ‖g_ref‖
double max_relative_error(const TensorMap& got, const TensorMap& want) {
  REQUIRE(got.size() == want.size());
  double worst = 0;
  std::string worst_name;
  for (const auto& [name, w] : want) {
    const Tensor& g = got.at(name);
    REQUIRE(g.shape() == w.shape());
    double diff = 0, ref = 0;
    for (std::size_t i = 0; i < w.size(); ++i) {
      diff += (double(g[i]) - w[i]) * (double(g[i]) - w[i]);
      ref += double(w[i]) * w[i];
    }
    // a gradient PyTorch computes as (nearly) zero — the keys' bias, softmax is shift-invariant —
    // is compared absolutely
    const double e = ref > 1e-12 ? std::sqrt(diff / ref) : std::sqrt(diff);
    if (e > worst) {
      worst = e;
      worst_name = name;
    }
  }
  MESSAGE("max relative gradient error " << worst << " (" << worst_name << ")");
  return worst;
}

// The gradient of `name` at its largest entry among the first `limit` (0: all) against a central
// difference of the loss, h = 0.01, within 2 %.
void check_largest_gradient(const TrainConfig& c, TensorMap& params, const TrainBatch& b, const TensorMap& grads,
                            const std::string& name, std::size_t limit = 0) {
  Tensor& p = params.at(name);
  const Tensor& g = grads.at(name);
  if (limit == 0) limit = p.size();
  std::size_t best = 0;
  for (std::size_t i = 0; i < limit; ++i)
    if (std::abs(g[i]) > std::abs(g[best])) best = i;
  const float keep = p[best], h = 1e-2f;
  p[best] = keep + h;
  const double up = train_loss(c, params, b, nullptr, 1);
  p[best] = keep - h;
  const double down = train_loss(c, params, b, nullptr, 1);
  p[best] = keep;
  const double fd = (up - down) / (2 * double(h));
  CHECK(g[best] == doctest::Approx(fd).epsilon(2e-2));
}

}  // namespace

TEST_CASE("train: every parameter's gradient equals PyTorch autograd's (post-LN with PE and 1/sqrt(d_k))") {
  const TrainConfig c = tiny_config();
  const TensorMap params = with_prefix("param.");
  TensorMap grads;
  const double loss = train_loss(c, params, ref_batch(0), &grads, 1);
  CHECK(loss == doctest::Approx(reference().at("loss")[0]).epsilon(1e-6));
  CHECK(max_relative_error(grads, with_prefix("grad.")) <= 1e-4);
}

TEST_CASE("train: gradients equal autograd's for pre-LN, no PE, no 1/sqrt(d_k)") {
  TrainConfig c = tiny_config();
  c.pre_ln = true;
  c.pe = PositionalEncoding::none;
  c.scale_scores = false;
  TensorMap grads;
  const double loss = train_loss(c, with_prefix("param."), ref_batch(0), &grads, 1);
  CHECK(loss == doctest::Approx(reference().at("loss_variant")[0]).epsilon(1e-6));
  CHECK(max_relative_error(grads, with_prefix("grad_variant.")) <= 1e-4);
}

TEST_CASE("train: the first 50 steps' losses equal PyTorch's (Adam, warm-up schedule)") {
  const TrainConfig c = tiny_config();
  TensorMap params = with_prefix("param.");
  AdamState adam;
  TensorMap grads;
  const Tensor& want = reference().at("losses");
  REQUIRE(want.size() == 50);
  double worst = 0;
  for (std::size_t step = 1; step <= 50; ++step) {
    const double loss = train_loss(c, params, ref_batch(static_cast<int>((step - 1) % 4)), &grads, 1);
    worst = std::max(worst, std::abs(loss - want[step - 1]));
    adam_step(adam, params, grads, warmup_learning_rate(double(step), 8.0, 10.0));
  }
  MESSAGE("max |loss − PyTorch's| over 50 steps = " << worst);
  CHECK(worst <= 1e-3);
  // the losses fall: training does something (the reference's first and last)
  CHECK(want[49] < want[0] - 0.3);
}

TEST_CASE("train: Adam's update equals torch.optim.Adam's (three steps, lr 0.01)") {
  TensorMap params = with_prefix("param.");
  const TensorMap grads = with_prefix("grad.");
  AdamState adam;
  for (int i = 0; i < 3; ++i) adam_step(adam, params, grads, 0.01);
  double worst = 0;
  for (const auto& [name, want] : with_prefix("adam.")) {
    const Tensor& got = params.at(name);
    for (std::size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::abs(double(got[i]) - want[i]));
  }
  MESSAGE("max |θ − PyTorch's θ| after 3 Adam steps = " << worst);
  CHECK(worst <= 1e-6);
  // and the step really moved the weights by about lr per step
  const TensorMap before = with_prefix("param.");
  CHECK(std::abs(params.at("generator.bias")[0] - before.at("generator.bias")[0]) > 0.005);
}

TEST_CASE("train: the gradient matches a central finite difference of the loss (float64 sums of float32 steps)") {
  const TrainConfig c = tiny_config();
  TensorMap params = with_prefix("param.");
  TensorMap grads;
  const TrainBatch b = ref_batch(1);
  train_loss(c, params, b, &grads, 1);
  // a few entries of different kinds of parameter, each a big enough gradient to see
  for (const char* name : {"decoder.layers.1.linear2.weight", "encoder.layers.0.norm1.weight", "embedding.weight",
                           "decoder.layers.0.multihead_attn.in_proj_weight"}) {
    INFO(name);
    check_largest_gradient(c, params, b, grads, name);
  }
}

TEST_CASE("train: learned PE and RoPE gradients match a central finite difference of the loss") {
  // the extrapolation experiment's two trained position schemes (tfx train --pe learned|rope): the
  // learned table's gradient is the embedding's scatter-add at positions 0 … T−1, RoPE's is the
  // rotation back of q's and k's gradients (rope_rotate_heads_backward) before the projections
  for (const PositionalEncoding pe : {PositionalEncoding::learned, PositionalEncoding::rope}) {
    TrainConfig c = tiny_config();
    c.pe = pe;
    TensorMap params = init_train_parameters(c, 7);
    const TrainBatch b = ref_batch(1);
    TensorMap grads;
    train_loss(c, params, b, &grads, 1);
    std::vector<std::string> names = {"encoder.layers.0.self_attn.in_proj_weight", "decoder.layers.1.self_attn.in_proj_weight",
                                      "decoder.layers.0.multihead_attn.in_proj_weight"};
    if (pe == PositionalEncoding::learned) {
      names.push_back("position_embedding.weight");
      // rows past the batch's longest sentence get no gradient: they stay as initialized
      const Tensor& g = grads.at("position_embedding.weight");
      const std::size_t D = c.d_model, longest = std::max(b.source_len, b.target_len);
      double beyond = 0, within = 0;
      for (std::size_t i = 0; i < g.size(); ++i) (i / D < longest ? within : beyond) += std::abs(g[i]);
      CHECK(beyond == 0.0);
      CHECK(within > 0.0);
    }
    for (const std::string& name : names) {
      INFO(positional_encoding_name(pe) << " " << name);
      // the query and key rows of in_proj (the rows RoPE's rotation reaches) for the self-attention
      check_largest_gradient(c, params, b, grads, name, name.find("in_proj") != std::string::npos ? 2 * c.d_model * c.d_model : 0);
    }
  }
}

TEST_CASE("train: the result does not depend on the thread count") {
  const TrainConfig c = tiny_config();
  const TensorMap params = with_prefix("param.");
  TensorMap g1, g2;
  const double l1 = train_loss(c, params, ref_batch(2), &g1, 1);
  const double l2 = train_loss(c, params, ref_batch(2), &g2, 2);
  CHECK(l1 == l2);
  for (const auto& kv : g1) CHECK(kv.second.values() == g2.at(kv.first).values());
}

TEST_CASE("train: make_train_batch pads with <pad> and shifts the target by <bos>/<eos>") {
  const std::vector<IdPair> pairs = {{{5, 6}, {7}, {}}, {{8}, {9, 10}, {}}};
  const TrainBatch b = make_train_batch(pairs, {0, 1}, 0);
  CHECK(b.source_len == 2);
  CHECK(b.target_len == 3);
  CHECK(b.source == std::vector<std::size_t>{5, 6, 8, 0});
  CHECK(b.target_in == std::vector<std::size_t>{1, 7, 0, 1, 9, 10});
  CHECK(b.target_out == std::vector<std::size_t>{7, 2, 0, 9, 10, 2});
}

TEST_CASE("train: wrong parameter shapes and ids out of the vocabulary are errors") {
  const TrainConfig c = tiny_config();
  TensorMap params = with_prefix("param.");
  TrainBatch b = ref_batch(0);
  b.source[0] = 99;
  CHECK_THROWS_WITH(train_loss(c, params, b, nullptr), doctest::Contains("outside the vocabulary"));
  params.erase("generator.bias");
  CHECK_THROWS_WITH(train_loss(c, params, ref_batch(0), nullptr), doctest::Contains("generator.bias"));
}

TEST_CASE("held_out_checkpoint: 10, 20, 50, 100, 200, 500, … below --every, then every --every steps and the last") {
  std::vector<std::size_t> got;
  for (std::size_t step = 1; step <= 1300; ++step)
    if (tfx::held_out_checkpoint(step, 250, 1300)) got.push_back(step);
  const std::vector<std::size_t> want = {10, 20, 50, 100, 200, 250, 500, 750, 1000, 1250, 1300};
  CHECK(got == want);
  // a short run: the dense steps up to its end, and its last step
  got.clear();
  for (std::size_t step = 1; step <= 60; ++step)
    if (tfx::held_out_checkpoint(step, 250, 60)) got.push_back(step);
  CHECK(got == std::vector<std::size_t>{10, 20, 50, 60});
  CHECK(!tfx::held_out_checkpoint(0, 250, 60));
}
