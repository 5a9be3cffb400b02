// Generation with a KV cache (generate.hpp): the loop and the sampling. The model is the family's
// own forward pass (Family::forward) run on a KvCache: the prompt once (prefill), then one token
// per step, each at the next position against the keys and values cached for the earlier ones.
#include "tfx/model/generate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <string>

#include "tfx/core/error.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/stored.hpp"
#include "model/family_files.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/model/attention_views.hpp"

namespace tfx {

struct KvDecoder::Impl {
  const Checkpoint* m = nullptr;
  KvCache cache;
};

KvDecoder::KvDecoder(const Checkpoint& m, std::size_t capacity) : impl_(std::make_unique<Impl>()) {
  impl_->m = &m;
  impl_->cache = make_kv_cache(m, capacity);
}

KvDecoder::~KvDecoder() = default;
KvDecoder::KvDecoder(KvDecoder&&) noexcept = default;
KvDecoder& KvDecoder::operator=(KvDecoder&&) noexcept = default;

std::size_t KvDecoder::length() const { return impl_->cache.length; }
std::size_t KvDecoder::capacity() const { return impl_->cache.capacity; }
std::size_t KvDecoder::cache_bytes() const { return impl_->cache.bytes(); }
const KvCache& KvDecoder::cache() const { return impl_->cache; }

std::vector<float> KvDecoder::feed(std::span<const std::size_t> ids) {
  return feed_pass(ids, nullptr);
}

std::vector<float> KvDecoder::feed(std::span<const std::size_t> ids, std::vector<Tensor>& attentions) {
  return feed_pass(ids, &attentions);
}

std::vector<float> KvDecoder::feed_pass(std::span<const std::size_t> ids, std::vector<Tensor>* attentions) {
  Impl& d = *impl_;
  const Checkpoint& m = *d.m;
  if (ids.empty()) throw usage_error(N_("no tokens to feed the model"));
  if (d.cache.length + ids.size() > d.cache.capacity)
    throw Error(fmt::format(N_("the KV cache has room for {} positions; {} cached and {} more given"), d.cache.capacity, d.cache.length, ids.size()));
  const std::size_t rows = m.token_embedding().rows;
  for (std::size_t t = 0; t < ids.size(); ++t)
    if (ids[t] >= rows)
      throw Error(fmt::format(N_("{}: token id {} is past the embedding's {} rows (the tokenizer does not match the weights)"), m.dir, ids[t],
                              rows));
  // the family's forward over the new positions: no attentions or hidden states kept, the head on
  // the last position only
  ForwardOptions o;
  o.cache = &d.cache;
  o.logits = LogitRows::last;
  o.keep_attentions = attentions != nullptr;
  o.keep_hidden = false;
  ForwardPass f = m.config.family->forward(m, std::vector<std::size_t>(ids.begin(), ids.end()), o);
  check_finite_rows(m, f.logits, N_("the logits"), d.cache.length - 1);  // the last position's row
  if (attentions) *attentions = std::move(f.attentions);
  return std::move(f.logits.values());
}

Generation generate(const Checkpoint& m, std::span<const std::size_t> prompt, const GenerateOptions& o,
                    const std::function<void(const GenerationStep&)>& on_step) {
  const ModelConfig& c = m.config;
  if (prompt.empty()) throw usage_error(N_("no prompt tokens to start from"));
  if (o.max_new_tokens == 0) throw usage_error(N_("max_new_tokens must be at least 1"), {"max_new_tokens"});
  // the sequence (prompt + generated) stays within GPT-2's learned positions
  std::size_t capacity = prompt.size() + o.max_new_tokens;
  bool limited = false;
  if (const auto limit = c.position_limit()) {
    if (prompt.size() >= *limit)
      throw usage_error(fmt::format("the prompt's {} tokens fill the model's {} positions (max_position_embeddings): no room to "
                                    "generate; shorten the prompt",
                                    prompt.size(), *limit));
    if (capacity > *limit) capacity = *limit, limited = true;
  }
  KvDecoder dec(m, capacity);
  Sampler sampler(o.sampling, o.seed);
  Generation g;
  g.prompt.assign(prompt.begin(), prompt.end());
  // keep_attentions: each feed's (H, T, n+T) rows written into the (H, N, N) of the final sequence
  std::vector<Tensor> rows;
  const auto feed = [&](std::span<const std::size_t> ids) {
    if (!o.keep_attentions) return dec.feed(ids);
    std::vector<float> logits = dec.feed(ids, rows);
    const std::size_t n = dec.length(), first = n - ids.size();
    if (g.attentions.empty()) g.attentions.assign(rows.size(), Tensor({c.heads, capacity, capacity}));
    for (std::size_t l = 0; l < rows.size(); ++l)
      for (std::size_t h = 0; h < c.heads; ++h)
        for (std::size_t t = 0; t < ids.size(); ++t)
          std::copy_n(rows[l].data() + (h * ids.size() + t) * n, n, g.attentions[l].data() + (h * capacity + first + t) * capacity);
    return logits;
  };
  std::vector<float> logits = feed(prompt);
  const std::size_t steps = capacity - prompt.size();
  for (std::size_t s = 0; s < steps; ++s) {
    GenerationStep st;
    st.position = prompt.size() + s;
    const std::vector<double> p = softmax_at_temperature(logits, 1.0);
    st.entropy = entropy_nats(p);
    TopK<double> best(o.shown);
    for (std::size_t i = 0; i < p.size(); ++i) best.push(i, p[i]);
    for (const auto& [id, q] : best.sorted()) st.top.push_back({id, q});
    st.token = sampler.next(logits);
    st.p = p[st.token];
    if (!o.sampling.greedy)
      for (const NextToken& t : sampling_distribution(logits, o.sampling))
        if (t.token == st.token) st.p_sampled = t.p;
    g.steps.push_back(st);
    if (on_step) on_step(g.steps.back());
    if (std::find(o.stop_ids.begin(), o.stop_ids.end(), st.token) != o.stop_ids.end()) {
      g.stopped = true;
      break;
    }
    // the last token's keys and values are only needed for its attention row
    if (s + 1 < steps || o.keep_attentions) logits = feed(std::span<const std::size_t>(&st.token, 1));
  }
  g.out_of_positions = limited && !g.stopped;
  // attentions over the N tokens of the final sequence (a stop token may end before the capacity)
  const std::size_t N = prompt.size() + g.steps.size();
  if (o.keep_attentions && N < capacity)
    for (Tensor& a : g.attentions) {
      Tensor cut({c.heads, N, N});
      for (std::size_t h = 0; h < c.heads; ++h)
        for (std::size_t i = 0; i < N; ++i) std::copy_n(a.data() + (h * capacity + i) * capacity, N, cut.data() + (h * N + i) * N);
      a = std::move(cut);
    }
  g.cache_length = dec.length();
  g.cache_capacity = dec.capacity();
  g.cache_held_bytes = kv_cache_held_bytes(dec.cache());
  return g;
}

}  // namespace tfx
