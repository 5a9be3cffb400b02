// What the family files (src/model/bert.cpp, gpt2.cpp, llama.cpp, vit.cpp) share: config.json field
// readers with the range checks, and their rows for the family table (families.cpp).
#pragma once
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/model/checkpoint.hpp"

namespace tfx::family_files {

[[noreturn]] inline void bad(const std::string& where, const std::string& what) { throw Error(fmt::format("{}: {}", where, what)); }

// j[key] as a whole number from 1 to 2^24 (fallback when absent or null; none: required)
std::size_t whole_field(const nlohmann::json& j, const char* key, const std::string& where,
                        std::optional<std::size_t> fallback = std::nullopt);
// j[key] as a positive number (fallback when absent or null)
double number_field(const nlohmann::json& j, const char* key, const std::string& where, double fallback);

// config.json's rope_theta (absent: rope.base as given) and rope_scaling (linear, dynamic, yarn,
// llama3) into `rope` (its dim and layout set by the caller), checked; an error names the file's key
void read_rope_keys(const nlohmann::json& j, const std::string& where, RopeConfig& rope, std::size_t max_positions);

// The config.json keys of a LayerNorm + GELU family (HF's BertConfig, GPT2Config) and their
// defaults; ffn_per_d_model: the FFN width's default as a multiple of d_model (0: none, required).
// `activation` defaults to the first of the two GELUs tfx runs.
struct GeluFamilyKeys {
  const char *d_model, *layers, *heads, *ffn;
  std::size_t ffn_per_d_model;
  const char* max_positions;
  std::size_t max_positions_default;
  const char* eps;
  double eps_default;
  const char* activation;
  const char* gelus[2];
};
void read_gelu_family(const nlohmann::json& j, const GeluFamilyKeys& k, const std::string& where, ModelConfig& c);
// "gelu_new" is the tanh form, "gelu" the erf form
GeluForm gelu_form(const ModelConfig& c);

// ---- the forward pass's shared steps (forward.cpp) ----

// The cache a pass runs on: o.cache, or `local` made for the T positions of a whole sequence.
KvCache* pass_cache(const ForwardOptions& o, KvCache& local, const ModelConfig& c, std::size_t T);
// Causal grouped-query attention of T new positions against the cache: kn, vn (T, KV·hd) join it at
// positions n … n+T−1 (n = cache.length, advanced by the caller after its last block); q (T, H·hd)
// at position n+t attends to keys 0 … n+t (the last rule.window of them with a window); scores
// q·k times rule.scale, soft-capped, then the masked softmax. weights: (H, T, n+T) after softmax, or
// nullptr. -> the heads' outputs side by side (T, H·hd)
Tensor cached_attention(KvCache& cache, std::size_t layer, const Tensor& q, const Tensor& kn, const Tensor& vn, std::size_t H,
                        Tensor* weights, const AttentionRule& rule = {});
// z (T, H·hd): the HeadAblations of o for `layer` applied to their heads' columns
void ablate_heads(Tensor& z, std::size_t layer, std::size_t hd, const ForwardOptions& o);
// A decoder block's attention step: q, k, v tapped, cached_attention (its weights kept in
// out.attentions when o.keep_attentions), the ablations applied, the heads' outputs tapped as
// attn_heads. -> (T, H·hd), before the output projection
Tensor decoder_attention(ForwardPass& out, KvCache& cache, std::size_t layer, const Tensor& q, const Tensor& k, const Tensor& v,
                         std::size_t H, std::size_t hd, const ForwardOptions& o, const AttentionRule& rule = {});
// An encoder block's attention step (BERT, ViT): every position attends to every position, with
// q, k, v, the kept weights, the ablations and attn_heads as decoder_attention has them.
// -> (T, H·hd), before the output projection
Tensor encoder_attention(ForwardPass& out, std::size_t layer, const Tensor& q, const Tensor& k, const Tensor& v, std::size_t H,
                         std::size_t hd, const ForwardOptions& o);
// x (T, D) of positions first … first+T−1: the ResidualPatches of o for `layer` written in
void patch_residual(Tensor& x, std::size_t layer, std::size_t first_position, const ForwardOptions& o);
// The residual stream entering block `layer` (L: the final norm): patched, tapped as resid_pre, kept
void enter_block(ForwardPass& out, Tensor& x, std::size_t layer, std::size_t first_position, const ForwardOptions& o);
// The block a pass starts at: o.resume's, else 0
inline std::size_t first_block(const ForwardOptions& o) { return o.resume ? o.resume->layer : 0; }
// o.tap(name, layer, value) when a tap is set
inline void tap(const ForwardOptions& o, const char* name, std::size_t layer, const Tensor& value) {
  if (o.tap) o.tap(name, layer, value);
}
// A RoPE family's Family::position_table: none
inline const StoredMatrix* no_position_table(const Checkpoint&) { return nullptr; }
// The rows of positions first … first+T−1 of a cache's RoPE table (the table itself when that is all of it)
RopeTables rope_rows(const RopeTables& all, std::size_t first, std::size_t T);
// The rows the head reads: all of x, or its last row (LogitRows::last)
Tensor logit_rows(const Tensor& x, LogitRows rows);

// The row of a RoPE decoder family (llama.cpp's and gemma.cpp's variants): model_type, its config
// reader, the file's functions by their prefix (prefix_slots, prefix_output_head, prefix_forward,
// prefix_token_embedding, prefix_final_norm_and_head), the embedding's tensor name, the FFN's name
#define TFX_ROPE_DECODER_ROW(type, read, prefix, embed_name, ffn)                                                  \
  {.model_type = type,                                                                                              \
   .summary = N_("{} (decoder, RMSNorm, RoPE{})"),                                                                  \
   .decoder = true,                                                                                                 \
   .rope = true,                                                                                                    \
   .masked_lm = false,                                                                                              \
   .final_norm = true,                                                                                              \
   .read_config = read,                                                                                             \
   .tensor_slots = prefix##_slots,                                                                                  \
   .output_head = prefix##_output_head,                                                                             \
   .forward = prefix##_forward,                                                                                     \
   .token_embedding = prefix##_token_embedding,                                                                     \
   .token_embedding_name = embed_name,                                                                              \
   .position_table = no_position_table,                                                                             \
   .position_table_name = "",                                                                                       \
   .final_norm_and_head = prefix##_final_norm_and_head,                                                             \
   .norm_name = "RMSNorm",                                                                                          \
   .ffn_name = ffn,                                                                                                 \
   .positions_name = "rope"}

// The rows each family file contributes to the table.
extern const Family kBert, kGpt2, kLlama, kQwen2, kQwen3, kMistral, kGemma, kGemma2, kGemma3, kGemma3Multimodal, kVit;

}  // namespace tfx::family_files
