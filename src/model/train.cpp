// Training the lecture's Transformer: the batched forward pass with its intermediates, the
// hand-written backward pass of every op, Adam, greedy decoding and held-out scoring with the
// same pass, and the training loop (train.hpp).
#include "tfx/model/train.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/parallel.hpp"
#include "tfx/attention/schedule.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/gemm_view.hpp"
#include "tfx/core/random.hpp"
#include "tfx/positional/positional.hpp"

namespace tfx {

namespace {

using Buf = std::vector<float>;

// ---- linear: Y = X·Wᵀ + b ----

// X: (n, in), W: (out, in), b: (out) or null -> Y: (n, out)
void tr_linear(const float* x, std::size_t n, std::size_t in, const float* w, const float* b, std::size_t out, float* y,
               unsigned threads) {
  gemm_view(x, in, 1, w, 1, in, y, out, n, out, in, threads);
  if (b)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < out; ++j) y[i * out + j] += b[j];
}

// Backward of Y = X·Wᵀ + b: dX (+)= dY·W, dW += dYᵀ·X, db += Σ_rows dY. dx may be null;
// accumulate_dx adds to dx instead of overwriting it.
void tr_linear_back(const float* x, std::size_t n, std::size_t in, const float* w, std::size_t out, const float* dy, float* dx,
                    bool accumulate_dx, float* dw, float* db, unsigned threads, Buf& scratch) {
  if (dx) {
    if (accumulate_dx) {
      scratch.resize(n * in);
      gemm_view(dy, out, 1, w, in, 1, scratch.data(), in, n, in, out, threads);
      for (std::size_t i = 0; i < n * in; ++i) dx[i] += scratch[i];
    } else {
      gemm_view(dy, out, 1, w, in, 1, dx, in, n, in, out, threads);
    }
  }
  scratch.resize(out * in);
  gemm_view(dy, 1, out, x, in, 1, scratch.data(), in, out, in, n, threads);
  for (std::size_t i = 0; i < out * in; ++i) dw[i] += scratch[i];
  if (db)
    for (std::size_t j = 0; j < out; ++j) {
      double s = 0;
      for (std::size_t i = 0; i < n; ++i) s += dy[i * out + j];
      db[j] += static_cast<float>(s);
    }
}

// ---- layer norm: y = γ ⊙ (x − μ)/√(σ² + 1e-5) + β per row ----

struct TrNorm {
  Buf xhat, rstd;  // x̂ (n, D), 1/√(σ² + eps) (n)
};

void tr_norm(const float* x, std::size_t n, std::size_t D, const float* g, const float* b, float* y, TrNorm& c) {
  c.xhat.resize(n * D);
  c.rstd.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const float* r = x + i * D;
    double mean = 0, var = 0;
    for (std::size_t j = 0; j < D; ++j) mean += r[j];
    mean /= D;
    for (std::size_t j = 0; j < D; ++j) var += (r[j] - mean) * (r[j] - mean);
    var /= D;
    const double rstd = 1.0 / std::sqrt(var + 1e-5);
    c.rstd[i] = static_cast<float>(rstd);
    for (std::size_t j = 0; j < D; ++j) {
      const float xh = static_cast<float>((r[j] - mean) * rstd);
      c.xhat[i * D + j] = xh;
      y[i * D + j] = g[j] * xh + b[j];
    }
  }
}

// With h = dy ⊙ γ: dx = rstd·(h − mean(h) − x̂·mean(h ⊙ x̂)), dγ += Σ dy ⊙ x̂, dβ += Σ dy.
// dx is overwritten (it may alias dy).
void tr_norm_back(const TrNorm& c, std::size_t n, std::size_t D, const float* g, const float* dy, float* dx, float* dg,
                  float* db) {
  for (std::size_t i = 0; i < n; ++i) {
    const float* xh = c.xhat.data() + i * D;
    const float* d = dy + i * D;
    double mh = 0, mhx = 0;
    for (std::size_t j = 0; j < D; ++j) {
      const double h = double(d[j]) * g[j];
      mh += h;
      mhx += h * xh[j];
      dg[j] += d[j] * xh[j];
      db[j] += d[j];
    }
    mh /= D;
    mhx /= D;
    for (std::size_t j = 0; j < D; ++j) {
      const double h = double(d[j]) * g[j];
      dx[i * D + j] = static_cast<float>(c.rstd[i] * (h - mh - xh[j] * mhx));
    }
  }
}

// ---- the parameters of one module, by pointer ----

struct TrMha {
  const float *w_in, *b_in, *w_out, *b_out;
  float *dw_in, *db_in, *dw_out, *db_out;
};
struct TrNormP {
  const float *g, *b;
  float *dg, *db;
};
struct TrFfn {
  const float *w1, *b1, *w2, *b2;
  float *dw1, *db1, *dw2, *db2;
};

// ---- multi-head attention (nn.MultiheadAttention, batch_first) ----

