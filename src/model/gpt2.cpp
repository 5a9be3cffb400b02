// GPT-2 (HF's GPT2LMHeadModel, modeling_gpt2.py in eval mode): config keys, tensor names, the
// typed weights and the forward pass, top to bottom. Learned positions (wpe), pre-LN blocks,
// Conv1D weights stored (in, out), causal attention, GELU (tanh form unless activation_function
// says gelu), the final ln_f, the head tied to wte unless lm_head.weight is stored.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "model/family_files.hpp"
#include "tfx/attention/attention.hpp"
#include "tfx/core/ops.hpp"

namespace tfx::family_files {

namespace {

constexpr unsigned kGpt2Threads = 0;  // all cores for the matmuls
constexpr const char* kGpt2Wte = "wte.weight";
constexpr const char* kGpt2Wpe = "wpe.weight";

constexpr GeluFamilyKeys kGpt2Keys = {"n_embd", "n_layer", "n_head", "n_inner", 4,
                                      "n_positions", 1024, "layer_norm_epsilon", 1e-5, "activation_function", {"gelu_new", "gelu"}};

void gpt2_read_config(const nlohmann::json& j, const std::string& where, ModelConfig& c) { read_gelu_family(j, kGpt2Keys, where, c); }

std::vector<TensorSlot> gpt2_slots(Checkpoint& m, const MappedWeights&) {
  const ModelConfig& c = m.config;
  Gpt2Weights& w = m.weights.emplace<Gpt2Weights>();
  w.layers.resize(c.layers);
  const std::size_t D = c.d_model, F = c.ffn, V = c.vocab;
  std::vector<TensorSlot> s = {{kGpt2Wte, {V, D}, &w.wte}, {kGpt2Wpe, {c.max_positions, D}, &w.wpe}};
  for (std::size_t i = 0; i < c.layers; ++i) {
    const std::string p = fmt::format("h.{}.", i);
    Gpt2LayerWeights& l = w.layers[i];
    const std::vector<TensorSlot> layer = {
        {p + "ln_1.weight", {D}, &l.ln1_w},              {p + "ln_1.bias", {D}, &l.ln1_b},
        {p + "attn.c_attn.weight", {D, 3 * D}, &l.qkv_w}, {p + "attn.c_attn.bias", {3 * D}, &l.qkv_b},
        {p + "attn.c_proj.weight", {D, D}, &l.proj_w},    {p + "attn.c_proj.bias", {D}, &l.proj_b},
        {p + "ln_2.weight", {D}, &l.ln2_w},              {p + "ln_2.bias", {D}, &l.ln2_b},
        {p + "mlp.c_fc.weight", {D, F}, &l.fc_w},         {p + "mlp.c_fc.bias", {F}, &l.fc_b},
        {p + "mlp.c_proj.weight", {F, D}, &l.fc_proj_w},  {p + "mlp.c_proj.bias", {D}, &l.fc_proj_b}};
    for (TensorSlot t : layer) {
      t.layer = i;
      s.push_back(std::move(t));
    }
  }
  s.push_back({"ln_f.weight", {D}, &w.lnf_w});
  s.push_back({"ln_f.bias", {D}, &w.lnf_b});
  s.push_back({"lm_head.weight", {V, D}, &w.lm_head, true});
  return s;
}

OutputHead gpt2_output_head(const Checkpoint& m) {
  return std::get<Gpt2Weights>(m.weights).lm_head.empty() ? OutputHead::tied : OutputHead::untied;
}

// ln_f then the head (wte, or lm_head when stored): x (T, D) → (T, V)
Tensor gpt2_final_norm_and_head(const Checkpoint& m, const Tensor& x) {
  const Gpt2Weights& w = std::get<Gpt2Weights>(m.weights);
  return matmul_bt(stored_layer_norm(x, w.lnf_w, w.lnf_b, static_cast<float>(m.config.eps)), w.lm_head.empty() ? w.wte : w.lm_head,
                   kGpt2Threads);
}

// T tokens at positions n … n+T−1 (n = the cache's length; 0 without one)
ForwardPass gpt2_forward(const Checkpoint& m, const std::vector<std::size_t>& ids, const ForwardOptions& o) {
  const ModelConfig& c = m.config;
  const Gpt2Weights& w = std::get<Gpt2Weights>(m.weights);
  const std::size_t D = c.d_model, T = ids.size(), L = w.layers.size();
  const float eps = static_cast<float>(c.eps);
  KvCache local;
  KvCache& cache = *pass_cache(o, local, c, T);
  const std::size_t n = cache.length;
  ForwardPass out;
  // token + position embeddings (or the resumed stream)
  Tensor x;
  if (o.resume) {
    x = o.resume->residual;
  } else {
    x = stored_rows(w.wte, ids);
    add_table_rows(x, w.wpe, n);
  }
  for (std::size_t i = first_block(o); i < L; ++i) {
    const Gpt2LayerWeights& l = w.layers[i];
    enter_block(out, x, i, n, o);
    // x + attention(ln_1(x)): q, k, v side by side in c_attn's output
    const Tensor a = stored_layer_norm(x, l.ln1_w, l.ln1_b, eps);
    tap(o, "attn_in", i, a);
    const Tensor qkv = linear_in_out(a, l.qkv_w, l.qkv_b, kGpt2Threads);
    Tensor q({T, D}), k({T, D}), v({T, D});
    for (std::size_t t = 0; t < T; ++t) {
      std::copy_n(qkv.data() + t * 3 * D, D, q.data() + t * D);
      std::copy_n(qkv.data() + t * 3 * D + D, D, k.data() + t * D);
      std::copy_n(qkv.data() + t * 3 * D + 2 * D, D, v.data() + t * D);
    }
    const Tensor z = decoder_attention(out, cache, i, q, k, v, c.heads, c.head_dim, o);
    const Tensor proj = linear_in_out(z, l.proj_w, l.proj_b, kGpt2Threads);
    tap(o, "attn_out", i, proj);
    add_inplace(x, proj);
    tap(o, "resid_mid", i, x);
    // x + mlp(ln_2(x))
    const Tensor mlp_in = stored_layer_norm(x, l.ln2_w, l.ln2_b, eps);
    tap(o, "mlp_in", i, mlp_in);
    Tensor f = linear_in_out(mlp_in, l.fc_w, l.fc_b, kGpt2Threads);
    tap(o, "mlp_pre", i, f);
    gelu_inplace(f, gelu_form(c));
    tap(o, "mlp_act", i, f);
    const Tensor mlp = linear_in_out(f, l.fc_proj_w, l.fc_proj_b, kGpt2Threads);
    tap(o, "mlp_out", i, mlp);
    add_inplace(x, mlp);
  }
  cache.length += T;
  patch_residual(x, L, n, o);
  tap(o, "resid_pre", L, x);
  // the final norm (ln_f) and the head
  x = stored_layer_norm(o.keep_hidden ? x : logit_rows(x, o.logits), w.lnf_w, w.lnf_b, eps);
  if (o.keep_hidden) out.hidden.push_back(x);
  if (o.logits != LogitRows::none) out.logits = matmul_bt(logit_rows(x, o.logits), w.lm_head.empty() ? w.wte : w.lm_head, kGpt2Threads);
  return out;
}

const StoredMatrix& gpt2_token_embedding(const Checkpoint& m) { return std::get<Gpt2Weights>(m.weights).wte; }
const StoredMatrix* gpt2_position_table(const Checkpoint& m) { return &std::get<Gpt2Weights>(m.weights).wpe; }

}  // namespace

const Family kGpt2 = {.model_type = "gpt2",
                      .summary = N_("GPT-2 (decoder, pre-LN, learned positions)"),
                      .decoder = true,
                      .rope = false,
                      .masked_lm = false,
                      .final_norm = true,
                      .read_config = gpt2_read_config,
                      .tensor_slots = gpt2_slots,
                      .output_head = gpt2_output_head,
                      .forward = gpt2_forward,
                      .token_embedding = gpt2_token_embedding,
                      .token_embedding_name = kGpt2Wte,
                      .position_table = gpt2_position_table,
                      .position_table_name = kGpt2Wpe,
                      .final_norm_and_head = gpt2_final_norm_and_head,
                      .norm_name = "LayerNorm",
                      .ffn_name = "GELU",
                      .positions_name = "learned"};

}  // namespace tfx::family_files
