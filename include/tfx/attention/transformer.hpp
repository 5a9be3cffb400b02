// Encoder and decoder layers of the Transformer, as PyTorch's nn.TransformerEncoderLayer /
// nn.TransformerDecoderLayer compute them (eval mode: dropout is the identity), composed from
// ops.hpp and attention.hpp: linear = matmul_bt + bias, attention = attend_heads, layer_norm.
// Parameters carry PyTorch's own names and layouts (weights (out, in), used as x·Wᵀ + b), so a
// state_dict saved as safetensors loads unchanged.
//
// Letters: T = target (query) positions, S = memory positions, D = d_model, H = heads,
// F = feed-forward width (dim_feedforward; 4·D in the paper).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tfx/attention/attention.hpp"
#include "tfx/core/random.hpp"
#include "tfx/core/tensor_map.hpp"
#include "tfx/core/tensor.hpp"

namespace tfx {

// nn.MultiheadAttention: in_proj_weight (3D, D) = [W_Q; W_K; W_V], in_proj_bias (3D),
// out_proj.weight (D, D), out_proj.bias (D).
struct MhaParams {
  Tensor in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias;
};
// linear1.weight (F, D), linear1.bias (F), linear2.weight (D, F), linear2.bias (D).
struct FeedForwardParams {
  Tensor w1, b1, w2, b2;
};
// norm.weight = γ (D), norm.bias = β (D).
struct LayerNormParams {
  Tensor weight, bias;
};
struct EncoderLayerParams {
  MhaParams self_attn;
  FeedForwardParams ffn;
  LayerNormParams norm1, norm2;
};
struct DecoderLayerParams {
  MhaParams self_attn, cross_attn;  // cross_attn is PyTorch's multihead_attn
  FeedForwardParams ffn;
  LayerNormParams norm1, norm2, norm3;
};

// ---- parameters: from a state_dict, to a state_dict, seeded ----

// D and F of an encoder/decoder layer stored under `prefix` ("" or "layers.0."): D from
// self_attn.in_proj_weight (3D, D), F from linear1.weight (F, D). Throws naming the tensor.
struct LayerWidths {
  std::size_t d_model = 0, ffn = 0;
};
LayerWidths layer_widths(const TensorMap& m, const std::string& prefix, const std::string& where);

// The tensors of one module under `prefix`, every name and shape checked (tfx::Error prefixed
// with `where`, naming the missing or misshapen tensor and the expected shape).
MhaParams mha_params(const TensorMap& m, const std::string& prefix, std::size_t D, const std::string& where);
EncoderLayerParams encoder_layer_params(const TensorMap& m, const std::string& prefix, const LayerWidths& w, const std::string& where);
DecoderLayerParams decoder_layer_params(const TensorMap& m, const std::string& prefix, const LayerWidths& w, const std::string& where);
// The number of stacked layers in `m`: 1 when keys have no "layers.{i}." prefix, else the count
// of consecutive i from 0.
std::size_t stacked_layers(const TensorMap& m);

// The same tensors into `m` under `prefix`, with PyTorch's names.
void store_params(const MhaParams& p, const std::string& prefix, TensorMap& m);
void store_params(const EncoderLayerParams& p, const std::string& prefix, TensorMap& m);
void store_params(const DecoderLayerParams& p, const std::string& prefix, TensorMap& m);

// Seeded parameters as nn.Transformer initialises them: Xavier-uniform for every matrix (drawn
// from `gen` in the order of the struct's fields), biases 0, γ = 1, β = 0.
MhaParams seeded_mha(std::size_t D, Generator& gen);
EncoderLayerParams seeded_encoder_layer(std::size_t D, std::size_t F, Generator& gen);
DecoderLayerParams seeded_decoder_layer(std::size_t D, std::size_t F, Generator& gen);

// ---- forward ----

// nn.Linear is tfx::linear (tfx/core/ops.hpp).

// nn.MultiheadAttention forward: Q = x_q·W_Qᵀ + b_Q, K = x_kv·W_Kᵀ + b_K, V = x_kv·W_Vᵀ + b_V,
// heads = attend_heads(Q, K, V), output = Concat·W_Oᵀ + b_O. x_q: (T, D), x_kv: (S, D).
// The result's q/k/v include the biases; output (T, D). Throws a usage error naming heads when
// H does not divide D.
MultiHeadAttention torch_multi_head_attention(const Tensor& x_q, const Tensor& x_kv, const MhaParams& p, std::size_t heads,
                                              const AttentionOptions& o);
// RoPE as a model's self-attention applies it (AttentionOptions::rope): each of the B sequences'
// rows (B·T, H·d) rotated by its position 0 … T−1 (rope_rotate_heads, interleaved pairs, base
// 10000), in place; its backward (the same on the gradient) rotates back.
void rope_rotate_sequences(Tensor& x, std::size_t heads, std::size_t sequences);
void rope_rotate_sequences_backward(Tensor& dy, std::size_t heads, std::size_t sequences);

// A batch: B sequences stacked in a matrix's rows (B·T rows, each sequence padded at its end to
// T), and how many of each sequence's last positions are padding (pad[b]; empty = none). Padded
// positions are masked as keys; as queries they are computed and ignored by the caller.
struct RowBatch {
  std::size_t count = 1;
  std::vector<std::size_t> pad;
  std::size_t pad_of(std::size_t b) const { return pad.empty() ? 0 : pad.at(b); }
};

// torch_multi_head_attention over a batch: the projections and W_O over all rows at once, the
// heads per sequence (o.pad is replaced by keys.pad_of(b) for sequence b). x_q: (B·T, D),
// x_kv: (B·S, D). The result's heads hold B·H entries, sequence-major (head h of sequence b at
// b·H + h); q, k, v, concat and output hold every row. With B = 1 this is
// torch_multi_head_attention itself.
MultiHeadAttention torch_multi_head_attention_batch(const Tensor& x_q, const Tensor& x_kv, const RowBatch& keys,
                                                    const MhaParams& p, std::size_t heads, const AttentionOptions& o);

// The head-averaged weights (T, S), what nn.MultiheadAttention returns by default.
Tensor average_head_weights(const MultiHeadAttention& a);

// Everything one layer computes, in the notes' order.
struct FeedForwardSteps {
  Tensor hidden;  // ReLU(x·W₁ᵀ + b₁)  (T, F)
  Tensor output;  // hidden·W₂ᵀ + b₂   (T, D)
};
// FFN(x) = ReLU(x·W₁ᵀ + b₁)·W₂ᵀ + b₂
FeedForwardSteps feed_forward(const Tensor& x, const FeedForwardParams& p);

// One "attention/FFN + residual + LayerNorm" block. Post-LN (norm_first = false, the paper):
// sum = x + f(x), out = LayerNorm(sum). Pre-LN: normed = LayerNorm(x), out = x + f(normed).
struct SublayerSteps {
  Tensor input;   // the block's input x                         (T, D)
  Tensor normed;  // pre-LN only: LayerNorm(x), what f sees       (T, D)
  Tensor sum;     // post-LN only: x + f(x), before LayerNorm     (T, D)
  Tensor output;  // the block's output                          (T, D)
};

struct EncoderLayerSteps {
  SublayerSteps attn_block;  // H = LayerNorm(MultiHead(X) + X)
  MultiHeadAttention attention;
  SublayerSteps ffn_block;   // Y = LayerNorm(FFN(H) + H)
  FeedForwardSteps ffn;
};
// x: (T, D) -> Y = steps.ffn_block.output (T, D)
EncoderLayerSteps encoder_layer(const Tensor& x, const EncoderLayerParams& p, std::size_t heads, bool norm_first,
                                float eps = 1e-5f);

// What a layer is, beyond its weights: the properties a model is trained with.
struct LayerOptions {
  bool norm_first = false;    // pre-LN: x + f(LayerNorm(x)); post-LN (false): LayerNorm(x + f(x))
  bool scale_scores = true;   // scores / √d_k (false: the unscaled QKᵀ, tfx train --no-scale)
  bool rope = false;          // RoPE in the self-attention (not the cross-attention): tfx train --pe rope
  float eps = 1e-5f;
  bool keep_steps = true;     // false: attention keeps only its weights and outputs (training)
  unsigned threads = 1;       // for the projections and the feed-forward
};
// The same over a batch of sequences (x: (B·T, D), `batch` says which positions are padding).
EncoderLayerSteps encoder_layer(const Tensor& x, const EncoderLayerParams& p, std::size_t heads, const LayerOptions& o,
                                const RowBatch& batch);

struct DecoderLayerSteps {
  SublayerSteps self_block;   // H₁ = LayerNorm(MaskedMultiHead(X) + X)
  MultiHeadAttention self_attention;
  SublayerSteps cross_block;  // H₂ = LayerNorm(MultiHead(H₁, Z, Z) + H₁)
  MultiHeadAttention cross_attention;
  SublayerSteps ffn_block;    // Y = LayerNorm(FFN(H₂) + H₂)
  FeedForwardSteps ffn;
};
// x: (T, D), memory Z: (S, D) -> Y (T, D); the self-attention is causal.
DecoderLayerSteps decoder_layer(const Tensor& x, const Tensor& memory, const DecoderLayerParams& p, std::size_t heads,
                                bool norm_first, float eps = 1e-5f);
// The same over a batch: x (B·T, D) with its padding `targets`, memory (B·S, D) with `sources`.
DecoderLayerSteps decoder_layer(const Tensor& x, const Tensor& memory, const DecoderLayerParams& p, std::size_t heads,
                                const LayerOptions& o, const RowBatch& targets, const RowBatch& sources);

}  // namespace tfx