struct TrAttn {
  const float *xq, *xkv;     // inputs (B·Tq, D), (B·Tk, D)
  Buf q, k, v, p, concat;    // (B·Tq, D), (B·Tk, D) ×2, weights (B, H, Tq, Tk), heads' outputs (B·Tq, D)
};

struct TrShape {
  std::size_t B, Tq, Tk, D, H;
  bool causal;
  const std::size_t* key_ids;  // (B, Tk): a key whose id is pad is masked
  std::size_t pad;
  float scale;  // 1/√d_k or 1
};

// Q = x_q·W_Qᵀ + b_Q, K, V likewise from x_kv; per sentence and head
// P = softmax(Q_h·K_hᵀ·scale, masked), O_h = P·V_h; out = Concat(O_h)·W_Oᵀ + b_O.
void tr_attention(const TrShape& s, const TrMha& m, const float* xq, const float* xkv, float* out, TrAttn& c,
                  unsigned threads) {
  const std::size_t D = s.D, nq = s.B * s.Tq, nk = s.B * s.Tk, dk = D / s.H;
  c.xq = xq;
  c.xkv = xkv;
  c.q.resize(nq * D);
  c.k.resize(nk * D);
  c.v.resize(nk * D);
  c.p.assign(s.B * s.H * s.Tq * s.Tk, 0.0f);
  c.concat.assign(nq * D, 0.0f);
  tr_linear(xq, nq, D, m.w_in, m.b_in, D, c.q.data(), threads);
  tr_linear(xkv, nk, D, m.w_in + D * D, m.b_in + D, D, c.k.data(), threads);
  tr_linear(xkv, nk, D, m.w_in + 2 * D * D, m.b_in + 2 * D, D, c.v.data(), threads);
  const unsigned T = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(s.B)));
  parallel_for_threads(T, [&](unsigned t, unsigned nt) {
    std::vector<double> row(s.Tk);
    for (std::size_t b = t; b < s.B; b += nt)
      for (std::size_t h = 0; h < s.H; ++h)
        for (std::size_t i = 0; i < s.Tq; ++i) {
          const float* q = c.q.data() + (b * s.Tq + i) * D + h * dk;
          float* p = c.p.data() + ((b * s.H + h) * s.Tq + i) * s.Tk;
          double mx = -INFINITY;
          for (std::size_t j = 0; j < s.Tk; ++j) {
            const bool masked = (s.causal && j > i) || s.key_ids[b * s.Tk + j] == s.pad;
            if (masked) {
              row[j] = -INFINITY;
              continue;
            }
            const float* k = c.k.data() + (b * s.Tk + j) * D + h * dk;
            float dot = 0;
            for (std::size_t e = 0; e < dk; ++e) dot += q[e] * k[e];
            row[j] = double(dot * s.scale);
            mx = std::max(mx, row[j]);
          }
          if (mx == -INFINITY) throw Error("train: an attention row has every key masked (an empty sentence?)");
          double sum = 0;
          for (std::size_t j = 0; j < s.Tk; ++j) {
            row[j] = row[j] == -INFINITY ? 0.0 : std::exp(row[j] - mx);
            sum += row[j];
          }
          float* o = c.concat.data() + (b * s.Tq + i) * D + h * dk;
          for (std::size_t j = 0; j < s.Tk; ++j) {
            p[j] = static_cast<float>(row[j] / sum);
            if (p[j] == 0.0f) continue;
            const float* v = c.v.data() + (b * s.Tk + j) * D + h * dk;
            for (std::size_t e = 0; e < dk; ++e) o[e] += p[j] * v[e];
          }
        }
  });
  tr_linear(c.concat.data(), nq, D, m.w_out, m.b_out, D, out, threads);
}

