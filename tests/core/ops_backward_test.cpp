// Every backward of the op set (ops_backward.hpp, and RoPE's beside its forward) tested ALONE
// against a float64 central difference on random inputs. For each op the test writes the op's
// forward again in double (plain loops, the formula as the lecture writes it), takes the scalar
// loss L(x) = Σ c ⊙ f(x) with a random c (so dy = c), and differentiates L numerically,
// (L(x + h·e_i) − L(x − h·e_i)) / 2h with h = 1e-5 — in double the truncation error is ~h² and
// the rounding error ~1e-16/h, both far below the float32 gradient's own rounding. The float32
// backward must agree within a relative error of 1e-4, measured as max_i |g_i − n_i| / max_i |n_i|
// (the error relative to the largest gradient entry). Errors measured on this machine are noted
// per op; the last case shows that the comparison catches a wrong gradient.
#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "tfx/attention/attention.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/ops_backward.hpp"
#include "tfx/positional/rope.hpp"

using namespace tfx;

namespace {

using Vec = std::vector<double>;
constexpr double kTolerance = 1e-4;

std::mt19937& obt_rng() {
  static std::mt19937 g(20261128);
  return g;
}

Tensor obt_random(std::vector<std::size_t> shape, double scale = 1.0) {
  Tensor t(shape);
  std::normal_distribution<double> n(0.0, scale);
  for (float& v : t.values()) v = static_cast<float>(n(obt_rng()));
  return t;
}

Vec obt_vec(const Tensor& t) { return Vec(t.values().begin(), t.values().end()); }

// dL/dx_i by central differences, in double
Vec obt_numeric(const std::function<double(const Vec&)>& loss, Vec x, double h = 1e-5) {
  Vec g(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double keep = x[i];
    x[i] = keep + h;
    const double up = loss(x);
    x[i] = keep - h;
    const double down = loss(x);
    x[i] = keep;
    g[i] = (up - down) / (2 * h);
  }
  return g;
}

// max_i |g_i − n_i| / max_i |n_i|
double obt_error(const Tensor& analytic, const Vec& numeric) {
  REQUIRE(analytic.size() == numeric.size());
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < numeric.size(); ++i) {
    diff = std::max(diff, std::fabs(analytic[i] - numeric[i]));
    scale = std::max(scale, std::fabs(numeric[i]));
  }
  REQUIRE(scale > 0);
  return diff / scale;
}

// Σ c ⊙ y
double obt_dot(const Vec& c, const Vec& y) {
  double s = 0;
  for (std::size_t i = 0; i < c.size(); ++i) s += c[i] * y[i];
  return s;
}

void obt_report(const char* op, const char* wrt, double err) {
  const std::string line = fmt::format("{} d/d{}: max relative error {:.2e}", op, wrt, err);
  MESSAGE(line);
  CHECK(err <= kTolerance);
}

// ---- the double-precision forwards ----

// y = x·Wᵀ + b   x: (N, K), W: (M, K)
Vec dlinear(const Vec& x, const Vec& W, const Vec& b, std::size_t N, std::size_t K, std::size_t M) {
  Vec y(N * M);
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < M; ++j) {
      double s = b[j];
      for (std::size_t k = 0; k < K; ++k) s += x[i * K + k] * W[j * K + k];
      y[i * M + j] = s;
    }
  return y;
}

// row softmax of x/τ over kept entries
Vec dsoftmax(const Vec& x, std::size_t N, std::size_t S, double tau, const std::vector<unsigned char>* mask) {
  Vec y(N * S, 0.0);
  for (std::size_t i = 0; i < N; ++i) {
    double mx = -INFINITY, sum = 0;
    for (std::size_t j = 0; j < S; ++j)
      if (!mask || (*mask)[i * S + j]) mx = std::max(mx, x[i * S + j] / tau);
    for (std::size_t j = 0; j < S; ++j)
      if (!mask || (*mask)[i * S + j]) sum += (y[i * S + j] = std::exp(x[i * S + j] / tau - mx));
    for (std::size_t j = 0; j < S; ++j) y[i * S + j] /= sum;
  }
  return y;
}

