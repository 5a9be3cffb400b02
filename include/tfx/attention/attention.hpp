// Scaled dot-product attention (Vaswani et al. 2017), composed from the ops.hpp primitives:
// matmul_bt (QKᵀ) → scale (1/√d_k) → mask → softmax_rows → matmul (·V). Causal and padding
// masks, multi-head split/concat with W_O, cross-attention (queries from one sequence, keys and
// values from another), seeded Xavier-initialised projection weights, and the lecture's
// experiment on why the √d_k is there (the variance of q·k grows like d_k).
//
// Letters: T = query positions, S = key/value positions, D = model width of the queries' input,
// E = model width of the keys'/values' input (E = D for self-attention), H = heads,
// d_k = query/key width of one head, d_v = value width of one head.
#pragma once
#include "tfx/core/i18n.hpp"
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tfx/core/choices.hpp"
#include "tfx/core/random.hpp"
#include "tfx/core/tensor.hpp"

namespace tfx {

struct AttentionOptions {
  bool scale = true;         // divide QKᵀ by √d_k (false: the unscaled softmax(QKᵀ)V)
  double temperature = 1.0;  // and by a temperature τ > 0 (τ < 1 sharpens, τ > 1 flattens)
  bool causal = false;       // the decoder's mask: query i sees keys j ≤ i (top-left aligned, as PyTorch)
  std::size_t pad = 0;       // padding mask: the last `pad` key positions are never attended to
  unsigned threads = 1;      // worker threads for the matmuls (0 = all hardware threads)
  bool keep_steps = true;    // false: only the weights and Z are kept (scores, scaled and masked
                             // stay empty), so a caller that shows neither skips three T×S copies
  bool rope = false;         // nn.MultiheadAttention's wrappers (transformer.hpp) only: q and k rotated by
                             // position after the projections (RoPE, interleaved, base 10000; a tfx
                             // train --pe rope model's self-attention); q and k are kept rotated
};

// The keep-mask (T·S values, row-major; 1 = attended, 0 = masked) of `o`, or empty when nothing
// is masked. Throws a usage error naming pad when pad ≥ S (every query would have no key), and
// one naming causal and pad when they leave some query row without a key.
std::vector<unsigned char> attention_mask(std::size_t T, std::size_t S, const AttentionOptions& o);

// The divisor of the scores: √d_k · τ (τ alone without scaling).
double attention_divisor(std::size_t d_k, const AttentionOptions& o);

// Every intermediate of one attention computation, in the lecture's order.
struct AttentionSteps {
  Tensor scores;                    // QKᵀ                              (T, S)
  Tensor scaled;                    // QKᵀ / (√d_k · τ)                 (T, S)
  Tensor masked;                    // scaled with −∞ at masked cells   (T, S)
  std::vector<unsigned char> keep;  // T·S, 1 = attended; empty = no mask
  Tensor weights;                   // softmax over each row; masked cells exactly 0 (T, S)
  Tensor output;                    // Z = weights · V                  (T, d_v)
  double divisor = 1.0;             // √d_k · τ
};

// Attention(Q, K, V) = softmax(QKᵀ / √d_k) V
// q: (T, d_k), k: (S, d_k), v: (S, d_v) -> steps. Throws tfx::Error naming both shapes when
// Q and K differ in d_k or V's rows differ from K's.
AttentionSteps scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& o);

// x: (N, H·d) -> H tensors (N, d): head h takes columns h·d … h·d + d − 1.
std::vector<Tensor> split_heads(const Tensor& x, std::size_t heads);
// H tensors (N, d) -> (N, H·d), the inverse of split_heads.
Tensor concat_heads(const std::vector<Tensor>& heads);

// Projection weights. wq: (D, H·d_k), wk: (E, H·d_k), wv: (E, H·d_v), wo: (H·d_v, D) or empty
// (no output projection: the result is the concatenation itself, as for one head in the lecture).
struct AttentionWeights {
  Tensor wq, wk, wv, wo;
};

// Xavier/Glorot uniform (as torch.nn.init.xavier_uniform_): entries ~ U(−a, a) with
// a = √(6 / (fan_in + fan_out)), so the variance is 2 / (fan_in + fan_out).
// -> (fan_in, fan_out), drawn row by row from `gen`.
Tensor xavier_uniform(std::size_t fan_in, std::size_t fan_out, Generator& gen);
// The same from a fresh generator seeded with `seed`.
Tensor xavier_uniform(std::size_t fan_in, std::size_t fan_out, std::uint64_t seed);
// Entries ~ N(0, 1) (as nn.Embedding's init), drawn row by row from `gen` by the polar method
// (the same numbers with every standard library). -> (rows, cols)
Tensor standard_normal(std::size_t rows, std::size_t cols, Generator& gen);

// W_Q, W_K, W_V (and W_O when `with_output`) drawn in that order from one generator seeded
// with `seed`; widths as in AttentionWeights.
AttentionWeights xavier_attention_weights(std::size_t D, std::size_t E, std::size_t heads, std::size_t d_k, std::size_t d_v,
                                          bool with_output, std::uint64_t seed);

