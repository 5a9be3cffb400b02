// The forward passes of the checkpoint families (tfx/model/checkpoint.hpp), following Hugging
// Face's modeling_bert.py, modeling_gpt2.py and modeling_llama.py (eval mode: no dropout), on
// the tensor core's GEMM and vectorized math.
#include <fmt/format.h>

#include <cmath>

#include "tfx/core/error.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/vmath.hpp"
#include "tfx/model/checkpoint.hpp"

namespace tfx {

namespace {

constexpr unsigned kThreads = 0;  // all cores for the matmuls

const Tensor& w(const Checkpoint& m, const std::string& name) { return m.tensors.at(name); }

// y = x·Wᵀ + b for nn.Linear's W (out, in); b may be empty
Tensor linear(const Tensor& x, const Tensor& W, const Tensor* b = nullptr) {
  Tensor y = matmul_bt(x, W, kThreads);
  if (b) {
    const std::size_t n = y.cols();
    for (std::size_t i = 0; i < y.rows(); ++i)
      for (std::size_t j = 0; j < n; ++j) y(i, j) += (*b)[j];
  }
  return y;
}

// y = x·W + b for GPT-2's Conv1D, whose W is stored (in, out)
Tensor conv1d(const Tensor& x, const Tensor& W, const Tensor& b) {
  Tensor y = matmul(x, W, kThreads);
  for (std::size_t i = 0; i < y.rows(); ++i)
    for (std::size_t j = 0; j < y.cols(); ++j) y(i, j) += b[j];
  return y;
}

// GELU: erf form 0.5·x·(1 + erf(x/√2)); tanh form 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
void gelu(Tensor& x, bool tanh_form) {
  std::vector<float> t(x.values());
  float* v = x.data();
  const std::size_t n = x.size();
  if (tanh_form) {
    const float c = std::sqrt(2.0f / static_cast<float>(M_PI));
    for (std::size_t i = 0; i < n; ++i) t[i] = c * (v[i] + 0.044715f * v[i] * v[i] * v[i]);
    vmath::tanh_inplace(t.data(), n);
  } else {
    for (std::size_t i = 0; i < n; ++i) t[i] = v[i] * static_cast<float>(M_SQRT1_2);
    vmath::erf_inplace(t.data(), n);
  }
  for (std::size_t i = 0; i < n; ++i) v[i] = 0.5f * v[i] * (1.0f + t[i]);
}

// SiLU(g)·u = g/(1 + e^−g)·u
Tensor swiglu(const Tensor& g, const Tensor& u) {
  Tensor out = g;
  std::vector<float> e(g.size());
  for (std::size_t i = 0; i < g.size(); ++i) e[i] = -g[i];
  vmath::exp_inplace(e.data(), e.size());
  for (std::size_t i = 0; i < g.size(); ++i) out[i] = g[i] / (1.0f + e[i]) * u[i];
  return out;
}

// Llama's RMSNorm: x / √(mean(x²) + ε) · w (the mean in float32 as HF computes it, here double)
Tensor rms_norm(const Tensor& x, const Tensor& weight, double eps) {
  Tensor y(x.shape());
  const std::size_t D = x.cols();
  for (std::size_t i = 0; i < x.rows(); ++i) {
    double s = 0;
    for (std::size_t j = 0; j < D; ++j) s += static_cast<double>(x(i, j)) * x(i, j);
    const float r = static_cast<float>(1.0 / std::sqrt(s / static_cast<double>(D) + eps));
    for (std::size_t j = 0; j < D; ++j) y(i, j) = weight[j] * (x(i, j) * r);
  }
  return y;
}

// Scaled dot-product attention over heads: q (T, H·hd), k and v (T, KV·hd); head h reads KV head
// h / (H/KV) (grouped-query attention). Returns the output (T, H·hd) and the weights (H, T, T).
std::pair<Tensor, Tensor> attend(const Tensor& q, const Tensor& k, const Tensor& v, std::size_t H, std::size_t KV, std::size_t hd,
                                 bool causal) {
  const std::size_t T = q.rows(), group = H / KV;
  Tensor out({T, H * hd}), weights({H, T, T});
  std::vector<unsigned char> mask;
  if (causal) {
    mask.assign(T * T, 1);
    for (std::size_t i = 0; i < T; ++i)
      for (std::size_t j = i + 1; j < T; ++j) mask[i * T + j] = 0;
  }
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  for (std::size_t h = 0; h < H; ++h) {
    const std::size_t kvh = h / group;
    Tensor qh({T, hd}), kh({T, hd}), vh({T, hd});
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t j = 0; j < hd; ++j) {
        qh(t, j) = q(t, h * hd + j);
        kh(t, j) = k(t, kvh * hd + j);
        vh(t, j) = v(t, kvh * hd + j);
      }
    Tensor s = matmul_bt(qh, kh);
    for (float& x : s.values()) x *= scale;
    const Tensor p = softmax_rows(s, causal ? &mask : nullptr);
    const Tensor z = matmul(p, vh);
    std::copy(p.values().begin(), p.values().end(), weights.data() + h * T * T);
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t j = 0; j < hd; ++j) out(t, h * hd + j) = z(t, j);
  }
  return {std::move(out), std::move(weights)};
}

