// Training a ViT (`tfx train vit`): the parameters in ViTForImageClassification's names, the ViT
// family's own forward pass (src/model/vit.cpp, run through its taps) with the backward pass
// beside it built from the op set's backwards (ops_backward.hpp), and Adam steps over batches of
// pictures with their labels.
//
// The model is HF's ViTForImageClassification in train mode with dropout 0: the patch embedding
// (Conv2d with kernel = stride = P, as a GEMM over F.unfold's rows), [CLS] in front, learned
// positions, pre-LN blocks (layernorm_before, query/key/value, attention.output.dense,
// layernorm_after, intermediate.dense, GELU (erf), output.dense), the final layernorm and the
// classifier on the [CLS] row. The loss is the mean cross-entropy of the labels.
//
// Letters: B = pictures per batch, S = image side, P = patch side, N = (S/P)² patches,
// T = N + 1 tokens, D = hidden_size, H = heads, F = 4·D, K = classes, L = layers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <functional>

#include "tfx/core/tensor.hpp"
#include "tfx/core/tensor_map.hpp"
#include "tfx/figure/figure.hpp"
#include "tfx/model/train.hpp"

namespace tfx {

struct Checkpoint;

struct VitTrainConfig {
  std::vector<std::string> labels;  // id2label, K of them
  std::size_t image = 32, patch = 8, channels = 3, d_model = 64, layers = 2, heads = 4;
  double eps = 1e-12;  // ViTConfig's layer_norm_eps
  std::size_t classes() const { return labels.size(); }
  std::size_t patches() const { return (image / patch) * (image / patch); }
};

// The parameters' names and shapes in ViTForImageClassification.state_dict()'s order
// (vit.embeddings.cls_token (1, 1, D), vit.embeddings.position_embeddings (1, T, D),
// vit.embeddings.patch_embeddings.projection.weight (D, C, P, P), …, classifier.bias (K)).
std::vector<std::pair<std::string, std::vector<std::size_t>>> vit_parameter_shapes(const VitTrainConfig& c);

// Seeded parameters as ViTPreTrainedModel._init_weights draws them: Linear and Conv2d weights,
// cls_token and position_embeddings from a normal N(0, 0.02²) truncated at ±2σ (redrawn), biases 0,
// LayerNorm γ = 1, β = 0. Drawn from Generator(seed) in the names' order.
TensorMap init_vit_parameters(const VitTrainConfig& c, std::uint64_t seed);

// A checkpoint of the ViT family holding `params`' values (copied; the position table a view into
// `params`, which must outlive it): what the family's forward pass and the model commands run on.
Checkpoint vit_checkpoint(const VitTrainConfig& c, const TensorMap& params);

// A batch: B pictures as pixel values (C, S, S) each (vit_pixel_values's), and their class ids.
struct VitBatch {
  std::vector<Tensor> pixels;
  std::vector<std::size_t> labels;
};

// What one pass over a batch gives: the mean cross-entropy and how many pictures the arg-max
// labelled right.
struct VitLoss {
  double loss = 0;
  std::size_t correct = 0;
};

// The mean cross-entropy of the batch; when `grads` is given it receives ∂loss/∂θ for every
// parameter (same names and shapes, its old contents replaced). `threads` (≥ 1) splits the
// backward pass's matrix products and heads.
VitLoss vit_train_loss(const VitTrainConfig& c, const TensorMap& params, const VitBatch& batch, TensorMap* grads,
                       unsigned threads = 1);

// One optimizer step: loss and gradients of `batch`, then Adam (torch.optim.Adam's defaults:
// β = (0.9, 0.999), ε = 1e-8, no weight decay) at learning rate `lr`. Returns the loss before the step.
VitLoss vit_train_step(const VitTrainConfig& c, TensorMap& params, AdamState& adam, const VitBatch& batch, double lr,
                       unsigned threads = 1);

// The class probabilities' arg-max for each picture, by the family's forward pass.
std::vector<std::size_t> vit_predict(const VitTrainConfig& c, const TensorMap& params, const std::vector<Tensor>& pixels);

// The pixel values the model reads for `picture` (ViTImageProcessor with tfx's
// preprocessor_config.json: resized to image × image by PIL's bilinear filter, v/255, mean and std
// 0.5): what `tfx model … --image` gives the trained model.
Tensor vit_train_pixels(const Image& picture, const VitTrainConfig& c);

// Built-in pictures: picture `index` of `seed` is draw_shape(class index mod K, image, seed, index)
// (tfx/figure/shapes.hpp; the classes are the first K shapes, in kShapeChoices's order), so any
// `count` consecutive pictures hold every class as evenly as count allows.
VitBatch vit_shape_batch(const VitTrainConfig& c, std::size_t count, std::uint64_t seed, std::uint64_t first_index);

// The loop: step s (1-based) trains on next_batch(s) at the schedule's learning rate
// (gpt2_learning_rate: warm-up, then a cosine to lr/10); on_step hears every step (return false to
// stop). Returns steps done.
struct VitTrainOptions {
  std::size_t steps = 300, warmup = 30;
  double lr = 1e-3;
  unsigned threads = 1;
};
struct VitStepReport {
  std::size_t step = 0;  // 1-based
  double loss = 0, learning_rate = 0;
  std::size_t pictures = 0, correct = 0;  // of the step's batch
};
std::size_t train_vit(const VitTrainConfig& c, TensorMap& params, const VitTrainOptions& o,
                      const std::function<VitBatch(std::size_t step)>& next_batch,
                      const std::function<bool(const VitStepReport&)>& on_step);

}  // namespace tfx
