// BERT's weights as tfx holds them after loading: views into the memory-mapped file, used as stored (F32,
// F16 or BF16) (HF's BertModel / BertForMaskedLM names in
// src/model/bert.cpp, the one place they are spelled). Shapes with D = hidden_size,
// F = intermediate_size, V = vocab_size, P = max_position_embeddings, Y = type_vocab_size;
// nn.Linear weights are stored (out, in).
#pragma once
#include <vector>

#include "tfx/core/stored.hpp"

namespace tfx {

struct BertLayerWeights {
  StoredMatrix q_w, q_b, k_w, k_b, v_w, v_b;  // (D, D), (D) each
  StoredMatrix o_w, o_b;                      // attention.output.dense (D, D), (D)
  StoredMatrix attn_ln_w, attn_ln_b;          // attention.output.LayerNorm (D)
  StoredMatrix ffn_in_w, ffn_in_b;            // intermediate.dense (F, D), (F)
  StoredMatrix ffn_out_w, ffn_out_b;          // output.dense (D, F), (D)
  StoredMatrix out_ln_w, out_ln_b;            // output.LayerNorm (D)
};

struct BertWeights {
  StoredMatrix word, position, token_type;  // (V, D), (P, D), (Y, D)
  StoredMatrix emb_ln_w, emb_ln_b;          // embeddings.LayerNorm (D)
  std::vector<BertLayerWeights> layers;
  // the MLM head (empty when the file has none): transform dense (D, D), (D), LayerNorm (D),
  // the output bias (V) and the decoder (V, D) when it is not tied to `word`
  StoredMatrix head_w, head_b, head_ln_w, head_ln_b, head_bias, head_decoder;
};

}  // namespace tfx
