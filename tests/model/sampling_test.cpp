// Choosing the next token (sampling.hpp) against a reference sampler written the other way round:
// Hugging Face's formulation (temperature → top-k by threshold on the k-th largest value → top-p
// by sorting ascending and removing the tokens whose ascending cumulative mass is ≤ 1 − p), then
// an inverse CDF over the kept tokens most likely first, fed the same uniform draws; the note 003
// numbers [0, −11, 7] at τ = 10 in closed form; a seeded Sampler's frequencies against its
// probabilities; the option checks.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "helpers.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/random.hpp"
#include "tfx/model/sampling.hpp"

using namespace tfx;

namespace {

// HF-style reference: returns the token the draw u picks.
std::size_t reference_sample(const std::vector<float>& logits, double tau, std::size_t top_k, double top_p, double u) {
  const std::size_t V = logits.size();
  std::vector<double> s(V);
  for (std::size_t i = 0; i < V; ++i) s[i] = logits[i] / tau;
  // top-k: remove every score below the k-th largest (ties at the threshold kept, like HF)
  if (top_k > 0 && top_k < V) {
    std::vector<double> sorted = s;
    std::sort(sorted.rbegin(), sorted.rend());
    const double kth = sorted[top_k - 1];
    for (double& x : s)
      if (x < kth) x = -INFINITY;
  }
  // softmax over the survivors, in double, written as 1 / Σ_j exp(s_j − s_i)
  std::vector<double> p(V, 0.0);
  for (std::size_t i = 0; i < V; ++i) {
    if (s[i] == -INFINITY) continue;
    double denom = 0;
    for (std::size_t j = 0; j < V; ++j)
      if (s[j] != -INFINITY) denom += std::exp(s[j] - s[i]);
    p[i] = 1.0 / denom;
  }
  // top-p: ascending order, remove where the ascending cumulative mass ≤ 1 − p (keep the top one)
  std::vector<std::size_t> asc(V);
  for (std::size_t i = 0; i < V; ++i) asc[i] = i;
  std::stable_sort(asc.begin(), asc.end(), [&](std::size_t a, std::size_t b) { return p[a] != p[b] ? p[a] < p[b] : a > b; });
  double cum = 0;
  for (std::size_t r = 0; r + 1 < V; ++r) {
    cum += p[asc[r]];
    if (cum <= 1.0 - top_p) p[asc[r]] = 0;
  }
  // inverse CDF most likely first
  double total = 0;
  for (double x : p) total += x;
  double c = 0;
  for (std::size_t r = V; r-- > 0;) {
    const std::size_t i = asc[r];
    if (p[i] == 0) continue;
    c += p[i] / total;
    if (u < c) return i;
  }
  return asc[V - 1];
}

}  // namespace

TEST_CASE("sampling: the note's [0, -11, 7] at temperature 10, and greedy is the argmax") {
  const std::vector<float> logits = {0.0f, -11.0f, 7.0f};
  const std::vector<double> p = softmax_at_temperature(logits, 10.0);
  const double z = 1 + std::exp(-1.1) + std::exp(0.7);  // e^(x/10), divided by e^0
  CHECK(p[0] == doctest::Approx(1 / z).epsilon(1e-12));
  CHECK(p[1] == doctest::Approx(std::exp(-1.1) / z).epsilon(1e-12));
  CHECK(p[2] == doctest::Approx(std::exp(0.7) / z).epsilon(1e-12));
  // at τ = 1 the 7 takes almost everything: 1 / (1 + e^-7 + e^-18)
  CHECK(softmax_at_temperature(logits, 1.0)[2] == doctest::Approx(1 / (1 + std::exp(-7.0) + std::exp(-18.0))));
  // entropy grows as τ flattens the distribution, up to ln 3
  CHECK(entropy_nats(softmax_at_temperature(logits, 0.5)) < entropy_nats(softmax_at_temperature(logits, 1)));
  CHECK(entropy_nats(softmax_at_temperature(logits, 1000)) == doctest::Approx(std::log(3.0)).epsilon(1e-4));
  SamplingOptions greedy;
  CHECK(sample_token(logits, greedy, 0.99) == 2);
  const auto d = sampling_distribution(logits, greedy);
  REQUIRE(d.size() == 1);
  CHECK(d[0].token == 2);
}

