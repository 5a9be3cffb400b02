// Pearson/Spearman correlation, the two-sided p-value of a correlation (regularized incomplete
// beta), and PCA by power iteration.
#include "tfx/core/stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "tfx/core/ops.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

double pearson(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size()) throw Error(fmt::format(N_("pearson: {} and {} values"), x.size(), y.size()));
  const std::size_t n = x.size();
  if (n < 2) return std::numeric_limits<double>::quiet_NaN();
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n, my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx == 0 || syy == 0) return std::numeric_limits<double>::quiet_NaN();
  return sxy / std::sqrt(sxx * syy);
}

double log_sum_exp(std::span<const float> x) {
  double mx = -std::numeric_limits<double>::infinity();
  for (float v : x) {
    if (std::isnan(v)) return std::numeric_limits<double>::quiet_NaN();
    mx = std::max(mx, static_cast<double>(v));
  }
  if (std::isinf(mx)) return mx;  // empty, all −∞, or a +∞ among them
  double sum = 0;
  for (float v : x) sum += std::exp(static_cast<double>(v) - mx);
  return mx + std::log(sum);
}

std::vector<double> average_ranks(std::span<const double> x) {
  std::vector<std::size_t> idx(x.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  std::vector<double> rank(x.size());
  for (std::size_t i = 0; i < idx.size();) {
    std::size_t j = i;
    while (j + 1 < idx.size() && x[idx[j + 1]] == x[idx[i]]) ++j;
    // positions i..j (0-based) share the average of ranks i+1..j+1
    const double avg = (static_cast<double>(i + 1) + static_cast<double>(j + 1)) / 2.0;
    for (std::size_t k = i; k <= j; ++k) rank[idx[k]] = avg;
    i = j + 1;
  }
  return rank;
}

double spearman(std::span<const double> x, std::span<const double> y) {
  auto rx = average_ranks(x), ry = average_ranks(y);
  return pearson(rx, ry);
}

Pca pca(const Tensor& x, std::size_t k) {
  if (x.rank() != 2) throw Error(fmt::format(N_("pca: x must be a matrix, got shape {}"), x.shape_str()));
  const std::size_t N = x.rows(), D = x.cols();
  if (N < 2) throw Error(fmt::format(N_("pca: needs at least 2 rows, got shape {}"), x.shape_str()));
  if (k == 0 || k > D) throw Error(fmt::format(N_("pca: {} components asked of {}-dimensional rows"), k, D));
  Pca out;
  // 1. centre the rows
  out.mean.assign(D, 0.0f);
  for (std::size_t j = 0; j < D; ++j) {
    double s = 0;
    for (std::size_t i = 0; i < N; ++i) s += x(i, j);
    out.mean[j] = static_cast<float>(s / static_cast<double>(N));
  }
  Tensor xc = x;
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < D; ++j) xc(i, j) -= out.mean[j];
  // 2. covariance C = Xcᵀ Xc / (N − 1), on the tensor core; then in double for the iteration
  Tensor cov_f = matmul(transpose(xc), xc);
  std::vector<double> C(D * D);
  for (std::size_t i = 0; i < D * D; ++i) C[i] = cov_f[i] / static_cast<double>(N - 1);
  double total = 0;
  for (std::size_t j = 0; j < D; ++j) total += C[j * D + j];
  // 3. power iteration for each axis, deflating C ← C − λ v vᵀ after each
  out.components = Tensor({k, D});
  for (std::size_t c = 0; c < k; ++c) {
    std::vector<double> v(D), w(D);
    for (std::size_t j = 0; j < D; ++j) v[j] = 1.0 + 0.01 * static_cast<double>((j * 7919 + c * 104729) % 97);  // fixed start
    double lambda = 0;
    for (int it = 0; it < 5000; ++it) {
      for (std::size_t i = 0; i < D; ++i) {
        double s = 0;
        for (std::size_t j = 0; j < D; ++j) s += C[i * D + j] * v[j];
        w[i] = s;
      }
      double nw = 0;
      for (double e : w) nw += e * e;
      nw = std::sqrt(nw);
      if (nw == 0) break;  // the remaining variance is zero
      double delta = 0;
      for (std::size_t j = 0; j < D; ++j) {
        double nv = w[j] / nw;
        delta = std::max(delta, std::abs(nv - v[j]));
        v[j] = nv;
      }
      lambda = nw;
      if (delta < 1e-12) break;
    }
    // sign: largest-magnitude loading positive
    std::size_t big = 0;
    for (std::size_t j = 1; j < D; ++j)
      if (std::abs(v[j]) > std::abs(v[big])) big = j;
    if (v[big] < 0)
      for (double& e : v) e = -e;
    double vn = 0;
    for (double e : v) vn += e * e;
    vn = std::sqrt(vn);
    for (std::size_t j = 0; j < D; ++j) out.components(c, j) = static_cast<float>(vn > 0 ? v[j] / vn : 0.0);
    out.variance.push_back(lambda);
    out.explained_ratio.push_back(total > 0 ? lambda / total : 0.0);
    for (std::size_t i = 0; i < D; ++i)
      for (std::size_t j = 0; j < D; ++j) C[i * D + j] -= lambda * v[i] * v[j] / (vn * vn);
  }
  // 4. coordinates = Xc · componentsᵀ
  out.coords = matmul_bt(xc, out.components);
  return out;
}

// ---- significance ------------------------------------------------------------------------------

namespace {

// Continued fraction for the regularized incomplete beta (modified Lentz), valid for
// x < (a+1)/(a+b+2).
double beta_cf(double a, double b, double x) {
  const double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::abs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (std::abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (std::abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::abs(del - 1) < 1e-16) break;
  }
  return h;
}

// I_x(a, b)
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double lbt = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  if (x < (a + 1) / (a + b + 2)) return std::exp(lbt) * beta_cf(a, b, x) / a;
  return 1 - std::exp(lbt) * beta_cf(b, a, 1 - x) / b;
}

}  // namespace

double correlation_p_value(double r, std::size_t n) {
  if (n < 3 || std::isnan(r)) return std::numeric_limits<double>::quiet_NaN();
  const double ar = std::abs(r);
  if (ar >= 1) return 0.0;
  const double df = static_cast<double>(n - 2);
  // df/(df + t²) with t² = r²·df/(1 − r²) simplifies to 1 − r²
  return incomplete_beta(df / 2, 0.5, 1 - ar * ar);
}

}  // namespace tfx
