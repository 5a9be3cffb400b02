// The op set apart from matmul/matmul_bt (src/matmul.cpp): transpose, add, scale, masked
// softmax, layer norm, dot, norm, cosine, top-k. Shape letters as in ops.hpp.
#include "tfx/core/ops.hpp"
#include "tfx/core/ops_backward.hpp"
#include "tfx/core/vmath.hpp"
#include "tfx/core/i18n.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tfx {

namespace {

void require_rank2(const Tensor& t, const char* op, const char* name) {
  if (t.rank() != 2)
    throw Error(fmt::format(N_("{}: {} must be a matrix, got shape {}"), op, name, t.shape_str()));
}

}  // namespace

Tensor transpose(const Tensor& a) {
  require_rank2(a, "transpose", "a");
  const std::size_t M = a.rows(), N = a.cols();
  Tensor t({N, M});
  // 32 × 32 tiles, so both the rows read and the rows written stay in cache
  constexpr std::size_t T = 32;
  for (std::size_t i0 = 0; i0 < M; i0 += T)
    for (std::size_t j0 = 0; j0 < N; j0 += T)
      for (std::size_t i = i0; i < std::min(M, i0 + T); ++i)
        for (std::size_t j = j0; j < std::min(N, j0 + T); ++j) t(j, i) = a(i, j);
  return t;
}

Tensor add(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape())
    throw Error(fmt::format(N_("add: shapes {} and {} differ"), a.shape_str(), b.shape_str()));
  Tensor c = a;
  for (std::size_t i = 0; i < c.size(); ++i) c[i] += b[i];
  return c;
}

Tensor scale(const Tensor& a, float s) {
  Tensor c = a;
  for (float& v : c.values()) v *= s;
  return c;
}

// softmax(x)_j = exp(x_j − max) / Σ_k exp(x_k − max) over the kept entries of each row.
namespace {
// softmax of each row of x into y, which may be x itself (each entry is read before it is written)
void softmax_rows_into(const Tensor& x, Tensor& y, const std::vector<unsigned char>* mask) {
  const std::size_t M = x.rows(), N = x.cols();
  for (std::size_t i = 0; i < M; ++i) {
    auto keep = [&](std::size_t j) { return !mask || (*mask)[i * N + j] != 0; };
    // 1. the row max over kept entries (subtracting it keeps exp() from overflowing)
    float mx = -std::numeric_limits<float>::infinity();
    bool any = false;
    for (std::size_t j = 0; j < N; ++j)
      if (keep(j)) { mx = std::max(mx, x(i, j)); any = true; }
    if (!any) throw Error(fmt::format(N_("softmax_rows: row {} has every entry masked (no key to attend to)"), i));
    // 2. exponentiate the row at once (SLEEF's vectorized expf, ≤ 1 ULP: core/vmath.hpp), the
    //    masked entries 0, and sum in double
    float* row = &y(i, 0);
    for (std::size_t j = 0; j < N; ++j) row[j] = x(i, j) - mx;
    vmath::exp_inplace(row, N);
    double sum = 0;
    for (std::size_t j = 0; j < N; ++j) {
      if (!keep(j)) row[j] = 0.0f;
      sum += row[j];
    }
    // 3. normalise
    for (std::size_t j = 0; j < N; ++j) y(i, j) = static_cast<float>(y(i, j) / sum);
  }
}

void require_softmax_input(const Tensor& x, const std::vector<unsigned char>* mask) {
  require_rank2(x, "softmax_rows", "x");
  if (mask && mask->size() != x.size())
    throw Error(fmt::format(N_("softmax_rows: mask has {} entries, x has shape {}"), mask->size(), x.shape_str()));
}
}  // namespace

Tensor softmax_rows(const Tensor& x, const std::vector<unsigned char>* mask) {
  require_softmax_input(x, mask);
  Tensor y({x.rows(), x.cols()});
  softmax_rows_into(x, y, mask);
  return y;
}

Tensor softmax_rows(Tensor&& x, const std::vector<unsigned char>* mask) {
  require_softmax_input(x, mask);
  softmax_rows_into(x, x, mask);
  return std::move(x);
}

// p_i = exp((l_i − max l)/τ) / Σ_j exp((l_j − max l)/τ), in double
std::vector<double> softmax_at_temperature(std::span<const float> logits, double temperature) {
  std::vector<double> p(logits.size());
  if (logits.empty()) return p;
  float mx = -INFINITY;
  for (float l : logits) {
    if (std::isnan(l)) throw Error("softmax: the logits contain NaN");
    mx = std::max(mx, l);
  }
  if (mx == -INFINITY) throw Error("softmax: every logit is -inf (no token can follow)");
  double sum = 0;
  for (std::size_t i = 0; i < logits.size(); ++i) {
    // a logit of −inf (a masked token) gets probability 0
    p[i] = logits[i] == -INFINITY ? 0.0 : std::exp((static_cast<double>(logits[i]) - mx) / temperature);
    sum += p[i];
  }
  for (double& x : p) x /= sum;
  return p;
}

Tensor layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps) {
  return layer_norm_steps(x, gamma, beta, eps).y;
}

LayerNormSteps layer_norm_steps(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps) {
  require_rank2(x, "layer_norm", "x");
  const std::size_t M = x.rows(), D = x.cols();
  if (!gamma.empty() && gamma.size() != D)
    throw Error(fmt::format(N_("layer_norm: gamma has shape {}, x has shape {} (need {} values)"), gamma.shape_str(), x.shape_str(), D));
  if (!beta.empty() && beta.size() != D)
    throw Error(fmt::format(N_("layer_norm: beta has shape {}, x has shape {} (need {} values)"), beta.shape_str(), x.shape_str(), D));
  LayerNormSteps st;
  st.normalized = Tensor({M, D});
  st.y = Tensor({M, D});
  for (std::size_t i = 0; i < M; ++i) {
    // μ = mean(x), σ² = mean((x − μ)²) (population variance, as PyTorch's LayerNorm)
    double mu = 0;
    for (std::size_t j = 0; j < D; ++j) mu += x(i, j);
    mu /= static_cast<double>(D);
    double var = 0;
    for (std::size_t j = 0; j < D; ++j) var += (x(i, j) - mu) * (x(i, j) - mu);
    var /= static_cast<double>(D);
    st.mean.push_back(mu);
    st.var.push_back(var);
    st.stddev.push_back(std::sqrt(var));
    const double inv = 1.0 / std::sqrt(var + eps);
    for (std::size_t j = 0; j < D; ++j) {
      double g = gamma.empty() ? 1.0 : gamma[j], b = beta.empty() ? 0.0 : beta[j];
      st.normalized(i, j) = static_cast<float>((x(i, j) - mu) * inv + 0.0);
      st.y(i, j) = static_cast<float>(g * (x(i, j) - mu) * inv + b);
    }
  }
  return st;
}

double dot(std::span<const float> a, std::span<const float> b) {
  if (a.size() != b.size())
    throw Error(fmt::format(N_("dot: vectors of lengths {} and {}"), a.size(), b.size()));
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

double norm(std::span<const float> a) { return std::sqrt(dot(a, a)); }

double cosine(std::span<const float> a, std::span<const float> b) {
  double d = dot(a, b), na = norm(a), nb = norm(b);
  if (na == 0 || nb == 0) return 0;
  return d / (na * nb);
}

std::vector<std::pair<std::size_t, float>> top_k(std::span<const float> values, std::size_t k) {
  TopK<float> best(std::min(k, values.size()));
  for (std::size_t i = 0; i < values.size(); ++i) best.push(i, values[i]);
  return best.sorted();
}

}  // namespace tfx