// softmax(q·kᵀ·scale, keep)·v   q: (T, d), k: (S, d), v: (S, dv)
Vec dattention(const Vec& q, const Vec& k, const Vec& v, std::size_t T, std::size_t S, std::size_t d, std::size_t dv,
               double scale, const std::vector<unsigned char>& keep) {
  Vec s(T * S);
  for (std::size_t i = 0; i < T; ++i)
    for (std::size_t j = 0; j < S; ++j) {
      double dot = 0;
      for (std::size_t e = 0; e < d; ++e) dot += q[i * d + e] * k[j * d + e];
      s[i * S + j] = dot * scale;
    }
  const Vec p = dsoftmax(s, T, S, 1.0, keep.empty() ? nullptr : &keep);
  Vec z(T * dv, 0.0);
  for (std::size_t i = 0; i < T; ++i)
    for (std::size_t j = 0; j < S; ++j)
      for (std::size_t e = 0; e < dv; ++e) z[i * dv + e] += p[i * S + j] * v[j * dv + e];
  return z;
}

Vec dlayer_norm(const Vec& x, const Vec& g, const Vec& b, std::size_t N, std::size_t D, double eps) {
  Vec y(N * D);
  for (std::size_t i = 0; i < N; ++i) {
    double mu = 0, var = 0;
    for (std::size_t j = 0; j < D; ++j) mu += x[i * D + j] / double(D);
    for (std::size_t j = 0; j < D; ++j) var += (x[i * D + j] - mu) * (x[i * D + j] - mu) / double(D);
    for (std::size_t j = 0; j < D; ++j) y[i * D + j] = g[j] * (x[i * D + j] - mu) / std::sqrt(var + eps) + b[j];
  }
  return y;
}

Vec drms_norm(const Vec& x, const Vec& w, std::size_t N, std::size_t D, double eps) {
  Vec y(N * D);
  for (std::size_t i = 0; i < N; ++i) {
    double ms = 0;
    for (std::size_t j = 0; j < D; ++j) ms += x[i * D + j] * x[i * D + j] / double(D);
    for (std::size_t j = 0; j < D; ++j) y[i * D + j] = w[j] * x[i * D + j] / std::sqrt(ms + eps);
  }
  return y;
}

double dgelu(double x, GeluForm f) {
  if (f == GeluForm::erf) return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}

std::vector<unsigned char> obt_keep(const AttentionOptions& o, std::size_t T, std::size_t S) { return attention_mask(T, S, o); }

// One head of attention: the float forward (scaled_dot_product_attention) for the weights the
// backward reads, against the double forward.
void check_attention(const char* name, std::size_t T, std::size_t S, const AttentionOptions& o) {
  const std::size_t d = 4, dv = 3;
  const Tensor q = obt_random({T, d}), k = obt_random({S, d}), v = obt_random({S, dv}), c = obt_random({T, dv});
  const AttentionSteps st = scaled_dot_product_attention(q, k, v, o);
  const double scale = 1.0 / st.divisor;
  const AttentionGrads g = attention_backward(q, k, v, st.weights, c, scale);
  const auto keep = obt_keep(o, T, S);
  const Vec vq = obt_vec(q), vk = obt_vec(k), vv = obt_vec(v), vc = obt_vec(c);
  obt_report(name, "q", obt_error(g.dq, obt_numeric([&](const Vec& x) { return obt_dot(vc, dattention(x, vk, vv, T, S, d, dv, scale, keep)); }, vq)));
  obt_report(name, "k", obt_error(g.dk, obt_numeric([&](const Vec& x) { return obt_dot(vc, dattention(vq, x, vv, T, S, d, dv, scale, keep)); }, vk)));
  obt_report(name, "v", obt_error(g.dv, obt_numeric([&](const Vec& x) { return obt_dot(vc, dattention(vq, vk, x, T, S, d, dv, scale, keep)); }, vv)));
}

}  // namespace

