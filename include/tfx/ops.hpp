// The whole op set of the tensor core: everything else (attention, PE similarity, analogy
// scoring, PCA) is composed from these. Shapes are checked at every boundary; a mismatch
// throws tfx::Error naming both shapes. Long sums accumulate in double.
//
// Shape letters: M, N, K are matrix sizes; D is a vector length.
#pragma once
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "tfx/tensor.hpp"

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

// Layer norm over the last axis of x: (M, D): y = gamma ⊙ (x − μ)/sqrt(σ² + eps) + beta with
// the population variance σ² = mean((x − μ)²). gamma, beta: (D) or empty for 1 and 0.
Tensor layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps = 1e-5f);

// Σ aᵢbᵢ in double; lengths must match.
double dot(std::span<const float> a, std::span<const float> b);
// Euclidean norm ‖a‖ in double.
double norm(std::span<const float> a);
// a·b / (‖a‖‖b‖); 0 when either vector is all zeros.
double cosine(std::span<const float> a, std::span<const float> b);

// Indices of the k largest values, largest first; ties broken by the smaller index so the order
// is deterministic. k is clamped to values.size().
std::vector<std::pair<std::size_t, float>> top_k(std::span<const float> values, std::size_t k);

}  // namespace tfx
