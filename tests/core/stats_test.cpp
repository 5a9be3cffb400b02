// Correlations against hand-computed/scipy-documented values; PCA against data with known axes.
#include <cmath>
#include <limits>
#include <vector>

#include "helpers.hpp"
#include "tfx/core/stats.hpp"

using namespace tfx;

TEST_CASE("pearson: perfect, anti and hand-computed correlation") {
  std::vector<double> x{1, 2, 3, 4, 5}, y{2, 4, 6, 8, 10}, z{5, 4, 3, 2, 1};
  CHECK(pearson(x, y) == doctest::Approx(1.0));
  CHECK(pearson(x, z) == doctest::Approx(-1.0));
  // x = 1..5, w = 1,3,2,5,4: Σdxdw = 8, Σdx² = 10, Σdw² = 10 -> 0.8
  std::vector<double> w{1, 3, 2, 5, 4};
  CHECK(pearson(x, w) == doctest::Approx(0.8));
  CHECK(std::isnan(pearson(x, std::vector<double>{1, 1, 1, 1, 1})));
}

TEST_CASE("average ranks and spearman with ties (scipy.stats.rankdata 'average')") {
  std::vector<double> a{10, 20, 20, 30};
  auto r = average_ranks(a);
  CHECK(r == std::vector<double>{1, 2.5, 2.5, 4});
  // monotone but nonlinear -> spearman 1, pearson < 1
  std::vector<double> x{1, 2, 3, 4, 5}, y{1, 4, 9, 16, 100};
  CHECK(spearman(x, y) == doctest::Approx(1.0));
  CHECK(pearson(x, y) < 0.95);
  // the scipy docs example: spearmanr([1,2,3,4,5], [5,6,7,8,7]) = 0.8207826816681233
  CHECK(spearman(x, std::vector<double>{5, 6, 7, 8, 7}) == doctest::Approx(0.8207826816681233));
}

TEST_CASE("pca: points on a known plane recover its axes and variances") {
  // points a·u + b·v in R^3 with u = (1,0,0), v = (0,1,1)/√2, a ∈ {−3,−1,1,3}, b ∈ {−1,1}
  std::vector<float> vals;
  for (int a : {-3, -1, 1, 3})
    for (int b : {-1, 1}) {
      vals.push_back(static_cast<float>(a));
      vals.push_back(static_cast<float>(b / std::sqrt(2.0)));
      vals.push_back(static_cast<float>(b / std::sqrt(2.0)));
    }
  Tensor x = Tensor::from({8, 3}, vals);
  Pca p = pca(x, 2);
  // variance along u: Σa² over 8 points / 7 = (2·(9+1+1+9))/7 = 40/7; along v: 8/7
  CHECK(p.variance[0] == doctest::Approx(40.0 / 7).epsilon(1e-5));
  CHECK(p.variance[1] == doctest::Approx(8.0 / 7).epsilon(1e-5));
  CHECK(p.explained_ratio[0] + p.explained_ratio[1] == doctest::Approx(1.0));
  CHECK(std::abs(p.components(0, 0)) == doctest::Approx(1.0).epsilon(1e-5));
  CHECK(std::abs(p.components(1, 1)) == doctest::Approx(1 / std::sqrt(2.0)).epsilon(1e-5));
  CHECK(std::abs(p.components(1, 2)) == doctest::Approx(1 / std::sqrt(2.0)).epsilon(1e-5));
  // coordinates along the first axis are ±a (sign fixed by the convention)
  CHECK(std::abs(p.coords(0, 0)) == doctest::Approx(3.0).epsilon(1e-5));
  CHECK_THROWS_AS(pca(Tensor::from({1, 3}, {1, 2, 3}), 2), Error);
}

TEST_CASE("log_sum_exp: hand values, no overflow for large logits, shift property and the edge rows") {
  // log(e + e² + e³) = 3 + log(1 + e⁻¹ + e⁻²), computed here the direct way in long double
  const long double direct = std::log(std::exp(1.0L) + std::exp(2.0L) + std::exp(3.0L));
  const std::vector<float> x{1.0f, 2.0f, 3.0f};
  CHECK(log_sum_exp(x) == doctest::Approx(static_cast<double>(direct)).epsilon(1e-15));
  CHECK(log_sum_exp(std::vector<float>{0.0f, 0.0f}) == doctest::Approx(std::log(2.0)).epsilon(1e-15));
  // exp(1000) overflows a double: the max comes out first
  CHECK(log_sum_exp(std::vector<float>{1000.0f, 1000.0f}) == doctest::Approx(1000.0 + std::log(2.0)).epsilon(1e-15));
  CHECK(log_sum_exp(std::vector<float>{-1000.0f, 0.0f}) == 0.0);
  // log Σ exp(x + c) = c + log Σ exp(x)
  const std::vector<float> shifted{51.0f, 52.0f, 53.0f};
  CHECK(log_sum_exp(shifted) == doctest::Approx(50.0 + log_sum_exp(x)).epsilon(1e-14));
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(log_sum_exp(std::vector<float>{}) == -std::numeric_limits<double>::infinity());
  CHECK(log_sum_exp(std::vector<float>{-inf, -inf}) == -std::numeric_limits<double>::infinity());
  CHECK(log_sum_exp(std::vector<float>{-inf, 0.0f}) == 0.0);
  CHECK(log_sum_exp(std::vector<float>{1.0f, inf}) == std::numeric_limits<double>::infinity());
  CHECK(std::isnan(log_sum_exp(std::vector<float>{1.0f, std::numeric_limits<float>::quiet_NaN()})));
}
