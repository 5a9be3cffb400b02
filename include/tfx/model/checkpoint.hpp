// A Hugging Face checkpoint folder opened offline: config.json, model.safetensors (or the shards
// model.safetensors.index.json names), and the forward pass of its family on tfx's tensor core.
// Families by config.json's model_type:
//   bert     BertModel / BertForMaskedLM: learned positions, token type 0, post-LN, erf GELU;
//            the MLM head (cls.predictions.*) when the file has it
//   gpt2     GPT2LMHeadModel: Conv1D weights stored (in, out), learned wpe, pre-LN, tanh GELU,
//            final ln_f, the head tied to wte
//   llama    LlamaForCausalLM: RMSNorm, SwiGLU, RoPE in the rotate-half layout with rope_theta
//            and rope_scaling (linear, dynamic, yarn, llama3: tfx/positional/rope.hpp), grouped-
//            query attention, tied or untied lm_head
//   qwen2    llama with q/k/v biases;   mistral   llama with a sliding window on every layer
//   qwen3    llama with q_norm / k_norm (RMSNorm over head_dim per head, before RoPE), head_dim
//            from config.json (default 128, apart from hidden_size / heads)
//   gemma    GemmaForCausalLM: llama's block with RMSNorm weights as offsets from 1, GELU (tanh) gates,
//            the embedding times √hidden_size, head_dim from config.json (default 256), a tied head
//   gemma2   gemma with a norm after each sublayer too, query_pre_attn_scalar, soft-capped scores and
//            logits, a sliding window on every other layer;  gemma3_text  (Gemma3ForCausalLM) gemma2
//            without the caps, with q_norm / k_norm and the sliding layers' own RoPE base
//   vit      ViTModel / ViTForImageClassification: a picture (tfx/model/vit.hpp's preprocessing) cut
//            into Conv2d patches, [CLS], learned positions, pre-LN, erf GELU, the classifier on [CLS]
// Tensor names are accepted with or without the prefixes bert. / transformer. / model. (vit. for ViT), and with
// the legacy LayerNorm names gamma / beta; tensors a family does not use are ignored. F32, F16
// and BF16 weights are used as stored from the memory-mapped file (tfx/core/stored.hpp: the ops
// widen what they read), so a checkpoint takes its file's size in memory, not twice it. Each family lives in one file (src/model/bert.cpp, gpt2.cpp,
// llama.cpp): its config keys, tensor names, typed weights (tfx/model/<family>.hpp) and forward
// pass; tfx/model/family.hpp is the table that picks one by model_type.
#pragma once
#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "tfx/core/tensor.hpp"
#include "tfx/model/bert.hpp"
#include "tfx/model/family.hpp"
#include "tfx/model/gemma.hpp"
#include "tfx/model/gpt2.hpp"
#include "tfx/model/llama.hpp"
#include "tfx/model/mapped_weights.hpp"
#include "tfx/model/safetensors.hpp"
#include "tfx/model/vit.hpp"
#include "tfx/positional/rope.hpp"

