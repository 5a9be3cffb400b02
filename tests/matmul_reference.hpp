// The double-precision reference for matmul tests (ops_test.cpp, gemm_test.cpp): random
// matrices and check_product, which compares a float product with a triple loop in double
// within the float rounding bound of each sum.
#pragma once
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "tfx/core/tensor.hpp"

namespace tfx::test {

inline Tensor random_matrix(std::size_t rows, std::size_t cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Tensor t({rows, cols});
  for (float& v : t.values()) v = u(rng);
  return t;
}

// Checks c = a·op(b) against a double-precision triple loop, where op(b)[k][j] = bt ? b[j][k] :
// b[k][j]. Each entry may differ by the float rounding bound of a K-term sum,
// |err| ≤ (K + 2)·u·Σ_k |a_ik·b_kj| with u = 2⁻²⁴ (Higham, γ_K), and by nothing more.
inline void check_product(const Tensor& a, const Tensor& b, const Tensor& c, bool bt) {
  const std::size_t M = a.rows(), K = a.cols(), N = bt ? b.rows() : b.cols();
  REQUIRE(c.shape() == std::vector<std::size_t>{M, N});
  const double u = std::ldexp(1.0, -24);
  std::size_t bad = 0;
  double maxdiff = 0;
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      double s = 0, abs_sum = 0;
      for (std::size_t k = 0; k < K; ++k) {
        double p = static_cast<double>(a(i, k)) * (bt ? b(j, k) : b(k, j));
        s += p;
        abs_sum += std::abs(p);
      }
      double diff = std::abs(c(i, j) - s);
      maxdiff = std::max(maxdiff, diff);
      if (diff > static_cast<double>(K + 2) * u * abs_sum + 1e-30) ++bad;
    }
  CAPTURE(maxdiff);
  CHECK(bad == 0);
}

}  // namespace tfx::test
