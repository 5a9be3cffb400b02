// Attention against independent references: hand-computed 2×2 cases, PyTorch 1.13 results for
// fixed inputs (constants generated once by tests/reference/gen_attention_reference.py), a
// double-precision loop written differently, and properties (rows sum to 1, masked weights are
// exactly 0, W = I gives plain attention, permutation equivariance, Var(q·k) ≈ d_k).
#include "tfx/attention/attention.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "helpers.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {



double maxdiff(const Tensor& a, const std::vector<std::vector<double>>& want) {
  REQUIRE(a.rows() == want.size());
  double d = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    REQUIRE(a.cols() == want[i].size());
    for (std::size_t j = 0; j < want[i].size(); ++j) d = std::max(d, std::abs(a(i, j) - want[i][j]));
  }
  return d;
}

double maxdiff(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, static_cast<double>(std::abs(a[i] - b[i])));
  return d;
}

Tensor random_matrix(std::size_t r, std::size_t c, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.5f, 1.5f);
  Tensor t({r, c});
  for (float& x : t.values()) x = u(gen);
  return t;
}

// The PyTorch inputs (see tests/reference/gen_attention_reference.py).
const Tensor kQ = Tensor::matrix({{0.5f, -1.0f, 2.0f, 0.0f}, {1.5f, 0.25f, -0.5f, 1.0f}, {-2.0f, 0.5f, 1.0f, -1.5f}});
const Tensor kK =
    Tensor::matrix({{1.0f, 0.0f, -1.0f, 2.0f}, {0.5f, 1.5f, 0.5f, -0.5f}, {-1.0f, 2.0f, 0.0f, 1.0f}, {2.0f, -0.5f, 1.5f, 0.0f}});
const Tensor kV = Tensor::matrix({{1.0f, 2.0f, 3.0f}, {-1.0f, 0.0f, 1.0f}, {0.5f, -0.5f, 2.0f}, {3.0f, 1.0f, -2.0f}});

}  // namespace

TEST_CASE("2×2 by hand: scores (1, 0) scaled by 1/√2 give weights σ(1/√2) and 1 − σ(1/√2)") {
  // q_0 = k_0 = (1, 0), q_1 = k_1 = (0, 1): QKᵀ = I, scaled = I/√2
  // row 0: e^(1/√2) / (e^(1/√2) + 1) = 1 / (1 + e^(−0.70710678)) = 0.66976155
  const double w = 1.0 / (1.0 + std::exp(-1.0 / std::sqrt(2.0)));
  AttentionSteps s = scaled_dot_product_attention(Tensor::matrix({{1, 0}, {0, 1}}), Tensor::matrix({{1, 0}, {0, 1}}),
                                                  Tensor::matrix({{1, 2}, {3, 4}}), {});
  CHECK(w == doctest::Approx(0.66976155).epsilon(1e-8));
  CHECK(s.divisor == doctest::Approx(std::sqrt(2.0)));
  CHECK(maxdiff(s.scores, {{1.0, 0.0}, {0.0, 1.0}}) == 0);
  CHECK(maxdiff(s.weights, {{w, 1 - w}, {1 - w, w}}) < 1e-7);
  // Z row 0 = w·(1, 2) + (1 − w)·(3, 4) = (3 − 2w, 4 − 2w)
  CHECK(maxdiff(s.output, {{3 - 2 * w, 4 - 2 * w}, {1 + 2 * w, 2 + 2 * w}}) < 1e-6);

  // without scaling: σ(1) = 0.73105858; with --temperature 2 and no scaling: σ(1/2) = 0.62245933
  AttentionOptions o;
  o.scale = false;
  AttentionSteps u =
      scaled_dot_product_attention(Tensor::matrix({{1, 0}}), Tensor::matrix({{1, 0}, {0, 1}}), Tensor::matrix({{1}, {0}}), o);
  CHECK(u.weights(0, 0) == doctest::Approx(0.73105858).epsilon(1e-6));
  o.temperature = 2;
  AttentionSteps t =
      scaled_dot_product_attention(Tensor::matrix({{1, 0}}), Tensor::matrix({{1, 0}, {0, 1}}), Tensor::matrix({{1}, {0}}), o);
  CHECK(t.weights(0, 0) == doctest::Approx(0.62245933).epsilon(1e-6));
}

