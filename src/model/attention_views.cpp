// The microscope's attention views (attention_views.hpp): sinks from the forward pass's attentions,
// the neuron view from its q and k taps, and the KV cache's size.
#include "tfx/model/attention_views.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/model/family.hpp"

namespace tfx {

// share(l, h) = (1/T) Σ_i A_l[h, i, 0]
Tensor first_token_share(const std::vector<Tensor>& attentions) {
  if (attentions.empty()) return Tensor();
  const std::size_t L = attentions.size(), H = attentions.front().dim(0), T = attentions.front().dim(1);
  Tensor out({L, H});
  for (std::size_t l = 0; l < L; ++l) {
    const Tensor& a = attentions[l];
    if (a.rank() != 3 || a.dim(0) != H || a.dim(1) != T || a.dim(2) != T)
      throw Error(fmt::format("first_token_share: layer {}'s attentions {} are not ({}, {}, {})", l, a.shape_str(), H, T, T));
    for (std::size_t h = 0; h < H; ++h) {
      double sum = 0;
      for (std::size_t i = 0; i < T; ++i) sum += a[(h * T + i) * T];
      out(l, h) = static_cast<float>(sum / static_cast<double>(T));
    }
  }
  return out;
}

namespace {

double mean_of(const Tensor& t) {
  double s = 0;
  for (float v : t.values()) s += v;
  return t.empty() ? 0.0 : s / static_cast<double>(t.size());
}

}  // namespace

AttentionSinks attention_sinks(const Checkpoint& m, const std::vector<std::size_t>& ids) {
  if (ids.size() < 2)
    throw usage_error(fmt::format("attention sinks need at least 2 tokens (the share on the first, and again without it); got {}", ids.size()));
  ForwardOptions o;
  o.logits = LogitRows::none;
  o.keep_hidden = false;
  AttentionSinks s;
  s.share = first_token_share(model_forward(m, ids, o).attentions);
  const std::vector<std::size_t> rest(ids.begin() + 1, ids.end());
  s.share_without_first = first_token_share(model_forward(m, rest, o).attentions);
  s.mean = mean_of(s.share);
  s.mean_without_first = mean_of(s.share_without_first);
  return s;
}

// score_j = (Σ_d q_d · k_jd) / √hd (the sum in double); weights = softmax(scores), the max subtracted
NeuronView neuron_view(const Tensor& q_proj, const Tensor& k_proj, std::size_t heads, std::size_t kv_heads, std::size_t head,
                       std::size_t query, bool causal, const AttentionRule& rule) {
  const std::size_t T = q_proj.rows();
  if (heads == 0 || kv_heads == 0 || heads % kv_heads != 0 || q_proj.cols() % heads != 0)
    throw Error(fmt::format("neuron_view: q {} does not split into {} heads", q_proj.shape_str(), heads));
  const std::size_t hd = q_proj.cols() / heads;
  if (k_proj.rows() != T || k_proj.cols() != kv_heads * hd)
    throw Error(fmt::format("neuron_view: k {} is not ({}, {})", k_proj.shape_str(), T, kv_heads * hd));
  if (head >= heads) throw usage_error(fmt::format("head {}: the model has {} heads (0 … {})", head, heads, heads - 1));
  if (query >= T) throw usage_error(fmt::format("query {}: the input has {} tokens (0 … {})", query, T, T - 1));
  const std::size_t g = head / (heads / kv_heads), n = causal ? query + 1 : T;
  NeuronView v;
  v.head = head;
  v.query = query;
  v.head_dim = hd;
  v.scale = rule.scale > 0 ? static_cast<double>(rule.scale) : 1.0 / std::sqrt(static_cast<double>(hd));
  v.softcap = rule.softcap;
  v.q.assign(q_proj.data() + query * heads * hd + head * hd, q_proj.data() + query * heads * hd + (head + 1) * hd);
  v.k = Tensor({n, hd});
  v.qk = Tensor({n, hd});
  v.scores.resize(n);
  v.sums.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    const float* kj = k_proj.data() + j * kv_heads * hd + g * hd;
    double sum = 0;
    for (std::size_t d = 0; d < hd; ++d) {
      v.k(j, d) = kj[d];
      v.qk(j, d) = v.q[d] * kj[d];
      sum += static_cast<double>(v.q[d]) * static_cast<double>(kj[d]);
    }
    v.sums[j] = sum;
    v.scores[j] = sum * v.scale;
    if (rule.softcap > 0) v.scores[j] = rule.softcap * std::tanh(v.scores[j] / rule.softcap);
  }
  // a sliding window: the keys before query − window + 1 get weight 0
  const std::size_t first = rule.window > 0 && query + 1 > rule.window ? query + 1 - rule.window : 0;
  const double top = *std::max_element(v.scores.begin() + static_cast<std::ptrdiff_t>(first), v.scores.end());
  double z = 0;
  v.weights.assign(n, 0.0);
  for (std::size_t j = first; j < n; ++j) z += v.weights[j] = std::exp(v.scores[j] - top);
  for (double& w : v.weights) w /= z;
  return v;
}

LayerQk layer_qk(const Checkpoint& m, const std::vector<std::size_t>& ids, const Tensor& pixels, std::size_t layer) {
  const ModelConfig& c = m.config;
  if (layer >= c.layers) throw usage_error(fmt::format("layer {}: the model has {} layers (0 … {})", layer, c.layers, c.layers - 1));
  LayerQk out;
  ForwardOptions o;
  o.logits = LogitRows::none;
  o.keep_hidden = false;
  o.tap = [&out, layer](const char* name, std::size_t l, const Tensor& value) {
    if (l != layer) return;
    if (std::strcmp(name, "q") == 0) out.q = value;
    if (std::strcmp(name, "k") == 0) out.k = value;
  };
  ForwardPass f = c.family->image() ? model_forward_image(m, pixels, o) : model_forward(m, ids, o);
  out.attentions = std::move(f.attentions.at(layer));
  if (out.q.empty() || out.k.empty()) throw Error(fmt::format("{}: the {} forward pass did not tap q and k", m.dir, c.model_type));
  return out;
}

// 2 (K and V) × L × KV × hd × bytes
std::size_t kv_cache_bytes_per_token(const ModelConfig& c, std::size_t bytes_per_number, bool grouped) {
  return 2 * c.layers * (grouped ? c.kv_heads : c.heads) * c.head_dim * bytes_per_number;
}

std::size_t kv_cache_held_bytes(const KvCache& cache) {
  std::size_t floats = 0;
  for (const std::vector<float>& k : cache.k) floats += k.size();
  for (const std::vector<float>& v : cache.v) floats += v.size();
  return floats * sizeof(float);
}

}  // namespace tfx