// Backward: dConcat from the output projection; per head dP = dO·Vᵀ, dV = Pᵀ·dO,
// dS = P ⊙ (dP − Σ_j P·dP) (softmax), dQ = dS·K·scale, dK = dSᵀ·Q·scale; then the three input
// projections. dxq and dxkv are accumulated into (they may be the same buffer: self-attention).
void tr_attention_back(const TrShape& s, const TrMha& m, const TrAttn& c, const float* dout, float* dxq, float* dxkv,
                       unsigned threads, Buf& scratch) {
  const std::size_t D = s.D, nq = s.B * s.Tq, nk = s.B * s.Tk, dk = D / s.H;
  Buf dconcat(nq * D), dq(nq * D, 0.0f), dkk(nk * D, 0.0f), dv(nk * D, 0.0f);
  tr_linear_back(c.concat.data(), nq, D, m.w_out, D, dout, dconcat.data(), false, m.dw_out, m.db_out, threads, scratch);
  const unsigned T = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(s.B)));
  parallel_for_threads(T, [&](unsigned t, unsigned nt) {
    std::vector<float> ds(s.Tk);
    for (std::size_t b = t; b < s.B; b += nt)
      for (std::size_t h = 0; h < s.H; ++h)
        for (std::size_t i = 0; i < s.Tq; ++i) {
          const float* p = c.p.data() + ((b * s.H + h) * s.Tq + i) * s.Tk;
          const float* go = dconcat.data() + (b * s.Tq + i) * D + h * dk;
          double dot_sum = 0;
          for (std::size_t j = 0; j < s.Tk; ++j) {
            if (p[j] == 0.0f) {
              ds[j] = 0;
              continue;
            }
            const float* v = c.v.data() + (b * s.Tk + j) * D + h * dk;
            float* gv = dv.data() + (b * s.Tk + j) * D + h * dk;
            float dp = 0;
            for (std::size_t e = 0; e < dk; ++e) {
              dp += go[e] * v[e];
              gv[e] += p[j] * go[e];
            }
            ds[j] = dp;
            dot_sum += double(p[j]) * dp;
          }
          const float* q = c.q.data() + (b * s.Tq + i) * D + h * dk;
          float* gq = dq.data() + (b * s.Tq + i) * D + h * dk;
          for (std::size_t j = 0; j < s.Tk; ++j) {
            if (p[j] == 0.0f) continue;
            const float g = static_cast<float>(p[j] * (ds[j] - dot_sum)) * s.scale;
            const float* k = c.k.data() + (b * s.Tk + j) * D + h * dk;
            float* gk = dkk.data() + (b * s.Tk + j) * D + h * dk;
            for (std::size_t e = 0; e < dk; ++e) {
              gq[e] += g * k[e];
              gk[e] += g * q[e];
            }
          }
        }
  });
  tr_linear_back(c.xq, nq, D, m.w_in, D, dq.data(), dxq, true, m.dw_in, m.db_in, threads, scratch);
  tr_linear_back(c.xkv, nk, D, m.w_in + D * D, D, dkk.data(), dxkv, true, m.dw_in + D * D, m.db_in + D, threads, scratch);
  tr_linear_back(c.xkv, nk, D, m.w_in + 2 * D * D, D, dv.data(), dxkv, true, m.dw_in + 2 * D * D, m.db_in + 2 * D, threads,
                 scratch);
}

// ---- feed-forward: out = ReLU(x·W₁ᵀ + b₁)·W₂ᵀ + b₂ ----

struct TrFf {
  const float* x;
  Buf h;  // ReLU(x·W₁ᵀ + b₁)  (n, F)
};

void tr_ffn(const TrFfn& f, std::size_t n, std::size_t D, std::size_t F, const float* x, float* out, TrFf& c, unsigned threads) {
  c.x = x;
  c.h.resize(n * F);
  tr_linear(x, n, D, f.w1, f.b1, F, c.h.data(), threads);
  for (float& v : c.h) v = v > 0 ? v : 0.0f;
  tr_linear(c.h.data(), n, F, f.w2, f.b2, D, out, threads);
}

// ReLU's gradient passes where the output was positive. dx is accumulated into.
void tr_ffn_back(const TrFfn& f, std::size_t n, std::size_t D, std::size_t F, const TrFf& c, const float* dout, float* dx,
                 unsigned threads, Buf& scratch) {
  Buf dh(n * F);
  tr_linear_back(c.h.data(), n, F, f.w2, D, dout, dh.data(), false, f.dw2, f.db2, threads, scratch);
  for (std::size_t i = 0; i < n * F; ++i)
    if (c.h[i] <= 0) dh[i] = 0;
  tr_linear_back(c.x, n, D, f.w1, F, dh.data(), dx, true, f.dw1, f.db1, threads, scratch);
}

// ---- one sublayer block with its residual and norm ----
// post-LN: out = LN(x + f(x));  pre-LN: out = x + f(LN(x)).

struct TrBlock {
  Buf input, normed, sum, out;  // normed: pre-LN's LN(x); sum: post-LN's x + f(x)
  TrNorm norm;
  TrAttn attn;
  TrFf ff;
};

// ---- parameter lookup ----

struct TrParams {
  const TensorMap* p;
  TensorMap* g;
  const float* get(const std::string& n) const { return p->at(n).data(); }
  float* grad(const std::string& n) const { return g ? g->at(n).data() : nullptr; }
  TrMha mha(const std::string& pre) const {
    return {get(pre + "in_proj_weight"), get(pre + "in_proj_bias"), get(pre + "out_proj.weight"), get(pre + "out_proj.bias"),
            grad(pre + "in_proj_weight"), grad(pre + "in_proj_bias"), grad(pre + "out_proj.weight"), grad(pre + "out_proj.bias")};
  }
  TrNormP norm(const std::string& pre) const {
    return {get(pre + "weight"), get(pre + "bias"), grad(pre + "weight"), grad(pre + "bias")};
  }
  TrFfn ffn(const std::string& pre) const {
    return {get(pre + "linear1.weight"), get(pre + "linear1.bias"), get(pre + "linear2.weight"), get(pre + "linear2.bias"),
            grad(pre + "linear1.weight"), grad(pre + "linear1.bias"), grad(pre + "linear2.weight"), grad(pre + "linear2.bias")};
  }
};