TEST_CASE("the lecture's two keys k_1 → 0.2, k_2 → 0.8: scores differing by ln 4 (d_k = 1)") {
  // softmax(s_1, s_2) = (1/(1 + e^(s_2 − s_1)), …); s_2 − s_1 = ln 4 gives (1/5, 4/5)
  const float l4 = static_cast<float>(std::log(4.0));
  AttentionSteps s =
      scaled_dot_product_attention(Tensor::matrix({{l4}}), Tensor::matrix({{0}, {1}}), Tensor::matrix({{10}, {20}}), {});
  CHECK(s.weights(0, 0) == doctest::Approx(0.2).epsilon(1e-6));
  CHECK(s.weights(0, 1) == doctest::Approx(0.8).epsilon(1e-6));
  CHECK(s.output(0, 0) == doctest::Approx(0.2 * 10 + 0.8 * 20).epsilon(1e-6));
}

TEST_CASE("equal scores give uniform weights 1/S and Z = the mean of V's rows; causal row 0 copies V's row 0") {
  Tensor q({3, 4});  // all-zero queries: every score 0
  AttentionSteps s = scaled_dot_product_attention(q, kK, kV, {});
  for (float w : s.weights.values()) CHECK(w == doctest::Approx(0.25));
  // mean of V's rows: (3.5/4, 2.5/4, 4/4)
  CHECK(maxdiff(s.output, {{0.875, 0.625, 1.0}, {0.875, 0.625, 1.0}, {0.875, 0.625, 1.0}}) < 1e-6);
  AttentionOptions o;
  o.causal = true;
  AttentionSteps c = scaled_dot_product_attention(q, kK, kV, o);
  // query i sees keys 0 … i, all with score 0: weight 1/(i + 1) each. (A loop, not a nested braced
  // list {{1.0, 0.0, …}, {0.5, 0.5, 0.0, 0.0}, …}: GCC 12.2 at -O2/-O3 -march=native, SLP vectorizer
  // on, built that list here as {0.5, 0.5, 0.5, 0.5}; -fno-tree-slp-vectorize fixes it.)
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j)
      CHECK(c.weights(i, j) == doctest::Approx(j <= i ? 1.0 / static_cast<double>(i + 1) : 0.0));
  CHECK(maxdiff(c.output, {{1.0, 2.0, 3.0}, {0.0, 1.0, 2.0}, {0.5 / 3, 1.5 / 3, 6.0 / 3}}) < 1e-6);
}

TEST_CASE("PyTorch 1.13 reference: softmax(QKᵀ/√4)V, causal and padding masks") {
  // torch.softmax(Q @ K.T / 2, -1) and @ V in float64
  AttentionSteps s = scaled_dot_product_attention(kQ, kK, kV, {});
  CHECK(maxdiff(s.weights, {{0.0424442569, 0.0792963113, 0.0257437431, 0.8525156887},
                            {0.5916507119, 0.0965843237, 0.0800712167, 0.2316937478},
                            {0.0122376623, 0.4052557181, 0.5203586423, 0.0621479772}}) < 1e-6);
  CHECK(maxdiff(s.output, {{2.5335668831, 0.9245323309, -1.4469148091},
                           {1.2301832400, 1.3749595632, 1.5682913970},
                           {0.0536051970, -0.1735560193, 1.3583900353}}) < 2e-6);
  // masked_fill(~ones(3, 4).tril(), -inf)
  AttentionOptions causal;
  causal.causal = true;
  AttentionSteps c = scaled_dot_product_attention(kQ, kK, kV, causal);
  CHECK(maxdiff(c.weights,
                {{1.0, 0.0, 0.0, 0.0}, {0.8596637505, 0.1403362495, 0.0, 0.0}, {0.0130486068, 0.4321105124, 0.5548408808, 0.0}}) <
        1e-6);
  // the last key masked
  AttentionOptions pad;
  pad.pad = 1;
  AttentionSteps p = scaled_dot_product_attention(kQ, kK, kV, pad);
  CHECK(maxdiff(p.weights, {{0.2877882840, 0.5376592982, 0.1745524178, 0.0},
                            {0.7700714529, 0.1257107089, 0.1042178382, 0.0},
                            {0.0130486068, 0.4321105124, 0.5548408808, 0.0}}) < 1e-6);
  CHECK(maxdiff(p.output, {{-0.1625948053, 0.4883003592, 1.7501289858},
                           {0.6964696630, 1.4880339866, 2.6443607439},
                           {-0.1416414652, -0.2513232267, 1.5809380944}}) < 2e-6);
}

