// Training the lecture's Transformer in tfx: the forward pass over a padded batch with every
// intermediate kept, a hand-written backward pass for each op (embedding lookup, PE add, linear,
// multi-head attention with causal and padding masks, softmax, layer norm, ReLU, residual adds,
// cross-entropy with label smoothing), Adam, and the training loop over translation pairs.
//
// The model is PyTorch's nn.TransformerEncoder/Decoder of nn.TransformerEncoderLayer /
// nn.TransformerDecoderLayer (batch_first, dropout 0, ReLU, no final norm) with a shared token
// embedding, sinusoidal PE (no √d_model scaling) and an output projection: exactly the built-in
// translator (translator.hpp), and the parameters carry its PyTorch state_dict names.
//
// Letters: B = batch, S = source length, T = target length (both padded), D = d_model,
// H = heads, F = feed-forward width, V = vocabulary.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <string>
#include <vector>

#include "tfx/model/safetensors.hpp"
#include "tfx/model/translator.hpp"

namespace tfx {

struct TrainConfig {
  std::size_t vocab = 0, d_model = 64, heads = 4, layers = 2, ffn = 256;
  PositionalEncoding pe = PositionalEncoding::sinusoidal;  // --pe (none: --no-pe), translator.hpp
  bool scale_scores = true;         // false: scores = Q·Kᵀ without 1/√d_k (--no-scale)
  bool pre_ln = false;              // norm_first: x + f(LayerNorm(x)) instead of LayerNorm(x + f(x))
  double label_smoothing = 0.05;
  std::size_t pad = 0;  // the padding id: masked as a key, ignored as a target
};

// The parameter names in PyTorch's named_parameters() order (embedding.weight,
// encoder.layers.{i}.*, decoder.layers.{i}.*, generator.weight, generator.bias), then with learned
// PE position_embedding.weight (kLearnedPositions, D) last (so the others draw the same initial
// values as the sinusoidal run's).
std::vector<std::string> train_parameter_names(const TrainConfig& c);

// The bytes a training run holds at its peak, for the memory budget (an estimate, on the high side):
// the parameters, their gradients and Adam's two moments (4 floats per parameter); one step's
// activations kept for the backward pass over a batch of B pairs of at most S source and T target
// tokens (per layer the sublayers' inputs and outputs, the FFN's hidden layer and every head's
// attention weights, with their gradients), the logits, probabilities and their gradient
// (3·B·T·V floats).
double train_memory_bytes(const TrainConfig& c, std::size_t batch, std::size_t source_len, std::size_t target_len);

// Seeded parameters as PyTorch initialises these modules: embedding (and a learned PE table) N(0, 1); attention in_proj
// Xavier-uniform, its biases and out_proj.bias 0; every other nn.Linear weight and bias
// U(±1/√fan_in); LayerNorm γ = 1, β = 0. Drawn from Generator(seed) in the names' order.
TensorMap init_train_parameters(const TrainConfig& c, std::uint64_t seed);

// A padded batch: source (B, S), target_in (B, T) = <bos> y₁ … , target_out (B, T) = y₁ … <eos>;
// positions past a sentence's end hold the pad id.
struct TrainBatch {
  std::size_t batch = 0, source_len = 0, target_len = 0;
  std::vector<std::size_t> source, target_in, target_out;
};

// What the forward pass can hand back besides the loss.
struct ForwardExtras {
  std::vector<float> logits;            // (B, T, V) when want_logits
  std::vector<float> cross_attention;   // (B, T, S) head-averaged, of decoder layer `cross_layer`
  bool want_logits = false;
  bool logits_only = false;  // the forward pass alone, no loss (train_loss returns 0; no gradients)
  int cross_layer = -1;  // −1: none
  // The encoder's self-attention, every layer, head and query row of the batch (tfx train
  // --compare): the mean entropy of its rows, −Σ_j a_j ln a_j in nats (padded queries left out),
  // and, when gradients are taken, the norm of ∂loss/∂s over all of them, s = the softmax's input
  // (QKᵀ/√d_k, or QKᵀ with --no-scale): what a saturated softmax stops passing back.
  bool want_attention_stats = false;
  double attention_entropy = 0, score_gradient_norm = 0;
};

// Mean label-smoothed cross-entropy over the non-pad targets of the batch (PyTorch's
// CrossEntropyLoss(ignore_index = pad, label_smoothing = ε)):
//   loss_i = (1 − ε)·(−log p_i[y_i]) − (ε/V)·Σ_c log p_i[c],   loss = mean_i loss_i.
// When `grads` is given, it receives ∂loss/∂θ for every parameter (same names and shapes; its old
// contents are replaced). `threads` (≥ 1) splits the matrix products and the per-sentence
// attention; the result does not depend on it. Shapes and ids are checked (tfx::Error).
double train_loss(const TrainConfig& c, const TensorMap& params, const TrainBatch& batch, TensorMap* grads,
                  unsigned threads = 1, ForwardExtras* extras = nullptr);

// Adam as torch.optim.Adam computes it (no weight decay, no amsgrad), per element:
//   m ← β₁m + (1 − β₁)g,  v ← β₂v + (1 − β₂)g²,  θ ← θ − lr/(1 − β₁ᵗ) · m / (√v/√(1 − β₂ᵗ) + ε)
struct AdamState {
  double beta1 = 0.9, beta2 = 0.98, eps = 1e-9;
  std::size_t step = 0;
  TensorMap m, v;
};
void adam_step(AdamState& s, TensorMap& params, const TensorMap& grads, double lr);

// ---- the training loop over translation pairs ----

// One pair as ids (without <bos>/<eos>), and for held-out scoring the gold alignment (for each
// target token the index of its source token, −1 for none).
struct IdPair {
  std::vector<std::size_t> source, target;
  std::vector<int> alignment;
};

// Ids of the special tokens (the vocabulary starts <pad> <bos> <eos> <unk>).
inline constexpr std::size_t kTrainBos = 1, kTrainEos = 2;

// The padded batch of `pairs[order[i]]` for the listed i.
TrainBatch make_train_batch(const std::vector<IdPair>& pairs, const std::vector<std::size_t>& chosen, std::size_t pad);

// Greedy decoding with the model's own forward pass: the most probable next token until <eos>
// or `max_tokens`.
std::vector<std::size_t> train_greedy(const TrainConfig& c, const TensorMap& params, const std::vector<std::size_t>& source,
                                      std::size_t max_tokens = 20);

// Held-out quality: exact match of greedy decoding, and alignment accuracy = the fraction of
// aligned target tokens whose head-averaged cross-attention (decoder layer `layer`, teacher
// forced on the gold target) peaks at the gold source token.
struct HeldOutScore {
  std::size_t exact = 0, pairs = 0, aligned_hits = 0, aligned_total = 0;
  std::vector<unsigned char> pair_exact;  // per test pair, in order: 1 when greedy decoding is exact
  std::vector<std::size_t> pair_prefix;   // per test pair: how many target tokens (then <eos>) greedy decoding gets right before its first error
  double exact_fraction() const { return pairs ? double(exact) / pairs : 0.0; }
  double alignment_fraction() const { return aligned_total ? double(aligned_hits) / aligned_total : 0.0; }
};
HeldOutScore score_held_out(const TrainConfig& c, const TensorMap& params, const std::vector<IdPair>& test, std::size_t layer,
                            unsigned threads = 1);

// Held-out exact match by source length (the extrapolation experiment, tfx train --train-max-len):
// one row per length that the test pairs have, in increasing order; first_right counts the pairs
// whose first min(`first`, target length) target words are right (a model that translates the
// trained lengths' worth of a longer sentence and then goes wrong, or stops).
struct LengthScore {
  std::size_t length = 0, pairs = 0, exact = 0, first_right = 0;
  double fraction() const { return pairs ? double(exact) / pairs : 0.0; }
  double first_fraction() const { return pairs ? double(first_right) / pairs : 0.0; }
};
std::vector<LengthScore> exact_by_length(const std::vector<IdPair>& test, const HeldOutScore& score, std::size_t first);

// ---- watching it learn (tfx train --gif / --watch) ----

// The head-averaged cross-attention of decoder layer `layer` for one pair, teacher-forced on
// `target` (ids without <bos>/<eos>): row k (decoder inputs <bos> y₁ … y_k) is where the model
// chooses target token k + 1, the last row where it chooses <eos>.
// source: (S) ids, target: (T) ids -> weights (T + 1, S), each row summing to 1.
Tensor train_cross_attention(const TrainConfig& c, const TensorMap& params, const std::vector<std::size_t>& source,
                             const std::vector<std::size_t>& target, std::size_t layer);

// How sharp attention rows are. weights: (R, S), rows summing to 1.
//   entropy   = mean over rows r of −Σ_j a_rj ln a_rj (nats: ln S for a uniform row, 0 for one-hot)
//   gold_mass = mean over rows r with alignment[r] ≥ 0 of a_r,alignment[r] (1 = all attention on
//               the gold source word); 0 when no row is aligned.
// alignment may be shorter than R (the missing rows are unaligned); an entry ≥ S is an error.
struct AttentionSharpness {
  double entropy = 0, gold_mass = 0;
  std::size_t rows = 0, aligned = 0;
};
AttentionSharpness attention_sharpness(const Tensor& weights, const std::vector<int>& alignment);

// The steps held-out accuracy is measured after: dense at the start, where the model changes
// most — 10, 20, 50, 100, 200, 500, 1000, … (1-2-5 per decade) below `every` — then every
// `every` steps, and the last step.
bool held_out_checkpoint(std::size_t step, std::size_t every, std::size_t steps);

struct TrainOptions {
  std::size_t steps = 3000, batch = 32;
  double warmup = 200;
  bool no_warmup = false;  // the same schedule without its rise (train_learning_rate)
  std::uint64_t seed = 20261125;
  unsigned threads = 1;
};

// The learning rate of a step: warmup_learning_rate(step, D, warmup), the lecture's schedule; with
// no_warmup the same peak from step 1 and the same decay after it, without the linear rise:
//   lr = D^−0.5 · max(step, warmup)^−0.5   (tfx train --no-warmup: only the warm-up differs)
double train_learning_rate(std::size_t step, std::size_t d_model, const TrainOptions& o);

// One step's report to the caller; return false from the callback to stop after this step.
struct TrainStepReport {
  std::size_t step = 0;  // 1-based
  double loss = 0, learning_rate = 0;
  std::size_t tokens = 0;  // target tokens of the step's batch
};

// Trains from `params` (updated in place) on `train`: each step takes the next `batch` pairs of a
// seeded shuffled order (reshuffled when it runs out, as scripts/train_teaching_model.py does),
// computes the loss and gradients and takes an Adam step with lr = train_learning_rate(step, D, o).
// Returns the number of steps done.
std::size_t train_model(const TrainConfig& c, TensorMap& params, const std::vector<IdPair>& train, const TrainOptions& o,
                        const std::function<bool(const TrainStepReport&)>& on_step);

}  // namespace tfx

