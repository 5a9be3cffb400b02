// Each op's backward (tfx/core/ops_backward.hpp) and the label-smoothed cross-entropy. Long sums (over rows for a parameter's gradient, over a row for the softmax and
// the norms) accumulate in double; the matrix products use the one GEMM (gemm_view).
#include "tfx/core/ops_backward.hpp"

#include <fmt/format.h>

#include <cmath>

#include "tfx/core/error.hpp"
#include "tfx/core/gemm_view.hpp"

namespace tfx {

namespace {

void ob_same_shape(const Tensor& a, const Tensor& b, const char* op, const char* an, const char* bn) {
  if (a.shape() != b.shape())
    throw Error(fmt::format("{}: {} {} and {} {} differ in shape", op, an, a.shape_str(), bn, b.shape_str()));
}

void ob_require_matrix(const Tensor& t, const char* op, const char* name) {
  if (t.rank() != 2) throw Error(fmt::format("{}: {} must be a matrix, got shape {}", op, name, t.shape_str()));
}

}  // namespace

// dx = dy·W, dW += dyᵀ·x, db += Σ_rows dy
Tensor linear_backward(const Tensor& x, const Tensor& W, const Tensor& dy, Tensor& dW, Tensor* db, unsigned threads) {
  ob_require_matrix(x, "linear_backward", "x");
  ob_require_matrix(W, "linear_backward", "W");
  const std::size_t N = x.rows(), K = x.cols(), M = W.rows();
  if (W.cols() != K || dy.rank() != 2 || dy.rows() != N || dy.cols() != M || dW.size() != M * K || (db && db->size() != M))
    throw Error(fmt::format("linear_backward: x {}, W {}, dy {}, dW {} do not fit y = x·Wᵀ + b", x.shape_str(), W.shape_str(),
                            dy.shape_str(), dW.shape_str()));
  Tensor dx({N, K});
  gemm_view(dy.data(), M, 1, W.data(), K, 1, dx.data(), K, N, K, M, threads);
  std::vector<float> g(M * K);
  gemm_view(dy.data(), 1, M, x.data(), K, 1, g.data(), K, M, K, N, threads);
  float* dw = dW.data();
  for (std::size_t i = 0; i < M * K; ++i) dw[i] += g[i];
  if (db)
    for (std::size_t j = 0; j < M; ++j) {
      double s = 0;
      for (std::size_t i = 0; i < N; ++i) s += dy[i * M + j];
      (*db)[j] += static_cast<float>(s);
    }
  return dx;
}

void embedding_backward(const std::vector<std::size_t>& ids, const Tensor& dy, Tensor& dtable) {
  const std::size_t D = dtable.cols();
  if (dy.rank() != 2 || dy.rows() != ids.size() || dy.cols() != D)
    throw Error(fmt::format("embedding_backward: dy {} for {} ids of a table {}", dy.shape_str(), ids.size(), dtable.shape_str()));
  for (std::size_t t = 0; t < ids.size(); ++t) {
    if (ids[t] >= dtable.rows()) throw Error(fmt::format("embedding_backward: id {} is past the table's {} rows", ids[t], dtable.rows()));
    float* row = dtable.data() + ids[t] * D;
    for (std::size_t j = 0; j < D; ++j) row[j] += dy(t, j);
  }
}

// dx_j = y_j·(dy_j − Σ_k y_k·dy_k)/τ
Tensor softmax_rows_backward(const Tensor& y, const Tensor& dy, double temperature) {
  ob_require_matrix(y, "softmax_rows_backward", "y");
  ob_same_shape(y, dy, "softmax_rows_backward", "y", "dy");
  const std::size_t N = y.rows(), S = y.cols();
  Tensor dx({N, S});
  for (std::size_t i = 0; i < N; ++i) {
    double dot = 0;
    for (std::size_t j = 0; j < S; ++j) dot += double(y(i, j)) * dy(i, j);
    for (std::size_t j = 0; j < S; ++j) dx(i, j) = static_cast<float>(y(i, j) * (dy(i, j) - dot) / temperature);
  }
  return dx;
}

// dP = dz·vᵀ, dS = P ⊙ (dP − rowsum(P ⊙ dP)), dq = dS·k·scale, dk = dSᵀ·q·scale, dv = Pᵀ·dz
AttentionGrads attention_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& weights, const Tensor& dz,
                                  double scale) {
  const std::size_t T = q.rows(), S = k.rows(), d = q.cols(), dv = v.cols();
  if (k.cols() != d || v.rows() != S || weights.rows() != T || weights.cols() != S || dz.rows() != T || dz.cols() != dv)
    throw Error(fmt::format("attention_backward: q {}, k {}, v {}, weights {}, dz {} do not fit one head", q.shape_str(),
                            k.shape_str(), v.shape_str(), weights.shape_str(), dz.shape_str()));
  AttentionGrads g{Tensor({T, d}), Tensor({S, d}), Tensor({S, dv})};
  std::vector<double> dp(S);
  for (std::size_t i = 0; i < T; ++i) {
    const float* p = weights.data() + i * S;
    const float* go = dz.data() + i * dv;
    double dot_sum = 0;
    for (std::size_t j = 0; j < S; ++j) {
      if (p[j] == 0.0f) {  // a masked key (or one softmax rounded to 0): no gradient through it
        dp[j] = 0;
        continue;
      }
      const float* vj = v.data() + j * dv;
      float* gv = g.dv.data() + j * dv;
      double s = 0;
      for (std::size_t e = 0; e < dv; ++e) {
        s += double(go[e]) * vj[e];
        gv[e] += p[j] * go[e];
      }
      dp[j] = s;
      dot_sum += p[j] * s;
    }
    const float* qi = q.data() + i * d;
    float* gq = g.dq.data() + i * d;
    for (std::size_t j = 0; j < S; ++j) {
      if (p[j] == 0.0f) continue;
      const auto ds = static_cast<float>(p[j] * (dp[j] - dot_sum) * scale);
      const float* kj = k.data() + j * d;
      float* gk = g.dk.data() + j * d;
      for (std::size_t e = 0; e < d; ++e) {
        gq[e] += ds * kj[e];
        gk[e] += ds * qi[e];
      }
    }
  }
  return g;
}

