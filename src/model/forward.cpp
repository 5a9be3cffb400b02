// What every family's forward pass shares (family_files.hpp): the causal attention over a KV cache
// (the one attention the decoders run, for a whole sequence and for a generation step), the
// microscope's intervention points (head ablation, residual patching) and taps, the cache's making,
// and the lens's checked entry. The forward passes themselves are in the family files.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/parallel.hpp"
#include "model/family_files.hpp"
#include "tfx/attention/attention.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/memory.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/stored.hpp"

namespace tfx {

namespace family_files {

KvCache* pass_cache(const ForwardOptions& o, KvCache& local, const ModelConfig& c, std::size_t T) {
  if (o.cache) return o.cache;
  local.layers = c.layers;
  local.kv_heads = c.kv_heads;
  local.head_dim = c.head_dim;
  local.capacity = T;
  local.length = 0;
  local.k.assign(c.layers, std::vector<float>(c.kv_heads * T * c.head_dim));
  local.v.assign(c.layers, std::vector<float>(c.kv_heads * T * c.head_dim));
  return &local;
}

// Per head h (key/value head g = h / (H/KV)): softmax(q_h·K_gᵀ / √hd, causal)·V_g over the cached
// rows 0 … n+T−1, the same steps as grouped_query_attention (scores, scale, masked softmax, mix).
Tensor cached_attention(KvCache& cache, std::size_t layer, const Tensor& q, const Tensor& kn, const Tensor& vn, std::size_t H,
                        Tensor* weights, const AttentionRule& rule) {
  const std::size_t KV = cache.kv_heads, hd = cache.head_dim, cap = cache.capacity, len = cache.length;
  const std::size_t T = q.rows(), n = len + T, group = H / KV;
  // 1. the new keys and values join the cache at positions len … len+T−1
  float* kc = cache.k[layer].data();
  float* vc = cache.v[layer].data();
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t g = 0; g < KV; ++g) {
      std::copy_n(kn.data() + t * KV * hd + g * hd, hd, kc + (g * cap + len + t) * hd);
      std::copy_n(vn.data() + t * KV * hd + g * hd, hd, vc + (g * cap + len + t) * hd);
    }
  // 2. the keys any query sees: lo … n−1 (with a window, the first query's window starts at lo; the
  // keys before it get weight 0 without being read — a long context's sliding layers cost the
  // window, not the context); the causal mask within them: query t (position len + t) sees keys
  // lo … len+t, with a window only the last `window` of them (no mask for one query)
  const std::size_t window = rule.window;
  const std::size_t lo = window > 0 && len + 1 > window ? len + 1 - window : 0, m = n - lo;
  std::vector<unsigned char> mask;
  if (T > 1) {
    mask.assign(T * m, 1);
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t j = lo; j < n; ++j)
        if (j > len + t || (window > 0 && j + window <= len + t)) mask[t * m + (j - lo)] = 0;
  }
  const float scale = rule.scale > 0 ? rule.scale : 1.0f / std::sqrt(static_cast<float>(hd));
  Tensor out({T, H * hd});
  if (weights) *weights = Tensor({H, T, n});  // zeros before lo
  // 3. one head: its scores, softmax and mix, written into its columns of `out`
  auto head = [&](std::size_t h) {
    const std::size_t g = h / group;
    Tensor qh({T, hd});
    for (std::size_t t = 0; t < T; ++t) std::copy_n(q.data() + t * H * hd + h * hd, hd, qh.data() + t * hd);
    const StoredMatrix kh(kc + (g * cap + lo) * hd, StoredType::f32, m, hd), vh(vc + (g * cap + lo) * hd, StoredType::f32, m, hd);
    Tensor s = matmul_bt(qh, kh);
    for (float& x : s.values()) x *= scale;
    if (rule.softcap > 0) softcap_inplace(s, rule.softcap);
    const Tensor p = softmax_rows(std::move(s), mask.empty() ? nullptr : &mask);
    const Tensor z = matmul(p, vh);
    if (weights)
      for (std::size_t t = 0; t < T; ++t) std::copy_n(p.data() + t * m, m, weights->data() + (h * T + t) * n + lo);
    for (std::size_t t = 0; t < T; ++t) std::copy_n(z.data() + t * hd, hd, out.data() + t * H * hd + h * hd);
  };
  // a prompt's heads side by side on every core (each head's arithmetic is the same whichever
  // thread runs it); one new token's heads are too little work to share
  const unsigned threads = T > 1 ? worker_threads(T * m * hd * H) : 1;
  parallel_for_threads(threads, [&](unsigned t, unsigned nt) {
    for (std::size_t h = t; h < H; h += nt) head(h);
  });
  return out;
}

void ablate_heads(Tensor& z, std::size_t layer, std::size_t hd, const ForwardOptions& o) {
  const std::size_t T = z.rows(), W = z.cols();
  for (const HeadAblation& a : o.ablate) {
    if (a.layer != layer) continue;
    const std::size_t c0 = a.head * hd;
    std::vector<float> fill(hd, 0.0f);
    if (a.mode == HeadAblation::Mode::mean) {
      std::vector<double> sum(hd, 0.0);
      for (std::size_t t = 0; t < T; ++t)
        for (std::size_t j = 0; j < hd; ++j) sum[j] += z[t * W + c0 + j];
      for (std::size_t j = 0; j < hd; ++j) fill[j] = static_cast<float>(sum[j] / static_cast<double>(T));
    } else if (a.mode == HeadAblation::Mode::value) {
      fill = a.value;
    }
    for (std::size_t t = 0; t < T; ++t) std::copy_n(fill.data(), hd, z.data() + t * W + c0);
  }
}

