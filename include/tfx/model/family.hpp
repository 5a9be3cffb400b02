// The model families tfx runs, as one table: config.json's model_type → a Family row with the
// family's traits and the functions of its file (src/model/<family>.cpp). `find_family` is the
// only place a model_type string is compared; everything else asks the row (decoder? RoPE?) or
// calls through it. Adding a family: docs/architecture.md, "A model family".
#pragma once
#include <cstddef>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tfx/core/stored.hpp"
#include "tfx/core/tensor.hpp"
#include "tfx/model/safetensors.hpp"
#include "tfx/positional/rope.hpp"

namespace tfx {

struct ModelConfig;
struct Checkpoint;
struct ForwardPass;
class MappedWeights;

// One tensor a family reads: its name in the file (without the base model's prefix), the shape the
// forward pass indexes (a 0 in the first place: any number of rows from 1, e.g. BERT's token types)
// and the slot of the typed weights struct it fills at load. A StoredMatrix slot is a view into the
// memory-mapped file, used as stored (F32, F16 or BF16, never converted: a BF16 model takes its
// file's size in memory); a Tensor slot receives a float32 copy (for a family that wants one). An
// optional tensor may be absent (its slot stays empty); when present its shape is checked all the same.
struct TensorSlot {
  std::string name;
  std::vector<std::size_t> shape;
  StoredMatrix* stored = nullptr;
  Tensor* slot = nullptr;
  bool optional = false;
  std::size_t layer = SIZE_MAX;  // the block it belongs to (SIZE_MAX: embeddings, final norm, head)
  // non-empty: a Tensor slot holds its float32 copy reshaped to this (the same number of values;
  // e.g. ViT's Conv2d kernel (D, C, P, P) as the GEMM matrix (D, C·P²))
  std::vector<std::size_t> held = {};

