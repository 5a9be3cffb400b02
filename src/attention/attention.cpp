// Attention composed from ops.hpp (matmul_bt → scale → mask → softmax_rows → matmul), masks,
// multi-head split/concat, Xavier weights and the √d_k variance experiment.
#include "tfx/attention/attention.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "tfx/core/memory.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {

void require_matrix(const Tensor& t, const char* name) {
  if (t.rank() != 2 || t.size() == 0)
    throw Error(fmt::format(N_("attention: {} must be a non-empty matrix, got shape {}"), name, t.shape_str()));
}

// q: (T, d_k), k: (S, d_k), v: (S, d_v) — the shapes every attention entry point needs.
void require_qkv(const Tensor& q, const Tensor& k, const Tensor& v) {
  require_matrix(q, "Q");
  require_matrix(k, "K");
  require_matrix(v, "V");
  if (q.cols() != k.cols())
    throw Error(fmt::format(N_("attention: Q {} and K {} differ in d_k ({} vs {} columns); QKᵀ needs the same width"), q.shape_str(),
                            k.shape_str(), q.cols(), k.cols()));
  if (v.rows() != k.rows())
    throw Error(fmt::format(N_("attention: V {} has {} rows but K {} has {}; each key needs one value row"), v.shape_str(), v.rows(),
                            k.shape_str(), k.rows()));
}

}  // namespace

std::vector<unsigned char> attention_mask(std::size_t T, std::size_t S, const AttentionOptions& o) {
  if (!o.causal && o.pad == 0) return {};
  if (o.pad >= S)
    throw usage_error(
        fmt::format(N_("pad {} masks every one of the {} key positions: no query would have a key to attend to "
                    "(use pad 0 … {})"),
                    o.pad, S, S - 1),
        {"pad"});
  std::vector<unsigned char> keep(T * S, 1);
  for (std::size_t i = 0; i < T; ++i)
    for (std::size_t j = 0; j < S; ++j) {
      if (o.causal && j > i) keep[i * S + j] = 0;  // the future: upper triangle
      if (j >= S - o.pad) keep[i * S + j] = 0;     // padding: the last pad keys
    }
  for (std::size_t i = 0; i < T; ++i) {
    bool any = false;
    for (std::size_t j = 0; j < S; ++j) any = any || keep[i * S + j];
    if (!any)
      throw usage_error(fmt::format(N_("causal with pad {} leaves query {} without a key to attend to"), o.pad, i), {"causal", "pad"});
  }
  return keep;
}

double attention_divisor(std::size_t d_k, const AttentionOptions& o) {
  return (o.scale ? std::sqrt(static_cast<double>(d_k)) : 1.0) * o.temperature;
}

// Attention(Q, K, V) = softmax(QKᵀ / √d_k) V
AttentionSteps scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& o) {
  require_qkv(q, k, v);
  if (!(o.temperature > 0) || !std::isfinite(o.temperature))
    throw usage_error(fmt::format(N_("temperature {} must be a positive number"), o.temperature), {"temperature"});
  const std::size_t T = q.rows(), S = k.rows();
  AttentionSteps st;
  // one T×S buffer carries the scores through scaling into the softmax; the steps the lecture
  // shows (scores, scaled, masked) are copies of it, kept only when o.keep_steps asks for them
  // 1. raw scores: s_ij = q_i · k_j
  Tensor s = matmul_bt(q, k, o.threads);
  if (o.keep_steps) st.scores = s;
  // 2. scale by 1/(√d_k·τ) so the scores keep unit variance whatever d_k is (in place: the same
  //    float products as scale())
  st.divisor = attention_divisor(q.cols(), o);
  const auto inv = static_cast<float>(1.0 / st.divisor);
  for (float& x : s.values()) x *= inv;
  //    (float32 overflow — huge inputs or a tiny τ — would turn softmax into NaN: refuse it)
  for (std::size_t c = 0; c < s.size(); ++c)
    if (!std::isfinite(s[c]))
      throw Error(fmt::format(N_("attention: score ({}, {}) = q·k / {:g} is {} in float32 (Q {}, K {}); scale the inputs down{}"),
                              c / S, c % S, st.divisor, s[c], q.shape_str(), k.shape_str(),
                              o.temperature < 1 ? " or raise temperature" : ""),
                  Error::Kind::data, {"temperature"});
  // 3. mask: −∞ where a query may not look (shown as the lecture's masked matrix; softmax_rows
  //    takes the keep-mask itself and gives those cells exactly 0)
  st.keep = attention_mask(T, S, o);
  if (o.keep_steps) {
    st.scaled = s;
    st.masked = s;
    if (!st.keep.empty())
      for (std::size_t c = 0; c < st.masked.size(); ++c)
        if (!st.keep[c]) st.masked[c] = -std::numeric_limits<float>::infinity();
  }
  // 4. softmax over each row (over the keys), in the buffer itself
  st.weights = softmax_rows(std::move(s), st.keep.empty() ? nullptr : &st.keep);
  // 5. Z = weights · V: each output row is a weighted average of the value rows
  st.output = matmul(st.weights, v, o.threads);
  return st;
}

