// Quantizing a checkpoint into a GGUF file (what llama.cpp's convert_hf_to_gguf.py and
// llama-quantize do, for the families tfx runs), and what it costs.
//
// A source is a Hugging Face folder (llama, mistral, qwen2, qwen3, gpt2) or a GGUF file of those
// architectures. Its tensors are put in llama.cpp's names and layouts (the Q and K rows of a `llama`
// model permuted as LlamaModel.permute does, GPT-2's Conv1D weights transposed to (out, in)), its
// config.json becomes `<arch>.*` metadata and its tokenizer goes along (a GGUF's tokenizer.ggml.*
// copied; a folder's vocab.json + merges.txt as tokenizer.ggml.* "gpt2", a tokenizer.json whole as
// tokenizer.huggingface.json, which gguf_tokenizer reads), so the file is self-contained.
//
// Which tensors are quantized (llama-quantize --pure: one type for all of them): every tensor of
// two or more axes named *.weight except the norms and position_embd; the rest (norms, biases,
// rope_freqs) stays F32. A tensor to quantize whose rows are not whole blocks of the type is an
// error naming it, unless `fallback` gives a type to store such tensors in (llama.cpp falls back
// the same way for the K-quants).
//
// Shape letters: none (tensors are flat float vectors with GGUF's ne).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tfx/core/stored.hpp"
#include "tfx/core/tensor.hpp"
#include "tfx/model/gguf.hpp"

namespace tfx {

// One tensor of a GGUF file to write: its bytes already in `type`.
struct GgufTensorOut {
  std::string name;
  std::vector<std::uint64_t> ne;  // ggml's order: ne[0] a row's length
  StoredType type = StoredType::f32;
  std::vector<unsigned char> data;
};

// A whole GGUF v3 file: the header, the metadata in order (general.alignment 32 unless the
// metadata sets it), the tensor infos, then each tensor's data at the next multiple of the
// alignment. parse_gguf reads it back; so does gguf-py's GGUFReader.
std::string encode_gguf(const std::vector<std::pair<std::string, GgufValue>>& metadata, const std::vector<GgufTensorOut>& tensors);

// encode_gguf's header alone, up to the start of the data, for tensors of bytes[i] bytes each
// (their `data` unused): a writer that streams the data after it.
std::string encode_gguf_header(const std::vector<std::pair<std::string, GgufValue>>& metadata, const std::vector<GgufTensorOut>& tensors,
                               const std::vector<std::size_t>& bytes);

// GgufValue constructors for the writer
GgufValue gguf_string(const std::string& s);
GgufValue gguf_u32(std::uint32_t v);
GgufValue gguf_f32(float v);
GgufValue gguf_bool(bool v);

// One tensor of a source in llama.cpp's name and layout, read when asked (one tensor in memory at
// a time: the source stays mapped)
struct SourceTensor {
  std::string name;
  std::vector<std::uint64_t> ne;
  StoredType stored = StoredType::f32;  // its type in the source
  std::function<std::vector<float>()> load;  // its values as float32, row-major in ggml's order
  std::size_t size() const;                  // ne[0] · ne[1] · …
};
struct QuantSource {
  std::shared_ptr<const void> mapping;  // keeps the source's mapped file(s) for `load`
  std::string path, arch;  // arch: general.architecture (llama, qwen2, qwen3, gpt2)
  std::vector<std::pair<std::string, GgufValue>> metadata;  // everything but general.file_type
  std::vector<SourceTensor> tensors;
  std::size_t source_bytes = 0;  // the source's weight files
  bool random_weights = false;   // config.json's tfx_random_weights (a GGUF's tfx.random_weights)
};
// Reads a folder or a GGUF file (is_gguf_file). Not a model, another architecture: tfx::Error
// naming `path`.
QuantSource read_quant_source(const std::string& path);

// Is the tensor quantized (the rule above)?
bool quantized_tensor(const SourceTensor& t);

// The measured cost of one tensor: ‖W − Ŵ‖ / ‖W‖ over its values (in double; 0 for W = 0).
struct TensorError {
  std::string name;
  StoredType type = StoredType::f32;
  std::size_t values = 0;
  double relative_error = 0;
};
struct QuantizedModel {
  std::vector<std::pair<std::string, GgufValue>> metadata;
  std::vector<GgufTensorOut> tensors;
  std::vector<TensorError> errors;  // per tensor, in file order
};
// What a file is quantized to: one type for every quantized tensor (llama-quantize --pure), or
// one of llama-quantize's mixes, which pick a type per tensor as llama.cpp's
// llama_tensor_get_type does (src/llama-quant.cpp) for dense models:
//   q4_k_m / q5_k_m: Q4_K / Q5_K; Q6_K for the output head (Q8_0 when its rows are not whole
//   256-blocks; the token embedding when the head is tied to it), for attn_v and ffn_down in the
//   layers use_more_bits picks (the first and last eighth, and every third between), Q5_K / Q6_K
//   for a fused attn_qkv; a K-quant whose rows are not whole 256-blocks falls back to Q5_0 / Q5_1
//   / Q8_0 (F16 when those do not fit either).
enum class QuantMix { none, q4_k_m, q5_k_m };
struct QuantRecipe {
  StoredType type = StoredType::f32;  // with a mix: its base type (Q4_K, Q5_K)
  QuantMix mix = QuantMix::none;
  QuantRecipe(StoredType t) : type(t) {}  // NOLINT: a single type is a recipe
  QuantRecipe(StoredType t, QuantMix m) : type(t), mix(m) {}
};
// Each tensor's type under `recipe`, in file order (`fallback`: for rows that are not whole blocks
// of a single type; mixes fall back by their own rule).
std::vector<StoredType> quantize_plan(const QuantSource& src, const QuantRecipe& recipe, std::optional<StoredType> fallback);

// The source's tensors quantized by `recipe` (a tensor that stays F32 is copied). general.file_type
// is llama.cpp's LLAMA_FTYPE of the type or mix. A row that is not whole blocks without a fallback,
// or a type without a quantizer: tfx::Error naming the tensor (and the type).
QuantizedModel quantize_model(const QuantSource& src, const QuantRecipe& recipe, std::optional<StoredType> fallback = std::nullopt);
// The same GGUF file as encode_gguf(quantize_model(…)) gives, handed to `write` piece by piece
// with one tensor in memory at a time (what -o does: a 7B model needs no 28 GB of float32).
std::vector<TensorError> write_quantized_gguf(const QuantSource& src, const QuantRecipe& recipe, std::optional<StoredType> fallback,
                                              const std::function<void(std::string_view)>& write);

// What quantization did to the next-token predictions: ref and q are the logits (T, V) of the
// source and of the quantized model on the same ids (one sequence).
//   kl       mean over the T positions of KL(P_ref ‖ P_q) = Σ_v p_ref,v (log p_ref,v − log p_q,v), in nats
//   top1     the fraction of positions whose most probable token (argmax, the smaller id on a tie) agrees
//   ppl_ref, ppl_q  exp(mean over t < T−1 of −log p(ids[t+1] | ids[0…t])) under each model (NaN when T < 2)
// (softmax and logs in double, each row's max subtracted). Shapes that differ: tfx::Error.
struct NextTokenCost {
  double kl = 0, top1 = 0, ppl_ref = 0, ppl_q = 0;
};
NextTokenCost next_token_cost(const Tensor& ref, const Tensor& q, std::span<const std::size_t> ids);

}  // namespace tfx
