// The whole op set of the tensor core: everything else (attention, PE similarity, analogy
// scoring, PCA) is composed from these. Shapes are checked at every boundary; a mismatch
// throws tfx::Error naming both shapes. Long sums accumulate in double.
//
// Shape letters: M, N, K are matrix sizes; D is a vector length.
#pragma once
#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "tfx/core/tensor.hpp"

namespace tfx {

// a: (M, K), b: (K, N) -> (M, N). Our own cache-blocked kernel; uses `threads` worker threads
// (0 = all hardware threads, 1 = the calling thread only).
Tensor matmul(const Tensor& a, const Tensor& b, unsigned threads = 1);

// a: (M, K), b: (N, K) -> a·bᵀ (M, N). Row i·row j dot products, e.g. PE·PEᵀ, Q·Kᵀ.
Tensor matmul_bt(const Tensor& a, const Tensor& b, unsigned threads = 1);

// a: (M, N) -> (N, M)
Tensor transpose(const Tensor& a);

// Elementwise a + b; shapes must be equal.
Tensor add(const Tensor& a, const Tensor& b);

// Elementwise s·a.
Tensor scale(const Tensor& a, float s);

// Row softmax of x: (M, N). mask (optional, same shape, nonzero = keep) excludes entries: they
// get weight exactly 0. Subtracts the row max before exp for stability. A row whose entries are
// all masked throws tfx::Error (there is no distribution over zero keys).
Tensor softmax_rows(const Tensor& x, const std::vector<unsigned char>* mask = nullptr);
// The same in x's own memory (no second T×S buffer): the caller gives x up.
Tensor softmax_rows(Tensor&& x, const std::vector<unsigned char>* mask = nullptr);

// Layer norm over the last axis of x: (M, D): y = gamma ⊙ (x − μ)/sqrt(σ² + eps) + beta with
// the population variance σ² = mean((x − μ)²). gamma, beta: (D) or empty for 1 and 0.
Tensor layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps = 1e-5f);

// Every intermediate of layer_norm, in the lecture's order (the y is layer_norm's result).
struct LayerNormSteps {
  std::vector<double> mean, var, stddev;  // (M): μ, σ² (population) and σ = √σ² of each row
  Tensor normalized;                      // x̂ = (x − μ)/√(σ² + eps)   (M, D)
  Tensor y;                               // gamma ⊙ x̂ + beta         (M, D)
};
LayerNormSteps layer_norm_steps(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps = 1e-5f);

// Σ aᵢbᵢ in double; lengths must match.
double dot(std::span<const float> a, std::span<const float> b);
// Euclidean norm ‖a‖ in double.
double norm(std::span<const float> a);
// a·b / (‖a‖‖b‖); 0 when either vector is all zeros.
double cosine(std::span<const float> a, std::span<const float> b);

// The k best of a stream of (index, value) pairs: larger value first, ties broken by the smaller
// index so the order is deterministic, NaN after every number. push() costs one comparison for a
// value that cannot enter (the common case in a long scan), O(log k) otherwise; the kept pairs
// live in a heap whose top is the worst kept. The one top-k of the library: top_k below, the
// embedding neighbour queries, the analogy evaluation and the direction probe all use it.
template <class V>
class TopK {
 public:
  using Entry = std::pair<std::size_t, V>;
  explicit TopK(std::size_t k) : k_(k) { heap_.reserve(k); }
  // a before b in the ranking
  static bool better(const Entry& a, const Entry& b) {
    const bool na = a.second != a.second, nb = b.second != b.second;  // NaN
    if (na != nb) return nb;
    if (!na && a.second != b.second) return a.second > b.second;
    return a.first < b.first;
  }
  void push(std::size_t index, V value) {
    if (heap_.size() < k_) {
      heap_.emplace_back(index, value);
      std::push_heap(heap_.begin(), heap_.end(), better);
      return;
    }
    if (k_ == 0 || value < heap_.front().second || !better({index, value}, heap_.front())) return;
    std::pop_heap(heap_.begin(), heap_.end(), better);
    heap_.back() = {index, value};
    std::push_heap(heap_.begin(), heap_.end(), better);
  }
  std::size_t size() const { return heap_.size(); }
  // The kept pairs, best first.
  std::vector<Entry> sorted() const {
    std::vector<Entry> out = heap_;
    std::sort(out.begin(), out.end(), better);
    return out;
  }

 private:
  std::size_t k_;
  std::vector<Entry> heap_;
};

// Indices of the k largest values, largest first; ties broken by the smaller index so the order
// is deterministic, NaN last. k is clamped to values.size().
std::vector<std::pair<std::size_t, float>> top_k(std::span<const float> values, std::size_t k);

// ---- the layer ops of the checkpoint families, the translator and the encoder/decoder layers.
// X: (N, K) rows of activations; W, b as PyTorch stores them.

// nn.Linear: y = x·Wᵀ + b.  x: (N, K), W: (M, K) (out, in), b: (M) or empty (no bias) -> (N, M)
Tensor linear(const Tensor& x, const Tensor& W, const Tensor& b = Tensor(), unsigned threads = 1);
// GPT-2's Conv1D: y = x·W + b.  x: (N, K), W: (K, M) (in, out), b: (M) -> (N, M)
Tensor linear_in_out(const Tensor& x, const Tensor& W, const Tensor& b, unsigned threads = 1);

// GELU in place, the two forms Hugging Face uses (elementwise, any shape):
//   erf   (hidden_act "gelu"):      0.5·x·(1 + erf(x/√2))
//   tanh  (HF's "gelu_new"):        0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
enum class GeluForm { erf, tanh };
void gelu_inplace(Tensor& x, GeluForm form);
// ReLU: max(x, 0), elementwise, any shape.
Tensor relu(Tensor x);
// SwiGLU's gate: SiLU(g)·u = g/(1 + e^−g)·u.  g, u: the same shape -> that shape
Tensor swiglu(const Tensor& g, const Tensor& u);
// GeGLU's gate (Gemma): GELU_tanh(g)·u.  g, u: the same shape -> that shape
Tensor geglu(const Tensor& g, const Tensor& u);
// Soft-capping in place (Gemma 2's scores and logits): x ← cap·tanh(x / cap), elementwise; cap > 0
void softcap_inplace(Tensor& x, float cap);
// RMSNorm over each row (Llama): x / √(mean(x²) + ε) · w, the mean accumulated in double.
// x: (N, D), w: (D) -> (N, D)
Tensor rms_norm(const Tensor& x, const Tensor& w, double eps);
// Rows of an embedding table.  table: (V, D), ids < V -> (T, D)
Tensor embedding_rows(const Tensor& table, const std::vector<std::size_t>& ids);
// x += table rows first_row … first_row + N − 1 (learned positions).  x: (N, D), table: (≥ first_row + N, D)
void add_table_rows(Tensor& x, const Tensor& table, std::size_t first_row);
// x += y elementwise (the residual connection); same size.
void add_inplace(Tensor& x, const Tensor& y);

}  // namespace tfx
