// The Gemma family: HF's GemmaForCausalLM (modeling_gemma.py), Gemma2ForCausalLM (modeling_gemma2.py)
// and Gemma3ForCausalLM (modeling_gemma3.py, model_type gemma3_text: the text model), in eval mode:
// config keys, tensor names, the typed weights and the forward pass, top to bottom.
// Llama's decoder (RMSNorm, RoPE in the rotate-half layout, grouped-query attention) with Gemma's
// changes: the token embedding times √hidden_size, RMSNorm weights stored as offsets from 1
// (x̂·(1 + w)), a GELU (tanh) gate instead of SiLU (GeGLU), head_dim from config.json, a head tied to
// the embedding. Gemma 2 adds a norm after each sublayer (before its residual add), the scores'
// factor query_pre_attn_scalar^−½, soft-capped scores and logits (cap·tanh(x / cap)) and a sliding
// window on every other layer; Gemma 3 drops the caps and adds q_norm / k_norm (as Qwen3) and gives
// its sliding layers their own RoPE base (rope_local_base_freq, no scaling) and its other layers
// rope_theta with rope_scaling.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "model/family_files.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/io/json_fields.hpp"

namespace tfx::family_files {

namespace {

constexpr unsigned kGemmaThreads = 0;  // all cores for the matmuls
constexpr const char* kGemmaEmbed = "embed_tokens.weight";

enum class GemmaVersion { v1, v2, v3 };

// config.json's (or a GGUF file's metadata as config.json) keys, with each version's defaults
// (GemmaConfig, Gemma2Config, Gemma3TextConfig)
void gemma_read(const nlohmann::json& j, const std::string& where, ModelConfig& c, GemmaVersion v) {
  c.d_model = whole_field(j, "hidden_size", where);
  c.layers = whole_field(j, "num_hidden_layers", where);
  c.heads = whole_field(j, "num_attention_heads", where);
  c.kv_heads = whole_field(j, "num_key_value_heads", where, c.heads);
  c.head_dim = whole_field(j, "head_dim", where, 256);
  c.ffn = whole_field(j, "intermediate_size", where);
  c.vocab = whole_field(j, "vocab_size", where);
  c.max_positions = whole_field(j, "max_position_embeddings", where, v == GemmaVersion::v3 ? 131072 : 8192);
  c.eps = number_field(j, "rms_norm_eps", where, 1e-6);
  // HF's Gemma MLP reads hidden_activation (the tanh GELU when it is null; early configs said
  // hidden_act "gelu", which HF replaced by the tanh form with a warning)
  c.activation = json_string(j, "hidden_activation", "gelu_pytorch_tanh", where);
  if (c.activation != "gelu_pytorch_tanh" && c.activation != "gelu_new" && c.activation != "gelu_fast")
    bad(where, fmt::format(N_("hidden_activation \"{}\" is not supported (gelu_pytorch_tanh)"), c.activation));
  c.tied_head = json_bool(j, "tie_word_embeddings", true, where);
  if (!c.tied_head) bad(where, N_("tie_word_embeddings false is not supported (Gemma's head is its embedding)"));
  if (json_bool(j, "attention_bias", false, where)) bad(where, N_("attention_bias true is not supported (Gemma has none)"));
  if (c.heads % c.kv_heads != 0) bad(where, fmt::format(N_("num_key_value_heads {} does not divide num_attention_heads {}"), c.kv_heads, c.heads));
  if (c.head_dim % 2) bad(where, fmt::format(N_("head_dim {} is odd (RoPE rotates pairs)"), c.head_dim));
  // tfx's own key in a GGUF file's config: llama.cpp's converter stored 1 + w
  c.norm_plus_one = !json_bool(j, "tfx_norm_weights_include_one", false, where);
  c.embed_scaled = true;
  c.rope.dim = c.head_dim;
  c.rope.layout = RopeLayout::half;
  c.rope.base = v == GemmaVersion::v3 ? 1000000.0 : 10000.0;
  read_rope_keys(j, where, c.rope, c.max_positions);
  if (v == GemmaVersion::v1) return;
  c.post_norms = true;
  c.qk_norm = v == GemmaVersion::v3;
  c.query_pre_attn_scalar = number_field(j, "query_pre_attn_scalar", where, 256.0);
  // a cap of null (gemma3's default) is none
  const auto cap = [&](const char* key, double fallback) {
    if (j.contains(key) && j[key].is_null()) return 0.0;
    return number_field(j, key, where, fallback);
  };
  // (Gemma 3's attention never reads its attn_logit_softcapping)
  c.attn_softcap = v == GemmaVersion::v2 ? cap("attn_logit_softcapping", 50.0) : 0.0;
  c.final_softcap = cap("final_logit_softcapping", v == GemmaVersion::v2 ? 30.0 : 0.0);
  c.sliding_window = whole_field(j, "sliding_window", where, 4096);
  // which layers slide: layer_types ("sliding_attention" / "full_attention"), else gemma2's even
  // layers, gemma3's all but every sliding_window_pattern-th
  c.sliding_layers.assign(c.layers, false);
  if (j.contains("layer_types") && !j["layer_types"].is_null()) {
    const nlohmann::json& t = j["layer_types"];
    if (!t.is_array() || t.size() != c.layers)
      bad(where, fmt::format(N_("layer_types should list {} layers (\"sliding_attention\" or \"full_attention\")"), c.layers));
    for (std::size_t i = 0; i < c.layers; ++i) {
      const std::string s = t[i].is_string() ? t[i].get<std::string>() : "";
      if (s != "sliding_attention" && s != "full_attention")
        bad(where, fmt::format(N_("layer_types[{}] should be \"sliding_attention\" or \"full_attention\""), i));
      c.sliding_layers[i] = s == "sliding_attention";
    }
  } else {
    const std::size_t pattern = v == GemmaVersion::v2 ? 2 : whole_field(j, "sliding_window_pattern", where, 6);
    for (std::size_t i = 0; i < c.layers; ++i) c.sliding_layers[i] = (i + 1) % pattern != 0;
  }
  if (v == GemmaVersion::v3) {
    RopeConfig local;
    local.dim = c.head_dim;
    local.layout = RopeLayout::half;
    local.base = number_field(j, "rope_local_base_freq", where, 10000.0);
    c.rope_local = local;
  }
}

void gemma_read_config(const nlohmann::json& j, const std::string& where, ModelConfig& c) { gemma_read(j, where, c, GemmaVersion::v1); }
void gemma2_read_config(const nlohmann::json& j, const std::string& where, ModelConfig& c) { gemma_read(j, where, c, GemmaVersion::v2); }
void gemma3_read_config(const nlohmann::json& j, const std::string& where, ModelConfig& c) { gemma_read(j, where, c, GemmaVersion::v3); }
// Gemma3ForConditionalGeneration (model_type gemma3: the 4B, 12B and 27B models): its text_config is
// a gemma3_text config (Gemma3TextConfig's vocabulary of 262,208 when it does not say); the vision
// tower is left out
void gemma3_multimodal_read_config(const nlohmann::json& j, const std::string& where, ModelConfig& c) {
  if (!j.contains("text_config") || !j["text_config"].is_object())
    bad(where, N_("no \"text_config\" object (tfx reads the text model of a gemma3 checkpoint)"));
  nlohmann::json text = j["text_config"];
  if (!text.contains("vocab_size")) text["vocab_size"] = 262208;
  gemma_read(text, where + " text_config", c, GemmaVersion::v3);
}

std::vector<TensorSlot> gemma_slots(Checkpoint& m, const MappedWeights&) {
  const ModelConfig& c = m.config;
  GemmaWeights& w = m.weights.emplace<GemmaWeights>();
  w.layers.resize(c.layers);
  const std::size_t D = c.d_model, F = c.ffn, V = c.vocab, H = c.heads, KV = c.kv_heads, hd = c.head_dim;
  std::vector<TensorSlot> s = {{kGemmaEmbed, {V, D}, &w.embed}};
  for (std::size_t i = 0; i < c.layers; ++i) {
    const std::string p = fmt::format("layers.{}.", i);
    GemmaLayerWeights& l = w.layers[i];
    std::vector<TensorSlot> layer = {{p + "input_layernorm.weight", {D}, &l.attn_norm},
                                     {p + "self_attn.q_proj.weight", {H * hd, D}, &l.q_w},
                                     {p + "self_attn.k_proj.weight", {KV * hd, D}, &l.k_w},
                                     {p + "self_attn.v_proj.weight", {KV * hd, D}, &l.v_w}};
    if (c.qk_norm) {
      layer.push_back({p + "self_attn.q_norm.weight", {hd}, &l.q_norm});
      layer.push_back({p + "self_attn.k_norm.weight", {hd}, &l.k_norm});
    }
    layer.push_back({p + "self_attn.o_proj.weight", {D, H * hd}, &l.o_w});
    if (c.post_norms) {
      layer.push_back({p + "post_attention_layernorm.weight", {D}, &l.post_attn_norm});
      layer.push_back({p + "pre_feedforward_layernorm.weight", {D}, &l.ffn_norm});
      layer.push_back({p + "post_feedforward_layernorm.weight", {D}, &l.post_ffn_norm});
    } else {
      layer.push_back({p + "post_attention_layernorm.weight", {D}, &l.ffn_norm});
    }
    layer.push_back({p + "mlp.gate_proj.weight", {F, D}, &l.gate});
    layer.push_back({p + "mlp.up_proj.weight", {F, D}, &l.up});
    layer.push_back({p + "mlp.down_proj.weight", {D, F}, &l.down});
    for (TensorSlot& t : layer) {
      t.layer = i;
      s.push_back(std::move(t));
    }
  }
  s.push_back({"norm.weight", {D}, &w.norm});
  return s;
}

OutputHead gemma_output_head(const Checkpoint&) { return OutputHead::tied; }

// Gemma's RMSNorm over the last axis of x (T, N): x̂·(1 + w) (HF: 1 + w in float32, then the
// product), or x̂·w when the file holds 1 + w
Tensor gemma_norm(const Tensor& x, const StoredMatrix& w, const ModelConfig& c) {
  if (!c.norm_plus_one) return stored_rms_norm(x, w, c.eps);
  Tensor one_plus = widen(w);
  for (float& v : one_plus.values()) v = 1.0f + v;
  return rms_norm(x, one_plus.reshaped({one_plus.size()}), c.eps);
}

// The final norm, the tied head and (gemma2) the logits' soft cap: x (T, D) → (T, V)
Tensor gemma_head(const Checkpoint& m, const Tensor& normed) {
  Tensor logits = matmul_bt(normed, std::get<GemmaWeights>(m.weights).embed, kGemmaThreads);
  if (m.config.final_softcap > 0) softcap_inplace(logits, static_cast<float>(m.config.final_softcap));
  return logits;
}

Tensor gemma_final_norm_and_head(const Checkpoint& m, const Tensor& x) {
  return gemma_head(m, gemma_norm(x, std::get<GemmaWeights>(m.weights).norm, m.config));
}

// T tokens at positions n … n+T−1 (n = the cache's length; 0 without one)
ForwardPass gemma_forward(const Checkpoint& m, const std::vector<std::size_t>& ids, const ForwardOptions& o) {
  const ModelConfig& c = m.config;
  const GemmaWeights& w = std::get<GemmaWeights>(m.weights);
  const std::size_t T = ids.size(), L = w.layers.size();
  KvCache local;
  KvCache& cache = *pass_cache(o, local, c, T);
  const std::size_t n = cache.length;
  // RoPE: cos and sin of every position the cache holds, for the full layers and (gemma3) the sliding ones
  if (cache.rope.len == 0) cache.rope = rope_tables(cache.capacity, c.rope);
  if (c.rope_local && cache.rope_local.len == 0) cache.rope_local = rope_tables(cache.capacity, *c.rope_local);
  const RopeTables rope = rope_rows(cache.rope, n, T);
  const RopeTables rope_local = c.rope_local ? rope_rows(cache.rope_local, n, T) : RopeTables{};
  ForwardPass out;
  Tensor x;
  if (o.resume) {
    x = o.resume->residual;
  } else {  // the embedding times √hidden_size (HF: the factor as a float32 tensor)
    x = stored_rows(w.embed, ids);
    const float normalizer = static_cast<float>(std::sqrt(static_cast<double>(c.d_model)));
    for (float& v : x.values()) v *= normalizer;
  }
  for (std::size_t i = first_block(o); i < L; ++i) {
    const GemmaLayerWeights& l = w.layers[i];
    const bool sliding = !c.sliding_layers.empty() && c.sliding_layers[i];
    enter_block(out, x, i, n, o);
    // x + [post-norm](o_proj(attention(RoPE(q), RoPE(k), v))) of norm(x)
    const Tensor a = gemma_norm(x, l.attn_norm, c);
    tap(o, "attn_in", i, a);
    std::vector<Tensor> qkv = linear_many(a, {&l.q_w, &l.k_w, &l.v_w}, {nullptr, nullptr, nullptr}, kGemmaThreads);
    Tensor q = std::move(qkv[0]), k = std::move(qkv[1]);
    const Tensor v = std::move(qkv[2]);
    if (c.qk_norm) {  // gemma3: each head's hd numbers normalized, before RoPE
      q = gemma_norm(q.reshaped({T * c.heads, c.head_dim}), l.q_norm, c).reshaped({T, c.heads * c.head_dim});
      k = gemma_norm(k.reshaped({T * c.kv_heads, c.head_dim}), l.k_norm, c).reshaped({T, c.kv_heads * c.head_dim});
    }
    const RopeTables& r = sliding && c.rope_local ? rope_local : rope;
    rope_rotate_heads(q, c.heads, r, RopeLayout::half);
    rope_rotate_heads(k, c.kv_heads, r, RopeLayout::half);
    const Tensor z = decoder_attention(out, cache, i, q, k, v, c.heads, c.head_dim, o, c.attention_rule(i));
    Tensor proj = linear(z, l.o_w, {}, kGemmaThreads);
    if (c.post_norms) proj = gemma_norm(proj, l.post_attn_norm, c);
    tap(o, "attn_out", i, proj);
    add_inplace(x, proj);
    tap(o, "resid_mid", i, x);
    // x + [post-norm](down(GELU_tanh(gate(b))·up(b))) of b = norm(x)
    const Tensor b = gemma_norm(x, l.ffn_norm, c);
    const std::vector<Tensor> gate_up = matmul_bt_many(b, {&l.gate, &l.up}, kGemmaThreads);
    const Tensor act = geglu(gate_up[0], gate_up[1]);
    tap(o, "mlp_act", i, act);
    Tensor mlp = linear(act, l.down, {}, kGemmaThreads);
    if (c.post_norms) mlp = gemma_norm(mlp, l.post_ffn_norm, c);
    tap(o, "mlp_out", i, mlp);
    add_inplace(x, mlp);
  }
  cache.length += T;
  patch_residual(x, L, n, o);
  tap(o, "resid_pre", L, x);
  // the final norm and the tied head
  x = gemma_norm(o.keep_hidden ? x : logit_rows(x, o.logits), w.norm, c);
  if (o.keep_hidden) out.hidden.push_back(x);
  if (o.logits != LogitRows::none) out.logits = gemma_head(m, logit_rows(x, o.logits));
  return out;
}

const StoredMatrix& gemma_token_embedding(const Checkpoint& m) { return std::get<GemmaWeights>(m.weights).embed; }

}  // namespace

const Family kGemma = TFX_ROPE_DECODER_ROW("gemma", gemma_read_config, gemma, kGemmaEmbed, "GeGLU");
const Family kGemma2 = TFX_ROPE_DECODER_ROW("gemma2", gemma2_read_config, gemma, kGemmaEmbed, "GeGLU");
const Family kGemma3 = TFX_ROPE_DECODER_ROW("gemma3_text", gemma3_read_config, gemma, kGemmaEmbed, "GeGLU");
const Family kGemma3Multimodal = TFX_ROPE_DECODER_ROW("gemma3", gemma3_multimodal_read_config, gemma, kGemmaEmbed, "GeGLU");

}  // namespace tfx::family_files
