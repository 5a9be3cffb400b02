// The Gemma family's weights as tfx holds them after loading: views into the memory-mapped file, used
// as stored (HF's GemmaForCausalLM, Gemma2ForCausalLM and Gemma3ForCausalLM names in
// src/model/gemma.cpp, the one place they are spelled). Shapes with D = hidden_size, H heads, KV
// key/value heads, hd = head_dim, F = intermediate_size, V = vocab_size; nn.Linear weights are
// stored (out, in). The RMSNorm weights are offsets from 1 in a Hugging Face folder and 1 + w in a
// GGUF file (ModelConfig::norm_plus_one says which).
#pragma once
#include <vector>

#include "tfx/core/stored.hpp"

namespace tfx {

struct GemmaLayerWeights {
  StoredMatrix attn_norm;       // input_layernorm (D)
  StoredMatrix q_w, k_w, v_w;   // (H·hd, D), (KV·hd, D), (KV·hd, D)
  StoredMatrix q_norm, k_norm;  // (hd) each: gemma3's RMSNorm of every q and k head before RoPE, else empty
  StoredMatrix o_w;             // (D, H·hd)
  StoredMatrix post_attn_norm;  // gemma2/3: post_attention_layernorm, on the attention's output (D), else empty
  StoredMatrix ffn_norm;        // before the MLP (D): gemma's post_attention_layernorm, gemma2/3's pre_feedforward_layernorm
  StoredMatrix post_ffn_norm;   // gemma2/3: post_feedforward_layernorm, on the MLP's output (D), else empty
  StoredMatrix gate, up, down;  // (F, D), (F, D), (D, F)
};

struct GemmaWeights {
  StoredMatrix embed;  // embed_tokens (V, D), also the head (Gemma ties them)
  std::vector<GemmaLayerWeights> layers;
  StoredMatrix norm;  // the final RMSNorm (D)
};

}  // namespace tfx