// Shapes of every parameter, by name, in named_parameters() order.
std::vector<std::pair<std::string, std::vector<std::size_t>>> tr_parameter_shapes(const TrainConfig& c) {
  const std::size_t V = c.vocab, D = c.d_model, F = c.ffn;
  std::vector<std::pair<std::string, std::vector<std::size_t>>> s;
  s.push_back({"embedding.weight", {V, D}});
  auto mha = [&](const std::string& pre) {
    s.push_back({pre + "in_proj_weight", {3 * D, D}});
    s.push_back({pre + "in_proj_bias", {3 * D}});
    s.push_back({pre + "out_proj.weight", {D, D}});
    s.push_back({pre + "out_proj.bias", {D}});
  };
  auto rest = [&](const std::string& pre, int norms) {
    s.push_back({pre + "linear1.weight", {F, D}});
    s.push_back({pre + "linear1.bias", {F}});
    s.push_back({pre + "linear2.weight", {D, F}});
    s.push_back({pre + "linear2.bias", {D}});
    for (int i = 1; i <= norms; ++i) {
      s.push_back({fmt::format("{}norm{}.weight", pre, i), {D}});
      s.push_back({fmt::format("{}norm{}.bias", pre, i), {D}});
    }
  };
  for (std::size_t l = 0; l < c.layers; ++l) {
    const std::string pre = fmt::format("encoder.layers.{}.", l);
    mha(pre + "self_attn.");
    rest(pre, 2);
  }
  for (std::size_t l = 0; l < c.layers; ++l) {
    const std::string pre = fmt::format("decoder.layers.{}.", l);
    mha(pre + "self_attn.");
    mha(pre + "multihead_attn.");
    rest(pre, 3);
  }
  s.push_back({"generator.weight", {V, D}});
  s.push_back({"generator.bias", {V}});
  return s;
}

void tr_check(const TrainConfig& c, const TensorMap& params, const TrainBatch& b) {
  if (c.vocab < 1 || c.d_model < 1 || c.heads < 1 || c.d_model % c.heads != 0 || c.layers < 1 || c.ffn < 1)
    throw Error(fmt::format("train: d_model {} must be a positive multiple of heads {}, with layers ≥ 1 and ffn ≥ 1", c.d_model,
                            c.heads));
  for (const auto& [name, shape] : tr_parameter_shapes(c)) {
    const auto it = params.find(name);
    if (it == params.end()) throw Error(fmt::format("train: parameter {} is missing", name));
    if (it->second.shape() != shape)
      throw Error(fmt::format("train: parameter {} has shape {}, expected {}", name, it->second.shape_str(), shape_string(shape)));
  }
  if (b.batch == 0 || b.source_len == 0 || b.target_len == 0 || b.source.size() != b.batch * b.source_len ||
      b.target_in.size() != b.batch * b.target_len || b.target_out.size() != b.batch * b.target_len)
    throw Error("train: the batch's id arrays do not match its shape");
  for (const auto* ids : {&b.source, &b.target_in, &b.target_out})
    for (std::size_t id : *ids)
      if (id >= c.vocab) throw Error(fmt::format("train: token id {} is outside the vocabulary of {}", id, c.vocab));
}

}  // namespace

std::vector<std::string> train_parameter_names(const TrainConfig& c) {
  std::vector<std::string> names;
  for (const auto& [name, shape] : tr_parameter_shapes(c)) names.push_back(name);
  return names;
}

TensorMap init_train_parameters(const TrainConfig& c, std::uint64_t seed) {
  Generator gen(seed);
  TensorMap m;
  for (const auto& entry : tr_parameter_shapes(c)) {
    const std::string& name = entry.first;
    const std::vector<std::size_t>& shape = entry.second;
    Tensor t(shape);
    const auto ends = [&](const char* suffix) {
      const std::string s(suffix);
      return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
    };
    const bool norm = name.find(".norm") != std::string::npos;
    if (name == "embedding.weight") {
      for (float& v : t.values()) v = static_cast<float>(gen.normal());
    } else if (norm) {
      if (ends(".weight")) std::fill(t.values().begin(), t.values().end(), 1.0f);
    } else if (ends("in_proj_weight")) {
      const double a = std::sqrt(6.0 / double(shape[0] + shape[1]));  // Xavier-uniform of (3D, D)
      for (float& v : t.values()) v = static_cast<float>(a * gen.uniform_signed());
    } else if (ends("in_proj_bias") || ends("out_proj.bias")) {
      // zeros, as nn.MultiheadAttention._reset_parameters
    } else {
      // nn.Linear: weight and bias U(±1/√fan_in); fan_in = the weight's columns
      const std::size_t in = shape.size() == 2 ? shape[1] : ends("linear2.bias") ? c.ffn : c.d_model;
      const double a = 1.0 / std::sqrt(double(in));
      for (float& v : t.values()) v = static_cast<float>(a * gen.uniform_signed());
    }
    m.emplace(name, std::move(t));
  }
  return m;
}

