// The microscope's attention views on a checkpoint's forward pass: attention sinks (how much of
// each head's attention lands on the first token), BertViz's neuron view (one query's score against
// each key as the sum of q∘k, scaled and softmaxed) and the KV cache's size (per token, at a length,
// F32 or BF16, with the model's grouped-query heads or as multi-head attention would need).
//
// Letters: L layers, H heads, KV key/value heads, hd head_dim, T tokens.
#pragma once
#include <cstddef>
#include <vector>

#include "tfx/core/tensor.hpp"
#include "tfx/model/checkpoint.hpp"

namespace tfx {

// ---- attention sinks ----

// attentions: L of (H, T, T) after softmax -> (L, H): head h of layer l's weight on key 0,
// averaged over the T queries (a causal model's query 0 sees only key 0 and adds 1/T).
Tensor first_token_share(const std::vector<Tensor>& attentions);

// The share on position 0 for the text's ids, and again for the ids without their first token
// (the new first token: a sink follows the position, not the word). ids: T ≥ 2 of a text family.
struct AttentionSinks {
  Tensor share;                // (L, H) over ids
  Tensor share_without_first;  // (L, H) over ids[1 …]
  double mean = 0, mean_without_first = 0;  // over every layer and head
};
AttentionSinks attention_sinks(const Checkpoint& m, const std::vector<std::size_t>& ids);

// ---- the neuron view ----

// Query `query` of head `head` against keys 0 … n−1 (n = query + 1 when causal, else T): q (hd),
// k (n, hd) of the head's key/value group (h / (H/KV)), their elementwise products q∘k (n, hd),
// score_j = Σ_d q_d k_jd / √hd and the softmax over the n scores.
struct NeuronView {
  std::size_t head = 0, query = 0, head_dim = 0;
  double scale = 1;             // 1/√hd, or the model's factor (Gemma 2/3: query_pre_attn_scalar^−½)
  double softcap = 0;           // gemma2: the scores' cap (0: none)
  std::vector<float> q;         // (hd)
  Tensor k, qk;                 // (n, hd)
  std::vector<double> sums;     // (n), Σ q∘k
  std::vector<double> scores;   // (n), sums × scale (then soft-capped, where the model caps)
  std::vector<double> weights;  // (n), softmax of scores over the keys the query sees (0 outside a sliding window)
};
// q_proj: (T, H·hd), k_proj: (T, KV·hd), the pass's q and k taps (RoPE families: after the rotation).
// `rule`: the layer's attention rule (ModelConfig::attention_rule), which the scores and weights follow.
NeuronView neuron_view(const Tensor& q_proj, const Tensor& k_proj, std::size_t heads, std::size_t kv_heads, std::size_t head,
                       std::size_t query, bool causal, const AttentionRule& rule = {});
// The q and k taps of block `layer` from one forward pass over the input (ids, or an image family's
// pixels when `pixels` is not empty), and that layer's attentions (H, T, T) to compare.
struct LayerQk {
  Tensor q, k, attentions;
};
LayerQk layer_qk(const Checkpoint& m, const std::vector<std::size_t>& ids, const Tensor& pixels, std::size_t layer);

// ---- the KV cache ----

// Bytes the cache holds per token over every layer: 2 (K and V) × layers × kv_heads × head_dim ×
// bytes per number; `kv_heads` as the model has them (grouped-query), or = heads (multi-head).
std::size_t kv_cache_bytes_per_token(const ModelConfig& c, std::size_t bytes_per_number, bool grouped = true);
// The memory a KvCache holds, measured from its K and V buffers (every layer's, at its capacity).
std::size_t kv_cache_held_bytes(const KvCache& cache);

}  // namespace tfx