Tensor decoder_attention(ForwardPass& out, KvCache& cache, std::size_t layer, const Tensor& q, const Tensor& k, const Tensor& v,
                         std::size_t H, std::size_t hd, const ForwardOptions& o, const AttentionRule& rule) {
  tap(o, "q", layer, q);
  tap(o, "k", layer, k);
  tap(o, "v", layer, v);
  Tensor weights;
  Tensor z = cached_attention(cache, layer, q, k, v, H, o.keep_attentions ? &weights : nullptr, rule);
  if (o.keep_attentions) out.attentions.push_back(std::move(weights));
  ablate_heads(z, layer, hd, o);
  tap(o, "attn_heads", layer, z);
  return z;
}

Tensor encoder_attention(ForwardPass& out, std::size_t layer, const Tensor& q, const Tensor& k, const Tensor& v, std::size_t H,
                         std::size_t hd, const ForwardOptions& o) {
  tap(o, "q", layer, q);
  tap(o, "k", layer, k);
  tap(o, "v", layer, v);
  GroupedAttention a = grouped_query_attention(q, k, v, H, H, hd, false);
  if (o.keep_attentions) out.attentions.push_back(std::move(a.weights));
  ablate_heads(a.output, layer, hd, o);
  tap(o, "attn_heads", layer, a.output);
  return std::move(a.output);
}

void patch_residual(Tensor& x, std::size_t layer, std::size_t first_position, const ForwardOptions& o) {
  for (const ResidualPatch& p : o.patch)
    if (p.layer == layer && p.position >= first_position && p.position < first_position + x.rows())
      std::copy_n(p.value.data(), x.cols(), x.data() + (p.position - first_position) * x.cols());
}

void enter_block(ForwardPass& out, Tensor& x, std::size_t layer, std::size_t first_position, const ForwardOptions& o) {
  patch_residual(x, layer, first_position, o);
  tap(o, "resid_pre", layer, x);
  if (o.keep_hidden) out.hidden.push_back(x);
}

RopeTables rope_rows(const RopeTables& all, std::size_t first, std::size_t T) {
  if (first == 0 && T == all.len) return all;
  RopeTables r{T, all.pairs, std::vector<float>(T * all.pairs), std::vector<float>(T * all.pairs)};
  std::copy_n(all.cos.data() + first * all.pairs, T * all.pairs, r.cos.data());
  std::copy_n(all.sin.data() + first * all.pairs, T * all.pairs, r.sin.data());
  return r;
}

Tensor logit_rows(const Tensor& normed, LogitRows rows) {
  if (rows != LogitRows::last || normed.rows() <= 1) return normed;
  Tensor last({1, normed.cols()});
  std::copy_n(normed.data() + (normed.rows() - 1) * normed.cols(), normed.cols(), last.data());
  return last;
}

}  // namespace family_files

KvCache make_kv_cache(const Checkpoint& m, std::size_t capacity) {
  const ModelConfig& c = m.config;
  if (!c.decoder()) throw usage_error(fmt::format("{} is an encoder ({}): it does not generate text", m.dir, c.model_type));
  if (capacity == 0) throw usage_error("generation needs room for at least one position");
  if (const auto limit = c.position_limit(); limit && capacity > *limit)
    throw usage_error(fmt::format("{} positions are more than the model's {} (max_position_embeddings)", capacity, *limit));
  KvCache cache;
  cache.layers = c.layers;
  cache.kv_heads = c.kv_heads;
  cache.head_dim = c.head_dim;
  cache.capacity = capacity;
  // the cache: 2 × layers × KV × capacity × hd floats, refused before it is allocated when over
  // the budget
  check_memory(static_cast<double>(cache.bytes()) + static_cast<double>(m.file_bytes()),
               fmt::format("the mapped weights and the KV cache for {} positions ({} layers × 2 × {} heads × {} dims)", capacity, c.layers,
                           c.kv_heads, c.head_dim));
  cache.k.assign(c.layers, std::vector<float>(c.kv_heads * capacity * c.head_dim));
  cache.v.assign(c.layers, std::vector<float>(c.kv_heads * capacity * c.head_dim));
  return cache;
}

Tensor final_norm_and_head(const Checkpoint& m, const Tensor& residual) {
  const ModelConfig& c = m.config;
  if (m.head == OutputHead::none) throw usage_error(fmt::format("{}: the checkpoint has no output head to read a layer through", m.dir));
  if (residual.rank() != 2 || residual.cols() != c.d_model)
    throw Error(fmt::format("final_norm_and_head: the residual stream {} is not (T, {})", residual.shape_str(), c.d_model));
  return c.family->final_norm_and_head(m, residual);
}

}  // namespace tfx
