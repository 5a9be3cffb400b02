// The training loop around train_loss: Adam, batches of sentence pairs, greedy decoding and held-out
// scoring with the same pass, the cross-attention it learned, and how sharp that attention is.
#include "tfx/model/train.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/parallel.hpp"
#include "tfx/attention/schedule.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/random.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

// Adam, in double per element, as torch.optim.Adam's single-tensor step.
void adam_step(AdamState& s, TensorMap& params, const TensorMap& grads, double lr) {
  ++s.step;
  const double bc1 = 1 - std::pow(s.beta1, double(s.step)), bc2 = 1 - std::pow(s.beta2, double(s.step));
  const double step_size = lr / bc1, bc2_sqrt = std::sqrt(bc2);
  for (auto& [name, p] : params) {
    const auto g = grads.find(name);
    if (g == grads.end() || g->second.size() != p.size()) throw Error(fmt::format(N_("adam: no gradient of the shape of {}"), name));
    Tensor& m = s.m.try_emplace(name, p.shape()).first->second;
    Tensor& v = s.v.try_emplace(name, p.shape()).first->second;
    float* pd = p.data();
    const float* gd = g->second.data();
    float* md = m.data();
    float* vd = v.data();
    const float b1 = static_cast<float>(s.beta1), b2 = static_cast<float>(s.beta2);
    for (std::size_t i = 0; i < p.size(); ++i) {
      md[i] = b1 * md[i] + (1 - b1) * gd[i];
      vd[i] = b2 * vd[i] + (1 - b2) * gd[i] * gd[i];
      const double denom = std::sqrt(double(vd[i])) / bc2_sqrt + s.eps;
      pd[i] = static_cast<float>(pd[i] - step_size * md[i] / denom);
    }
  }
}

TrainBatch make_train_batch(const std::vector<IdPair>& pairs, const std::vector<std::size_t>& chosen, std::size_t pad) {
  TrainBatch b;
  b.batch = chosen.size();
  for (std::size_t i : chosen) {
    b.source_len = std::max(b.source_len, pairs.at(i).source.size());
    b.target_len = std::max(b.target_len, pairs.at(i).target.size() + 1);
  }
  b.source.assign(b.batch * b.source_len, pad);
  b.target_in.assign(b.batch * b.target_len, pad);
  b.target_out.assign(b.batch * b.target_len, pad);
  for (std::size_t r = 0; r < chosen.size(); ++r) {
    const IdPair& p = pairs[chosen[r]];
    std::copy(p.source.begin(), p.source.end(), b.source.begin() + r * b.source_len);
    b.target_in[r * b.target_len] = kTrainBos;
    for (std::size_t t = 0; t < p.target.size(); ++t) {
      b.target_in[r * b.target_len + t + 1] = p.target[t];
      b.target_out[r * b.target_len + t] = p.target[t];
    }
    b.target_out[r * b.target_len + p.target.size()] = kTrainEos;
  }
  return b;
}

std::vector<std::size_t> train_greedy(const TrainConfig& c, const TensorMap& params, const std::vector<std::size_t>& source,
                                      std::size_t max_tokens) {
  std::vector<std::size_t> out;
  TrainBatch b;
  b.batch = 1;
  b.source = source;
  b.source_len = source.size();
  b.target_in = {kTrainBos};
  for (std::size_t step = 0; step < max_tokens; ++step) {
    b.target_len = b.target_in.size();
    b.target_out.assign(b.target_len, kTrainEos);  // any non-pad id: only the logits are used
    ForwardExtras ex;
    ex.want_logits = true;
    train_loss(c, params, b, nullptr, 1, &ex);
    const float* z = ex.logits.data() + (b.target_len - 1) * c.vocab;
    const std::size_t next = static_cast<std::size_t>(std::max_element(z, z + c.vocab) - z);
    if (next == kTrainEos) break;
    out.push_back(next);
    b.target_in.push_back(next);
  }
  return out;
}

