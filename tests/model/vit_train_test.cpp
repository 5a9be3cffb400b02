// `tfx train vit`'s training pass against PyTorch 1.13's autograd and Adam: the gradient of every
// parameter and the first 50 steps' losses from the same initial weights and batches, from
// tests/reference/train_vit_reference.safetensors (tests/reference/gen_train_vit_reference.py).
// Plus properties: the thread count does not change the result, the loss is the family's own
// forward pass (model_forward_image on the same weights).
#include "tfx/model/vit_train.hpp"

#include <cmath>

#include "helpers.hpp"
#include "reference_files.hpp"
#include "tfx/core/ops_backward.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/gpt2_train.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

VitTrainConfig vt_config() {
  VitTrainConfig c;
  c.labels = {"a", "b", "c"};
  c.image = 8;
  c.patch = 4;
  c.d_model = 16;
  c.heads = 2;
  c.layers = 2;
  return c;
}

const TensorMap& vt_reference() {
  static const TensorMap m = read_safetensors(ref_path("train_vit_reference.safetensors"));
  return m;
}

TensorMap vt_with_prefix(const std::string& prefix) {
  TensorMap out;
  for (const auto& [name, t] : vt_reference())
    if (name.rfind(prefix, 0) == 0) out.emplace(name.substr(prefix.size()), t);
  return out;
}

VitBatch vt_batch(std::size_t step) {
  const Tensor& pixels = vt_reference().at("pixels");  // (STEPS, B, 3, 8, 8)
  const Tensor& labels = vt_reference().at("labels");  // (STEPS, B)
  VitBatch b;
  const std::size_t B = labels.shape()[1], n = 3 * 8 * 8;
  for (std::size_t i = 0; i < B; ++i) {
    Tensor p({3, 8, 8});
    std::copy_n(pixels.data() + (step * B + i) * n, n, p.data());
    b.pixels.push_back(std::move(p));
    b.labels.push_back(static_cast<std::size_t>(labels.data()[step * B + i]));
  }
  return b;
}

}  // namespace

TEST_CASE("train vit: gradients equal PyTorch autograd on a tiny ViTForImageClassification") {
  const VitTrainConfig c = vt_config();
  const TensorMap params = vt_with_prefix("param.");
  const TensorMap want = vt_with_prefix("grad.");
  REQUIRE(params.size() == vit_parameter_shapes(c).size());
  TensorMap grads;
  const VitLoss loss = vit_train_loss(c, params, vt_batch(0), &grads, 1);
  CHECK(std::abs(loss.loss - double(vt_reference().at("loss")[0])) < 1e-5);
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
  CHECK(worst <= 1e-4);  // measured 2.7e-7
}

TEST_CASE("train vit: the first 50 losses equal PyTorch's Adam run from the same weights and batches") {
  const VitTrainConfig c = vt_config();
  TensorMap params = vt_with_prefix("param.");
  const Tensor& want = vt_reference().at("losses");
  AdamState adam = gpt2_adam();
  double worst = 0;
  for (std::size_t s = 0; s < want.size(); ++s) {
    const double lr = gpt2_learning_rate(s + 1, want.size(), 1e-2, 5);
    const double loss = vit_train_step(c, params, adam, vt_batch(s), lr, 2).loss;
    worst = std::max(worst, std::abs(loss - double(want[s])));
  }
  INFO("maxdiff " << worst);
  CHECK(worst <= 1e-3);  // measured 2.3e-5
  CHECK(want[want.size() - 1] < want[0] - 0.5f);  // it learns
}

TEST_CASE("train vit: the loss is the family's forward pass, and threads do not change the gradients") {
  const VitTrainConfig c = vt_config();
  const TensorMap params = vt_with_prefix("param.");
  const VitBatch b = vt_batch(3);
  // the checkpoint's own forward pass (model_forward_image, as `tfx model` runs it) gives the same loss
  const Checkpoint m = vit_checkpoint(c, params);
  double sum = 0;
  for (std::size_t i = 0; i < b.pixels.size(); ++i) {
    const ForwardPass f = model_forward_image(m, b.pixels[i]);
    const std::span<const float> row(f.logits.data(), c.classes());
    sum -= std::log(softmax_at_temperature(row)[b.labels[i]]);
  }
  CHECK(std::abs(vit_train_loss(c, params, b, nullptr).loss - sum / double(b.pixels.size())) < 1e-5);
  TensorMap g1, g3;
  vit_train_loss(c, params, vt_batch(1), &g1, 1);
  vit_train_loss(c, params, vt_batch(1), &g3, 3);
  for (const auto& entry : g1) CHECK(entry.second.values() == g3.at(entry.first).values());
}