TEST_CASE("PyTorch 1.13 reference: nn.MultiheadAttention(4, 2 heads, bias=False) with fixed weights") {
  const Tensor X = Tensor::matrix({{0.2f, -0.4f, 1.0f, 0.6f}, {1.2f, 0.3f, -0.7f, 0.1f}, {-0.5f, 0.9f, 0.4f, -1.1f}});
  AttentionWeights w;
  w.wq = Tensor::matrix(
      {{0.3f, -0.2f, 0.5f, 0.1f}, {0.0f, 0.4f, -0.3f, 0.2f}, {-0.1f, 0.6f, 0.2f, -0.5f}, {0.7f, 0.1f, 0.0f, 0.3f}});
  w.wk = Tensor::matrix(
      {{0.2f, 0.1f, -0.4f, 0.3f}, {0.5f, -0.6f, 0.1f, 0.0f}, {0.0f, 0.3f, 0.3f, -0.2f}, {-0.3f, 0.2f, 0.6f, 0.4f}});
  w.wv = Tensor::matrix(
      {{0.1f, 0.2f, 0.3f, 0.4f}, {-0.4f, 0.3f, -0.2f, 0.1f}, {0.6f, -0.1f, 0.0f, 0.2f}, {0.2f, 0.5f, -0.3f, -0.6f}});
  w.wo = Tensor::matrix(
      {{0.4f, -0.1f, 0.2f, 0.0f}, {0.1f, 0.3f, -0.5f, 0.2f}, {-0.2f, 0.6f, 0.1f, 0.3f}, {0.0f, -0.3f, 0.4f, 0.5f}});
  MultiHeadAttention m = multi_head_attention(X, X, w, 2, {});
  REQUIRE(m.heads.size() == 2);
  CHECK(maxdiff(m.heads[0].weights, {{0.3657302786, 0.3261920247, 0.3080776966},
                                     {0.1918836875, 0.3482461997, 0.4598701129},
                                     {0.5867306277, 0.2474975221, 0.1657718502}}) < 1e-6);
  CHECK(maxdiff(m.heads[1].weights, {{0.3837335722, 0.2430233450, 0.3732430827},
                                     {0.4027553456, 0.3557765145, 0.2414681399},
                                     {0.2598314784, 0.3271004233, 0.4130680984}}) < 1e-6);
  CHECK(maxdiff(m.output, {{0.0274868048, -0.0386381193, 0.0958649580, 0.1595525457},
                           {-0.0757117526, -0.0056831688, 0.0711427535, 0.1283456136},
                           {0.1413939811, -0.0551755021, 0.1567769031, 0.2110357611}}) < 1e-6);
  AttentionOptions causal;
  causal.causal = true;
  MultiHeadAttention c = multi_head_attention(X, X, w, 2, causal);
  CHECK(maxdiff(c.heads[1].weights,
                {{1.0, 0.0, 0.0}, {0.5309669466, 0.4690330534, 0.0}, {0.2598314784, 0.3271004233, 0.4130680984}}) < 1e-6);
  CHECK(maxdiff(c.output, {{0.38, -0.042, 0.068, -0.048},
                           {0.0369289954, 0.1323815550, -0.1108030376, 0.1390153695},
                           {0.1413939811, -0.0551755021, 0.1567769031, 0.2110357611}}) < 1e-6);
}

TEST_CASE("a double-precision loop written the other way round agrees (T=5, S=7, d_k=6, d_v=3, temperature 0.7)") {
  const Tensor q = random_matrix(5, 6, 1), k = random_matrix(7, 6, 2), v = random_matrix(7, 3, 3);
  AttentionOptions o;
  o.temperature = 0.7;
  o.pad = 2;
  AttentionSteps s = scaled_dot_product_attention(q, k, v, o);
  double worst = 0;
  for (std::size_t i = 0; i < 5; ++i) {
    // weights_ij = exp(s_ij) / Σ_j' exp(s_ij'), over the 5 unpadded keys, no max subtraction
    std::vector<double> e(7, 0.0);
    double sum = 0;
    for (std::size_t j = 0; j < 5; ++j) {
      double dotp = 0;
      for (std::size_t c = 0; c < 6; ++c) dotp += static_cast<double>(q(i, c)) * k(j, c);
      e[j] = std::exp(dotp / (std::sqrt(6.0) * 0.7));
      sum += e[j];
    }
    for (std::size_t j = 0; j < 7; ++j) worst = std::max(worst, std::abs(s.weights(i, j) - e[j] / sum));
    for (std::size_t c = 0; c < 3; ++c) {
      double z = 0;
      for (std::size_t j = 0; j < 7; ++j) z += e[j] / sum * v(j, c);
      worst = std::max(worst, std::abs(s.output(i, c) - z));
    }
  }
  CHECK(worst < 1e-6);
}

