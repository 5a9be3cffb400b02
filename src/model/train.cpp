// Training the lecture's Transformer: its parameters (PyTorch's names and initialisation) and
// train_loss, the batched forward pass with its intermediates and the backward pass through every
// op (train_ops.hpp) into the gradients. Adam, batches and the loop are in train_loop.cpp.
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
#include "train_ops.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {


namespace {

using namespace train_ops;

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

}  // namespace

double train_memory_bytes(const TrainConfig& c, std::size_t batch, std::size_t source_len, std::size_t target_len) {
  double params = 0;
  for (const auto& [name, shape] : tr_parameter_shapes(c)) {
    double n = 1;
    for (std::size_t d : shape) n *= double(d);
    params += n;
  }
  const double B = double(batch), S = double(source_len), T = double(target_len), D = double(c.d_model), F = double(c.ffn),
               H = double(c.heads), V = double(c.vocab), L = double(c.layers);
  // floats kept per token of one layer (forward values and, in the backward pass, their gradients)
  const double encoder = B * S * (2 * (12 * D + 2 * F) + 3 * H * S);
  const double decoder = B * T * (2 * (20 * D + 2 * F) + 3 * H * (T + S));
  const double logits = 3 * B * T * V;
  return 4.0 * (4 * params + L * (encoder + decoder) + logits + 4 * B * (S + T) * D);
}

namespace {

void tr_check(const TrainConfig& c, const TensorMap& params, const TrainBatch& b) {
  if (c.vocab < 1 || c.d_model < 1 || c.heads < 1 || c.d_model % c.heads != 0 || c.layers < 1 || c.ffn < 1)
    throw Error(fmt::format(N_("train: d_model {} must be a positive multiple of heads {}, with layers ≥ 1 and ffn ≥ 1"), c.d_model,
                            c.heads));
  for (const auto& [name, shape] : tr_parameter_shapes(c)) {
    const auto it = params.find(name);
    if (it == params.end()) throw Error(fmt::format(N_("train: parameter {} is missing"), name));
    if (it->second.shape() != shape)
      throw Error(fmt::format(N_("train: parameter {} has shape {}, expected {}"), name, it->second.shape_str(), shape_string(shape)));
  }
  if (b.batch == 0 || b.source_len == 0 || b.target_len == 0 || b.source.size() != b.batch * b.source_len ||
      b.target_in.size() != b.batch * b.target_len || b.target_out.size() != b.batch * b.target_len)
    throw Error(N_("train: the batch's id arrays do not match its shape"));
  for (const auto* ids : {&b.source, &b.target_in, &b.target_out})
    for (std::size_t id : *ids)
      if (id >= c.vocab) throw Error(fmt::format(N_("train: token id {} is outside the vocabulary of {}"), id, c.vocab));
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
    if (extras->logits_only && !grads) return 0.0;  // scoring: no loss (its V exponentials per token)
  }

  // ---- loss: label-smoothed cross-entropy over the non-pad targets ----
  // q = (1 − ε)·onehot(y) + ε/V; loss_i = −Σ_c q_c log p_c; ∂loss/∂logits_i = (p_i − q)/N.
  const double eps = c.label_smoothing;
  std::size_t count = 0;
  for (std::size_t r = 0; r < nt; ++r) count += batch.target_out[r] != c.pad;
  if (count == 0) throw Error(N_("train: the batch has no target tokens"));
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

}  // namespace tfx
