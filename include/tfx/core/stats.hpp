// Statistics on the tensor core used by the embedding explorers: correlation (Pearson, Spearman
// as scipy.stats computes them), the p-value of a correlation, and PCA by power iteration with
// deflation; and the log-sum-exp of a row of logits that the model readers' probabilities,
// perplexities and divergences are taken from.
//
// Letters: N = number of samples (rows), D = dimension.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

#include "tfx/core/tensor.hpp"

namespace tfx {

// r = Σ(x−x̄)(y−ȳ) / √(Σ(x−x̄)² Σ(y−ȳ)²); NaN when either side is constant or n < 2.
double pearson(std::span<const double> x, std::span<const double> y);

// Ranks 1..n with ties given their average rank (scipy.stats.rankdata's "average").
std::vector<double> average_ranks(std::span<const double> x);

// Spearman's ρ = Pearson correlation of the average ranks (scipy.stats.spearmanr).
double spearman(std::span<const double> x, std::span<const double> y);

// Two-sided p-value of a correlation r over n samples under the null of no correlation:
// t = r·√((n−2)/(1−r²)), p = P(|T_{n−2}| ≥ |t|) = I_{(n−2)/(n−2+t²)}((n−2)/2, 1/2)
// (regularized incomplete beta). NaN when n < 3 or r is NaN; 0 when |r| = 1.
double correlation_p_value(double r, std::size_t n);

// log Σᵢ exp(xᵢ) in double, the largest x subtracted before the exponentials (so logits in the
// thousands neither overflow nor lose the small terms): log p(i) = xᵢ − log_sum_exp(x). −∞ for an
// empty row or one of −∞ only; NaN if any x is NaN; +∞ if any is +∞.
double log_sum_exp(std::span<const float> x);

struct Pca {
  Tensor components;                    // (k, D): unit principal axes, largest variance first
  Tensor coords;                        // (N, k): centred rows projected on the axes
  std::vector<double> variance;         // (k): variance along each axis (eigenvalues of the covariance)
  std::vector<double> explained_ratio;  // (k): variance / total variance
  std::vector<float> mean;              // (D): the row mean that was subtracted
};

// x: (N, D) -> the top k principal components of the rows of x. Covariance C = XcᵀXc/(N−1)
// (matmul on the tensor core, then double), eigenvectors by power iteration with deflation from
// a fixed start vector (deterministic). Each axis' sign is chosen so that its largest-magnitude
// loading is positive. Requires N ≥ 2 and k ≤ D.
Pca pca(const Tensor& x, std::size_t k = 2);

}  // namespace tfx
