// The model families tfx runs, as one table: config.json's model_type → a Family row with the
// family's traits and the functions of its file (src/model/<family>.cpp). `find_family` is the
// only place a model_type string is compared; everything else asks the row (decoder? RoPE?) or
// calls through it. Adding a family: docs/architecture.md, "A model family".
#pragma once
#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tfx/core/stored.hpp"
#include "tfx/core/tensor.hpp"
#include "tfx/model/safetensors.hpp"

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
  // the forward pass over one sequence (ids already checked against the vocabulary and positions)
  ForwardPass (*forward)(const Checkpoint& m, const std::vector<std::size_t>& ids, bool want_logits);
  // the token embedding table (V, d) and its tensor name; the learned position table (P, d) and
  // its name, or nullptr / "" for a RoPE family
  const StoredMatrix& (*token_embedding)(const Checkpoint& m);
  const char* token_embedding_name;
  const StoredMatrix* (*position_table)(const Checkpoint& m);
  const char* position_table_name;
  // An image family (ViT): the forward pass over pixel values (C, H, W) as its image processor makes
  // them (its `forward` then refuses text). nullptr: a text family.
  ForwardPass (*forward_image)(const Checkpoint& m, const Tensor& pixels, bool want_logits) = nullptr;
  bool image() const { return forward_image != nullptr; }
};

// The row of `model_type`, or nullptr when tfx does not run it.
const Family* find_family(std::string_view model_type);
// "bert, gpt2, llama, qwen2, mistral": the supported model_types in the table's order.
std::string supported_model_types();
// The model_types of the rows `serves` accepts, in the table's order ("gpt2, llama, qwen2,
// mistral" for the decoders): what a command that needs a decoder, an MLM head or text serves.
std::string model_types_where(bool (*serves)(const Family&));

}  // namespace tfx
