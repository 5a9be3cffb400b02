// Generation with a KV cache (generate.hpp): the decoder families' forward pass restated for T
// new tokens at positions n … n+T−1 against the cached keys and values of positions 0 … n−1,
// following Hugging Face's modeling_gpt2.py and modeling_llama.py (eval mode), on the tensor
// core's GEMM with the weights as stored (stored.hpp).
#include "tfx/model/generate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "tfx/core/error.hpp"
#include "tfx/core/memory.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/stored.hpp"
#include "tfx/core/vmath.hpp"

namespace tfx {

namespace {

constexpr unsigned kGenThreads = 0;  // all cores for the weight products

// y += b (b: (N) as stored, or absent)
void gen_add_bias(Tensor& y, const StoredMatrix& b) {
  if (b.rows * b.cols == 0) return;
  const Tensor bw = widen(b);
  for (std::size_t i = 0; i < y.rows(); ++i)
    for (std::size_t j = 0; j < y.cols(); ++j) y(i, j) += bw[j];
}

void gen_add(Tensor& x, const Tensor& y) {
  for (std::size_t i = 0; i < x.size(); ++i) x[i] += y[i];
}

// GELU, tanh form: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
void gen_gelu_tanh(Tensor& x) {
  std::vector<float> t(x.size());
  float* v = x.data();
  const float c = std::sqrt(2.0f / static_cast<float>(M_PI));
  for (std::size_t i = 0; i < x.size(); ++i) t[i] = c * (v[i] + 0.044715f * v[i] * v[i] * v[i]);
  vmath::tanh_inplace(t.data(), t.size());
  for (std::size_t i = 0; i < x.size(); ++i) v[i] = 0.5f * v[i] * (1.0f + t[i]);
}

// GELU, erf form: 0.5·x·(1 + erf(x/√2))
void gen_gelu_erf(Tensor& x) {
  std::vector<float> t(x.size());
  float* v = x.data();
  for (std::size_t i = 0; i < x.size(); ++i) t[i] = v[i] * static_cast<float>(M_SQRT1_2);
  vmath::erf_inplace(t.data(), t.size());
  for (std::size_t i = 0; i < x.size(); ++i) v[i] = 0.5f * v[i] * (1.0f + t[i]);
}

// SiLU(g)·u = g/(1 + e^−g)·u, in g's memory
void gen_swiglu(Tensor& g, const Tensor& u) {
  std::vector<float> e(g.size());
  for (std::size_t i = 0; i < g.size(); ++i) e[i] = -g[i];
  vmath::exp_inplace(e.data(), e.size());
  for (std::size_t i = 0; i < g.size(); ++i) g[i] = g[i] / (1.0f + e[i]) * u[i];
}

}  // namespace

struct KvDecoder::Impl {
  struct GenLayer {
    StoredMatrix norm1_w, norm1_b, norm2_w, norm2_b;
    // gpt2: c_attn (D, 3D) + bias, c_proj (D, D), c_fc (D, F), mlp c_proj (F, D), all (in, out)
    StoredMatrix attn_w, attn_b, proj_w, proj_b, fc_w, fc_b, fc2_w, fc2_b;
    // llama: (out, in)
    StoredMatrix q_w, k_w, v_w, q_b, k_b, v_b, o_w, gate_w, up_w, down_w;
  };

  ModelConfig config;
  bool gpt2 = false;
  std::size_t L = 0, H = 0, KV = 0, hd = 0, D = 0, V = 0, cap = 0, len = 0;
  std::vector<GenLayer> layers;
  StoredMatrix embed, positions, final_w, final_b, head;
  // cache per layer: K and V as (KV, cap, hd), so each head's keys are one contiguous matrix
  std::vector<std::vector<float>> k, v;
  // llama RoPE: cos and sin (× the attention factor) per position and pair, rotate-half layout
  std::vector<float> cosv, sinv;
  std::string where;  // the checkpoint folder, for errors

  void rotate(Tensor& x, std::size_t heads, std::size_t pos0) const {
    const std::size_t P = hd / 2;
    for (std::size_t t = 0; t < x.rows(); ++t)
      for (std::size_t h = 0; h < heads; ++h) {
        float* r = x.data() + t * x.cols() + h * hd;
        const float* cs = cosv.data() + (pos0 + t) * P;
        const float* sn = sinv.data() + (pos0 + t) * P;
        for (std::size_t j = 0; j < P; ++j) {
          const float a = r[j], b = r[j + P];
          r[j] = a * cs[j] - b * sn[j];
          r[j + P] = b * cs[j] + a * sn[j];
        }
      }
  }