namespace tfx {

struct ModelConfig {
  std::string model_type;  // as config.json says it: bert, gpt2, llama, qwen2, qwen3, mistral, gemma, gemma2, gemma3_text, vit
  const Family* family = nullptr;  // its row of the family table (set by parse_model_config)
  std::size_t layers = 0, heads = 0, kv_heads = 0, d_model = 0, head_dim = 0, ffn = 0, vocab = 0, max_positions = 0;
  double eps = 1e-5;
  std::string activation;  // gelu (erf), gelu_new (tanh), silu
  bool tied_head = true;   // the output head is the token embedding
  bool qkv_bias = false;   // qwen2; attention_bias
  bool o_bias = false;     // attention_bias (llama, qwen3): o_proj has a bias too
  bool qk_norm = false;    // qwen3: q and k RMS-normalized per head (q_norm, k_norm) before RoPE
  std::optional<std::size_t> sliding_window;  // mistral, gemma2, gemma3: the window of the sliding_layers
  // The Gemma family (gemma, gemma2, gemma3_text):
  std::vector<bool> sliding_layers;  // per layer: attends to the last sliding_window positions only
  bool norm_plus_one = false;        // RMSNorm weights stored as offsets from 1 (HF: x̂·(1 + w)); GGUF
                                     // files hold 1 + w already (llama.cpp's converter added it)
  bool post_norms = false;           // gemma2/3: an RMSNorm after each sublayer, before its residual add
  double query_pre_attn_scalar = 0;  // gemma2/3: the scores' factor is its ^−½; 0: 1/√head_dim
  double attn_softcap = 0, final_softcap = 0;  // gemma2: scores and logits → cap·tanh(x / cap); 0: none
  std::optional<RopeConfig> rope_local;        // gemma3: the sliding layers' RoPE (rope_local_base_freq, no scaling)
  bool embed_scaled = false;                   // gemma: the token embedding times √hidden_size
  RopeConfig rope;         // llama family: dim = head_dim, half layout, base = rope_theta, scaling
  std::size_t image_size = 0, patch_size = 0, channels = 0;  // an image family (vit): the picture's side, the patch's, RGB
  std::vector<std::string> labels;  // vit: id2label by class id (vocab = their number)
  // config.json's "tfx_random_weights" (tfx's own key, which Hugging Face ignores): the checkpoint
  // was made with random weights (tfx's test and bench checkpoints), so its outputs show the
  // mechanics, not what a trained model does; every model command says so
  bool random_weights = false;
  bool uses_rope() const { return family->rope; }
  // The most positions the model reads: its learned table's rows (max_position_embeddings), or
  // none (RoPE runs on past max_position_embeddings).
  std::optional<std::size_t> position_limit() const {
    return family->rope ? std::nullopt : std::optional<std::size_t>(max_positions);
  }
  bool decoder() const { return family->decoder; }
  // Block `layer`'s attention rule: the scores' factor, its window (a sliding layer's), the cap
  AttentionRule attention_rule(std::size_t layer) const {
    const bool sliding = layer < sliding_layers.size() && sliding_layers[layer] && sliding_window;
    const float scale = query_pre_attn_scalar > 0 ? static_cast<float>(1.0 / std::sqrt(query_pre_attn_scalar)) : 0.0f;
    return {scale, sliding ? *sliding_window : 0, static_cast<float>(attn_softcap)};
  }
};

// config.json's text → ModelConfig. An unknown model_type names the supported ones; a missing or
// malformed field names it (tfx::Error prefixed with `where`).
ModelConfig parse_model_config(const std::string& json_text, const std::string& where);

struct Checkpoint {
  std::string dir;
  ModelConfig config;
  // the safetensors file(s), mapped read-only for the checkpoint's lifetime
  MappedWeights mapped;
  // the family's typed weights, filled once at load (the alternative is config.family's): views
  // into `mapped`
  std::variant<BertWeights, Gpt2Weights, LlamaWeights, GemmaWeights, VitWeights> weights;
  std::string dtype() const { return mapped.dtype(); }                    // F32, F16, BF16 (or "mixed")
  std::size_t file_bytes() const { return mapped.mapped_bytes(); }        // of the safetensors file(s)
  const std::vector<std::string>& files() const { return mapped.files(); }
  OutputHead head = OutputHead::none;
  bool has_lm_head = false;   // BERT: the MLM head is in the file; others: always (tied or not)
  std::size_t parameters = 0, block_parameters = 0;  // of the tensors the family needs; of block 0
  std::size_t parameter_count() const { return parameters; }
  const StoredMatrix& token_embedding() const { return config.family->token_embedding(*this); }
};

// Opens `dir`: config.json, then model.safetensors or model.safetensors.index.json and its shards.
// Checks that every tensor the family needs is there with its shape (naming the first that is
// not). Missing files, a shard the index names but the folder lacks, and an unknown model_type
// are tfx::Error naming them.
Checkpoint load_checkpoint(const std::string& dir);

// Everything the forward pass over `ids` (one sequence, positions 0 … T−1) produces, as Hugging
// Face's output_hidden_states / output_attentions give it.
struct ForwardPass {
  std::vector<Tensor> hidden;      // layers + 1 of (T, d): [0] the embedding output; gpt2/llama:
                                   // the last after the final norm
  std::vector<Tensor> attentions;  // layers of (heads, T, T), after softmax
  Tensor logits;                   // (T, vocab): the LM / MLM head (empty when there is none)
};
// `want_logits` false skips the head (the biggest matmul). Ids past the embedding's rows or more
// tokens than max_position_embeddings (learned positions) throw a usage error saying so.
ForwardPass model_forward(const Checkpoint& m, const std::vector<std::size_t>& ids, bool want_logits = true);
// The same with the options of family.hpp: the logits' rows, a KV cache (a decoder; its positions
// continue the cache's), the microscope's taps, head ablations and residual patches. A layer, head,
// position or vector length outside the model is a usage error naming it; so is a cache on an
// encoder or one without room for the ids.
ForwardPass model_forward(const Checkpoint& m, const std::vector<std::size_t>& ids, const ForwardOptions& o);
// model_forward's check of what it keeps, for logits made outside it (the KV decoder's, the logit
// lens's): a non-finite value in `t` (row r = token first_token + r) is an error naming the
// checkpoint, the step, the token and the first tensor of the file that holds an inf or NaN (the
// likely cause: the weights are used as stored, unchecked).
void check_finite_rows(const Checkpoint& m, const Tensor& t, const std::string& step, std::size_t first_token);
// The logit lens: a residual stream (T, D) through the family's final norm and output head → (T, V)
// (Family::final_norm_and_head). A family without a head: a usage error.
Tensor final_norm_and_head(const Checkpoint& m, const Tensor& residual);
// An empty KV cache for `capacity` positions of a decoder checkpoint (layers × 2 × KV × capacity ×
// hd floats; the mapped weights plus the cache are checked against the memory budget first). An
// encoder, capacity 0 or more positions than a learned table has: usage errors.
KvCache make_kv_cache(const Checkpoint& m, std::size_t capacity);
// The same for an image family (config.family->image()): `pixels` (C, image_size, image_size) from
// vit_pixel_values; T = patches + 1 ([CLS] first), logits (1, labels). A text family: usage error.
ForwardPass model_forward_image(const Checkpoint& m, const Tensor& pixels, bool want_logits = true);
ForwardPass model_forward_image(const Checkpoint& m, const Tensor& pixels, const ForwardOptions& o);

// The k most probable tokens of one position: softmax over the row of logits (in double, the
// row max subtracted), then the k largest (top_k's order: ties by the smaller id).
struct TokenProbability {
  std::size_t id;
  double probability;
  float logit;
};
std::vector<TokenProbability> top_probabilities(std::span<const float> logits, std::size_t k);

// Parameters of one block (layer).
inline std::size_t block_parameter_count(const Checkpoint& m) { return m.block_parameters; }

}  // namespace tfx