TEST_CASE("ops backward: linear (dx, dW, db) equals a float64 central difference (<= 1e-4 relative)") {
  const std::size_t N = 5, K = 7, M = 4;
  const Tensor x = obt_random({N, K}), W = obt_random({M, K}), b = obt_random({M}), c = obt_random({N, M});
  Tensor dW({M, K}), db({M});
  const Tensor dx = linear_backward(x, W, c, dW, &db);
  const Vec vx = obt_vec(x), vW = obt_vec(W), vb = obt_vec(b), vc = obt_vec(c);
  obt_report("linear", "x", obt_error(dx, obt_numeric([&](const Vec& t) { return obt_dot(vc, dlinear(t, vW, vb, N, K, M)); }, vx)));
  obt_report("linear", "W", obt_error(dW, obt_numeric([&](const Vec& t) { return obt_dot(vc, dlinear(vx, t, vb, N, K, M)); }, vW)));
  obt_report("linear", "b", obt_error(db, obt_numeric([&](const Vec& t) { return obt_dot(vc, dlinear(vx, vW, t, N, K, M)); }, vb)));
  // the forward it differentiates is tfx::linear
  const Tensor y = linear(x, W, b);
  const Vec yd = dlinear(vx, vW, vb, N, K, M);
  for (std::size_t i = 0; i < y.size(); ++i) CHECK(y[i] == doctest::Approx(yd[i]).epsilon(1e-5));
}

TEST_CASE("ops backward: embedding rows (a repeated id sums its rows' gradients)") {
  const std::size_t V = 6, D = 3;
  const std::vector<std::size_t> ids{1, 4, 1, 0};
  const Tensor table = obt_random({V, D}), c = obt_random({ids.size(), D});
  Tensor dtable({V, D});
  embedding_backward(ids, c, dtable);
  const Vec vc = obt_vec(c);
  auto fwd = [&](const Vec& t) {
    Vec y;
    for (std::size_t id : ids)
      for (std::size_t j = 0; j < D; ++j) y.push_back(t[id * D + j]);
    return obt_dot(vc, y);
  };
  obt_report("embedding", "table", obt_error(dtable, obt_numeric(fwd, obt_vec(table))));
}

TEST_CASE("ops backward: softmax with a temperature and a mask") {
  const std::size_t N = 4, S = 6;
  const double tau = 0.7;
  const Tensor x = obt_random({N, S}), c = obt_random({N, S});
  std::vector<unsigned char> mask(N * S, 1);
  mask[2] = mask[9] = mask[10] = mask[23] = 0;
  const Tensor y = softmax_rows(scale(x, static_cast<float>(1.0 / tau)), &mask);
  const Tensor dx = softmax_rows_backward(y, c, tau);
  const Vec vc = obt_vec(c);
  obt_report("softmax (τ 0.7, masked)", "x", obt_error(dx, obt_numeric([&](const Vec& t) { return obt_dot(vc, dsoftmax(t, N, S, tau, &mask)); }, obt_vec(x))));
  // the distribution softmax is the same function in double
  const std::vector<double> p = softmax_at_temperature(x.row(0), tau);
  const Vec pd = dsoftmax(obt_vec(x), N, S, tau, nullptr);
  for (std::size_t j = 0; j < S; ++j) CHECK(p[j] == doctest::Approx(pd[j]).epsilon(1e-12));
}

TEST_CASE("ops backward: scaled dot-product attention, causal, padding and cross") {
  AttentionOptions causal;
  causal.causal = true;
  check_attention("attention (causal self)", 5, 5, causal);
  AttentionOptions padded;
  padded.pad = 2;
  check_attention("attention (padding 2)", 5, 5, padded);
  check_attention("attention (cross, T 3, S 6)", 3, 6, AttentionOptions{});
  AttentionOptions hot;
  hot.temperature = 0.5;
  check_attention("attention (τ 0.5)", 4, 4, hot);
}

