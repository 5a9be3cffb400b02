// The backward pass of each op of ops.hpp, named after its forward (llm.c's habit:
// layer_norm / layer_norm_backward), and the op training adds (cross-entropy with label smoothing). A backward takes what its forward read (or wrote: the
// softmax and ReLU read their output) and the gradient of the loss with respect to the forward's
// result, dy, and returns the gradients of the inputs. Gradients of parameters are ADDED into the
// caller's tensors (dW, db, dgamma, …: a parameter used twice sums its two gradients); the input
// gradient dx is returned fresh. Each one is tested alone against a float64 central difference
// (tests/core/ops_backward_test.cpp, the measured error per op in its comments).
//
// The residual add y = x + f(x) has no function: its backward passes dy to both terms.
// RoPE's backward is beside its forward (rope_rotate_heads_backward, tfx/positional/rope.hpp).
//
// Shape letters: N rows (tokens), K input width, M output width, D a normalized width,
// T queries, S keys, d head width, V classes.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

#include "tfx/core/ops.hpp"
#include "tfx/core/tensor.hpp"

namespace tfx {

// linear: y = x·Wᵀ + b.  x: (N, K), W: (M, K), dy: (N, M) -> dx = dy·W (N, K);
// dW += dyᵀ·x (M, K); db += Σ_rows dy (M) when db is given.
Tensor linear_backward(const Tensor& x, const Tensor& W, const Tensor& dy, Tensor& dW, Tensor* db, unsigned threads = 1);

// embedding_rows: y_t = table[ids_t].  dy: (T, D) -> dtable[ids_t] += dy_t  (dtable (V, D))
void embedding_backward(const std::vector<std::size_t>& ids, const Tensor& dy, Tensor& dtable);

// softmax_rows with temperature τ: y = softmax(x/τ) per row (softmax_rows(scale(x, 1/τ))).
// y: (N, S) the forward's output, dy: (N, S) -> dx_j = y_j·(dy_j − Σ_k y_k·dy_k)/τ. Masked entries
// (y = 0) get 0.
Tensor softmax_rows_backward(const Tensor& y, const Tensor& dy, double temperature = 1.0);

// The softmax of one logit vector at temperature τ, in double (a distribution to sample from or
// print; tfx/model/sampling.hpp declares it too): p_i = exp((l_i − max l)/τ) / Σ_j exp((l_j − max l)/τ);
// a logit of −∞ gets p = 0. Throws on NaN and when every logit is −∞. Defined beside softmax_rows
// (ops.cpp); its backward is softmax_rows_backward's formula.
std::vector<double> softmax_at_temperature(std::span<const float> logits, double temperature = 1.0);

// Scaled dot-product attention of one head, given its forward's weights
// P = softmax(q·kᵀ·scale, masked) (masked cells 0) and Z = P·v.
// q: (T, d), k: (S, d), v: (S, dv), weights: (T, S), dz: (T, dv) ->
// dP = dz·vᵀ, dScores = P ⊙ (dP − rowsum(P ⊙ dP)), dq = dScores·k·scale, dk = dScoresᵀ·q·scale,
// dv = Pᵀ·dz. Causal, padding and cross attention are all this (the mask lives in P's zeros).
struct AttentionGrads {
  Tensor dq, dk, dv;
};
AttentionGrads attention_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& weights, const Tensor& dz,
                                  double scale);

// Grouped-query attention (grouped_query_attention, tfx/attention/attention.hpp): heads side by
// side in the columns, q: (T, H·d), k, v: (S, KV·d), weights (H, T, S), dz: (T, H·d); head h reads
// key/value head h/(H/KV), so a key/value head's gradient sums its group's. -> dq (T, H·d),
// dk, dv (S, KV·d).
AttentionGrads grouped_attention_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& weights,
                                          const Tensor& dz, std::size_t H, std::size_t KV, double scale);

// layer_norm: y = γ ⊙ x̂ + β, x̂ = (x − μ)/√(σ² + eps) per row.  x: (N, D), dy: (N, D) ->
// with h = dy ⊙ γ: dx = (h − mean(h) − x̂·mean(h ⊙ x̂))/√(σ² + eps);
// dgamma += Σ_rows dy ⊙ x̂, dbeta += Σ_rows dy (both (D)); gamma empty = 1.
Tensor layer_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& dy, Tensor& dgamma, Tensor& dbeta,
                           float eps = 1e-5f);

// rms_norm: y = w ⊙ x·r, r = 1/√(mean(x²) + eps).  x: (N, D), dy: (N, D) ->
// with h = dy ⊙ w: dx = r·h − x·r³·mean(h ⊙ x); dw += Σ_rows dy ⊙ x·r.
Tensor rms_norm_backward(const Tensor& x, const Tensor& w, const Tensor& dy, Tensor& dw, double eps);

// gelu_inplace's derivative at the forward's input x (any shape): dx = dy·GELU'(x)
//   erf:  GELU'(x) = Φ(x) + x·φ(x)
//   tanh: with u = √(2/π)(x + 0.044715x³): 0.5(1 + tanh u) + 0.5x(1 − tanh²u)·√(2/π)(1 + 3·0.044715x²)
Tensor gelu_backward(const Tensor& x, const Tensor& dy, GeluForm form);

// relu: y = max(x, 0). y: the forward's output, dy -> dx = dy where y > 0, else 0.
Tensor relu_backward(const Tensor& y, const Tensor& dy);

// swiglu: y = SiLU(g)·u.  g, u, dy: one shape -> dg = dy·u·σ(g)(1 + g(1 − σ(g))), du = dy·SiLU(g).
struct SwigluGrads {
  Tensor dg, du;
};
SwigluGrads swiglu_backward(const Tensor& g, const Tensor& u, const Tensor& dy);

// Cross-entropy with label smoothing over rows of logits (PyTorch's
// CrossEntropyLoss(ignore_index, label_smoothing = ε), mean over the counted rows):
//   q = (1 − ε)·onehot(y) + ε/V,  loss_r = −Σ_c q_c log p_c = (1 − ε)(lse − z_y) − (ε/V)Σ_c (z_c − lse)
//   ∂loss/∂z_r = (p_r − q)/count.
// logits: (N, V), targets: (N); a row whose target is `ignore` is skipped (pass V or more for
// none). Throws when every row is ignored or a target is ≥ V (and not `ignore`).
struct CrossEntropy {
  double loss = 0;
  std::size_t count = 0;  // the rows counted
  Tensor dlogits;         // (N, V) when asked for, ignored rows 0
};
CrossEntropy cross_entropy(const Tensor& logits, const std::vector<std::size_t>& targets, double label_smoothing,
                           std::size_t ignore, bool want_gradient);

}  // namespace tfx