Tensor embedding_rows(const Tensor& table, const std::vector<std::size_t>& ids) {
  const std::size_t D = table.cols();
  Tensor x({ids.size(), D});
  for (std::size_t t = 0; t < ids.size(); ++t) std::copy_n(table.data() + ids[t] * D, D, x.data() + t * D);
  return x;
}

void add_rows(Tensor& x, const Tensor& table, std::size_t first_row) {
  for (std::size_t t = 0; t < x.rows(); ++t)
    for (std::size_t j = 0; j < x.cols(); ++j) x(t, j) += table(first_row + t, j);
}

void add_in_place(Tensor& x, const Tensor& y) {
  for (std::size_t i = 0; i < x.size(); ++i) x[i] += y[i];
}

ForwardPass bert_forward(const Checkpoint& m, const std::vector<std::size_t>& ids, bool want_logits) {
  const ModelConfig& c = m.config;
  ForwardPass out;
  Tensor x = embedding_rows(w(m, "embeddings.word_embeddings.weight"), ids);
  add_rows(x, w(m, "embeddings.position_embeddings.weight"), 0);
  const Tensor& types = w(m, "embeddings.token_type_embeddings.weight");  // token type 0 everywhere
  for (std::size_t t = 0; t < x.rows(); ++t)
    for (std::size_t j = 0; j < x.cols(); ++j) x(t, j) += types(0, j);
  const float eps = static_cast<float>(c.eps);
  x = layer_norm(x, w(m, "embeddings.LayerNorm.weight"), w(m, "embeddings.LayerNorm.bias"), eps);
  out.hidden.push_back(x);
  for (std::size_t i = 0; i < c.layers; ++i) {
    const std::string p = fmt::format("encoder.layer.{}.", i);
    const Tensor q = linear(x, w(m, p + "attention.self.query.weight"), &w(m, p + "attention.self.query.bias"));
    const Tensor k = linear(x, w(m, p + "attention.self.key.weight"), &w(m, p + "attention.self.key.bias"));
    const Tensor v = linear(x, w(m, p + "attention.self.value.weight"), &w(m, p + "attention.self.value.bias"));
    auto [z, weights] = attend(q, k, v, c.heads, c.heads, c.head_dim, false);
    out.attentions.push_back(std::move(weights));
    Tensor a = linear(z, w(m, p + "attention.output.dense.weight"), &w(m, p + "attention.output.dense.bias"));
    add_in_place(a, x);
    const Tensor h = layer_norm(a, w(m, p + "attention.output.LayerNorm.weight"), w(m, p + "attention.output.LayerNorm.bias"), eps);
    Tensor f = linear(h, w(m, p + "intermediate.dense.weight"), &w(m, p + "intermediate.dense.bias"));
    gelu(f, c.activation == "gelu_new");
    Tensor o = linear(f, w(m, p + "output.dense.weight"), &w(m, p + "output.dense.bias"));
    add_in_place(o, h);
    x = layer_norm(o, w(m, p + "output.LayerNorm.weight"), w(m, p + "output.LayerNorm.bias"), eps);
    out.hidden.push_back(x);
  }
  if (want_logits && m.has_lm_head) {
    Tensor t = linear(x, w(m, "cls.predictions.transform.dense.weight"), &w(m, "cls.predictions.transform.dense.bias"));
    gelu(t, c.activation == "gelu_new");
    t = layer_norm(t, w(m, "cls.predictions.transform.LayerNorm.weight"), w(m, "cls.predictions.transform.LayerNorm.bias"), eps);
    const auto dec = m.tensors.find("cls.predictions.decoder.weight");
    out.logits = linear(t, dec != m.tensors.end() ? dec->second : w(m, "embeddings.word_embeddings.weight"), &w(m, "cls.predictions.bias"));
  }
  return out;
}

