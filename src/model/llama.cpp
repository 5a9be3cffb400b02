// The Llama family (HF's LlamaForCausalLM, modeling_llama.py in eval mode) with its variants
// Qwen2 (q/k/v biases, tied head by default), Qwen3 (modeling_qwen3.py: q_norm and k_norm, an
// RMSNorm over head_dim of every q and k head before RoPE; head_dim 128 unless config.json says)
// and Mistral (a sliding window on every layer: each query sees the last sliding_window keys): config
// keys, tensor names, the typed weights and the forward pass, top to bottom.
// RMSNorm, RoPE in the rotate-half layout with rope_theta and rope_scaling (linear, dynamic,
// yarn, llama3: tfx/positional/rope.hpp), grouped-query attention, SwiGLU, tied or untied head.
#include <fmt/format.h>

#include <cctype>
#include <cstring>

#include <cmath>
#include <nlohmann/json.hpp>

#include "model/family_files.hpp"
#include "tfx/attention/attention.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/io/json_fields.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::family_files {

namespace {

constexpr unsigned kLlamaThreads = 0;  // all cores for the matmuls
constexpr const char* kLlamaEmbed = "embed_tokens.weight";

// What the variants change in config.json's reading.
struct LlamaVariant {
  bool tied_default;    // tie_word_embeddings when config.json does not say
  bool qkv_bias;        // q/k/v projections always have biases (else only with attention_bias)
  bool sliding_window;  // reads sliding_window
  bool qk_norm = false;                  // q_norm and k_norm per head before RoPE (qwen3)
  std::size_t head_dim_default = 0;      // head_dim when config.json does not say (0: hidden_size / heads)
};

void llama_read_variant(const nlohmann::json& j, const std::string& where, ModelConfig& c, const LlamaVariant& var) {
  c.d_model = whole_field(j, "hidden_size", where);
  c.layers = whole_field(j, "num_hidden_layers", where);
  c.heads = whole_field(j, "num_attention_heads", where);
  c.kv_heads = whole_field(j, "num_key_value_heads", where, c.heads);
  c.ffn = whole_field(j, "intermediate_size", where);
  c.vocab = whole_field(j, "vocab_size", where);
  c.max_positions = whole_field(j, "max_position_embeddings", where, 2048);
  c.eps = number_field(j, "rms_norm_eps", where, 1e-6);
  c.activation = json_string(j, "hidden_act", "silu", where);
  if (c.activation != "silu") bad(where, fmt::format(N_("hidden_act \"{}\" is not supported (silu)"), c.activation));
  c.head_dim = whole_field(j, "head_dim", where, var.head_dim_default ? var.head_dim_default : c.d_model / c.heads);
  c.tied_head = json_bool(j, "tie_word_embeddings", var.tied_default, where);
  const bool attention_bias = json_bool(j, "attention_bias", false, where);
  c.qkv_bias = var.qkv_bias || attention_bias;
  c.o_bias = !var.qkv_bias && attention_bias;  // qwen2's o_proj never has one
  c.qk_norm = var.qk_norm;
  if (var.qk_norm && json_bool(j, "use_sliding_window", false, where))
    bad(where, "use_sliding_window true is not supported (tfx attends to every earlier token)");
  // Mistral's window on every layer (null in its later configs: none)
  if (var.sliding_window && j.contains("sliding_window") && !j["sliding_window"].is_null()) {
    c.sliding_window = whole_field(j, "sliding_window", where);
    c.sliding_layers.assign(c.layers, true);
  }
  if (c.heads % c.kv_heads != 0) bad(where, fmt::format(N_("num_key_value_heads {} does not divide num_attention_heads {}"), c.kv_heads, c.heads));
  if (c.head_dim % 2) bad(where, fmt::format(N_("head_dim {} is odd (RoPE rotates pairs)"), c.head_dim));
  c.rope.dim = c.head_dim;
  c.rope.layout = RopeLayout::half;
  c.rope.base = 10000.0;
  read_rope_keys(j, where, c.rope, c.max_positions);
}

void llama_read_config(const nlohmann::json& j, const std::string& where, ModelConfig& c) { llama_read_variant(j, where, c, {false, false, false}); }
void qwen2_read_config(const nlohmann::json& j, const std::string& where, ModelConfig& c) { llama_read_variant(j, where, c, {true, true, false}); }
void qwen3_read_config(const nlohmann::json& j, const std::string& where, ModelConfig& c) {
  llama_read_variant(j, where, c, {false, false, false, true, 128});
}
void mistral_read_config(const nlohmann::json& j, const std::string& where, ModelConfig& c) { llama_read_variant(j, where, c, {false, false, true}); }

std::vector<TensorSlot> llama_slots(Checkpoint& m, const MappedWeights&) {
  const ModelConfig& c = m.config;
  LlamaWeights& w = m.weights.emplace<LlamaWeights>();
  w.layers.resize(c.layers);
  const std::size_t D = c.d_model, F = c.ffn, V = c.vocab, H = c.heads, KV = c.kv_heads, hd = c.head_dim;
  std::vector<TensorSlot> s = {{kLlamaEmbed, {V, D}, &w.embed}};
  for (std::size_t i = 0; i < c.layers; ++i) {
    const std::string p = fmt::format("layers.{}.", i);
    LlamaLayerWeights& l = w.layers[i];
    std::vector<TensorSlot> layer = {{p + "input_layernorm.weight", {D}, &l.attn_norm},
                                     {p + "self_attn.q_proj.weight", {H * hd, D}, &l.q_w},
                                     {p + "self_attn.k_proj.weight", {KV * hd, D}, &l.k_w},
                                     {p + "self_attn.v_proj.weight", {KV * hd, D}, &l.v_w}};
    if (c.qkv_bias) {
      layer.push_back({p + "self_attn.q_proj.bias", {H * hd}, &l.q_b});
      layer.push_back({p + "self_attn.k_proj.bias", {KV * hd}, &l.k_b});
      layer.push_back({p + "self_attn.v_proj.bias", {KV * hd}, &l.v_b});
    }
    if (c.qk_norm) {
      layer.push_back({p + "self_attn.q_norm.weight", {hd}, &l.q_norm});
      layer.push_back({p + "self_attn.k_norm.weight", {hd}, &l.k_norm});
    }
    layer.push_back({p + "self_attn.o_proj.weight", {D, H * hd}, &l.o_w});
    if (c.o_bias) layer.push_back({p + "self_attn.o_proj.bias", {D}, &l.o_b});
    layer.push_back({p + "post_attention_layernorm.weight", {D}, &l.ffn_norm});
    layer.push_back({p + "mlp.gate_proj.weight", {F, D}, &l.gate});
    layer.push_back({p + "mlp.up_proj.weight", {F, D}, &l.up});
    layer.push_back({p + "mlp.down_proj.weight", {D, F}, &l.down});
    for (TensorSlot& t : layer) {
      t.layer = i;
      s.push_back(std::move(t));
    }
  }
  s.push_back({"norm.weight", {D}, &w.norm});
  s.push_back({"lm_head.weight", {V, D}, &w.lm_head, c.tied_head});  // a tied head may still be stored
  return s;
}

OutputHead llama_output_head(const Checkpoint& m) {
  return m.config.tied_head && std::get<LlamaWeights>(m.weights).lm_head.empty() ? OutputHead::tied : OutputHead::untied;
}

// the final RMSNorm then the head (embed_tokens when tied): x (T, D) → (T, V)
Tensor llama_final_norm_and_head(const Checkpoint& m, const Tensor& x) {
  const LlamaWeights& w = std::get<LlamaWeights>(m.weights);
  return matmul_bt(stored_rms_norm(x, w.norm, m.config.eps), m.config.tied_head ? w.embed : w.lm_head, kLlamaThreads);
}

// T tokens at positions n … n+T−1 (n = the cache's length; 0 without one)
ForwardPass llama_forward(const Checkpoint& m, const std::vector<std::size_t>& ids, const ForwardOptions& o) {
  const ModelConfig& c = m.config;
  const LlamaWeights& w = std::get<LlamaWeights>(m.weights);
  const std::size_t T = ids.size(), L = w.layers.size();
  KvCache local;
  KvCache& cache = *pass_cache(o, local, c, T);
  const std::size_t n = cache.length;
  // RoPE: cos and sin of every position the cache holds (θ(t, j) = t·inv_freq_j in float32, as HF)
  if (cache.rope.len == 0) cache.rope = rope_tables(cache.capacity, c.rope);
  const RopeTables rope = rope_rows(cache.rope, n, T);
  ForwardPass out;
  Tensor x = o.resume ? o.resume->residual : stored_rows(w.embed, ids);
  for (std::size_t i = first_block(o); i < L; ++i) {
    const LlamaLayerWeights& l = w.layers[i];
    enter_block(out, x, i, n, o);
    // x + o_proj(attention(RoPE(q), RoPE(k), v)) of RMSNorm(x)
    const Tensor a = stored_rms_norm(x, l.attn_norm, c.eps);
    tap(o, "attn_in", i, a);
    // (one parallel pass over the three projections' rows when decoding: the same bits as three calls)
    std::vector<Tensor> qkv = linear_many(a, {&l.q_w, &l.k_w, &l.v_w}, {&l.q_b, &l.k_b, &l.v_b}, kLlamaThreads);
    Tensor q = std::move(qkv[0]), k = std::move(qkv[1]);
    const Tensor v = std::move(qkv[2]);
    if (c.qk_norm) {  // Qwen3: RMSNorm over each head's hd numbers, before RoPE
      q = stored_rms_norm(q.reshaped({T * c.heads, c.head_dim}), l.q_norm, c.eps).reshaped({T, c.heads * c.head_dim});
      k = stored_rms_norm(k.reshaped({T * c.kv_heads, c.head_dim}), l.k_norm, c.eps).reshaped({T, c.kv_heads * c.head_dim});
    }
    rope_rotate_heads(q, c.heads, rope, RopeLayout::half);
    rope_rotate_heads(k, c.kv_heads, rope, RopeLayout::half);
    const Tensor z = decoder_attention(out, cache, i, q, k, v, c.heads, c.head_dim, o, c.attention_rule(i));
    const Tensor proj = linear(z, l.o_w, l.o_b, kLlamaThreads);
    tap(o, "attn_out", i, proj);
    add_inplace(x, proj);
    tap(o, "resid_mid", i, x);
    // x + down(SiLU(gate(b))·up(b)) of b = RMSNorm(x)
    const Tensor b = stored_rms_norm(x, l.ffn_norm, c.eps);
    const std::vector<Tensor> gate_up = matmul_bt_many(b, {&l.gate, &l.up}, kLlamaThreads);
    const Tensor act = swiglu(gate_up[0], gate_up[1]);
    tap(o, "mlp_act", i, act);
    const Tensor mlp = linear(act, l.down, {}, kLlamaThreads);
    tap(o, "mlp_out", i, mlp);
    add_inplace(x, mlp);
  }
  cache.length += T;
  patch_residual(x, L, n, o);
  tap(o, "resid_pre", L, x);
  // the final RMSNorm and the head
  x = stored_rms_norm(o.keep_hidden ? x : logit_rows(x, o.logits), w.norm, c.eps);
  if (o.keep_hidden) out.hidden.push_back(x);
  if (o.logits != LogitRows::none) out.logits = matmul_bt(logit_rows(x, o.logits), c.tied_head ? w.embed : w.lm_head, kLlamaThreads);
  return out;
}

const StoredMatrix& llama_token_embedding(const Checkpoint& m) { return std::get<LlamaWeights>(m.weights).embed; }

}  // namespace

const Family kLlama = TFX_ROPE_DECODER_ROW("llama", llama_read_config, llama, kLlamaEmbed, "SwiGLU");
const Family kQwen2 = TFX_ROPE_DECODER_ROW("qwen2", qwen2_read_config, llama, kLlamaEmbed, "SwiGLU");
const Family kQwen3 = TFX_ROPE_DECODER_ROW("qwen3", qwen3_read_config, llama, kLlamaEmbed, "SwiGLU");
const Family kMistral = TFX_ROPE_DECODER_ROW("mistral", mistral_read_config, llama, kLlamaEmbed, "SwiGLU");

}  // namespace tfx::family_files