HeldOutScore score_held_out(const TrainConfig& c, const TensorMap& params, const std::vector<IdPair>& test, std::size_t layer,
                            unsigned threads) {
  HeldOutScore s;
  s.pairs = test.size();
  std::vector<HeldOutScore> part(test.size());
  std::vector<std::size_t> part_prefix(test.size(), 0);
  const unsigned T = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(std::max<std::size_t>(1, test.size()))));
  const std::size_t V = std::max<std::size_t>(1, c.vocab);
  parallel_for_threads(T, [&](unsigned t, unsigned nt) {
    std::vector<std::size_t> mine;
    for (std::size_t i = t; i < test.size(); i += nt) mine.push_back(i);
    for (std::size_t at = 0; at < mine.size();) {
      // a batch of pairs (their matrix products in one GEMM) whose logits, pairs × longest target
      // × V floats, stay near 4 M floats (16 MB) however big the vocabulary
      std::vector<std::size_t> chosen;
      std::size_t longest = 0;
      while (at < mine.size()) {
        const std::size_t len = std::max(longest, test[mine[at]].target.size() + 1);
        if (!chosen.empty() && ((chosen.size() + 1) * len * V > (std::size_t{4} << 20) || chosen.size() >= 64)) break;
        longest = len;
        chosen.push_back(mine[at++]);
      }
      // one teacher-forced pass gives both scores. Exact match: greedy decoding reproduces the
      // target exactly when, fed the gold target, every position's most probable token is the
      // next gold token and the last one's is <eos> — the causal mask lets position k see only
      // <bos> y₁ … y_k, which is what greedy decoding would have fed it. (Greedy decoding itself
      // costs a whole pass per output token, and the loss V exponentials per token: neither is
      // needed.) Padding is masked: each pair's rows are what it alone would give.
      const TrainBatch b = make_train_batch(test, chosen, c.pad);
      ForwardExtras ex;
      ex.want_logits = true;
      ex.logits_only = true;
      ex.cross_layer = static_cast<int>(layer);
      train_loss(c, params, b, nullptr, 1, &ex);
      for (std::size_t r = 0; r < chosen.size(); ++r) {
        const std::size_t i = chosen[r];
        const IdPair& p = test[i];
        // the first position whose most probable token is not the gold one (target.size() + 1: none)
        std::size_t right = 0;
        for (std::size_t k = 0; k <= p.target.size(); ++k, ++right) {
          const float* z = ex.logits.data() + (r * b.target_len + k) * V;
          if (static_cast<std::size_t>(std::max_element(z, z + V) - z) != b.target_out[r * b.target_len + k]) break;
        }
        part[i].exact = right == p.target.size() + 1;
        part_prefix[i] = right;
        for (std::size_t k = 0; k < p.alignment.size() && k < p.target.size(); ++k) {
          if (p.alignment[k] < 0) continue;
          // row k (inputs <bos> y₁ … y_k) is where the model chose target token k; padded keys
          // have weight 0, so the peak is among the pair's own source words
          const float* row = ex.cross_attention.data() + (r * b.target_len + k) * b.source_len;
          const std::size_t peak = static_cast<std::size_t>(std::max_element(row, row + b.source_len) - row);
          ++part[i].aligned_total;
          part[i].aligned_hits += peak == static_cast<std::size_t>(p.alignment[k]);
        }
      }
    }
  });
  s.pair_prefix = part_prefix;
  for (const HeldOutScore& h : part) {
    s.pair_exact.push_back(h.exact ? 1 : 0);
    s.exact += h.exact;
    s.aligned_hits += h.aligned_hits;
    s.aligned_total += h.aligned_total;
  }
  return s;
}

std::vector<LengthScore> exact_by_length(const std::vector<IdPair>& test, const HeldOutScore& score, std::size_t first) {
  if (score.pair_exact.size() != test.size() || score.pair_prefix.size() != test.size())
    throw Error(fmt::format("exact_by_length: {} scores for {} test pairs", score.pair_exact.size(), test.size()));
  std::vector<LengthScore> rows;
  for (std::size_t i = 0; i < test.size(); ++i) {
    const std::size_t len = test[i].source.size();
    auto it = std::find_if(rows.begin(), rows.end(), [&](const LengthScore& r) { return r.length == len; });
    if (it == rows.end()) {
      rows.push_back({len, 0, 0});
      it = rows.end() - 1;
    }
    ++it->pairs;
    it->exact += score.pair_exact[i];
    it->first_right += score.pair_prefix[i] >= std::min(first, test[i].target.size());
  }
  std::sort(rows.begin(), rows.end(), [](const LengthScore& a, const LengthScore& b) { return a.length < b.length; });
  return rows;
}