ForwardPass gpt2_forward(const Checkpoint& m, const std::vector<std::size_t>& ids, bool want_logits) {
  const ModelConfig& c = m.config;
  const std::size_t D = c.d_model;
  const float eps = static_cast<float>(c.eps);
  ForwardPass out;
  Tensor x = embedding_rows(w(m, "wte.weight"), ids);
  add_rows(x, w(m, "wpe.weight"), 0);
  for (std::size_t i = 0; i < c.layers; ++i) {
    out.hidden.push_back(x);
    const std::string p = fmt::format("h.{}.", i);
    const Tensor a = layer_norm(x, w(m, p + "ln_1.weight"), w(m, p + "ln_1.bias"), eps);
    const Tensor qkv = conv1d(a, w(m, p + "attn.c_attn.weight"), w(m, p + "attn.c_attn.bias"));
    Tensor q({ids.size(), D}), k({ids.size(), D}), v({ids.size(), D});
    for (std::size_t t = 0; t < ids.size(); ++t) {
      std::copy_n(qkv.data() + t * 3 * D, D, q.data() + t * D);
      std::copy_n(qkv.data() + t * 3 * D + D, D, k.data() + t * D);
      std::copy_n(qkv.data() + t * 3 * D + 2 * D, D, v.data() + t * D);
    }
    auto [z, weights] = attend(q, k, v, c.heads, c.heads, c.head_dim, true);
    out.attentions.push_back(std::move(weights));
    add_in_place(x, conv1d(z, w(m, p + "attn.c_proj.weight"), w(m, p + "attn.c_proj.bias")));
    Tensor f = conv1d(layer_norm(x, w(m, p + "ln_2.weight"), w(m, p + "ln_2.bias"), eps), w(m, p + "mlp.c_fc.weight"),
                      w(m, p + "mlp.c_fc.bias"));
    gelu(f, c.activation == "gelu_new");
    add_in_place(x, conv1d(f, w(m, p + "mlp.c_proj.weight"), w(m, p + "mlp.c_proj.bias")));
  }
  x = layer_norm(x, w(m, "ln_f.weight"), w(m, "ln_f.bias"), eps);
  out.hidden.push_back(x);
  if (want_logits) {
    const auto head = m.tensors.find("lm_head.weight");
    out.logits = matmul_bt(x, head != m.tensors.end() ? head->second : w(m, "wte.weight"), kThreads);
  }
  return out;
}