// W = I for every projection (Q = X, K = V = X_kv); needs D = E = H·d_k = H·d_v.
AttentionWeights identity_attention_weights(std::size_t D, bool with_output);
// The same after checking heads·d_k = heads·d_v = D (a usage error naming them otherwise).
AttentionWeights identity_attention_weights(std::size_t D, std::size_t heads, std::size_t d_k, std::size_t d_v);

// H heads split a width into H equal column blocks: whether they can (`heads_divide`), and the
// one check every multi-head step makes (`check_heads_divide`): a usage error naming `heads`
// and the width (`what`: "d_model", "the value width"), with the divisors to choose from and
// `hint` appended — "heads 3 does not divide d_model = 8: each head takes d_model/H columns
// (divisors of 8: 1, 2, 4, 8)". A width from a file (a checkpoint's config, a layer's
// metadata) is the file's fault instead: callers use heads_divide and name the file.
bool heads_divide(std::size_t heads, std::size_t width);
void check_heads_divide(std::size_t heads, std::size_t width, const std::string& what = "d_model", const std::string& hint = "");

// The width of each head: d_k as given, else D / heads (a usage error naming heads when it does
// not divide D); d_v as given, else d_k.
struct HeadWidths {
  std::size_t d_k = 0, d_v = 0;
};
HeadWidths attention_head_widths(std::size_t D, std::size_t heads, std::size_t d_k = 0, std::size_t d_v = 0);

// Everything multi-head attention computes.
struct MultiHeadAttention {
  Tensor q, k, v;                     // projected: (T, H·d_k), (S, H·d_k), (S, H·d_v)
  std::vector<AttentionSteps> heads;  // one per head, d_k and d_v of one head
  Tensor concat;                      // Concat(head_1 … head_H)   (T, H·d_v)
  Tensor output;                      // Concat · W_O (T, D), or the concatenation when W_O is empty
  double max_row_sum_error = 0;       // max over heads and queries of |Σ_j weights_ij − 1| (softmax check)
};

// MultiHead(Q, K, V) = Concat(head_1, …, head_H) W_O,  head_i = Attention(Q_i, K_i, V_i)
// on already-projected q: (T, H·d_k), k: (S, H·d_k), v: (S, H·d_v) split into H column blocks;
// wo: (H·d_v, D_out) or empty. Throws a usage error naming heads when H does not divide the
// widths.
MultiHeadAttention attend_heads(const Tensor& q, const Tensor& k, const Tensor& v, std::size_t heads, const Tensor& wo,
                                const AttentionOptions& o);

// Q = X_q W_Q, K = X_kv W_K, V = X_kv W_V, then attend_heads. Self-attention: x_kv = x_q.
// x_q: (T, D), x_kv: (S, E).
MultiHeadAttention multi_head_attention(const Tensor& x_q, const Tensor& x_kv, const AttentionWeights& w, std::size_t heads,
                                        const AttentionOptions& o);

// ---- why √d_k: the variance experiment ----

enum class UnitDistribution { normal, uniform };  // N(0, 1), or U(−√3, √3): both have variance 1
inline constexpr Choice<UnitDistribution> kUnitDistributionChoices[] = {
    {UnitDistribution::normal, "normal", N_("N(0, 1)")},
    {UnitDistribution::uniform, "uniform", N_("U(−√3, √3)")},
};

struct DotProductStats {
  std::size_t d_k = 0;
  double var_dot = 0;            // sample variance of q·k (theory: d_k)
  double var_scaled = 0;         // sample variance of q·k / √d_k (theory: 1)
  double max_weight = 0;         // mean over rows of the largest softmax(q·k_j) weight
  double max_weight_scaled = 0;  // the same for softmax(q·k_j / √d_k)
};

// For each d_k: `samples` rows, each one query q and `keys` keys k_1 … k_n with independent
// unit-variance entries, all from one generator seeded with `seed` (d_k values in order).
// Variances are over all samples·keys dot products (unbiased, n − 1).
std::vector<DotProductStats> dot_product_variance(const std::vector<std::size_t>& d_ks, std::size_t samples, std::size_t keys,
                                                  std::uint64_t seed, UnitDistribution dist = UnitDistribution::normal);

// Scaled dot-product attention over heads laid side by side in the columns, with grouped-query
// attention (Llama, Qwen2, Mistral: KV < H; KV = H is ordinary multi-head attention):
// q: (T, H·hd), k, v: (T, KV·hd); head h reads key/value head h / (H/KV). Per head:
// softmax(q_h·k_hᵀ / √hd, causal mask when `causal`)·v_h. Returns the output (T, H·hd) and the
// weights after softmax (H, T, T).
struct GroupedAttention {
  Tensor output, weights;
};
GroupedAttention grouped_query_attention(const Tensor& q, const Tensor& k, const Tensor& v, std::size_t H, std::size_t KV,
                                         std::size_t hd, bool causal);

}  // namespace tfx