AttentionGrads grouped_attention_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& weights,
                                          const Tensor& dz, std::size_t H, std::size_t KV, double scale) {
  const std::size_t T = q.rows(), S = k.rows();
  if (H == 0 || KV == 0 || H % KV != 0 || q.cols() % H != 0 || k.cols() != KV * (q.cols() / H) || v.rows() != S ||
      v.cols() % KV != 0 || weights.size() != H * T * S || dz.rows() != T || dz.cols() != H * (v.cols() / KV))
    throw Error(fmt::format("grouped_attention_backward: q {}, k {}, v {}, weights {}, dz {} do not fit {} heads, {} key/value heads",
                            q.shape_str(), k.shape_str(), v.shape_str(), weights.shape_str(), dz.shape_str(), H, KV));
  const std::size_t d = q.cols() / H, dv = v.cols() / KV, group = H / KV;
  auto cols = [](const Tensor& x, std::size_t c0, std::size_t w) {
    Tensor out({x.rows(), w});
    for (std::size_t r = 0; r < x.rows(); ++r)
      for (std::size_t c = 0; c < w; ++c) out(r, c) = x(r, c0 + c);
    return out;
  };
  auto add_cols = [](Tensor& x, std::size_t c0, const Tensor& part) {
    for (std::size_t r = 0; r < part.rows(); ++r)
      for (std::size_t c = 0; c < part.cols(); ++c) x(r, c0 + c) += part(r, c);
  };
  AttentionGrads g{Tensor({T, H * d}), Tensor({S, KV * d}), Tensor({S, KV * dv})};
  for (std::size_t h = 0; h < H; ++h) {
    const std::size_t kvh = h / group;
    Tensor p({T, S});
    std::copy_n(weights.data() + h * T * S, T * S, p.data());
    const AttentionGrads gh = attention_backward(cols(q, h * d, d), cols(k, kvh * d, d), cols(v, kvh * dv, dv), p,
                                                 cols(dz, h * dv, dv), scale);
    add_cols(g.dq, h * d, gh.dq);
    add_cols(g.dk, kvh * d, gh.dk);
    add_cols(g.dv, kvh * dv, gh.dv);
  }
  return g;
}

