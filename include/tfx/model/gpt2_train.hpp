// Training a GPT-2 (`tfx train gpt`): the parameters in GPT2LMHeadModel's names, the GPT-2
// family's own forward pass (src/model/gpt2.cpp, run through its taps) with the backward pass
// beside it built from the op set's backwards (ops_backward.hpp), Adam, the learning-rate
// schedule and the loop over windows of a token stream.
//
// The model is HF's GPT2LMHeadModel in train mode with dropout 0: learned positions (wpe), pre-LN
// blocks, Conv1D weights stored (in, out), causal attention, GELU (tanh form), ln_f, the head tied
// to wte. The loss is the mean cross-entropy of every position's next token.
//
// Letters: B = sequences per batch, T = context (tokens per sequence), D = d_model, H = heads,
// F = 4·D, V = vocabulary, L = layers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tfx/core/random.hpp"
#include "tfx/core/tensor_map.hpp"
#include "tfx/model/train.hpp"

namespace tfx {

struct Checkpoint;

struct Gpt2TrainConfig {
  std::size_t vocab = 0, d_model = 64, layers = 2, heads = 4, context = 64;
};

// The parameters' names and shapes in GPT2LMHeadModel.state_dict()'s order, as save_pretrained
// writes them (transformer.wte.weight, transformer.wpe.weight, transformer.h.{i}.ln_1.weight, …,
// transformer.ln_f.bias; the tied lm_head.weight is not stored).
std::vector<std::pair<std::string, std::vector<std::size_t>>> gpt2_parameter_shapes(const Gpt2TrainConfig& c);

// Seeded parameters as GPT2PreTrainedModel._init_weights draws them: every weight and embedding
// N(0, 0.02²), each block's attn.c_proj and mlp.c_proj weight N(0, (0.02/√(2L))²), biases 0,
// LayerNorm γ = 1, β = 0. Drawn from Generator(seed) in the names' order.
TensorMap init_gpt2_parameters(const Gpt2TrainConfig& c, std::uint64_t seed);

// A checkpoint of the GPT-2 family whose weights are views into `params` (which must outlive it):
// what the family's forward pass, generation and the model commands run on.
Checkpoint gpt2_checkpoint(const Gpt2TrainConfig& c, const TensorMap& params);

// A batch: B sequences of T + 1 ids each (row-major); position t predicts id t + 1.
struct Gpt2Batch {
  std::size_t batch = 0, context = 0;
  std::vector<std::size_t> ids;  // B·(T + 1)
};

// The mean next-token cross-entropy of the batch (over its B·T positions); when `grads` is given
// it receives ∂loss/∂θ for every parameter (same names and shapes, its old contents replaced).
// `threads` (≥ 1) splits the backward pass's matrix products and heads.
double gpt2_train_loss(const Gpt2TrainConfig& c, const TensorMap& params, const Gpt2Batch& batch, TensorMap* grads,
                       unsigned threads = 1);

// The schedule: linear warm-up to `lr` over `warmup` steps, then a cosine down to lr/10 at `steps`:
//   lr(s) = lr·s/warmup (s ≤ warmup),  lr/10 + (lr − lr/10)·½(1 + cos(π·(s − warmup)/(steps − warmup)))
double gpt2_learning_rate(std::size_t step, std::size_t steps, double lr, std::size_t warmup);

// One optimizer step: loss and gradients of `batch`, then Adam (torch.optim.Adam's defaults:
// β = (0.9, 0.999), ε = 1e-8, no weight decay) at learning rate `lr`. Returns the loss before the step.
double gpt2_train_step(const Gpt2TrainConfig& c, TensorMap& params, AdamState& adam, const Gpt2Batch& batch, double lr,
                       unsigned threads = 1);
AdamState gpt2_adam();

// The loop over a token stream: each step takes `batch` windows of context + 1 tokens starting at
// seeded random offsets of `train` (Generator(seed + 1)).
struct Gpt2TrainOptions {
  std::size_t steps = 1000, batch = 8, warmup = 100;
  double lr = 1e-3;
  std::uint64_t seed = 20261125;
  unsigned threads = 1;
};
Gpt2Batch gpt2_random_batch(const std::vector<std::size_t>& tokens, std::size_t batch, std::size_t context, Generator& gen);
// The mean loss over consecutive windows of `tokens` (at most `max_windows` of them).
double gpt2_held_out_loss(const Gpt2TrainConfig& c, const TensorMap& params, const std::vector<std::size_t>& tokens,
                          std::size_t max_windows = 16);
// Greedy decoding with the family's forward pass: `count` more ids after `prompt` (the window
// slides when it is full).
std::vector<std::size_t> gpt2_greedy(const Gpt2TrainConfig& c, const TensorMap& params, std::vector<std::size_t> prompt,
                                     std::size_t count);
// The same with each token drawn at temperature τ from a sampler seeded with `seed` (the same seed:
// the same draws, so samples of different steps differ only by what the model learned).
std::vector<std::size_t> gpt2_sample(const Gpt2TrainConfig& c, const TensorMap& params, std::vector<std::size_t> prompt,
                                     std::size_t count, double temperature, std::uint64_t seed);
// Trains `params` in place; on_step hears every step (return false to stop). Returns steps done.
std::size_t train_gpt2(const Gpt2TrainConfig& c, TensorMap& params, const std::vector<std::size_t>& train,
                       const Gpt2TrainOptions& o, const std::function<bool(const TrainStepReport&)>& on_step);

}  // namespace tfx