TEST_CASE("ops backward: grouped-query attention (4 heads reading 2 key/value heads)") {
  const std::size_t T = 5, H = 4, KV = 2, d = 3;
  const Tensor q = obt_random({T, H * d}), k = obt_random({T, KV * d}), v = obt_random({T, KV * d}), c = obt_random({T, H * d});
  const GroupedAttention a = grouped_query_attention(q, k, v, H, KV, d, true);
  const double scale = 1.0 / std::sqrt(double(d));
  const AttentionGrads g = grouped_attention_backward(q, k, v, a.weights, c, H, KV, scale);
  std::vector<unsigned char> keep(T * T, 1);
  for (std::size_t i = 0; i < T; ++i)
    for (std::size_t j = i + 1; j < T; ++j) keep[i * T + j] = 0;
  auto cols = [](const Vec& x, std::size_t width, std::size_t c0, std::size_t w) {
    Vec o;
    for (std::size_t r = 0; r < x.size() / width; ++r)
      for (std::size_t j = 0; j < w; ++j) o.push_back(x[r * width + c0 + j]);
    return o;
  };
  const Vec vq = obt_vec(q), vk = obt_vec(k), vv = obt_vec(v), vc = obt_vec(c);
  auto loss = [&](const Vec& Q, const Vec& K, const Vec& Vv) {
    double s = 0;
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t kv = h / (H / KV);
      s += obt_dot(cols(vc, H * d, h * d, d),
                   dattention(cols(Q, H * d, h * d, d), cols(K, KV * d, kv * d, d), cols(Vv, KV * d, kv * d, d), T, T, d, d, scale, keep));
    }
    return s;
  };
  obt_report("grouped attention", "q", obt_error(g.dq, obt_numeric([&](const Vec& x) { return loss(x, vk, vv); }, vq)));
  obt_report("grouped attention", "k", obt_error(g.dk, obt_numeric([&](const Vec& x) { return loss(vq, x, vv); }, vk)));
  obt_report("grouped attention", "v", obt_error(g.dv, obt_numeric([&](const Vec& x) { return loss(vq, vk, x); }, vv)));
}

TEST_CASE("ops backward: layer norm (dx, dγ, dβ)") {
  const std::size_t N = 4, D = 8;
  const Tensor x = obt_random({N, D}, 2.0), g = obt_random({D}), b = obt_random({D}), c = obt_random({N, D});
  Tensor dg({D}), db({D});
  const Tensor dx = layer_norm_backward(x, g, c, dg, db, 1e-5f);
  const Vec vx = obt_vec(x), vg = obt_vec(g), vb = obt_vec(b), vc = obt_vec(c);
  const double eps = double(1e-5f);
  obt_report("layer norm", "x", obt_error(dx, obt_numeric([&](const Vec& t) { return obt_dot(vc, dlayer_norm(t, vg, vb, N, D, eps)); }, vx)));
  obt_report("layer norm", "gamma", obt_error(dg, obt_numeric([&](const Vec& t) { return obt_dot(vc, dlayer_norm(vx, t, vb, N, D, eps)); }, vg)));
  obt_report("layer norm", "beta", obt_error(db, obt_numeric([&](const Vec& t) { return obt_dot(vc, dlayer_norm(vx, vg, t, N, D, eps)); }, vb)));
}