TEST_CASE("sampling: temperature, top-k and top-p pick what the HF-style reference picks for the same draws") {
  std::mt19937 gen(11);
  std::normal_distribution<float> n(0.0f, 3.0f);
  Generator draws(5);
  int checked = 0;
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<float> logits(50 + trial);
    for (float& l : logits) l = n(gen);
    if (trial % 5 == 0) logits[3] = logits[7];  // a tie
    for (double tau : {0.5, 1.0, 2.0})
      for (std::size_t k : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{40}})
        for (double p : {1.0, 0.9, 0.5, 0.05}) {
          SamplingOptions o;
          o.greedy = false;
          o.temperature = tau;
          o.top_k = k;
          o.top_p = p;
          for (int d = 0; d < 4; ++d) {
            const double u = draws.uniform01();
            CAPTURE(trial);
            CAPTURE(tau);
            CAPTURE(k);
            CAPTURE(p);
            CAPTURE(u);
            REQUIRE(sample_token(logits, o, u) == reference_sample(logits, tau, k, p, u));
            ++checked;
          }
        }
  }
  CHECK(checked == 60 * 3 * 4 * 4 * 4);
}

TEST_CASE("sampling: a seeded sampler reproduces itself and its frequencies follow the probabilities") {
  const std::vector<float> logits = {1.0f, 2.0f, 0.5f, -1.0f, 2.0f};
  SamplingOptions o;
  o.greedy = false;
  o.temperature = 0.8;
  o.top_k = 4;
  Sampler a(o, 42), b(o, 42);
  std::vector<int> count(5, 0);
  const int n = 40000;
  for (int i = 0; i < n; ++i) {
    const std::size_t t = a.next(logits);
    REQUIRE(t == b.next(logits));
    ++count[t];
  }
  CHECK(count[3] == 0);  // cut by top-k (the least likely)
  // kept: 1, 4 (tied), 0, 2 at τ = 0.8, renormalized among themselves
  const double e1 = std::exp(2 / 0.8), e0 = std::exp(1 / 0.8), e2 = std::exp(0.5 / 0.8), z = 2 * e1 + e0 + e2;
  const double want[5] = {e0 / z, e1 / z, e2 / z, 0, e1 / z};
  for (int t = 0; t < 5; ++t) {
    const double sd = std::sqrt(n * want[t] * (1 - want[t]));
    CHECK(std::abs(count[t] - n * want[t]) <= 4 * sd + 1);
  }
}

TEST_CASE("sampling: temperature ≤ 0 and top-p outside (0, 1] are usage errors naming the option") {
  SamplingOptions o;
  o.greedy = false;
  for (double t : {0.0, -1.0, double(NAN), double(INFINITY)}) {
    o.temperature = t;
    try {
      check_sampling_options(o);
      FAIL("no error for temperature ", t);
    } catch (const Error& e) {
      CHECK(e.kind() == Error::Kind::usage);
      CHECK(e.params() == std::vector<std::string>{"temperature"});
    }
  }
  o.temperature = 1;
  for (double p : {0.0, -0.5, 1.5, double(NAN)}) {
    o.top_p = p;
    CHECK_THROWS_WITH_AS(check_sampling_options(o), doctest::Contains("top_p must be in (0, 1]"), Error);
  }
  const std::vector<float> nan_logits = {1.0f, NAN};
  CHECK_THROWS_WITH_AS(sampling_distribution(nan_logits, SamplingOptions{}), doctest::Contains("NaN"), Error);
}