std::vector<Tensor> split_heads(const Tensor& x, std::size_t heads) {
  assert(heads > 0 && x.rank() == 2 && x.cols() % heads == 0);
  const std::size_t N = x.rows(), d = x.cols() / heads;
  std::vector<Tensor> out;
  for (std::size_t h = 0; h < heads; ++h) {
    Tensor t({N, d});
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < d; ++j) t(i, j) = x(i, h * d + j);
    out.push_back(std::move(t));
  }
  return out;
}

Tensor concat_heads(const std::vector<Tensor>& heads) {
  assert(!heads.empty());
  const std::size_t N = heads[0].rows(), d = heads[0].cols();
  Tensor out({N, d * heads.size()});
  for (std::size_t h = 0; h < heads.size(); ++h) {
    assert(heads[h].rows() == N && heads[h].cols() == d);
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < d; ++j) out(i, h * d + j) = heads[h](i, j);
  }
  return out;
}

// a = √(6 / (fan_in + fan_out)), W_ij ~ U(−a, a)
Tensor xavier_uniform(std::size_t fan_in, std::size_t fan_out, Generator& gen) {
  Tensor w({fan_in, fan_out});
  const double a = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  for (float& x : w.values()) x = static_cast<float>(a * gen.uniform_signed());
  return w;
}

Tensor xavier_uniform(std::size_t fan_in, std::size_t fan_out, std::uint64_t seed) {
  Generator gen(seed);
  return xavier_uniform(fan_in, fan_out, gen);
}

Tensor standard_normal(std::size_t rows, std::size_t cols, Generator& gen) {
  Tensor t({rows, cols});
  for (float& x : t.values()) x = static_cast<float>(gen.normal());
  return t;
}

AttentionWeights xavier_attention_weights(std::size_t D, std::size_t E, std::size_t heads, std::size_t d_k, std::size_t d_v,
                                          bool with_output, std::uint64_t seed) {
  Generator gen(seed);
  AttentionWeights w;
  w.wq = xavier_uniform(D, heads * d_k, gen);
  w.wk = xavier_uniform(E, heads * d_k, gen);
  w.wv = xavier_uniform(E, heads * d_v, gen);
  if (with_output) w.wo = xavier_uniform(heads * d_v, D, gen);
  return w;
}

AttentionWeights identity_attention_weights(std::size_t D, bool with_output) {
  Tensor eye({D, D});
  for (std::size_t i = 0; i < D; ++i) eye(i, i) = 1.0f;
  AttentionWeights w{eye, eye, eye, Tensor()};
  if (with_output) w.wo = eye;
  return w;
}

AttentionWeights identity_attention_weights(std::size_t D, std::size_t heads, std::size_t d_k, std::size_t d_v) {
  if (heads * d_k != D || heads * d_v != D)
    throw usage_error(fmt::format(N_("identity needs heads × d_k = heads × d_v = d_model ({} × {}, {} × {}, d_model {}) so that "
                                  "W = I is square"),
                                  heads, d_k, heads, d_v, D),
                      {"identity", "heads", "d_k", "d_v"});
  return identity_attention_weights(D, heads > 1);
}

bool heads_divide(std::size_t heads, std::size_t width) { return heads > 0 && width % heads == 0; }

void check_heads_divide(std::size_t heads, std::size_t width, const std::string& what, const std::string& hint) {
  if (heads == 0) throw usage_error(N_("heads must be at least 1"), {"heads"});
  if (width % heads == 0) return;
  std::vector<std::size_t> divisors;
  for (std::size_t d = 1; d <= width && divisors.size() < 12; ++d)
    if (width % d == 0) divisors.push_back(d);
  const bool more = divisors.size() == 12 && divisors.back() != width;
  throw usage_error(fmt::format(N_("heads {} does not divide {} = {}: each head takes {}/H columns (divisors of {}: {}{}){}"), heads, what, width,
                                what == "d_model" ? "d_model" : "the width", width, fmt::join(divisors, ", "), more ? ", …" : "",
                                hint),
                    {"heads"});
}

HeadWidths attention_head_widths(std::size_t D, std::size_t heads, std::size_t d_k, std::size_t d_v) {
  if (heads == 0) throw usage_error(N_("heads must be at least 1"), {"heads"});
  HeadWidths w;
  if (d_k) {
    w.d_k = d_k;
  } else {
    check_heads_divide(heads, D, "d_model", "; or give d_k");
    w.d_k = D / heads;
  }
  w.d_v = d_v ? d_v : w.d_k;
  return w;
}