TEST_CASE("ops backward: RMS norm (dx, dw)") {
  const std::size_t N = 4, D = 8;
  const double eps = 1e-6;
  const Tensor x = obt_random({N, D}), w = obt_random({D}), c = obt_random({N, D});
  Tensor dw({D});
  const Tensor dx = rms_norm_backward(x, w, c, dw, eps);
  const Vec vx = obt_vec(x), vw = obt_vec(w), vc = obt_vec(c);
  obt_report("rms norm", "x", obt_error(dx, obt_numeric([&](const Vec& t) { return obt_dot(vc, drms_norm(t, vw, N, D, eps)); }, vx)));
  obt_report("rms norm", "w", obt_error(dw, obt_numeric([&](const Vec& t) { return obt_dot(vc, drms_norm(vx, t, N, D, eps)); }, vw)));
}

TEST_CASE("ops backward: GELU (erf and tanh), ReLU, SwiGLU") {
  const std::size_t N = 3, D = 7;
  const Tensor x = obt_random({N, D}, 1.5), c = obt_random({N, D});
  const Vec vx = obt_vec(x), vc = obt_vec(c);
  for (GeluForm f : {GeluForm::erf, GeluForm::tanh}) {
    const Tensor dx = gelu_backward(x, c, f);
    const double err = obt_error(dx, obt_numeric([&](const Vec& t) {
      Vec y;
      for (double v : t) y.push_back(dgelu(v, f));
      return obt_dot(vc, y);
    }, vx));
    obt_report(f == GeluForm::erf ? "gelu (erf)" : "gelu (tanh)", "x", err);
  }
  // ReLU: inputs kept away from the kink at 0, where the difference quotient straddles it
  Tensor xr = x;
  for (float& v : xr.values())
    if (std::fabs(v) < 0.01f) v = 0.5f;
  const Tensor dxr = relu_backward(relu(xr), c);
  obt_report("relu", "x", obt_error(dxr, obt_numeric([&](const Vec& t) {
    Vec y;
    for (double v : t) y.push_back(v > 0 ? v : 0);
    return obt_dot(vc, y);
  }, obt_vec(xr))));
  const Tensor u = obt_random({N, D});
  const SwigluGrads sg = swiglu_backward(x, u, c);
  const Vec vu = obt_vec(u);
  auto sw = [&](const Vec& g, const Vec& uu) {
    Vec y;
    for (std::size_t i = 0; i < g.size(); ++i) y.push_back(g[i] / (1 + std::exp(-g[i])) * uu[i]);
    return obt_dot(vc, y);
  };
  obt_report("swiglu", "g", obt_error(sg.dg, obt_numeric([&](const Vec& t) { return sw(t, vu); }, vx)));
  obt_report("swiglu", "u", obt_error(sg.du, obt_numeric([&](const Vec& t) { return sw(vx, t); }, vu)));
}

TEST_CASE("ops backward: RoPE in both pair layouts (interleaved and half)") {
  const std::size_t T = 5, heads = 2, hd = 6;
  for (RopeLayout layout : {RopeLayout::interleaved, RopeLayout::half}) {
    RopeConfig rc;
    rc.dim = hd;
    rc.layout = layout;
    const RopeTables tab = rope_tables(T, rc);
    const Tensor x = obt_random({T, heads * hd}), c = obt_random({T, heads * hd});
    Tensor dx = c;
    rope_rotate_heads_backward(dx, heads, tab, layout);
    const Vec vc = obt_vec(c);
    auto rotate = [&](const Vec& t) {
      Vec y = t;
      const std::size_t P = hd / 2;
      for (std::size_t r = 0; r < T; ++r)
        for (std::size_t h = 0; h < heads; ++h)
          for (std::size_t j = 0; j < P; ++j) {
            const std::size_t a = r * heads * hd + h * hd + (layout == RopeLayout::half ? j : 2 * j);
            const std::size_t b = r * heads * hd + h * hd + (layout == RopeLayout::half ? j + P : 2 * j + 1);
            const double cs = tab.cos[r * P + j], sn = tab.sin[r * P + j];
            y[a] = t[a] * cs - t[b] * sn;
            y[b] = t[b] * cs + t[a] * sn;
          }
      return y;
    };
    obt_report(layout == RopeLayout::half ? "rope (half)" : "rope (interleaved)", "x",
               obt_error(dx, obt_numeric([&](const Vec& t) { return obt_dot(vc, rotate(t)); }, obt_vec(x))));
    // the double forward above is rope_rotate_heads
    Tensor y = x;
    rope_rotate_heads(y, heads, tab, layout);
    const Vec yd = rotate(obt_vec(x));
    for (std::size_t i = 0; i < y.size(); ++i) CHECK(y[i] == doctest::Approx(yd[i]).epsilon(1e-5));
  }
}

