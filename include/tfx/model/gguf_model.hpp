// A GGUF file (llama.cpp's, Ollama's) opened as a checkpoint: load_checkpoint (checkpoint.hpp)
// takes a .gguf file wherever it takes a folder. The file's metadata becomes the family's config
// (`<arch>.embedding_length`, `block_count`, `attention.head_count`, … as config.json's keys) and
// llama.cpp's tensor names become the family's (token_embd → embed_tokens / wte, blk.N.attn_q →
// layers.N.self_attn.q_proj, …), each tensor a view into the mapped file, used as stored (F32,
// F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K). Layouts llama.cpp's converter changed are undone:
// the Q and K rows of a `llama` model (convert_hf_to_gguf.py interleaves each head's two halves
// for ggml's RoPE; they are put back in a copy, in their stored type), GPT-2's Conv1D weights
// (stored (out, in): read transposed). Architectures: llama, qwen2, gpt2.
#pragma once
#include <optional>
#include <string>

#include "tfx/model/checkpoint.hpp"
#include "tfx/model/gguf.hpp"
#include "tfx/text/hf_tokenizer.hpp"

namespace tfx {

// A regular file that starts with GGUF's magic, or whose name ends in .gguf.
bool is_gguf_file(const std::string& path);

struct GgufModel {
  ModelConfig config;
  MappedWeights weights;
  GgufFile file;  // the parsed header (its tensors point into `weights`' mapping)
};

// llama.cpp's name for the family's tensor `hf` (its Hugging Face name without the base model's
// prefix: layers.0.self_attn.q_proj.weight, h.0.attn.c_attn.weight, wte.weight) in architecture
// `arch` (llama, qwen2, qwen3, gpt2), with `transposed` true where llama.cpp stores it (out, in)
// while the family reads (in, out) (GPT-2's Conv1D); nullopt for a tensor llama.cpp does not keep.
struct GgufName {
  std::string name;
  bool transposed = false;
};
std::optional<GgufName> gguf_name_for(const std::string& arch, const std::string& hf);

// The query_pre_attn_scalar llama.cpp takes for a gemma2 / gemma3 model (a GGUF file keeps none):
// head_dim, or D/H for the 27B models, which it knows by their layer count (46 / 62)
std::size_t llama_cpp_gemma_scalar(const std::string& arch, std::size_t layers, std::size_t d_model, std::size_t heads, std::size_t head_dim);

// Maps and reads `path`. An unknown general.architecture, a missing metadata key or tensor, a
// tensor of another shape than the metadata says: tfx::Error naming the file and the key or tensor.
GgufModel open_gguf_model(const std::string& path);

// The file's tokenizer from tokenizer.ggml.* (model gpt2: byte-level BPE; llama: SentencePiece as
// BPE over ▁ with byte fallback, merges from the scores; bert: WordPiece), as HfTokenizer. No
// tokenizer in the file, or a kind tfx does not run: tfx::Error naming the key.
HfTokenizer gguf_tokenizer(const GgufFile& f, const std::string& where);
// gguf_tokenizer for a .gguf file, HfTokenizer::load for a folder.
HfTokenizer load_model_tokenizer(const std::string& dir);

}  // namespace tfx
