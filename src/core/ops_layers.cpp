// The layer ops of tfx/core/ops.hpp (linear, GELU, ReLU, SwiGLU, RMSNorm, embedding rows,
// residual adds): the one copy the checkpoint families, the translator and the encoder/decoder
// layers all call.
#include <fmt/format.h>

#include <cmath>

#include "tfx/core/error.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/vmath.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

// y = x·Wᵀ + b
Tensor linear(const Tensor& x, const Tensor& W, const Tensor& b, unsigned threads) {
  Tensor y = matmul_bt(x, W, threads);
  if (b.empty()) return y;
  if (b.size() != y.cols())
    throw Error(fmt::format(N_("linear: bias {} does not match the output width {} of weight {}"), b.shape_str(), y.cols(), W.shape_str()));
  const std::size_t n = y.cols();
  for (std::size_t i = 0; i < y.rows(); ++i)
    for (std::size_t j = 0; j < n; ++j) y(i, j) += b[j];
  return y;
}

// y = x·W + b
Tensor linear_in_out(const Tensor& x, const Tensor& W, const Tensor& b, unsigned threads) {
  Tensor y = matmul(x, W, threads);
  if (b.size() != y.cols())
    throw Error(fmt::format(N_("Conv1D: bias {} does not match the output width {} of weight {}"), b.shape_str(), y.cols(), W.shape_str()));
  for (std::size_t i = 0; i < y.rows(); ++i)
    for (std::size_t j = 0; j < y.cols(); ++j) y(i, j) += b[j];
  return y;
}

// erf: 0.5·x·(1 + erf(x/√2)); tanh: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
void gelu_inplace(Tensor& x, GeluForm form) {
  std::vector<float> t(x.values());
  float* v = x.data();
  const std::size_t n = x.size();
  if (form == GeluForm::tanh) {
    const float c = std::sqrt(2.0f / static_cast<float>(M_PI));
    for (std::size_t i = 0; i < n; ++i) t[i] = c * (v[i] + 0.044715f * v[i] * v[i] * v[i]);
    vmath::tanh_inplace(t.data(), n);
  } else {
    for (std::size_t i = 0; i < n; ++i) t[i] = v[i] * static_cast<float>(M_SQRT1_2);
    vmath::erf_inplace(t.data(), n);
  }
  for (std::size_t i = 0; i < n; ++i) v[i] = 0.5f * v[i] * (1.0f + t[i]);
}

// max(x, 0)
Tensor relu(Tensor x) {
  for (float& v : x.values()) v = std::max(v, 0.0f);
  return x;
}

// SiLU(g)·u = g/(1 + e^−g)·u
Tensor swiglu(const Tensor& g, const Tensor& u) {
  if (g.shape() != u.shape()) throw Error(fmt::format(N_("swiglu: gate {} and up {} differ"), g.shape_str(), u.shape_str()));
  Tensor out = g;
  std::vector<float> e(g.size());
  for (std::size_t i = 0; i < g.size(); ++i) e[i] = -g[i];
  vmath::exp_inplace(e.data(), e.size());
  for (std::size_t i = 0; i < g.size(); ++i) out[i] = g[i] / (1.0f + e[i]) * u[i];
  return out;
}

// GELU_tanh(g)·u
Tensor geglu(const Tensor& g, const Tensor& u) {
  if (g.shape() != u.shape()) throw Error(fmt::format(N_("geglu: gate {} and up {} differ"), g.shape_str(), u.shape_str()));
  Tensor out = g;
  gelu_inplace(out, GeluForm::tanh);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] *= u[i];
  return out;
}

// cap·tanh(x / cap)
void softcap_inplace(Tensor& x, float cap) {
  float* v = x.data();
  for (std::size_t i = 0; i < x.size(); ++i) v[i] /= cap;
  vmath::tanh_inplace(v, x.size());
  for (std::size_t i = 0; i < x.size(); ++i) v[i] *= cap;
}

// x / √(mean(x²) + ε) · w (the mean in double; HF computes it in float32)
Tensor rms_norm(const Tensor& x, const Tensor& w, double eps) {
  const std::size_t D = x.cols();
  if (w.size() != D) throw Error(fmt::format(N_("rms_norm: weight {} does not match the width of x {}"), w.shape_str(), x.shape_str()));
  Tensor y(x.shape());
  for (std::size_t i = 0; i < x.rows(); ++i) {
    double s = 0;
    for (std::size_t j = 0; j < D; ++j) s += static_cast<double>(x(i, j)) * x(i, j);
    const float r = static_cast<float>(1.0 / std::sqrt(s / static_cast<double>(D) + eps));
    for (std::size_t j = 0; j < D; ++j) y(i, j) = w[j] * (x(i, j) * r);
  }
  return y;
}

Tensor embedding_rows(const Tensor& table, const std::vector<std::size_t>& ids) {
  const std::size_t D = table.cols();
  Tensor x({ids.size(), D});
  for (std::size_t t = 0; t < ids.size(); ++t) {
    if (ids[t] >= table.rows()) throw Error(fmt::format(N_("embedding_rows: id {} is past the table's {} rows"), ids[t], table.rows()));
    std::copy_n(table.data() + ids[t] * D, D, x.data() + t * D);
  }
  return x;
}

void add_table_rows(Tensor& x, const Tensor& table, std::size_t first_row) {
  if (table.cols() != x.cols() || first_row + x.rows() > table.rows())
    throw Error(fmt::format(N_("add_table_rows: rows {} … of {} for x {}"), first_row, table.shape_str(), x.shape_str()));
  for (std::size_t t = 0; t < x.rows(); ++t)
    for (std::size_t j = 0; j < x.cols(); ++j) x(t, j) += table(first_row + t, j);
}

void add_inplace(Tensor& x, const Tensor& y) {
  if (x.size() != y.size()) throw Error(fmt::format(N_("add: {} and {} differ"), x.shape_str(), y.shape_str()));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] += y[i];
}

}  // namespace tfx
