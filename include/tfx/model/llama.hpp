// The Llama family's weights as tfx holds them after loading: views into the memory-mapped file, used as stored (F32,
// F16 or BF16) (HF's LlamaForCausalLM names in
// src/model/llama.cpp, the one place they are spelled; Qwen2, Qwen3 and Mistral use the same). Shapes
// with D = hidden_size, H heads, KV key/value heads, hd = head_dim, F = intermediate_size,
// V = vocab_size; nn.Linear weights are stored (out, in).
#pragma once
#include <vector>

#include "tfx/core/stored.hpp"

namespace tfx {

struct LlamaLayerWeights {
  StoredMatrix attn_norm;       // input_layernorm (D)
  StoredMatrix q_w, k_w, v_w;   // (H·hd, D), (KV·hd, D), (KV·hd, D)
  StoredMatrix q_b, k_b, v_b;   // (H·hd), (KV·hd), (KV·hd): Qwen2 and attention_bias only, else empty
  StoredMatrix q_norm, k_norm;  // (hd) each: Qwen3's RMSNorm of every q and k head before RoPE, else empty
  StoredMatrix o_w;             // (D, H·hd)
  StoredMatrix o_b;             // (D): attention_bias (Llama, Qwen3) only, else empty
  StoredMatrix ffn_norm;        // post_attention_layernorm (D)
  StoredMatrix gate, up, down;  // (F, D), (F, D), (D, F)
};

struct LlamaWeights {
  StoredMatrix embed;  // embed_tokens (V, D)
  std::vector<LlamaLayerWeights> layers;
  StoredMatrix norm;     // the final RMSNorm (D)
  StoredMatrix lm_head;  // (V, D); empty when tied to embed and the file has none
};

}  // namespace tfx