// h = dy ⊙ γ: dx = rstd·(h − mean(h) − x̂·mean(h ⊙ x̂)), dγ += Σ dy ⊙ x̂, dβ += Σ dy
Tensor layer_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& dy, Tensor& dgamma, Tensor& dbeta, float eps) {
  ob_require_matrix(x, "layer_norm_backward", "x");
  ob_same_shape(x, dy, "layer_norm_backward", "x", "dy");
  const std::size_t N = x.rows(), D = x.cols();
  if ((!gamma.empty() && gamma.size() != D) || dgamma.size() != D || dbeta.size() != D)
    throw Error(fmt::format("layer_norm_backward: gamma {}, dgamma {}, dbeta {} for x {}", gamma.shape_str(), dgamma.shape_str(),
                            dbeta.shape_str(), x.shape_str()));
  Tensor dx({N, D});
  std::vector<float> xh(D);
  for (std::size_t i = 0; i < N; ++i) {
    // 1. μ, σ² and x̂ as the forward computed them (x̂ rounded to float, as layer_norm_steps keeps it)
    double mu = 0, var = 0;
    for (std::size_t j = 0; j < D; ++j) mu += x(i, j);
    mu /= double(D);
    for (std::size_t j = 0; j < D; ++j) var += (x(i, j) - mu) * (x(i, j) - mu);
    var /= double(D);
    const double rstd = 1.0 / std::sqrt(var + eps);
    // 2. the two row means of h and h ⊙ x̂, and the parameter gradients
    double mh = 0, mhx = 0;
    for (std::size_t j = 0; j < D; ++j) {
      xh[j] = static_cast<float>((x(i, j) - mu) * rstd);
      const double h = double(dy(i, j)) * (gamma.empty() ? 1.0f : gamma[j]);
      mh += h;
      mhx += h * xh[j];
      dgamma[j] += dy(i, j) * xh[j];
      dbeta[j] += dy(i, j);
    }
    mh /= double(D);
    mhx /= double(D);
    for (std::size_t j = 0; j < D; ++j) {
      const double h = double(dy(i, j)) * (gamma.empty() ? 1.0f : gamma[j]);
      dx(i, j) = static_cast<float>(static_cast<float>(rstd) * (h - mh - xh[j] * mhx));
    }
  }
  return dx;
}

// h = dy ⊙ w: dx = r·h − x·r³·mean(h ⊙ x), dw += Σ dy ⊙ x·r
Tensor rms_norm_backward(const Tensor& x, const Tensor& w, const Tensor& dy, Tensor& dw, double eps) {
  ob_require_matrix(x, "rms_norm_backward", "x");
  ob_same_shape(x, dy, "rms_norm_backward", "x", "dy");
  const std::size_t N = x.rows(), D = x.cols();
  if (w.size() != D || dw.size() != D)
    throw Error(fmt::format("rms_norm_backward: w {}, dw {} for x {}", w.shape_str(), dw.shape_str(), x.shape_str()));
  Tensor dx({N, D});
  for (std::size_t i = 0; i < N; ++i) {
    double s = 0;
    for (std::size_t j = 0; j < D; ++j) s += double(x(i, j)) * x(i, j);
    const double r = 1.0 / std::sqrt(s / double(D) + eps);
    double mhx = 0;
    for (std::size_t j = 0; j < D; ++j) {
      mhx += double(dy(i, j)) * w[j] * x(i, j);
      dw[j] += static_cast<float>(dy(i, j) * x(i, j) * r);
    }
    mhx /= double(D);
    for (std::size_t j = 0; j < D; ++j)
      dx(i, j) = static_cast<float>(r * dy(i, j) * w[j] - x(i, j) * r * r * r * mhx);
  }
  return dx;
}

