// GPT-2's weights as tfx holds them after loading: views into the memory-mapped file, used as stored (F32,
// F16 or BF16) (HF's GPT2LMHeadModel names in
// src/model/gpt2.cpp, the one place they are spelled). Shapes with D = n_embd, F = n_inner
// (4·D), V = vocab_size, P = n_positions; Conv1D weights are stored (in, out), as HF does.
#pragma once
#include <vector>

#include "tfx/core/stored.hpp"

namespace tfx {

struct Gpt2LayerWeights {
  StoredMatrix ln1_w, ln1_b;          // ln_1 (D)
  StoredMatrix qkv_w, qkv_b;          // attn.c_attn (D, 3D), (3D): q, k, v side by side
  StoredMatrix proj_w, proj_b;        // attn.c_proj (D, D), (D)
  StoredMatrix ln2_w, ln2_b;          // ln_2 (D)
  StoredMatrix fc_w, fc_b;            // mlp.c_fc (D, F), (F)
  StoredMatrix fc_proj_w, fc_proj_b;  // mlp.c_proj (F, D), (D)
};

struct Gpt2Weights {
  StoredMatrix wte, wpe;  // (V, D), (P, D)
  std::vector<Gpt2LayerWeights> layers;
  StoredMatrix lnf_w, lnf_b;  // ln_f (D)
  StoredMatrix lm_head;       // (V, D) when the file has an untied head, else empty (the head is wte)
};

}  // namespace tfx