TEST_CASE("rows sum to 1 and masked weights are exactly 0 (causal + padding, T ≠ S)") {
  const Tensor q = random_matrix(6, 5, 4), k = random_matrix(9, 5, 5), v = random_matrix(9, 2, 6);
  AttentionOptions o;
  o.causal = true;
  o.pad = 3;
  AttentionSteps s = scaled_dot_product_attention(q, k, v, o);
  REQUIRE(s.keep.size() == 6 * 9);
  for (std::size_t i = 0; i < 6; ++i) {
    double sum = 0;
    for (std::size_t j = 0; j < 9; ++j) {
      const bool masked = j > i || j >= 6;
      CHECK(static_cast<bool>(s.keep[i * 9 + j]) == !masked);
      if (masked) {
        CHECK(s.weights(i, j) == 0.0f);
        CHECK(std::isinf(s.masked(i, j)));
        CHECK(s.masked(i, j) < 0);
      } else {
        CHECK(s.weights(i, j) > 0.0f);
        CHECK(s.masked(i, j) == s.scaled(i, j));
      }
      sum += s.weights(i, j);
    }
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
  }
}

TEST_CASE("one head with W = I is plain attention; H heads with W = I are attention on column blocks") {
  const Tensor x = random_matrix(5, 6, 7);
  AttentionSteps plain = scaled_dot_product_attention(x, x, x, {});
  MultiHeadAttention one = multi_head_attention(x, x, identity_attention_weights(6, false), 1, {});
  CHECK(maxdiff(one.heads[0].weights, plain.weights) < 1e-6);
  CHECK(maxdiff(one.output, plain.output) < 1e-6);
  // 3 heads, W_O = I: output columns 2h, 2h+1 are attention over columns 2h, 2h+1 alone
  MultiHeadAttention three = multi_head_attention(x, x, identity_attention_weights(6, true), 3, {});
  for (std::size_t h = 0; h < 3; ++h) {
    Tensor block({5, 2});
    for (std::size_t i = 0; i < 5; ++i) block(i, 0) = x(i, 2 * h), block(i, 1) = x(i, 2 * h + 1);
    AttentionSteps a = scaled_dot_product_attention(block, block, block, {});
    CHECK(a.divisor == doctest::Approx(std::sqrt(2.0)));
    CHECK(maxdiff(three.heads[h].weights, a.weights) < 1e-6);
    for (std::size_t i = 0; i < 5; ++i)
      for (std::size_t c = 0; c < 2; ++c) CHECK(three.output(i, 2 * h + c) == doctest::Approx(a.output(i, c)).epsilon(1e-5));
  }
  // split and concat are inverses
  CHECK(maxdiff(concat_heads(split_heads(x, 3)), x) == 0);
}

TEST_CASE("self-attention without PE is permutation-equivariant: permuting tokens permutes Z and the weights") {
  const Tensor x = random_matrix(6, 8, 8);
  const std::vector<std::size_t> perm{3, 0, 5, 1, 4, 2};
  Tensor px({6, 8});
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t c = 0; c < 8; ++c) px(i, c) = x(perm[i], c);
  const AttentionWeights w = xavier_attention_weights(8, 8, 2, 4, 4, true, 11);
  MultiHeadAttention a = multi_head_attention(x, x, w, 2, {}), b = multi_head_attention(px, px, w, 2, {});
  double worst = 0;
  for (std::size_t i = 0; i < 6; ++i) {
    for (std::size_t c = 0; c < 8; ++c)
      worst = std::max(worst, static_cast<double>(std::abs(b.output(i, c) - a.output(perm[i], c))));
    for (std::size_t h = 0; h < 2; ++h)
      for (std::size_t j = 0; j < 6; ++j)
        worst = std::max(worst, static_cast<double>(std::abs(b.heads[h].weights(i, j) - a.heads[h].weights(perm[i], perm[j]))));
  }
  CHECK(worst < 1e-6);
  // the causal mask breaks it: token order matters again
  AttentionOptions causal;
  causal.causal = true;
  MultiHeadAttention ca = multi_head_attention(x, x, w, 2, causal), cb = multi_head_attention(px, px, w, 2, causal);
  CHECK(std::abs(cb.output(0, 0) - ca.output(perm[0], 0)) > 1e-3);
}