  // q (T, H·hd), k and v (T, KV·hd) of positions len … len+T−1: k, v join the cache; returns the
  // attention output (T, H·hd). Query t sees keys 0 … len+t (causal).
  Tensor attend(std::size_t layer, const Tensor& q, const Tensor& kn, const Tensor& vn) {
    const std::size_t T = q.rows(), n = len + T, group = H / KV;
    float* kc = k[layer].data();
    float* vc = v[layer].data();
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t g = 0; g < KV; ++g) {
        std::copy_n(kn.data() + t * KV * hd + g * hd, hd, kc + (g * cap + len + t) * hd);
        std::copy_n(vn.data() + t * KV * hd + g * hd, hd, vc + (g * cap + len + t) * hd);
      }
    std::vector<unsigned char> mask;
    if (T > 1) {
      mask.assign(T * n, 1);
      for (std::size_t t = 0; t < T; ++t)
        for (std::size_t j = len + t + 1; j < n; ++j) mask[t * n + j] = 0;
    }
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    Tensor out({T, H * hd});
    Tensor qh({T, hd});
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t g = h / group;
      for (std::size_t t = 0; t < T; ++t) std::copy_n(q.data() + t * H * hd + h * hd, hd, qh.data() + t * hd);
      const StoredMatrix kh(kc + g * cap * hd, StoredType::f32, n, hd), vh(vc + g * cap * hd, StoredType::f32, n, hd);
      Tensor s = matmul_bt(qh, kh);
      for (float& x : s.values()) x *= scale;
      const Tensor p = softmax_rows(std::move(s), T > 1 ? &mask : nullptr);
      const Tensor z = matmul(p, vh);
      for (std::size_t t = 0; t < T; ++t) std::copy_n(z.data() + t * hd, hd, out.data() + t * H * hd + h * hd);
    }
    return out;
  }

  Tensor gpt2_block(std::size_t i, Tensor x) {
    const GenLayer& w = layers[i];
    const std::size_t T = x.rows();
    const float eps = static_cast<float>(config.eps);
    Tensor qkv = matmul(stored_layer_norm(x, w.norm1_w, w.norm1_b, eps), w.attn_w, kGenThreads);
    gen_add_bias(qkv, w.attn_b);
    Tensor q({T, D}), kn({T, D}), vn({T, D});
    for (std::size_t t = 0; t < T; ++t) {
      std::copy_n(qkv.data() + t * 3 * D, D, q.data() + t * D);
      std::copy_n(qkv.data() + t * 3 * D + D, D, kn.data() + t * D);
      std::copy_n(qkv.data() + t * 3 * D + 2 * D, D, vn.data() + t * D);
    }
    Tensor a = matmul(attend(i, q, kn, vn), w.proj_w, kGenThreads);
    gen_add_bias(a, w.proj_b);
    gen_add(x, a);
    Tensor f = matmul(stored_layer_norm(x, w.norm2_w, w.norm2_b, eps), w.fc_w, kGenThreads);
    gen_add_bias(f, w.fc_b);
    if (config.activation == "gelu_new" || config.activation == "gelu_pytorch_tanh") gen_gelu_tanh(f);
    else gen_gelu_erf(f);
    Tensor o = matmul(f, w.fc2_w, kGenThreads);
    gen_add_bias(o, w.fc2_b);
    gen_add(x, o);
    return x;
  }

  Tensor llama_block(std::size_t i, Tensor x) {
    const GenLayer& w = layers[i];
    const double eps = config.eps;
    const Tensor a = stored_rms_norm(x, w.norm1_w, eps);
    Tensor q = matmul_bt(a, w.q_w, kGenThreads), kn = matmul_bt(a, w.k_w, kGenThreads), vn = matmul_bt(a, w.v_w, kGenThreads);
    gen_add_bias(q, w.q_b);
    gen_add_bias(kn, w.k_b);
    gen_add_bias(vn, w.v_b);
    rotate(q, H, len);
    rotate(kn, KV, len);
    gen_add(x, matmul_bt(attend(i, q, kn, vn), w.o_w, kGenThreads));
    const Tensor b = stored_rms_norm(x, w.norm2_w, eps);
    Tensor g = matmul_bt(b, w.gate_w, kGenThreads);
    gen_swiglu(g, matmul_bt(b, w.up_w, kGenThreads));
    gen_add(x, matmul_bt(g, w.down_w, kGenThreads));
    return x;
  }
};