double train_loss(const TrainConfig& c, const TensorMap& params, const TrainBatch& batch, TensorMap* grads, unsigned threads,
                  ForwardExtras* extras) {
  tr_check(c, params, batch);
  threads = std::max(1u, threads);
  if (grads) {
    grads->clear();
    for (const auto& [name, shape] : tr_parameter_shapes(c)) grads->emplace(name, Tensor(shape));
  }
  const TrParams P{&params, grads};
  const std::size_t B = batch.batch, S = batch.source_len, T = batch.target_len, D = c.d_model, F = c.ffn, V = c.vocab;
  const std::size_t ns = B * S, nt = B * T;
  const float scale = c.scale_scores ? static_cast<float>(1.0 / std::sqrt(double(D / c.heads))) : 1.0f;
  const Tensor pe = sinusoidal_encoding(std::max(S, T), D);
  const float* emb = P.get("embedding.weight");

  auto embed = [&](const std::vector<std::size_t>& ids, std::size_t len, Buf& x) {
    x.resize(ids.size() * D);
    for (std::size_t r = 0; r < ids.size(); ++r)
      for (std::size_t j = 0; j < D; ++j)
        x[r * D + j] = emb[ids[r] * D + j] + (c.positional_encoding ? pe(r % len, j) : 0.0f);
  };

  // A sublayer: f(input) → out, with its residual and norm; returns the block's output.
  auto block = [&](TrBlock& bl, const Buf& x, std::size_t n, const TrNormP& nm, const std::function<void(const float*, float*)>& f) {
    bl.input = x;
    Buf fx(n * D);
    bl.out.resize(n * D);
    if (c.pre_ln) {
      bl.normed.resize(n * D);
      tr_norm(bl.input.data(), n, D, nm.g, nm.b, bl.normed.data(), bl.norm);
      f(bl.normed.data(), fx.data());
      for (std::size_t i = 0; i < n * D; ++i) bl.out[i] = bl.input[i] + fx[i];
    } else {
      f(bl.input.data(), fx.data());
      bl.sum.resize(n * D);
      for (std::size_t i = 0; i < n * D; ++i) bl.sum[i] = bl.input[i] + fx[i];
      tr_norm(bl.sum.data(), n, D, nm.g, nm.b, bl.out.data(), bl.norm);
    }
  };

  // ---- forward ----
  Buf x;
  embed(batch.source, S, x);
  std::vector<TrBlock> enc(2 * c.layers);
  const TrShape enc_self{B, S, S, D, c.heads, false, batch.source.data(), c.pad, scale};
  for (std::size_t l = 0; l < c.layers; ++l) {
    const std::string pre = fmt::format("encoder.layers.{}.", l);
    const TrMha sa = P.mha(pre + "self_attn.");
    const TrFfn ff = P.ffn(pre);
    TrBlock& a = enc[2 * l];
    block(a, x, ns, P.norm(pre + "norm1."), [&](const float* in, float* out) { tr_attention(enc_self, sa, in, in, out, a.attn, threads); });
    TrBlock& f = enc[2 * l + 1];
    block(f, a.out, ns, P.norm(pre + "norm2."), [&](const float* in, float* out) { tr_ffn(ff, ns, D, F, in, out, f.ff, threads); });
    x = f.out;
  }
  const Buf memory = x;

  Buf y;
  embed(batch.target_in, T, y);
  std::vector<TrBlock> dec(3 * c.layers);
  const TrShape dec_self{B, T, T, D, c.heads, true, batch.target_in.data(), c.pad, scale};
  const TrShape dec_cross{B, T, S, D, c.heads, false, batch.source.data(), c.pad, scale};
  for (std::size_t l = 0; l < c.layers; ++l) {
    const std::string pre = fmt::format("decoder.layers.{}.", l);
    const TrMha sa = P.mha(pre + "self_attn."), ca = P.mha(pre + "multihead_attn.");
    const TrFfn ff = P.ffn(pre);
    TrBlock& a = dec[3 * l];
    block(a, y, nt, P.norm(pre + "norm1."), [&](const float* in, float* out) { tr_attention(dec_self, sa, in, in, out, a.attn, threads); });
    TrBlock& m = dec[3 * l + 1];
    block(m, a.out, nt, P.norm(pre + "norm2."),
          [&](const float* in, float* out) { tr_attention(dec_cross, ca, in, memory.data(), out, m.attn, threads); });
    TrBlock& f = dec[3 * l + 2];
    block(f, m.out, nt, P.norm(pre + "norm3."), [&](const float* in, float* out) { tr_ffn(ff, nt, D, F, in, out, f.ff, threads); });
    y = f.out;
  }
  Buf logits(nt * V);
  tr_linear(y.data(), nt, D, P.get("generator.weight"), P.get("generator.bias"), V, logits.data(), threads);

  if (extras) {
    if (extras->want_logits) extras->logits = logits;
    if (extras->cross_layer >= 0 && static_cast<std::size_t>(extras->cross_layer) < c.layers) {
      const Buf& p = dec[3 * extras->cross_layer + 1].attn.p;
      extras->cross_attention.assign(B * T * S, 0.0f);
      for (std::size_t b = 0; b < B; ++b)
        for (std::size_t h = 0; h < c.heads; ++h)
          for (std::size_t i = 0; i < T * S; ++i)
            extras->cross_attention[b * T * S + i] += p[(b * c.heads + h) * T * S + i] / static_cast<float>(c.heads);
    }
  }

  // ---- loss: label-smoothed cross-entropy over the non-pad targets ----
  // q = (1 − ε)·onehot(y) + ε/V; loss_i = −Σ_c q_c log p_c; ∂loss/∂logits_i = (p_i − q)/N.
  const double eps = c.label_smoothing;
  std::size_t count = 0;
  for (std::size_t r = 0; r < nt; ++r) count += batch.target_out[r] != c.pad;
  if (count == 0) throw Error("train: the batch has no target tokens");
  double total = 0;
  Buf dlogits(grads ? nt * V : 0, 0.0f);
  for (std::size_t r = 0; r < nt; ++r) {
    if (batch.target_out[r] == c.pad) continue;
    const float* z = logits.data() + r * V;
    double mx = z[0];
    for (std::size_t j = 1; j < V; ++j) mx = std::max(mx, double(z[j]));
    double sum = 0;
    for (std::size_t j = 0; j < V; ++j) sum += std::exp(z[j] - mx);
    const double lse = mx + std::log(sum);
    double mean_logp = 0;
    for (std::size_t j = 0; j < V; ++j) mean_logp += z[j] - lse;
    mean_logp /= double(V);
    const std::size_t yid = batch.target_out[r];
    total += (1 - eps) * (lse - z[yid]) - eps * mean_logp;
    if (grads)
      for (std::size_t j = 0; j < V; ++j) {
        const double q = (j == yid ? 1 - eps : 0.0) + eps / double(V);
        dlogits[r * V + j] = static_cast<float>((std::exp(z[j] - lse) - q) / double(count));
      }
  }
  const double loss = total / double(count);
  if (!grads) return loss;

  // ---- backward ----
  Buf scratch;
  Buf dy(nt * D);
  tr_linear_back(y.data(), nt, D, P.get("generator.weight"), V, dlogits.data(), dy.data(), false, P.grad("generator.weight"),
                 P.grad("generator.bias"), threads, scratch);
  Buf dmemory(ns * D, 0.0f);

  // Backward of a block: d = ∂/∂out in, ∂/∂input out (in place). f_back(in, dfx, din) adds
  // f's input gradient into din.
  auto block_back = [&](TrBlock& bl, Buf& d, std::size_t n, const TrNormP& nm,
                        const std::function<void(const float*, float*)>& f_back) {
    if (c.pre_ln) {
      // out = x + f(LN(x)): dx = d + LN'ᵀ(f'ᵀ(d))
      Buf dn(n * D, 0.0f);
      f_back(d.data(), dn.data());
      tr_norm_back(bl.norm, n, D, nm.g, dn.data(), dn.data(), nm.dg, nm.db);
      for (std::size_t i = 0; i < n * D; ++i) d[i] += dn[i];
    } else {
      // out = LN(x + f(x)): ds = LN'ᵀ(d); dx = ds + f'ᵀ(ds)
      tr_norm_back(bl.norm, n, D, nm.g, d.data(), d.data(), nm.dg, nm.db);
      Buf ds = d;
      f_back(ds.data(), d.data());
    }
  };

  for (std::size_t l = c.layers; l-- > 0;) {
    const std::string pre = fmt::format("decoder.layers.{}.", l);
    const TrMha sa = P.mha(pre + "self_attn."), ca = P.mha(pre + "multihead_attn.");
    const TrFfn ff = P.ffn(pre);
    TrBlock& f = dec[3 * l + 2];
    block_back(f, dy, nt, P.norm(pre + "norm3."), [&](const float* g, float* din) { tr_ffn_back(ff, nt, D, F, f.ff, g, din, threads, scratch); });
    TrBlock& m = dec[3 * l + 1];
    block_back(m, dy, nt, P.norm(pre + "norm2."), [&](const float* g, float* din) {
      tr_attention_back(dec_cross, ca, m.attn, g, din, dmemory.data(), threads, scratch);
    });
    TrBlock& a = dec[3 * l];
    block_back(a, dy, nt, P.norm(pre + "norm1."),
               [&](const float* g, float* din) { tr_attention_back(dec_self, sa, a.attn, g, din, din, threads, scratch); });
  }
  float* demb = P.grad("embedding.weight");
  for (std::size_t r = 0; r < nt; ++r)
    for (std::size_t j = 0; j < D; ++j) demb[batch.target_in[r] * D + j] += dy[r * D + j];

  Buf dx = dmemory;
  for (std::size_t l = c.layers; l-- > 0;) {
    const std::string pre = fmt::format("encoder.layers.{}.", l);
    const TrMha sa = P.mha(pre + "self_attn.");
    const TrFfn ff = P.ffn(pre);
    TrBlock& f = enc[2 * l + 1];
    block_back(f, dx, ns, P.norm(pre + "norm2."), [&](const float* g, float* din) { tr_ffn_back(ff, ns, D, F, f.ff, g, din, threads, scratch); });
    TrBlock& a = enc[2 * l];
    block_back(a, dx, ns, P.norm(pre + "norm1."),
               [&](const float* g, float* din) { tr_attention_back(enc_self, sa, a.attn, g, din, din, threads, scratch); });
  }
  for (std::size_t r = 0; r < ns; ++r)
    for (std::size_t j = 0; j < D; ++j) demb[batch.source[r] * D + j] += dx[r * D + j];
  return loss;
}

