// `tfx train gpt`'s training pass against PyTorch 1.13's autograd and Adam: the gradient of every
// parameter and the first 40 steps' losses from the same initial weights and batches, from
// tests/reference/train_gpt_reference.safetensors (tests/reference/gen_train_gpt_reference.py).
// Plus properties: the thread count does not change the result, the loss is the family's own
// forward pass (model_forward on the same weights), the schedule's shape.
#include "tfx/model/gpt2_train.hpp"

#include <fmt/format.h>

#include <cmath>

#include "helpers.hpp"
#include "reference_files.hpp"
#include "tfx/core/ops_backward.hpp"
#include "tfx/model/checkpoint.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

Gpt2TrainConfig gt_config() {
  Gpt2TrainConfig c;
  c.vocab = 40;
  c.d_model = 16;
  c.heads = 2;
  c.layers = 2;
  c.context = 8;
  return c;
}

const TensorMap& gt_reference() {
  static const TensorMap m = read_safetensors(ref_path("train_gpt_reference.safetensors"));
  return m;
}

TensorMap gt_with_prefix(const std::string& prefix) {
  TensorMap out;
  for (const auto& [name, t] : gt_reference())
    if (name.rfind(prefix, 0) == 0) out.emplace(name.substr(prefix.size()), t);
  return out;
}

Gpt2Batch gt_batch(std::size_t step) {
  const Tensor& all = gt_reference().at("batches");  // (STEPS, B, T + 1)
  Gpt2Batch b;
  b.batch = all.shape()[1];
  b.context = all.shape()[2] - 1;
  const std::size_t n = b.batch * (b.context + 1);
  for (std::size_t i = 0; i < n; ++i) b.ids.push_back(static_cast<std::size_t>(all.data()[step * n + i]));
  return b;
}

}  // namespace

TEST_CASE("train gpt: gradients equal PyTorch autograd on a tiny GPT-2") {
  const Gpt2TrainConfig c = gt_config();
  const TensorMap params = gt_with_prefix("param.");
  const TensorMap want = gt_with_prefix("grad.");
  REQUIRE(params.size() == gpt2_parameter_shapes(c).size());
  TensorMap grads;
  const double loss = gpt2_train_loss(c, params, gt_batch(0), &grads, 1);
  CHECK(std::abs(loss - double(gt_reference().at("loss")[0])) < 1e-5);
  REQUIRE(grads.size() == want.size());
  double worst = 0;
  std::string worst_name;
  for (const auto& entry : want) {
    const std::string& name = entry.first;
    const Tensor& g = entry.second;
    const Tensor& got = grads.at(name);
    REQUIRE(got.shape() == g.shape());
    for (std::size_t i = 0; i < g.size(); ++i)
      if (std::abs(got[i] - g[i]) > worst) {
        worst = std::abs(got[i] - g[i]);
        worst_name = name;
      }
  }
  INFO("maxdiff " << worst << " at " << worst_name);
  CHECK(worst <= 1e-4);  // measured 1.2e-7
}

TEST_CASE("train gpt: the first 40 losses equal PyTorch's Adam run from the same weights and batches") {
  const Gpt2TrainConfig c = gt_config();
  TensorMap params = gt_with_prefix("param.");
  const Tensor& want = gt_reference().at("losses");
  AdamState adam = gpt2_adam();
  double worst = 0;
  for (std::size_t s = 0; s < want.size(); ++s) {
    const double lr = gpt2_learning_rate(s + 1, want.size(), 1e-2, 5);
    const double loss = gpt2_train_step(c, params, adam, gt_batch(s), lr, 2);
    worst = std::max(worst, std::abs(loss - double(want[s])));
  }
  INFO("maxdiff " << worst);
  CHECK(worst <= 1e-3);  // measured 4.0e-6
  CHECK(want[want.size() - 1] < want[0] - 0.5f);  // it learns
}

TEST_CASE("train gpt: the loss is the family's forward pass, and threads do not change the gradients") {
  const Gpt2TrainConfig c = gt_config();
  const TensorMap params = gt_with_prefix("param.");
  Gpt2Batch one = gt_batch(3);
  one.batch = 1;
  one.ids.resize(c.context + 1);
  // the checkpoint's own forward pass (model_forward, as `tfx model` runs it) gives the same loss
  const Checkpoint m = gpt2_checkpoint(c, params);
  const std::vector<std::size_t> ids(one.ids.begin(), one.ids.end() - 1);
  const ForwardPass f = model_forward(m, ids);
  double sum = 0;
  for (std::size_t t = 0; t < ids.size(); ++t) {
    const std::span<const float> row(f.logits.data() + t * c.vocab, c.vocab);
    sum -= std::log(softmax_at_temperature(row)[one.ids[t + 1]]);
  }
  CHECK(std::abs(gpt2_train_loss(c, params, one, nullptr) - sum / double(ids.size())) < 1e-5);
  TensorMap g1, g3;
  gpt2_train_loss(c, params, gt_batch(1), &g1, 1);
  gpt2_train_loss(c, params, gt_batch(1), &g3, 3);
  for (const auto& entry : g1) CHECK(entry.second.values() == g3.at(entry.first).values());
}

TEST_CASE("train gpt: the learning-rate schedule warms up linearly and decays to a tenth") {
  CHECK(gpt2_learning_rate(1, 100, 1e-3, 10) == doctest::Approx(1e-4));
  CHECK(gpt2_learning_rate(10, 100, 1e-3, 10) == doctest::Approx(1e-3));
  CHECK(gpt2_learning_rate(55, 100, 1e-3, 10) == doctest::Approx(0.55e-3));
  CHECK(gpt2_learning_rate(100, 100, 1e-3, 10) == doctest::Approx(1e-4));
}
