// Generation with a KV cache: a decoder checkpoint (any decoder family of the table) reads the
// prompt once (prefill), then one token per step, each step attending to the keys and values it
// cached for every earlier position (RoPE families: keys after the rotation; grouped-query
// attention: one cached K/V head shared by its group of query heads), so a step costs one pass over
// the weights instead of a forward over the whole prefix. Both are the family's own forward pass
// (Family::forward with a KvCache, family.hpp); this file holds the loop only. The next token is chosen by a Sampler
// (greedy by default; tfx/model/sampling.hpp).
//
// Shape letters: T tokens fed at once, V vocabulary, D d_model, KV key/value heads, hd head_dim.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "tfx/model/checkpoint.hpp"
#include "tfx/model/sampling.hpp"

namespace tfx {

// A decoder checkpoint (as load_checkpoint opened it: the family's typed weights, used as stored
// from the mapped file(s)) with its KV cache (make_kv_cache): room for `capacity`
// positions (layers × 2 × capacity × KV·hd floats; the mapped weights plus the cache are checked
// against the memory budget before the cache is allocated). `m` must outlive it.
class KvDecoder {
 public:
  KvDecoder(const Checkpoint& m, std::size_t capacity);
  ~KvDecoder();
  KvDecoder(KvDecoder&&) noexcept;
  KvDecoder& operator=(KvDecoder&&) noexcept;

  // ids (T ≥ 1) at the next T positions: their keys and values join the cache; returns the logits
  // (V) after the last of them. Past the capacity, or an id past the vocabulary: tfx::Error.
  std::vector<float> feed(std::span<const std::size_t> ids);
  // The same, keeping this pass's attentions: per layer (H, T, n+T) after softmax (n: cached before).
  std::vector<float> feed(std::span<const std::size_t> ids, std::vector<Tensor>& attentions);
  std::size_t length() const;    // positions cached so far
  std::size_t capacity() const;
  std::size_t cache_bytes() const;
  const KvCache& cache() const;  // the keys and values held (kv_cache_held_bytes measures it)

  struct Impl;

 private:
  std::vector<float> feed_pass(std::span<const std::size_t> ids, std::vector<Tensor>* attentions);
  std::unique_ptr<Impl> impl_;
};

struct GenerateOptions {
  std::size_t max_new_tokens = 40;
  SamplingOptions sampling;             // greedy by default
  std::uint64_t seed = 0;
  std::vector<std::size_t> stop_ids;    // generation ends after one of these (EOS); empty: never
  std::size_t shown = 5;                // the most likely tokens kept per step
  // keep the attentions the cached passes computed (Generation::attentions); the last generated
  // token is then fed too, so every token of the final sequence has its row
  bool keep_attentions = false;
};

// One generated token and the distribution it came from.
struct GenerationStep {
  std::size_t position = 0;             // of the token in the sequence (the prompt is 0 … P−1)
  std::size_t token = 0;
  double p = 0;                         // the model's probability of it (softmax at τ = 1)
  double p_sampled = 1;                 // its probability in what was sampled from (1 if greedy)
  double entropy = 0;                   // of the model's next-token distribution, nats (τ = 1)
  std::vector<NextToken> top;    // the `shown` most likely at τ = 1, most likely first
};

struct Generation {
  std::vector<std::size_t> prompt;
  std::vector<GenerationStep> steps;
  bool stopped = false;                 // ended on a stop id
  bool out_of_positions = false;        // ended at the model's last position (learned positions)
  // keep_attentions: per layer (H, N, N) over the N = prompt + generated tokens, row i as the cached
  // pass that fed token i computed it (keys after i: 0)
  std::vector<Tensor> attentions;
  // the KV cache at the end: positions it holds, its capacity, and its bytes measured from its
  // buffers (kv_cache_held_bytes)
  std::size_t cache_length = 0, cache_capacity = 0, cache_held_bytes = 0;
};

// Generates up to o.max_new_tokens after `prompt` (≥ 1 token). GPT-2's learned positions end at
// max_position_embeddings: a prompt that fills them is a usage error, and generation stops there
// (out_of_positions). on_step (optional) sees each step as it is chosen, for streaming.
Generation generate(const Checkpoint& m, std::span<const std::size_t> prompt, const GenerateOptions& o,
                    const std::function<void(const GenerationStep&)>& on_step = {});

}  // namespace tfx