// MultiHead(Q, K, V) = Concat(head_1, …, head_H) W_O
MultiHeadAttention attend_heads(const Tensor& q, const Tensor& k, const Tensor& v, std::size_t heads, const Tensor& wo,
                                const AttentionOptions& o) {
  require_qkv(q, k, v);
  if (heads == 0) throw usage_error(N_("heads must be at least 1"), {"heads"});
  check_heads_divide(heads, q.cols(), "d_model");
  check_heads_divide(heads, v.cols(), "the value width");
  if (!wo.empty() && (wo.rank() != 2 || wo.rows() != v.cols()))
    throw Error(fmt::format(N_("attention: W_O {} needs {} rows (the concatenated value width)"), wo.shape_str(), v.cols()));
  // each head keeps its scores, masked scores and weights (T, S), and the average one more
  check_memory(4.0 * static_cast<double>(q.rows()) * static_cast<double>(k.rows()) * (3.0 * static_cast<double>(heads) + 1),
               fmt::format("attention over {} × {} positions with {} head{}", q.rows(), k.rows(), heads, heads == 1 ? "" : "s"));
  MultiHeadAttention r;
  r.q = q;
  r.k = k;
  r.v = v;
  // 1. split the widths into H column blocks, one per head
  const auto qs = split_heads(q, heads), ks = split_heads(k, heads), vs = split_heads(v, heads);
  // 2. attention in every head, with that head's d_k
  std::vector<Tensor> zs;
  for (std::size_t h = 0; h < heads; ++h) {
    r.heads.push_back(scaled_dot_product_attention(qs[h], ks[h], vs[h], o));
    zs.push_back(r.heads.back().output);
  }
  // 3. concatenate the heads' outputs and project back with W_O
  r.concat = concat_heads(zs);
  r.output = wo.empty() ? r.concat : matmul(r.concat, wo, o.threads);
  // 4. check: every row of weights is a distribution (sums to 1 up to rounding)
  for (const auto& h : r.heads)
    for (std::size_t i = 0; i < h.weights.rows(); ++i) {
      double sum = 0;
      for (float w : h.weights.row(i)) sum += w;
      r.max_row_sum_error = std::max(r.max_row_sum_error, std::abs(sum - 1.0));
    }
  return r;
}

MultiHeadAttention multi_head_attention(const Tensor& x_q, const Tensor& x_kv, const AttentionWeights& w, std::size_t heads,
                                        const AttentionOptions& o) {
  require_matrix(x_q, "X");
  require_matrix(x_kv, "X_kv");
  // Q = X_q W_Q, K = X_kv W_K, V = X_kv W_V (matmul checks the shapes)
  const Tensor q = matmul(x_q, w.wq, o.threads), k = matmul(x_kv, w.wk, o.threads), v = matmul(x_kv, w.wv, o.threads);
  return attend_heads(q, k, v, heads, w.wo, o);
}

// Var(q·k) = Σ Var(q_i k_i) = d_k for independent unit-variance entries; Var(q·k/√d_k) = 1.
std::vector<DotProductStats> dot_product_variance(const std::vector<std::size_t>& d_ks, std::size_t samples, std::size_t keys,
                                                  std::uint64_t seed, UnitDistribution dist) {
  if (samples == 0 || keys == 0) throw usage_error(N_("samples and keys must be at least 1"), {"samples", "keys"});
  Generator gen(seed);
  const double root3 = std::sqrt(3.0);
  auto draw = [&]() -> float {
    if (dist == UnitDistribution::normal) return static_cast<float>(gen.normal());
    return static_cast<float>(root3 * gen.uniform_signed());
  };
  std::vector<DotProductStats> out;
  for (std::size_t dk : d_ks) {
    if (dk == 0) throw usage_error(N_("d_ks holds 0: each d_k must be at least 1"), {"d_ks"});
    Tensor dots({samples, keys});
    Tensor q({1, dk}), k({keys, dk});
    for (std::size_t s = 0; s < samples; ++s) {
      // 1. one query and n keys with unit-variance entries
      for (float& x : q.values()) x = draw();
      for (float& x : k.values()) x = draw();
      // 2. their dot products q·k_j (one row of QKᵀ)
      Tensor row = matmul_bt(q, k);
      for (std::size_t j = 0; j < keys; ++j) dots(s, j) = row[j];
    }
    // 3. variance of the raw and the scaled dot products (in double, unbiased)
    const Tensor scaled = scale(dots, static_cast<float>(1.0 / std::sqrt(static_cast<double>(dk))));
    auto variance = [](const Tensor& t) {
      const double n = static_cast<double>(t.size());
      double mean = 0;
      for (float x : t.values()) mean += x;
      mean /= n;
      double ss = 0;
      for (float x : t.values()) ss += (x - mean) * (x - mean);
      return n > 1 ? ss / (n - 1) : 0.0;
    };
    DotProductStats st;
    st.d_k = dk;
    st.var_dot = variance(dots);
    st.var_scaled = variance(scaled);
    // 4. how peaked softmax gets: the mean of each row's largest weight, unscaled and scaled
    auto mean_max = [&](const Tensor& w) {
      double sum = 0;
      for (std::size_t s = 0; s < samples; ++s) {
        float mx = 0;
        for (float x : w.row(s)) mx = std::max(mx, x);
        sum += mx;
      }
      return sum / static_cast<double>(samples);
    };
    st.max_weight = mean_max(softmax_rows(dots));
    st.max_weight_scaled = mean_max(softmax_rows(scaled));
    out.push_back(st);
  }
  return out;
}

}  // namespace tfx