TEST_CASE("Xavier weights: same seed same weights, |w| ≤ √(6/(in+out)), variance ≈ 2/(in+out)") {
  const AttentionWeights a = xavier_attention_weights(40, 40, 2, 30, 30, true, 5),
                         b = xavier_attention_weights(40, 40, 2, 30, 30, true, 5);
  const AttentionWeights c = xavier_attention_weights(40, 40, 2, 30, 30, true, 6);
  CHECK(a.wq.values() == b.wq.values());
  CHECK(a.wo.values() == b.wo.values());
  CHECK(a.wq.values() != c.wq.values());
  CHECK(a.wq.values() != a.wk.values());  // one generator: each matrix continues the stream
  CHECK(a.wq.shape() == std::vector<std::size_t>{40, 60});
  CHECK(a.wo.shape() == std::vector<std::size_t>{60, 40});
  const double bound = std::sqrt(6.0 / 100.0);
  double ss = 0, mean = 0;
  for (float x : a.wq.values()) {
    CHECK(std::abs(x) <= bound);
    mean += x;
    ss += static_cast<double>(x) * x;
  }
  mean /= 2400;
  // 2400 draws of U(−a, a): variance a²/3 = 0.02, standard error of the estimate ≈ 0.02·√(0.8/2400) ≈ 3.7e-4
  CHECK(ss / 2400 - mean * mean == doctest::Approx(0.02).epsilon(0.1));
}

TEST_CASE("variance experiment: Var(q·k) ≈ d_k, Var(q·k/√d_k) ≈ 1; unscaled softmax peaks as d_k grows") {
  // Var(q·k) for Gaussian entries: d_k; the estimate's relative standard error is about
  // √((2 + 6/d_k)/N) with N = samples·keys = 40000 → ≤ 1.6%; allow 6%
  const auto stats = dot_product_variance({1, 16, 256}, 10000, 4, 2024);
  REQUIRE(stats.size() == 3);
  for (const auto& s : stats) {
    CAPTURE(s.d_k);
    CHECK(s.var_dot == doctest::Approx(static_cast<double>(s.d_k)).epsilon(0.06));
    CHECK(s.var_scaled == doctest::Approx(1.0).epsilon(0.06));
  }
  // d_k = 1: scaling changes nothing
  CHECK(stats[0].max_weight == doctest::Approx(stats[0].max_weight_scaled));
  // unscaled: the largest weight heads for 1 (one-hot); scaled: it stays put
  CHECK(stats[1].max_weight > stats[0].max_weight + 0.1);
  CHECK(stats[2].max_weight > 0.9);
  CHECK(std::abs(stats[2].max_weight_scaled - stats[1].max_weight_scaled) < 0.02);
  // uniform entries have variance 1 too
  const auto uni = dot_product_variance({64}, 5000, 4, 3, UnitDistribution::uniform);
  CHECK(uni[0].var_dot == doctest::Approx(64.0).epsilon(0.06));
  // the same seed gives the same numbers
  CHECK(dot_product_variance({8}, 100, 3, 9)[0].var_dot == dot_product_variance({8}, 100, 3, 9)[0].var_dot);
}

TEST_CASE("shape errors name both shapes; masks that leave no key are usage errors") {
  CHECK(has(error_of([] {
              scaled_dot_product_attention(Tensor({2, 3}), Tensor({2, 4}), Tensor({2, 1}), {});
            }),
            "Q [2, 3] and K [2, 4] differ in d_k"));
  CHECK(has(error_of([] {
              scaled_dot_product_attention(Tensor({2, 3}), Tensor({2, 3}), Tensor({3, 1}), {});
            }),
            "V [3, 1] has 3 rows but K [2, 3] has 2"));
  AttentionOptions pad;
  pad.pad = 4;
  try {
    attention_mask(3, 4, pad);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == Error::Kind::usage);
    CHECK(has(e.what(), "pad 4 masks every one of the 4 key positions"));
    CHECK(e.params() == std::vector<std::string>{"pad"});  // the command layer names its flag
  }
  CHECK(has(error_of([] {
              attend_heads(Tensor({2, 6}), Tensor({2, 6}), Tensor({2, 6}), 4, Tensor(), {});
            }),
            "heads 4 does not divide"));
  CHECK(attention_mask(3, 3, {}).empty());
  // float32 overflow of the scores is an error, not a row of NaN
  CHECK(has(error_of([] {
              scaled_dot_product_attention(Tensor::matrix({{1e20f}}), Tensor::matrix({{1e20f}}), Tensor::matrix({{1}}), {});
            }),
            "is inf in float32"));
}