// Adam, in double per element, as torch.optim.Adam's single-tensor step.
void adam_step(AdamState& s, TensorMap& params, const TensorMap& grads, double lr) {
  ++s.step;
  const double bc1 = 1 - std::pow(s.beta1, double(s.step)), bc2 = 1 - std::pow(s.beta2, double(s.step));
  const double step_size = lr / bc1, bc2_sqrt = std::sqrt(bc2);
  for (auto& [name, p] : params) {
    const auto g = grads.find(name);
    if (g == grads.end() || g->second.size() != p.size()) throw Error(fmt::format("adam: no gradient of the shape of {}", name));
    Tensor& m = s.m.try_emplace(name, p.shape()).first->second;
    Tensor& v = s.v.try_emplace(name, p.shape()).first->second;
    float* pd = p.data();
    const float* gd = g->second.data();
    float* md = m.data();
    float* vd = v.data();
    const float b1 = static_cast<float>(s.beta1), b2 = static_cast<float>(s.beta2);
    for (std::size_t i = 0; i < p.size(); ++i) {
      md[i] = b1 * md[i] + (1 - b1) * gd[i];
      vd[i] = b2 * vd[i] + (1 - b2) * gd[i] * gd[i];
      const double denom = std::sqrt(double(vd[i])) / bc2_sqrt + s.eps;
      pd[i] = static_cast<float>(pd[i] - step_size * md[i] / denom);
    }
  }
}