Tensor gelu_backward(const Tensor& x, const Tensor& dy, GeluForm form) {
  ob_same_shape(x, dy, "gelu_backward", "x", "dy");
  Tensor dx(x.shape());
  const double c = std::sqrt(2.0 / M_PI);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = x[i];
    double d;
    if (form == GeluForm::tanh) {
      const double t = std::tanh(c * (v + 0.044715 * v * v * v));
      d = 0.5 * (1 + t) + 0.5 * v * (1 - t * t) * c * (1 + 3 * 0.044715 * v * v);
    } else {
      // Φ(x) + x·φ(x)
      d = 0.5 * (1 + std::erf(v * M_SQRT1_2)) + v * std::exp(-0.5 * v * v) / std::sqrt(2 * M_PI);
    }
    dx[i] = static_cast<float>(dy[i] * d);
  }
  return dx;
}

Tensor relu_backward(const Tensor& y, const Tensor& dy) {
  ob_same_shape(y, dy, "relu_backward", "y", "dy");
  Tensor dx(y.shape());
  for (std::size_t i = 0; i < y.size(); ++i) dx[i] = y[i] > 0 ? dy[i] : 0.0f;
  return dx;
}

// σ = 1/(1 + e^−g): dg = dy·u·σ(1 + g(1 − σ)), du = dy·g·σ
SwigluGrads swiglu_backward(const Tensor& g, const Tensor& u, const Tensor& dy) {
  ob_same_shape(g, u, "swiglu_backward", "g", "u");
  ob_same_shape(g, dy, "swiglu_backward", "g", "dy");
  SwigluGrads r{Tensor(g.shape()), Tensor(g.shape())};
  for (std::size_t i = 0; i < g.size(); ++i) {
    const double s = 1.0 / (1.0 + std::exp(-double(g[i])));
    r.dg[i] = static_cast<float>(dy[i] * u[i] * s * (1 + g[i] * (1 - s)));
    r.du[i] = static_cast<float>(dy[i] * g[i] * s);
  }
  return r;
}

// loss_r = (1 − ε)(lse − z_y) − ε·mean_c(z_c − lse); ∂/∂z = (p − q)/count
CrossEntropy cross_entropy(const Tensor& logits, const std::vector<std::size_t>& targets, double label_smoothing,
                           std::size_t ignore, bool want_gradient) {
  ob_require_matrix(logits, "cross_entropy", "logits");
  const std::size_t N = logits.rows(), V = logits.cols();
  if (targets.size() != N) throw Error(fmt::format("cross_entropy: {} targets for logits {}", targets.size(), logits.shape_str()));
  const double eps = label_smoothing;
  CrossEntropy ce;
  for (std::size_t r = 0; r < N; ++r) {
    if (targets[r] == ignore) continue;
    if (targets[r] >= V) throw Error(fmt::format("cross_entropy: target {} is outside the {} classes", targets[r], V));
    ++ce.count;
  }
  if (ce.count == 0) throw Error("cross_entropy: every row is ignored (no target to score)");
  if (want_gradient) ce.dlogits = Tensor({N, V});
  double total = 0;
  for (std::size_t r = 0; r < N; ++r) {
    if (targets[r] == ignore) continue;
    const float* z = logits.data() + r * V;
    // log-sum-exp with the row max subtracted, in double
    double mx = z[0];
    for (std::size_t j = 1; j < V; ++j) mx = std::max(mx, double(z[j]));
    double sum = 0;
    for (std::size_t j = 0; j < V; ++j) sum += std::exp(z[j] - mx);
    const double lse = mx + std::log(sum);
    double mean_logp = 0;
    for (std::size_t j = 0; j < V; ++j) mean_logp += z[j] - lse;
    mean_logp /= double(V);
    const std::size_t y = targets[r];
    total += (1 - eps) * (lse - z[y]) - eps * mean_logp;
    if (want_gradient)
      for (std::size_t j = 0; j < V; ++j) {
        const double q = (j == y ? 1 - eps : 0.0) + eps / double(V);
        ce.dlogits(r, j) = static_cast<float>((std::exp(z[j] - lse) - q) / double(ce.count));
      }
  }
  ce.loss = total / double(ce.count);
  return ce;
}

}  // namespace tfx
