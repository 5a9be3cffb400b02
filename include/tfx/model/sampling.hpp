// Choosing the next token from a model's logits: greedy (the argmax), or a draw from the softmax
// at a temperature, cut to the k most likely tokens (top-k) and to the smallest set of most
// likely tokens whose probability reaches p (top-p, "nucleus"), in that order (as Hugging Face's
// generate applies them). Seeded: the draws come from tfx's one Generator, so --seed reproduces a
// generation.
//
// Shape letters: V the vocabulary size.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tfx/core/random.hpp"

namespace tfx {

struct SamplingOptions {
  bool greedy = true;        // take the argmax; the other fields are then unused
  double temperature = 1.0;  // τ > 0: softmax(logits / τ); τ < 1 sharpens, τ > 1 flattens
  std::size_t top_k = 0;     // keep the k most likely tokens (0 = all)
  double top_p = 1.0;        // keep the most likely tokens until their probability reaches p, 0 < p ≤ 1
};

// Checks the options (τ > 0 and finite, 0 < p ≤ 1); throws a usage tfx::Error naming
// `temperature` or `top_p` otherwise.
void check_sampling_options(const SamplingOptions& o);

// One token of the distribution the sampler draws from, in the order it draws (most likely first).
struct NextToken {
  std::size_t token;
  double p;
};

// The distribution after temperature, top-k and top-p, renormalized: the kept tokens, most likely
// first (ties: the smaller id first), their probabilities summing to 1. logits: (V).
//   p_i = exp((l_i − max l) / τ) / Σ_j exp((l_j − max l) / τ)
//   top-k keeps the k most likely (and any tied with the k-th), renormalized; top-p then keeps
//   token i while the probability of the tokens before it is < p (so at least one token, and the
//   one that crosses p is kept). Tokens of probability 0 (logit −inf) are never kept.
// Greedy: the argmax alone with probability 1. NaN logits throw tfx::Error.
std::vector<NextToken> sampling_distribution(std::span<const float> logits, const SamplingOptions& o);

// The token that the uniform draw u ∈ [0, 1) picks from sampling_distribution: the first kept
// token whose cumulative probability exceeds u (inverse CDF in most-likely-first order). Greedy
// ignores u.
std::size_t sample_token(std::span<const float> logits, const SamplingOptions& o, double u);

// A seeded sampler: one uniform draw per sampled token (none when greedy).
class Sampler {
 public:
  Sampler(SamplingOptions o, std::uint64_t seed);
  std::size_t next(std::span<const float> logits);
  const SamplingOptions& options() const { return options_; }

 private:
  SamplingOptions options_;
  Generator gen_;
};

// The softmax of logits / τ over the whole vocabulary (V), in double, max subtracted first; the
// step table's probabilities and entropy use it at τ = 1.
std::vector<double> softmax_at_temperature(std::span<const float> logits, double temperature);

// Entropy −Σ p ln p of a distribution, in nats (0 · ln 0 = 0).
double entropy_nats(std::span<const double> p);

}  // namespace tfx