TrainBatch make_train_batch(const std::vector<IdPair>& pairs, const std::vector<std::size_t>& chosen, std::size_t pad) {
  TrainBatch b;
  b.batch = chosen.size();
  for (std::size_t i : chosen) {
    b.source_len = std::max(b.source_len, pairs.at(i).source.size());
    b.target_len = std::max(b.target_len, pairs.at(i).target.size() + 1);
  }
  b.source.assign(b.batch * b.source_len, pad);
  b.target_in.assign(b.batch * b.target_len, pad);
  b.target_out.assign(b.batch * b.target_len, pad);
  for (std::size_t r = 0; r < chosen.size(); ++r) {
    const IdPair& p = pairs[chosen[r]];
    std::copy(p.source.begin(), p.source.end(), b.source.begin() + r * b.source_len);
    b.target_in[r * b.target_len] = kTrainBos;
    for (std::size_t t = 0; t < p.target.size(); ++t) {
      b.target_in[r * b.target_len + t + 1] = p.target[t];
      b.target_out[r * b.target_len + t] = p.target[t];
    }
    b.target_out[r * b.target_len + p.target.size()] = kTrainEos;
  }
  return b;
}

std::vector<std::size_t> train_greedy(const TrainConfig& c, const TensorMap& params, const std::vector<std::size_t>& source,
                                      std::size_t max_tokens) {
  std::vector<std::size_t> out;
  TrainBatch b;
  b.batch = 1;
  b.source = source;
  b.source_len = source.size();
  b.target_in = {kTrainBos};
  for (std::size_t step = 0; step < max_tokens; ++step) {
    b.target_len = b.target_in.size();
    b.target_out.assign(b.target_len, kTrainEos);  // any non-pad id: only the logits are used
    ForwardExtras ex;
    ex.want_logits = true;
    train_loss(c, params, b, nullptr, 1, &ex);
    const float* z = ex.logits.data() + (b.target_len - 1) * c.vocab;
    const std::size_t next = static_cast<std::size_t>(std::max_element(z, z + c.vocab) - z);
    if (next == kTrainEos) break;
    out.push_back(next);
    b.target_in.push_back(next);
  }
  return out;
}