namespace tfx {

// ---- the data: translation pairs as words, a vocabulary, ids ----

struct TextPair {
  std::vector<std::string> source, target;  // words (split at spaces)
  std::vector<int> alignment;               // gold alignment when known (else empty)
  bool test = false;                        // held out
};

// Limits of a --pairs file: at most this many pairs, this many words a side.
inline constexpr std::size_t kMaxTrainPairs = 100000, kMaxPairWords = 64;
static_assert(kLearnedPositions == kMaxPairWords + 2, "a learned PE table covers the longest sentence with <bos> and <eos>");

// "source<TAB>target" lines (\n or \r\n; blank lines and lines starting with # skipped). A line
// without a tab, with a second tab, an empty side, invalid UTF-8, more than kMaxPairWords words
// a side, or more than kMaxTrainPairs pairs throws tfx::Error "where:LINE: …" (a data error).
// Safe on arbitrary bytes.
std::vector<TextPair> parse_pair_lines(std::string_view text, const std::string& where);

// Marks ⌈fraction·n⌉ pairs (at least 1 when fraction > 0 and n ≥ 2, at most n − 1) as held out,
// chosen by a seeded shuffle.
void split_pairs(std::vector<TextPair>& pairs, double fraction, std::uint64_t seed);

// --train-max-len N (the extrapolation experiment): drops the training pairs whose source has more
// than N words (held-out pairs stay, at every length). N above the longest training source is a
// usage error naming --train-max-len, `where` (the corpus) and that length. Returns the pairs dropped.
std::size_t keep_short_training_pairs(std::vector<TextPair>& pairs, std::size_t max_len, const std::string& where);

// The vocabulary of pairs: <pad> <bos> <eos> <unk>, then the sorted words of every source
// side, then the sorted target words not already listed.
std::vector<std::string> pair_vocabulary(const std::vector<TextPair>& pairs);

// The pairs as ids of `vocab` (a word outside it is <unk>, id 3), into train and test.
struct IdPairs {
  std::vector<IdPair> train, test;
};
IdPairs pair_ids(const std::vector<TextPair>& pairs, const std::vector<std::string>& vocab);

}  // namespace tfx
