// Choosing the next token (sampling.hpp): greedy, temperature, top-k, top-p, seeded draws.
#include "tfx/model/sampling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

void check_sampling_options(const SamplingOptions& o) {
  if (o.greedy) return;
  if (!(o.temperature > 0) || !std::isfinite(o.temperature))
    throw usage_error(fmt::format(N_("temperature must be a number > 0 (got {}); for the most likely token "
                                  "every step, sample greedily instead"),
                                  o.temperature),
                      {"temperature"});
  if (!(o.top_p > 0 && o.top_p <= 1))
    throw usage_error(fmt::format(N_("top_p must be in (0, 1] (got {}): the share of probability to keep"), o.top_p),
                      {"top_p"});
}

// H = −Σ p ln p
double entropy_nats(std::span<const double> p) {
  double h = 0;
  for (double x : p)
    if (x > 0) h -= x * std::log(x);
  return h;
}

std::vector<NextToken> sampling_distribution(std::span<const float> logits, const SamplingOptions& o) {
  if (logits.empty()) throw Error(N_("sampling: no logits (an empty vocabulary)"));
  check_sampling_options(o);
  if (o.greedy) {
    std::size_t best = 0;
    for (std::size_t i = 0; i < logits.size(); ++i) {
      if (std::isnan(logits[i])) throw Error(N_("sampling: the logits contain NaN"));
      if (logits[i] > logits[best]) best = i;
    }
    return {{best, 1.0}};
  }
  std::vector<double> p = softmax_at_temperature(logits, o.temperature);
  auto more_likely = [&p](std::size_t a, std::size_t b) { return p[a] != p[b] ? p[a] > p[b] : a < b; };
  // 1. top-k: keep the tokens at least as likely as the k-th most likely (ties at the k-th all
  //    kept, as HF's threshold does), then renormalize over them
  std::vector<std::size_t> order;
  order.reserve(p.size());
  for (std::size_t i = 0; i < p.size(); ++i)
    if (p[i] > 0) order.push_back(i);
  if (o.top_k > 0 && o.top_k < order.size()) {
    std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(o.top_k - 1), order.end(), more_likely);
    const double kth = p[order[o.top_k - 1]];
    std::erase_if(order, [&p, kth](std::size_t i) { return p[i] < kth; });
    double sum = 0;
    for (std::size_t i : order) sum += p[i];
    for (std::size_t i : order) p[i] /= sum;
  }
  // 2. the most likely first (ties: smaller id)
  std::sort(order.begin(), order.end(), more_likely);
  // 3. top-p: keep while the mass before the token is < p
  std::vector<NextToken> kept;
  double before = 0;
  for (std::size_t i : order) {
    if (!kept.empty() && before >= o.top_p) break;
    kept.push_back({i, p[i]});
    before += p[i];
  }
  // 4. renormalize over the kept tokens
  double sum = 0;
  for (const auto& t : kept) sum += t.p;
  for (auto& t : kept) t.p /= sum;
  return kept;
}

std::size_t sample_token(std::span<const float> logits, const SamplingOptions& o, double u) {
  const std::vector<NextToken> d = sampling_distribution(logits, o);
  double cum = 0;
  for (const auto& t : d) {
    cum += t.p;
    if (u < cum) return t.token;
  }
  return d.back().token;  // u within rounding of 1
}

Sampler::Sampler(SamplingOptions o, std::uint64_t seed) : options_(o), gen_(seed) { check_sampling_options(options_); }

std::size_t Sampler::next(std::span<const float> logits) {
  if (options_.greedy) return sample_token(logits, options_, 0.0);
  return sample_token(logits, options_, gen_.uniform01());
}

}  // namespace tfx