HeldOutScore score_held_out(const TrainConfig& c, const TensorMap& params, const std::vector<IdPair>& test, std::size_t layer,
                            unsigned threads) {
  HeldOutScore s;
  s.pairs = test.size();
  std::vector<HeldOutScore> part(test.size());
  const unsigned T = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(std::max<std::size_t>(1, test.size()))));
  parallel_for_threads(T, [&](unsigned t, unsigned nt) {
    for (std::size_t i = t; i < test.size(); i += nt) {
      const IdPair& p = test[i];
      part[i].exact = train_greedy(c, params, p.source, p.target.size() + 5) == p.target;
      TrainBatch b = make_train_batch(test, {i}, c.pad);
      ForwardExtras ex;
      ex.cross_layer = static_cast<int>(layer);
      train_loss(c, params, b, nullptr, 1, &ex);
      for (std::size_t k = 0; k < p.alignment.size() && k < p.target.size(); ++k) {
        if (p.alignment[k] < 0) continue;
        // row k (inputs <bos> y₁ … y_k) is where the model chose target token k
        const float* row = ex.cross_attention.data() + k * b.source_len;
        const std::size_t peak = static_cast<std::size_t>(std::max_element(row, row + b.source_len) - row);
        ++part[i].aligned_total;
        part[i].aligned_hits += peak == static_cast<std::size_t>(p.alignment[k]);
      }
    }
  });
  for (const HeldOutScore& h : part) {
    s.exact += h.exact;
    s.aligned_hits += h.aligned_hits;
    s.aligned_total += h.aligned_total;
  }
  return s;
}

Tensor train_cross_attention(const TrainConfig& c, const TensorMap& params, const std::vector<std::size_t>& source,
                             const std::vector<std::size_t>& target, std::size_t layer) {
  if (source.empty()) throw Error("train_cross_attention: empty source");
  if (layer >= c.layers) throw Error(fmt::format("train_cross_attention: decoder layer {} of {}", layer + 1, c.layers));
  // one pair as a batch of one: target_in = <bos> y₁ … y_T, target_out = y₁ … y_T <eos>
  TrainBatch b;
  b.batch = 1;
  b.source = source;
  b.source_len = source.size();
  b.target_in = {kTrainBos};
  b.target_in.insert(b.target_in.end(), target.begin(), target.end());
  b.target_out = target;
  b.target_out.push_back(kTrainEos);
  b.target_len = b.target_in.size();
  ForwardExtras ex;
  ex.cross_layer = static_cast<int>(layer);
  train_loss(c, params, b, nullptr, 1, &ex);
  Tensor w({b.target_len, b.source_len});
  std::copy(ex.cross_attention.begin(), ex.cross_attention.end(), w.data());
  return w;
}

// entropy_r = −Σ_j a_rj ln a_rj (0 · ln 0 = 0); gold mass = a_r,g(r) averaged over aligned rows
AttentionSharpness attention_sharpness(const Tensor& weights, const std::vector<int>& alignment) {
  if (weights.rank() != 2 || weights.dim(0) == 0 || weights.dim(1) == 0)
    throw Error(fmt::format("attention_sharpness: expected weights (R, S), got {}", shape_string(weights.shape())));
  const std::size_t R = weights.dim(0), S = weights.dim(1);
  AttentionSharpness s;
  s.rows = R;
  double entropy = 0, mass = 0;
  for (std::size_t r = 0; r < R; ++r) {
    const float* a = weights.data() + r * S;
    double h = 0;
    for (std::size_t j = 0; j < S; ++j)
      if (a[j] > 0) h -= double(a[j]) * std::log(double(a[j]));
    entropy += h;
    if (r < alignment.size() && alignment[r] >= 0) {
      if (static_cast<std::size_t>(alignment[r]) >= S)
        throw Error(fmt::format("attention_sharpness: row {} is aligned to source {} of {}", r, alignment[r], S));
      mass += a[alignment[r]];
      ++s.aligned;
    }
  }
  s.entropy = entropy / double(R);
  s.gold_mass = s.aligned ? mass / double(s.aligned) : 0.0;
  return s;
}

std::size_t train_model(const TrainConfig& c, TensorMap& params, const std::vector<IdPair>& train, const TrainOptions& o,
                        const std::function<bool(const TrainStepReport&)>& on_step) {
  if (train.empty()) throw Error("train: no training pairs");
  Generator gen(o.seed ^ 0x9e3779b97f4a7c15ull);
  std::vector<std::size_t> order;
  std::size_t next = 0;
  AdamState adam;
  TensorMap grads;
  for (std::size_t step = 1; step <= o.steps; ++step) {
    std::vector<std::size_t> chosen;
    while (chosen.size() < o.batch) {
      if (next == order.size()) {
        order.resize(train.size());
        std::iota(order.begin(), order.end(), 0);
        for (std::size_t i = order.size(); i > 1; --i)  // Fisher–Yates
          std::swap(order[i - 1], order[static_cast<std::size_t>(gen.uniform01() * double(i))]);
        next = 0;
      }
      chosen.push_back(order[next++]);
    }
    const TrainBatch b = make_train_batch(train, chosen, c.pad);
    TrainStepReport r;
    r.step = step;
    r.loss = train_loss(c, params, b, &grads, o.threads);
    r.learning_rate = warmup_learning_rate(double(step), double(c.d_model), o.warmup);
    for (std::size_t id : b.target_out) r.tokens += id != c.pad;
    adam_step(adam, params, grads, r.learning_rate);
    if (on_step && !on_step(r)) return step;
  }
  return o.steps;
}

}  // namespace tfx