KvDecoder::KvDecoder(const ModelConfig& c, const MappedWeights& w, std::size_t capacity) : impl_(std::make_unique<Impl>()) {
  Impl& d = *impl_;
  if (!c.decoder()) throw usage_error(fmt::format("{} is an encoder ({}): it does not generate text", w.dir(), c.model_type));
  d.config = c;
  d.gpt2 = !c.uses_rope();
  d.L = c.layers;
  d.H = c.heads;
  d.KV = d.gpt2 ? c.heads : c.kv_heads;
  d.hd = c.head_dim;
  d.D = c.d_model;
  d.cap = capacity;
  d.where = w.dir();
  if (capacity == 0) throw usage_error("generation needs room for at least one position");
  const std::size_t D = d.D, F = c.ffn, V = c.vocab, Q = d.H * d.hd, KVW = d.KV * d.hd;
  if (d.gpt2) {
    d.embed = w.need("wte.weight", V, D);
    d.positions = w.need("wpe.weight", c.max_positions, D);
    d.final_w = w.need("ln_f.weight", 1, D);
    d.final_b = w.need("ln_f.bias", 1, D);
    d.head = w.find("lm_head.weight") ? w.need("lm_head.weight", V, D) : d.embed;
    if (capacity > c.max_positions)
      throw usage_error(fmt::format("{} positions are more than the model's {} (max_position_embeddings)", capacity, c.max_positions));
  } else {
    d.embed = w.need("embed_tokens.weight", V, D);
    d.final_w = w.need("norm.weight", 1, D);
    d.head = c.tied_head && !w.find("lm_head.weight") ? d.embed : w.need("lm_head.weight", V, D);
  }
  d.V = V;
  for (std::size_t i = 0; i < d.L; ++i) {
    Impl::GenLayer l;
    if (d.gpt2) {
      const std::string p = fmt::format("h.{}.", i);
      l.norm1_w = w.need(p + "ln_1.weight", 1, D);
      l.norm1_b = w.need(p + "ln_1.bias", 1, D);
      l.norm2_w = w.need(p + "ln_2.weight", 1, D);
      l.norm2_b = w.need(p + "ln_2.bias", 1, D);
      l.attn_w = w.need(p + "attn.c_attn.weight", D, 3 * D);
      l.attn_b = w.need(p + "attn.c_attn.bias", 1, 3 * D);
      l.proj_w = w.need(p + "attn.c_proj.weight", D, D);
      l.proj_b = w.need(p + "attn.c_proj.bias", 1, D);
      l.fc_w = w.need(p + "mlp.c_fc.weight", D, F);
      l.fc_b = w.need(p + "mlp.c_fc.bias", 1, F);
      l.fc2_w = w.need(p + "mlp.c_proj.weight", F, D);
      l.fc2_b = w.need(p + "mlp.c_proj.bias", 1, D);
    } else {
      const std::string p = fmt::format("layers.{}.", i);
      l.norm1_w = w.need(p + "input_layernorm.weight", 1, D);
      l.norm2_w = w.need(p + "post_attention_layernorm.weight", 1, D);
      l.q_w = w.need(p + "self_attn.q_proj.weight", Q, D);
      l.k_w = w.need(p + "self_attn.k_proj.weight", KVW, D);
      l.v_w = w.need(p + "self_attn.v_proj.weight", KVW, D);
      if (c.qkv_bias || w.find(p + "self_attn.q_proj.bias")) {
        l.q_b = w.need(p + "self_attn.q_proj.bias", 1, Q);
        l.k_b = w.need(p + "self_attn.k_proj.bias", 1, KVW);
        l.v_b = w.need(p + "self_attn.v_proj.bias", 1, KVW);
      }
      l.o_w = w.need(p + "self_attn.o_proj.weight", D, Q);
      l.gate_w = w.need(p + "mlp.gate_proj.weight", F, D);
      l.up_w = w.need(p + "mlp.up_proj.weight", F, D);
      l.down_w = w.need(p + "mlp.down_proj.weight", D, F);
    }
    d.layers.push_back(l);
  }
  // the cache: 2 × layers × KV × capacity × hd floats, refused before it is allocated when over
  // the budget
  const double bytes = 2.0 * static_cast<double>(d.L) * static_cast<double>(d.KV * capacity * d.hd) * sizeof(float);
  check_memory(bytes + static_cast<double>(w.mapped_bytes()), fmt::format("the mapped weights and the KV cache for {} positions ({} layers × 2 × {} heads × {} dims)", capacity, d.L, d.KV, d.hd));
  d.k.assign(d.L, std::vector<float>(d.KV * capacity * d.hd));
  d.v.assign(d.L, std::vector<float>(d.KV * capacity * d.hd));
  if (!d.gpt2) {
    // RoPE: θ(t, j) = t·inv_freq_j in float32 as HF computes it, cos and sin × the attention factor
    RopeConfig rope = c.rope;
    rope.seq_len = capacity;
    const std::vector<double> inv = rope_inv_freq(rope);
    const double factor = rope_attention_factor(rope);
    const std::size_t P = d.hd / 2;
    d.cosv.resize(capacity * P);
    d.sinv.resize(capacity * P);
    for (std::size_t t = 0; t < capacity; ++t)
      for (std::size_t j = 0; j < P; ++j) {
        const float angle = static_cast<float>(t) * static_cast<float>(inv[j]);
        d.cosv[t * P + j] = static_cast<float>(std::cos(angle) * factor);
        d.sinv[t * P + j] = static_cast<float>(std::sin(angle) * factor);
      }
  }
}

