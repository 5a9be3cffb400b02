// Generation with a KV cache (generate.hpp): the decoder families' forward pass restated for T
// new tokens at positions n … n+T−1 against the cached keys and values of positions 0 … n−1,
// following Hugging Face's modeling_gpt2.py and modeling_llama.py (eval mode), on the tensor
// core's GEMM with the weights as stored (stored.hpp).
#include "tfx/model/generate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <string>

#include "core/parallel.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/memory.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/stored.hpp"
#include "model/family_files.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {

constexpr unsigned kGenThreads = 0;  // all cores for the weight products

}  // namespace

struct KvDecoder::Impl {
  ModelConfig config;
  bool gpt2 = false;
  std::size_t L = 0, H = 0, KV = 0, hd = 0, D = 0, V = 0, cap = 0, len = 0;
  // the blocks of the family's typed weights (one of the two; their storage stays put when the
  // Checkpoint is moved), and the views the ends use
  std::span<const Gpt2LayerWeights> gpt2_layers;
  std::span<const LlamaLayerWeights> llama_layers;
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
    // one head: its scores, softmax and mix, written into its columns of `out`
    auto head = [&](std::size_t h) {
      const std::size_t g = h / group;
      Tensor qh({T, hd});
      for (std::size_t t = 0; t < T; ++t) std::copy_n(q.data() + t * H * hd + h * hd, hd, qh.data() + t * hd);
      const StoredMatrix kh(kc + g * cap * hd, StoredType::f32, n, hd), vh(vc + g * cap * hd, StoredType::f32, n, hd);
      Tensor s = matmul_bt(qh, kh);
      for (float& x : s.values()) x *= scale;
      const Tensor p = softmax_rows(std::move(s), T > 1 ? &mask : nullptr);
      const Tensor z = matmul(p, vh);
      for (std::size_t t = 0; t < T; ++t) std::copy_n(z.data() + t * hd, hd, out.data() + t * H * hd + h * hd);
    };
    // a prompt's heads side by side on every core (each head's arithmetic is the same whichever
    // thread runs it); one new token's heads are too little work to share
    const unsigned threads = T > 1 ? worker_threads(T * n * hd * H) : 1;
    parallel_for_threads(threads, [&](unsigned t, unsigned nt) {
      for (std::size_t h = t; h < H; h += nt) head(h);
    });
    return out;
  }

  Tensor gpt2_block(std::size_t i, Tensor x) {
    const Gpt2LayerWeights& w = gpt2_layers[i];
    const std::size_t T = x.rows();
    const float eps = static_cast<float>(config.eps);
    const Tensor qkv = linear_in_out(stored_layer_norm(x, w.ln1_w, w.ln1_b, eps), w.qkv_w, w.qkv_b, kGenThreads);
    Tensor q({T, D}), kn({T, D}), vn({T, D});
    for (std::size_t t = 0; t < T; ++t) {
      std::copy_n(qkv.data() + t * 3 * D, D, q.data() + t * D);
      std::copy_n(qkv.data() + t * 3 * D + D, D, kn.data() + t * D);
      std::copy_n(qkv.data() + t * 3 * D + 2 * D, D, vn.data() + t * D);
    }
    add_inplace(x, linear_in_out(attend(i, q, kn, vn), w.proj_w, w.proj_b, kGenThreads));
    Tensor f = linear_in_out(stored_layer_norm(x, w.ln2_w, w.ln2_b, eps), w.fc_w, w.fc_b, kGenThreads);
    gelu_inplace(f, family_files::gelu_form(config));
    add_inplace(x, linear_in_out(f, w.fc_proj_w, w.fc_proj_b, kGenThreads));
    return x;
  }

  Tensor llama_block(std::size_t i, Tensor x) {
    const LlamaLayerWeights& w = llama_layers[i];
    const double eps = config.eps;
    const Tensor a = stored_rms_norm(x, w.attn_norm, eps);
    Tensor q = linear(a, w.q_w, w.q_b, kGenThreads), kn = linear(a, w.k_w, w.k_b, kGenThreads);
    const Tensor vn = linear(a, w.v_w, w.v_b, kGenThreads);
    rotate(q, H, len);
    rotate(kn, KV, len);
    add_inplace(x, linear(attend(i, q, kn, vn), w.o_w, {}, kGenThreads));
    const Tensor b = stored_rms_norm(x, w.ffn_norm, eps);
    add_inplace(x, linear(swiglu(linear(b, w.gate, {}, kGenThreads), linear(b, w.up, {}, kGenThreads)), w.down, {}, kGenThreads));
    return x;
  }
};