Tensor train_cross_attention(const TrainConfig& c, const TensorMap& params, const std::vector<std::size_t>& source,
                             const std::vector<std::size_t>& target, std::size_t layer) {
  if (source.empty()) throw Error(N_("train_cross_attention: empty source"));
  if (layer >= c.layers) throw Error(fmt::format(N_("train_cross_attention: decoder layer {} of {}"), layer + 1, c.layers));
  // one pair as a batch of one: target_in = <bos> y₁ … y_T, target_out = y₁ … y_T <eos>
  TrainBatch b;
  b.batch = 1;
  b.source = source;
  b.source_len = source.size();
  b.target_in = {kTrainBos};
  b.target_in.insert(b.target_in.end(), target.begin(), target.end());
  b.target_out = target;
  b.target_out.push_back(kTrainEos);
  b.target_len = b.target_in.size();
  ForwardExtras ex;
  ex.cross_layer = static_cast<int>(layer);
  train_loss(c, params, b, nullptr, 1, &ex);
  Tensor w({b.target_len, b.source_len});
  std::copy(ex.cross_attention.begin(), ex.cross_attention.end(), w.data());
  return w;
}

// entropy_r = −Σ_j a_rj ln a_rj (0 · ln 0 = 0); gold mass = a_r,g(r) averaged over aligned rows
AttentionSharpness attention_sharpness(const Tensor& weights, const std::vector<int>& alignment) {
  if (weights.rank() != 2 || weights.dim(0) == 0 || weights.dim(1) == 0)
    throw Error(fmt::format(N_("attention_sharpness: expected weights (R, S), got {}"), shape_string(weights.shape())));
  const std::size_t R = weights.dim(0), S = weights.dim(1);
  AttentionSharpness s;
  s.rows = R;
  double entropy = 0, mass = 0;
  for (std::size_t r = 0; r < R; ++r) {
    const float* a = weights.data() + r * S;
    double h = 0;
    for (std::size_t j = 0; j < S; ++j)
      if (a[j] > 0) h -= double(a[j]) * std::log(double(a[j]));
    entropy += h;
    if (r < alignment.size() && alignment[r] >= 0) {
      if (static_cast<std::size_t>(alignment[r]) >= S)
        throw Error(fmt::format(N_("attention_sharpness: row {} is aligned to source {} of {}"), r, alignment[r], S));
      mass += a[alignment[r]];
      ++s.aligned;
    }
  }
  s.entropy = entropy / double(R);
  s.gold_mass = s.aligned ? mass / double(s.aligned) : 0.0;
  return s;
}

double train_learning_rate(std::size_t step, std::size_t d_model, const TrainOptions& o) {
  if (o.no_warmup) return std::pow(double(d_model), -0.5) * std::pow(std::max(double(step), o.warmup), -0.5);
  return warmup_learning_rate(double(step), double(d_model), o.warmup);
}

std::size_t train_model(const TrainConfig& c, TensorMap& params, const std::vector<IdPair>& train, const TrainOptions& o,
                        const std::function<bool(const TrainStepReport&)>& on_step) {
  if (train.empty()) throw Error(N_("train: no training pairs"));
  Generator gen(o.seed ^ 0x9e3779b97f4a7c15ull);
  std::vector<std::size_t> order;
  std::size_t next = 0;
  AdamState adam;
  TensorMap grads;
  for (std::size_t step = 1; step <= o.steps; ++step) {
    std::vector<std::size_t> chosen;
    while (chosen.size() < o.batch) {
      if (next == order.size()) {
        order.resize(train.size());
        std::iota(order.begin(), order.end(), 0);
        for (std::size_t i = order.size(); i > 1; --i)  // Fisher–Yates
          std::swap(order[i - 1], order[static_cast<std::size_t>(gen.uniform01() * double(i))]);
        next = 0;
      }
      chosen.push_back(order[next++]);
    }
    const TrainBatch b = make_train_batch(train, chosen, c.pad);
    TrainStepReport r;
    r.step = step;
    r.loss = train_loss(c, params, b, &grads, o.threads);
    r.learning_rate = train_learning_rate(step, c.d_model, o);
    for (std::size_t id : b.target_out) r.tokens += id != c.pad;
    adam_step(adam, params, grads, r.learning_rate);
    if (on_step && !on_step(r)) return step;
  }
  return o.steps;
}

bool held_out_checkpoint(std::size_t step, std::size_t every, std::size_t steps) {
  if (step == 0) return false;
  if (step == steps || (every > 0 && step % every == 0)) return true;
  if (every > 0 && step >= every) return false;
  // 1-2-5 per decade from 10: the mantissa of step is 1, 2 or 5 and the rest zeros
  std::size_t m = step;
  if (m < 10) return false;
  while (m % 10 == 0) m /= 10;
  return m == 1 || m == 2 || m == 5;
}

}  // namespace tfx
