// The Transformer's block diagram as data (Vaswani et al. 2017, figure 1; notes 002 and 004): the
// stacks a model has (encoder, decoder, or both), each block with the shape that goes in and the
// shape that comes out for one model's sizes and one sentence's length. The command layer fills
// ArchitectureSpec from the teaching translator or a checkpoint's config.json; the figure and the
// table both read the blocks.
//
// Letters: S = source (encoder) positions, T = target (decoder) positions, D = d_model,
// H = heads, d_k = D / H (or the model's head_dim), F = feed-forward width, V = vocabulary.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace tfx {

struct ArchitectureSpec {
  std::size_t encoder_layers = 0, decoder_layers = 0;  // 0 = the model has no such stack
  bool cross_attention = false;  // the decoder attends to the encoder's memory (needs both stacks)
  bool pre_norm = false;         // norm before each sublayer (GPT-2, Llama) instead of after the residual add
  std::string norm = "LayerNorm";    // or "RMSNorm"
  std::string positions = "sinusoidal";  // how positions enter: sinusoidal, learned, rope
  std::string activation = "ReLU";      // of the feed-forward block (ReLU, GELU, SwiGLU)
  std::size_t d_model = 0, heads = 0, kv_heads = 0, ffn = 0, vocab = 0;
  std::size_t head_dim = 0;      // d_k; 0: D / H (Qwen3 and Gemma set it apart)
  bool post_norm_too = false;    // Gemma 2/3: a norm after each sublayer as well, before its residual add
  bool embed_scaled = false;     // Gemma: the embedding times √D
  std::string attention_note;    // what a model's attention adds (a sliding window, a soft cap), for its box
  std::size_t source_len = 0, target_len = 0;  // S (encoder), T (decoder; an encoder-only model: unused)
  bool output_head = true;  // Linear (D → V) + softmax on top (a BERT without its MLM head: false)
};

// One box of the diagram: `stack` is "input" (embedding and positions of the encoder side, or of
// a decoder-only model), "encoder", "output" (the decoder side's embedding and positions in an
// encoder–decoder model), "decoder" or "head";
// `input`/`output` are shapes such as "(3, 64)" ("(3)" for token ids); `detail` the block's own
// sizes ("h = 4, d_k = 16"). A block of a stack runs once per layer (layers × in the figure).
// `kind` is one of embedding, positions, attention, masked_attention, cross_attention, add_norm,
// norm, add, ffn, linear, softmax (what a figure colours by; `name` is for people, translated).
struct ArchBlock {
  std::string stack, kind, name, input, output, detail;
  std::size_t layers = 1;
  std::string note = {};  // more than the box holds (the spec's attention_note): the table shows it after the detail
};

// The blocks bottom to top, encoder side first. Checks: d_model and heads > 0, heads divides
// d_model, kv_heads divides heads (0 = heads), at least one stack, cross-attention only with both,
// S ≥ 1 (and T ≥ 1 with a decoder); else tfx::Error naming the field.
std::vector<ArchBlock> architecture_blocks(const ArchitectureSpec& spec);

}  // namespace tfx