  TensorSlot(std::string name_, std::vector<std::size_t> shape_, StoredMatrix* view, bool optional_ = false)
      : name(std::move(name_)), shape(std::move(shape_)), stored(view), optional(optional_) {}
  TensorSlot(std::string name_, std::vector<std::size_t> shape_, Tensor* copy, bool optional_ = false)
      : name(std::move(name_)), shape(std::move(shape_)), slot(copy), optional(optional_) {}
};

// What a checkpoint's output head is (`tfx model info` says it, `logits` needs one).
enum class OutputHead { none, masked_lm, tied, untied, classifier };  // classifier: ViT's, over id2label

// ---- the forward pass: one code for a whole sequence and a KV-cache step ----
//
// Letters: L layers, H heads, KV key/value heads, hd head_dim, D d_model, T tokens fed to this
// pass, n positions already cached, V vocabulary.

// The keys and values a decoder has computed for positions 0 … length−1 of one sequence, per
// layer K and V as (KV, capacity, hd) (each key/value head's rows one contiguous matrix; RoPE
// families cache keys after the rotation), and the RoPE tables of positions 0 … capacity−1 (the
// family fills them the first time it runs on the cache; `dynamic` scaling sees seq_len =
// capacity). A pass over T tokens with a cache of length n reads positions n … n+T−1 against
// 0 … n+T−1 and appends its keys and values: prefill (n = 0, T = the prompt) and decode (T = 1)
// are the same code. Made by make_kv_cache (checkpoint.hpp).
// What a layer's attention does to its scores beyond causal softmax(q·k/√hd) (ModelConfig::
// attention_rule): their factor (0: 1/√hd; Gemma 2/3: query_pre_attn_scalar^−½), a sliding window (a
// query at position p sees keys p − window + 1 … p; 0: every earlier one) and soft-capping
// (cap·tanh(s / cap) before the mask; 0: none)
struct AttentionRule {
  float scale = 0;
  std::size_t window = 0;
  float softcap = 0;
};

struct KvCache {
  std::size_t layers = 0, kv_heads = 0, head_dim = 0, capacity = 0, length = 0;
  std::vector<std::vector<float>> k, v;  // per layer: KV·capacity·hd floats
  RopeTables rope;                       // empty until a RoPE family fills it
  RopeTables rope_local;                 // gemma3's sliding layers' own RoPE (another base), else empty
  std::size_t bytes() const { return 2 * layers * kv_heads * capacity * head_dim * sizeof(float); }
};

// Which rows of logits a pass computes: every position's, the last one's (generation: one row of
// the head's matmul), or none (the head is the biggest matmul).
enum class LogitRows { all, last, none };

// Replaces head `head`'s slice (hd columns) of block `layer`'s attention output — the heads'
// outputs side by side, before the output projection (o_proj, c_proj, attention.output.dense) —
// at every position of the pass: zero, its mean over the pass's positions, or `value` (hd numbers).
struct HeadAblation {
  enum class Mode { zero, mean, value };
  std::size_t layer = 0, head = 0;
  Mode mode = Mode::zero;
  std::vector<float> value = {};
};

// Replaces the residual stream entering block `layer` (layer = L: after the last block, before the
// final norm) at absolute position `position` (with a cache: n … n+T−1) by `value` (D numbers) —
// activation patching. hidden[layer] reports the patched row.
struct ResidualPatch {
  std::size_t layer = 0, position = 0;
  std::vector<float> value = {};
};

// A named intermediate as the pass computes it: `name` (below), the block (L: the final norm's
// input and output), the value (T, width) of this pass's positions. Names, in order per block:
//   resid_pre   the residual stream entering the block (= hidden[layer]; layer L: before the final norm)
//   attn_in     the attention's input (pre-LN families: after the norm; BERT: resid_pre itself)
//   q, k, v     the projections (T, H·hd), (T, KV·hd): RoPE families after q/k norm and rotation
//   attn_heads  the heads' outputs side by side (T, H·hd), after any HeadAblation, before o_proj
//   attn_out    after the output projection (T, D)
//   resid_mid   the residual stream between attention and MLP (BERT: after its Add & Norm)
//   mlp_in      (gpt2) the MLP's input after ln_2 (T, D)
//   mlp_pre     (gpt2) the MLP's hidden layer before GELU (T, F): what training's backward reads
//   mlp_act     the MLP's hidden activation (T, F) after GELU / SwiGLU
//   mlp_out     the MLP's output (T, D) before the residual add
using ForwardTap = std::function<void(const char* name, std::size_t layer, const Tensor& value)>;

// A whole-sequence pass resumed at block `layer` (0 … L) with `residual` (T, D) as the stream
// entering it: the embeddings and blocks 0 … layer−1 are skipped (the microscope reruns only the
// blocks after its intervention, from a clean run's resid_pre). Kept hidden states and attentions
// then start at that block. Not with a KV cache.
struct ResumeAt {
  std::size_t layer = 0;
  Tensor residual;
};

// What a pass computes besides the hidden states: the logits' rows, a KV cache to read and extend
// (decoders; nullptr: a whole sequence from position 0), whether to keep the attentions (H, T, n+T)
// and hidden states (generation keeps neither), and the microscope's intervention points.
struct ForwardOptions {
  LogitRows logits = LogitRows::all;
  KvCache* cache = nullptr;
  bool keep_attentions = true;
  bool keep_hidden = true;
  std::vector<HeadAblation> ablate = {};
  std::vector<ResidualPatch> patch = {};
  ForwardTap tap = {};
  const ResumeAt* resume = nullptr;
};

struct Family {
  const char* model_type;   // config.json's "model_type"
  const char* summary;      // msgid for `model info`: "{0}" is the model_type, "{1}" ", grouped-query attention" or ""
  bool decoder;             // causal self-attention, predicts the next token (else an encoder)
  bool rope;                // positions by RoPE (else a learned position table)
  bool masked_lm;           // its head predicts [MASK] (BERT's MLM head)
  bool final_norm;          // the last hidden state is after a final norm (gpt2's ln_f, llama's norm)
  // config.json (already parsed to an object) → the config's fields; errors prefixed with `where`
  void (*read_config)(const nlohmann::json& j, const std::string& where, ModelConfig& c);
  // makes the family's weights struct in m.weights and lists every tensor with its slot there;
  // `file` is the mapped file's tensors by normalized name (to see whether an optional head is present)
  std::vector<TensorSlot> (*tensor_slots)(Checkpoint& m, const MappedWeights& file);
  // after the slots are filled: what the output head is
  OutputHead (*output_head)(const Checkpoint& m);
  // The forward pass over T tokens (ids already checked against the vocabulary and positions; a
  // cache and the interventions against the model: model_forward and KvDecoder check them).
  ForwardPass (*forward)(const Checkpoint& m, const std::vector<std::size_t>& ids, const ForwardOptions& o);
  // The token embedding table (V, d) and its tensor name; the learned position table (P, d) and
  // its name, or nullptr / "" for a RoPE family
  const StoredMatrix& (*token_embedding)(const Checkpoint& m);
  const char* token_embedding_name;
  const StoredMatrix* (*position_table)(const Checkpoint& m);
  const char* position_table_name;
  // The lens: a residual stream (T, D) (a resid_pre tap, hidden[l] for l < L) through the final
  // norm and the output head → (T, V) (ViT: the classifier over every row). For layer L it gives
  // the pass's logits. An encoder without a head: empty.
  Tensor (*final_norm_and_head)(const Checkpoint& m, const Tensor& residual);
  // The block's parts by name, for `model info` and `architecture`: its norm, its feed-forward's
  // activation, how it knows positions.
  const char* norm_name;       // "LayerNorm", "RMSNorm"
  const char* ffn_name;        // "GELU", "SwiGLU"
  const char* positions_name;  // "learned", "rope"
  // An image family (ViT): the forward pass over pixel values (C, H, W) as its image processor makes
  // them (its `forward` then refuses text). nullptr: a text family.
  ForwardPass (*forward_image)(const Checkpoint& m, const Tensor& pixels, const ForwardOptions& o) = nullptr;
  bool image() const { return forward_image != nullptr; }
};

// The row of `model_type`, or nullptr when tfx does not run it.
const Family* find_family(std::string_view model_type);
// "bert, gpt2, llama, qwen2, mistral, vit": the supported model_types in the table's order (without
// the image families when `images` is false).
std::string supported_model_types(bool images = true);
// The model_types of the rows `serves` accepts, in the table's order ("gpt2, llama, qwen2,
// mistral" for the decoders): what a command that needs a decoder, an MLM head or text serves.
std::string model_types_where(bool (*serves)(const Family&));

}  // namespace tfx