KvDecoder::KvDecoder(const Checkpoint& m, std::size_t capacity) : impl_(std::make_unique<Impl>()) {
  Impl& d = *impl_;
  const ModelConfig& c = m.config;
  if (!c.decoder()) throw usage_error(fmt::format(N_("{} is an encoder ({}): it does not generate text"), m.dir, c.model_type));
  d.config = c;
  d.gpt2 = !c.uses_rope();
  d.L = c.layers;
  d.H = c.heads;
  d.KV = d.gpt2 ? c.heads : c.kv_heads;
  d.hd = c.head_dim;
  d.D = c.d_model;
  d.V = c.vocab;
  d.cap = capacity;
  d.where = m.dir;
  if (capacity == 0) throw usage_error(N_("generation needs room for at least one position"));
  // the family's weights as load_checkpoint checked them: views into the mapped file
  if (d.gpt2) {
    const Gpt2Weights& w = std::get<Gpt2Weights>(m.weights);
    d.gpt2_layers = w.layers;
    d.embed = w.wte;
    d.positions = w.wpe;
    d.final_w = w.lnf_w;
    d.final_b = w.lnf_b;
    d.head = w.lm_head.empty() ? w.wte : w.lm_head;
    if (capacity > c.max_positions)
      throw usage_error(fmt::format(N_("{} positions are more than the model's {} (max_position_embeddings)"), capacity, c.max_positions));
  } else {
    const LlamaWeights& w = std::get<LlamaWeights>(m.weights);
    d.llama_layers = w.layers;
    d.embed = w.embed;
    d.final_w = w.norm;
    d.head = c.tied_head ? w.embed : w.lm_head;
  }
  // the cache: 2 × layers × KV × capacity × hd floats, refused before it is allocated when over
  // the budget
  const double bytes = 2.0 * static_cast<double>(d.L) * static_cast<double>(d.KV * capacity * d.hd) * sizeof(float);
  check_memory(bytes + static_cast<double>(m.file_bytes()), fmt::format("the mapped weights and the KV cache for {} positions ({} layers × 2 × {} heads × {} dims)", capacity, d.L, d.KV, d.hd));
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
  if (ids.empty()) throw usage_error(N_("no tokens to feed the model"));
  if (d.len + ids.size() > d.cap)
    throw Error(fmt::format(N_("the KV cache has room for {} positions; {} cached and {} more given"), d.cap, d.len, ids.size()));
  for (std::size_t t = 0; t < ids.size(); ++t)
    if (ids[t] >= d.embed.rows)
      throw Error(fmt::format(N_("{}: token id {} is past the embedding's {} rows (the tokenizer does not match the weights)"),
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

Generation generate(const Checkpoint& m, std::span<const std::size_t> prompt, const GenerateOptions& o,
                    const std::function<void(const GenerationStep&)>& on_step) {
  const ModelConfig& c = m.config;
  if (prompt.empty()) throw usage_error(N_("no prompt tokens to start from"));
  if (o.max_new_tokens == 0) throw usage_error(N_("max_new_tokens must be at least 1"), {"max_new_tokens"});
  // the sequence (prompt + generated) stays within GPT-2's learned positions
  std::size_t capacity = prompt.size() + o.max_new_tokens;
  bool limited = false;
  if (!c.uses_rope()) {
    if (prompt.size() >= c.max_positions)
      throw usage_error(fmt::format(N_("the prompt's {} tokens fill the model's {} positions (max_position_embeddings): no room to "
                                    "generate; shorten the prompt"),
                                    prompt.size(), c.max_positions));
    if (capacity > c.max_positions) capacity = c.max_positions, limited = true;
  }
  KvDecoder dec(m, capacity);
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