ForwardPass llama_forward(const Checkpoint& m, const std::vector<std::size_t>& ids, bool want_logits) {
  const ModelConfig& c = m.config;
  const std::size_t T = ids.size(), H = c.heads, KV = c.kv_heads, hd = c.head_dim, P = hd / 2;
  ForwardPass out;
  // RoPE tables: θ(t, j) = t·inv_freq_j, cos and sin times the attention factor (YaRN), the
  // rotate-half layout: pair j is (j, j + hd/2)
  RopeConfig rope = c.rope;
  rope.seq_len = T;
  const std::vector<double> inv = rope_inv_freq(rope);
  const double factor = rope_attention_factor(rope);
  std::vector<float> cosv(T * P), sinv(T * P);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t j = 0; j < P; ++j) {
      const float angle = static_cast<float>(t) * static_cast<float>(inv[j]);  // float32, as HF computes it
      cosv[t * P + j] = static_cast<float>(std::cos(angle) * factor);
      sinv[t * P + j] = static_cast<float>(std::sin(angle) * factor);
    }
  auto rotate = [&](Tensor& x, std::size_t heads) {
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t h = 0; h < heads; ++h) {
        float* v = x.data() + t * x.cols() + h * hd;
        for (std::size_t j = 0; j < P; ++j) {
          const float a = v[j], b = v[j + P], cs = cosv[t * P + j], sn = sinv[t * P + j];
          v[j] = a * cs - b * sn;
          v[j + P] = b * cs + a * sn;
        }
      }
  };
  Tensor x = embedding_rows(w(m, "embed_tokens.weight"), ids);
  for (std::size_t i = 0; i < c.layers; ++i) {
    out.hidden.push_back(x);
    const std::string p = fmt::format("layers.{}.", i);
    const Tensor a = rms_norm(x, w(m, p + "input_layernorm.weight"), c.eps);
    auto bias = [&](const char* n) { return c.qkv_bias ? &w(m, p + n) : nullptr; };
    Tensor q = linear(a, w(m, p + "self_attn.q_proj.weight"), bias("self_attn.q_proj.bias"));
    Tensor k = linear(a, w(m, p + "self_attn.k_proj.weight"), bias("self_attn.k_proj.bias"));
    const Tensor v = linear(a, w(m, p + "self_attn.v_proj.weight"), bias("self_attn.v_proj.bias"));
    rotate(q, H);
    rotate(k, KV);
    auto [z, weights] = attend(q, k, v, H, KV, hd, true);
    out.attentions.push_back(std::move(weights));
    add_in_place(x, linear(z, w(m, p + "self_attn.o_proj.weight")));
    const Tensor b = rms_norm(x, w(m, p + "post_attention_layernorm.weight"), c.eps);
    const Tensor g = linear(b, w(m, p + "mlp.gate_proj.weight")), u = linear(b, w(m, p + "mlp.up_proj.weight"));
    add_in_place(x, linear(swiglu(g, u), w(m, p + "mlp.down_proj.weight")));
  }
  x = rms_norm(x, w(m, "norm.weight"), c.eps);
  out.hidden.push_back(x);
  if (want_logits) out.logits = matmul_bt(x, c.tied_head ? w(m, "embed_tokens.weight") : w(m, "lm_head.weight"), kThreads);
  return out;
}

}  // namespace

ForwardPass model_forward(const Checkpoint& m, const std::vector<std::size_t>& ids, bool want_logits) {
  const ModelConfig& c = m.config;
  if (ids.empty()) throw usage_error("no tokens to run the model on");
  const std::size_t rows = c.model_type == "bert" ? w(m, "embeddings.word_embeddings.weight").rows()
                           : c.model_type == "gpt2" ? w(m, "wte.weight").rows()
                                                    : w(m, "embed_tokens.weight").rows();
  for (std::size_t id : ids)
    if (id >= rows)
      throw Error(fmt::format("{}: token id {} is past the embedding's {} rows (the tokenizer does not match the weights)", m.dir, id, rows));
  if (!c.uses_rope() && ids.size() > c.max_positions)
    throw usage_error(fmt::format("{} tokens are more than the model's {} positions (max_position_embeddings); shorten the text",
                                  ids.size(), c.max_positions));
  if (c.model_type == "bert") return bert_forward(m, ids, want_logits);
  if (c.model_type == "gpt2") return gpt2_forward(m, ids, want_logits);
  return llama_forward(m, ids, want_logits);
}

}  // namespace tfx
