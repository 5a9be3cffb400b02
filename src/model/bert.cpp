// BERT (HF's BertModel / BertForMaskedLM, modeling_bert.py in eval mode): config keys, tensor
// names, the typed weights and the forward pass, top to bottom. Learned positions, token type 0
// everywhere, post-LN blocks, GELU (erf unless hidden_act says gelu_new), the MLM head when the
// file has it (its decoder tied to the word embeddings unless cls.predictions.decoder.weight is
// stored).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "model/family_files.hpp"
#include "tfx/attention/attention.hpp"
#include "tfx/core/ops.hpp"

namespace tfx::family_files {

namespace {

constexpr unsigned kBertThreads = 0;  // all cores for the matmuls
constexpr const char* kBertWord = "embeddings.word_embeddings.weight";
constexpr const char* kBertPosition = "embeddings.position_embeddings.weight";
constexpr const char* kBertHeadProbe = "cls.predictions.transform.dense.weight";

constexpr GeluFamilyKeys kBertKeys = {"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", 0,
                                      "max_position_embeddings", 512, "layer_norm_eps", 1e-12, "hidden_act", {"gelu", "gelu_new"}};

void bert_read_config(const nlohmann::json& j, const std::string& where, ModelConfig& c) { read_gelu_family(j, kBertKeys, where, c); }

// Every tensor with its shape and slot; the MLM head when the file has its transform.
std::vector<TensorSlot> bert_slots(Checkpoint& m, const MappedWeights& file) {
  const ModelConfig& c = m.config;
  BertWeights& w = m.weights.emplace<BertWeights>();
  w.layers.resize(c.layers);
  const std::size_t D = c.d_model, F = c.ffn, V = c.vocab;
  std::vector<TensorSlot> s = {{kBertWord, {V, D}, &w.word},
                               {kBertPosition, {c.max_positions, D}, &w.position},
                               {"embeddings.token_type_embeddings.weight", {0, D}, &w.token_type},  // rows: type_vocab_size ≥ 1
                               {"embeddings.LayerNorm.weight", {D}, &w.emb_ln_w},
                               {"embeddings.LayerNorm.bias", {D}, &w.emb_ln_b}};
  for (std::size_t i = 0; i < c.layers; ++i) {
    const std::string p = fmt::format("encoder.layer.{}.", i);
    BertLayerWeights& l = w.layers[i];
    const std::vector<TensorSlot> layer = {
        {p + "attention.self.query.weight", {D, D}, &l.q_w},     {p + "attention.self.query.bias", {D}, &l.q_b},
        {p + "attention.self.key.weight", {D, D}, &l.k_w},       {p + "attention.self.key.bias", {D}, &l.k_b},
        {p + "attention.self.value.weight", {D, D}, &l.v_w},     {p + "attention.self.value.bias", {D}, &l.v_b},
        {p + "attention.output.dense.weight", {D, D}, &l.o_w},   {p + "attention.output.dense.bias", {D}, &l.o_b},
        {p + "attention.output.LayerNorm.weight", {D}, &l.attn_ln_w}, {p + "attention.output.LayerNorm.bias", {D}, &l.attn_ln_b},
        {p + "intermediate.dense.weight", {F, D}, &l.ffn_in_w},  {p + "intermediate.dense.bias", {F}, &l.ffn_in_b},
        {p + "output.dense.weight", {D, F}, &l.ffn_out_w},       {p + "output.dense.bias", {D}, &l.ffn_out_b},
        {p + "output.LayerNorm.weight", {D}, &l.out_ln_w},       {p + "output.LayerNorm.bias", {D}, &l.out_ln_b}};
    for (TensorSlot t : layer) {
      t.layer = i;
      s.push_back(std::move(t));
    }
  }
  if (file.find(kBertHeadProbe)) {
    s.push_back({kBertHeadProbe, {D, D}, &w.head_w});
    s.push_back({"cls.predictions.transform.dense.bias", {D}, &w.head_b});
    s.push_back({"cls.predictions.transform.LayerNorm.weight", {D}, &w.head_ln_w});
    s.push_back({"cls.predictions.transform.LayerNorm.bias", {D}, &w.head_ln_b});
    s.push_back({"cls.predictions.bias", {V}, &w.head_bias});
    s.push_back({"cls.predictions.decoder.weight", {V, D}, &w.head_decoder, true});
  }
  return s;
}

OutputHead bert_output_head(const Checkpoint& m) { return std::get<BertWeights>(m.weights).head_w.empty() ? OutputHead::none : OutputHead::masked_lm; }

// The MLM head: dense, GELU, LayerNorm, decoder (tied to the word embeddings) + bias: x (T, D) → (T, V)
Tensor bert_mlm_head(const Checkpoint& m, const Tensor& x) {
  const BertWeights& w = std::get<BertWeights>(m.weights);
  Tensor t = linear(x, w.head_w, w.head_b, kBertThreads);
  gelu_inplace(t, gelu_form(m.config));
  t = stored_layer_norm(t, w.head_ln_w, w.head_ln_b, static_cast<float>(m.config.eps));
  return linear(t, w.head_decoder.empty() ? w.word : w.head_decoder, w.head_bias, kBertThreads);
}

// Post-LN: the residual stream entering block l is hidden[l] itself (no final norm): the lens is the MLM head.
ForwardPass bert_forward(const Checkpoint& m, const std::vector<std::size_t>& ids, const ForwardOptions& o) {
  const ModelConfig& c = m.config;
  const BertWeights& w = std::get<BertWeights>(m.weights);
  const float eps = static_cast<float>(c.eps);
  const std::size_t L = w.layers.size();
  ForwardPass out;
  // embeddings: word + position + token type 0, then LayerNorm
  // (or the resumed stream)
  Tensor x;
  if (o.resume) {
    x = o.resume->residual;
  } else {
    x = stored_rows(w.word, ids);
    add_table_rows(x, w.position, 0);
    const Tensor type0 = stored_rows(w.token_type, std::vector<std::size_t>{0});
    for (std::size_t t = 0; t < x.rows(); ++t)
      for (std::size_t j = 0; j < x.cols(); ++j) x(t, j) += type0(0, j);
    x = stored_layer_norm(x, w.emb_ln_w, w.emb_ln_b, eps);
  }
  for (std::size_t i = first_block(o); i < L; ++i) {
    const BertLayerWeights& l = w.layers[i];
    enter_block(out, x, i, 0, o);
    tap(o, "attn_in", i, x);
    // self-attention (no mask), output dense, Add & Norm
    const Tensor q = linear(x, l.q_w, l.q_b, kBertThreads);
    const Tensor k = linear(x, l.k_w, l.k_b, kBertThreads);
    const Tensor v = linear(x, l.v_w, l.v_b, kBertThreads);
    const Tensor z = encoder_attention(out, i, q, k, v, c.heads, c.head_dim, o);
    Tensor proj = linear(z, l.o_w, l.o_b, kBertThreads);
    tap(o, "attn_out", i, proj);
    add_inplace(proj, x);
    const Tensor h = stored_layer_norm(proj, l.attn_ln_w, l.attn_ln_b, eps);
    tap(o, "resid_mid", i, h);
    // FFN: dense, GELU, dense, Add & Norm
    Tensor f = linear(h, l.ffn_in_w, l.ffn_in_b, kBertThreads);
    gelu_inplace(f, gelu_form(c));
    tap(o, "mlp_act", i, f);
    Tensor y = linear(f, l.ffn_out_w, l.ffn_out_b, kBertThreads);
    tap(o, "mlp_out", i, y);
    add_inplace(y, h);
    x = stored_layer_norm(y, l.out_ln_w, l.out_ln_b, eps);
  }
  enter_block(out, x, L, 0, o);
  if (o.logits != LogitRows::none && !w.head_w.empty()) out.logits = bert_mlm_head(m, logit_rows(x, o.logits));
  return out;
}

const StoredMatrix& bert_token_embedding(const Checkpoint& m) { return std::get<BertWeights>(m.weights).word; }
const StoredMatrix* bert_position_table(const Checkpoint& m) { return &std::get<BertWeights>(m.weights).position; }

}  // namespace

const Family kBert = {.model_type = "bert",
                      .summary = N_("BERT (encoder, post-LN, learned positions)"),
                      .decoder = false,
                      .rope = false,
                      .masked_lm = true,
                      .final_norm = false,
                      .read_config = bert_read_config,
                      .tensor_slots = bert_slots,
                      .output_head = bert_output_head,
                      .forward = bert_forward,
                      .token_embedding = bert_token_embedding,
                      .token_embedding_name = kBertWord,
                      .position_table = bert_position_table,
                      .position_table_name = kBertPosition,
                      .final_norm_and_head = bert_mlm_head,
                      .norm_name = "LayerNorm",
                      .ffn_name = "GELU",
                      .positions_name = "learned"};

}  // namespace tfx::family_files