TEST_CASE("ops backward: cross-entropy with label smoothing and an ignored row") {
  const std::size_t N = 5, V = 7, ignore = 0;
  const double eps = 0.1;
  const Tensor z = obt_random({N, V}, 2.0);
  const std::vector<std::size_t> y{3, 0, 6, 1, 2};  // row 1 is ignored
  const CrossEntropy ce = cross_entropy(z, y, eps, ignore, true);
  auto loss = [&](const Vec& t) {
    double total = 0;
    std::size_t n = 0;
    for (std::size_t r = 0; r < N; ++r) {
      if (y[r] == ignore) continue;
      double mx = -INFINITY, sum = 0;
      for (std::size_t j = 0; j < V; ++j) mx = std::max(mx, t[r * V + j]);
      for (std::size_t j = 0; j < V; ++j) sum += std::exp(t[r * V + j] - mx);
      for (std::size_t j = 0; j < V; ++j) {
        const double logp = t[r * V + j] - mx - std::log(sum), q = (j == y[r] ? 1 - eps : 0.0) + eps / double(V);
        total -= q * logp;
      }
      ++n;
    }
    return total / double(n);
  };
  CHECK(ce.count == 4);
  CHECK(ce.loss == doctest::Approx(loss(obt_vec(z))).epsilon(1e-6));
  obt_report("cross-entropy (ε 0.1)", "logits", obt_error(ce.dlogits, obt_numeric(loss, obt_vec(z))));
}

TEST_CASE("ops backward: the comparison fails a wrong gradient (a flipped sign, a 0.1 % error)") {
  const std::size_t N = 4, D = 8;
  const Tensor x = obt_random({N, D}), g = obt_random({D}), b = obt_random({D}), c = obt_random({N, D});
  Tensor dg({D}), db({D});
  const Tensor dx = layer_norm_backward(x, g, c, dg, db, 1e-5f);
  const Vec vg = obt_vec(g), vb = obt_vec(b), vc = obt_vec(c);
  const Vec n = obt_numeric([&](const Vec& t) { return obt_dot(vc, dlayer_norm(t, vg, vb, N, D, double(1e-5f))); }, obt_vec(x));
  CHECK(obt_error(dx, n) <= kTolerance);
  // the largest entry off by 0.1 %, and one entry's sign flipped: both fail the tolerance
  std::size_t big = 0;
  for (std::size_t i = 0; i < n.size(); ++i)
    if (std::fabs(n[i]) > std::fabs(n[big])) big = i;
  Tensor off = dx;
  off[big] *= 1.001f;
  CHECK(obt_error(off, n) > kTolerance);
  Tensor flipped = dx;
  flipped[3] = -flipped[3];
  CHECK(obt_error(flipped, n) > kTolerance);
  // and the softmax backward without its −Σ y·dy term (a classic slip) is caught too
  const Tensor s = obt_random({N, D}), y = softmax_rows(s);
  Tensor slip({N, D});
  for (std::size_t i = 0; i < y.size(); ++i) slip[i] = y[i] * c[i];
  const Vec ns = obt_numeric([&](const Vec& t) { return obt_dot(vc, dsoftmax(t, N, D, 1.0, nullptr)); }, obt_vec(s));
  CHECK(obt_error(softmax_rows_backward(y, c), ns) <= kTolerance);
  CHECK(obt_error(slip, ns) > kTolerance);
}