KvDecoder::~KvDecoder() = default;
KvDecoder::KvDecoder(KvDecoder&&) noexcept = default;
KvDecoder& KvDecoder::operator=(KvDecoder&&) noexcept = default;

std::size_t KvDecoder::length() const { return impl_->len; }
std::size_t KvDecoder::capacity() const { return impl_->cap; }
std::size_t KvDecoder::cache_bytes() const { return 2 * impl_->L * impl_->KV * impl_->cap * impl_->hd * sizeof(float); }

std::vector<float> KvDecoder::feed(std::span<const std::size_t> ids) {
  Impl& d = *impl_;
  if (ids.empty()) throw usage_error("no tokens to feed the model");
  if (d.len + ids.size() > d.cap)
    throw Error(fmt::format("the KV cache has room for {} positions; {} cached and {} more given", d.cap, d.len, ids.size()));
  for (std::size_t t = 0; t < ids.size(); ++t)
    if (ids[t] >= d.embed.rows)
      throw Error(fmt::format("{}: token id {} is past the embedding's {} rows (the tokenizer does not match the weights)",
                              d.where, ids[t], d.embed.rows));
  // 1. token embeddings (+ GPT-2's learned positions len … len+T−1)
  Tensor x = stored_rows(d.embed, ids);
  if (d.gpt2) {
    std::vector<float> row(d.D);
    for (std::size_t t = 0; t < ids.size(); ++t) {
      widen_row(d.positions, d.len + t, row);
      for (std::size_t j = 0; j < d.D; ++j) x(t, j) += row[j];
    }
  }
  // 2. the blocks, each caching its keys and values
  for (std::size_t i = 0; i < d.L; ++i) x = d.gpt2 ? d.gpt2_block(i, std::move(x)) : d.llama_block(i, std::move(x));
  d.len += ids.size();
  // 3. the final norm and the head, for the last position only
  Tensor last({1, d.D});
  std::copy_n(x.data() + (x.rows() - 1) * d.D, d.D, last.data());
  last = d.gpt2 ? stored_layer_norm(last, d.final_w, d.final_b, static_cast<float>(d.config.eps))
                : stored_rms_norm(last, d.final_w, d.config.eps);
  return matmul_bt(last, d.head, kGenThreads).values();
}

Generation generate(const ModelConfig& c, const MappedWeights& w, std::span<const std::size_t> prompt, const GenerateOptions& o,
                    const std::function<void(const GenerationStep&)>& on_step) {
  if (prompt.empty()) throw usage_error("no prompt tokens to start from");
  if (o.max_new_tokens == 0) throw usage_error("max_new_tokens must be at least 1", {"max_new_tokens"});
  // the sequence (prompt + generated) stays within GPT-2's learned positions
  std::size_t capacity = prompt.size() + o.max_new_tokens;
  bool limited = false;
  if (!c.uses_rope()) {
    if (prompt.size() >= c.max_positions)
      throw usage_error(fmt::format("the prompt's {} tokens fill the model's {} positions (max_position_embeddings): no room to "
                                    "generate; shorten the prompt",
                                    prompt.size(), c.max_positions));
    if (capacity > c.max_positions) capacity = c.max_positions, limited = true;
  }
  KvDecoder dec(c, w, capacity);
  Sampler sampler(o.sampling, o.seed);
  Generation g;
  g.prompt.assign(prompt.begin(), prompt.end());
  std::vector<float> logits = dec.feed(prompt);
  const std::size_t steps = capacity - prompt.size();
  for (std::size_t s = 0; s < steps; ++s) {
    GenerationStep st;
    st.position = prompt.size() + s;
    const std::vector<double> p = softmax_at_temperature(logits, 1.0);
    st.entropy = entropy_nats(p);
    TopK<double> best(o.shown);
    for (std::size_t i = 0; i < p.size(); ++i) best.push(i, p[i]);
    for (const auto& [id, q] : best.sorted()) st.top.push_back({id, q});
    st.token = sampler.next(logits);
    st.p = p[st.token];
    if (!o.sampling.greedy)
      for (const NextToken& t : sampling_distribution(logits, o.sampling))
        if (t.token == st.token) st.p_sampled = t.p;
    g.steps.push_back(st);
    if (on_step) on_step(g.steps.back());
    if (std::find(o.stop_ids.begin(), o.stop_ids.end(), st.token) != o.stop_ids.end()) {
      g.stopped = true;
      break;
    }
    if (s + 1 < steps) logits = dec.feed(std::span<const std::size_t>(&st.token, 1));
  }
  g.out_of_positions = limited && !g.stopped;
  return g;
}

}  // namespace tfx
