// RoPE: rotation against hand-computed angles, the relative-position property, real = complex,
// interleaved ↔ half layouts through HF's rotate_half formula, each scaling's inverse
// frequencies re-derived here from the papers' / HF formulas (plus literal values), XPos, the
// decay curve's closed form at m = 0; `tfx rope …` commands and every bad input of issue 4.
#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>

#include "helpers.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/positional/positional.hpp"
#include "tfx/positional/rope.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

RopeConfig cfg(std::size_t dim, RopeScaling s = RopeScaling::none) {
  RopeConfig c;
  c.dim = dim;
  c.scaling = s;
  return c;
}

double maxdiff(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(static_cast<double>(a[i]) - b[i]));
  return m;
}

// The paper's default: base^(−2j/D), written as exp(−(2j/D)·ln base)
double default_inv(std::size_t j, std::size_t dim, double base) {
  return std::exp(-(2.0 * static_cast<double>(j) / static_cast<double>(dim)) * std::log(base));
}

}  // namespace

TEST_CASE("rope_rotate: D=2, pos=1 rotates (1,0) to (cos 1, sin 1); hand values for D=4") {
  std::vector<float> x{1, 0};
  auto y = rope_rotate(x, 1.0, cfg(2));
  CHECK(y[0] == doctest::Approx(std::cos(1.0)).epsilon(1e-7));
  CHECK(y[1] == doctest::Approx(std::sin(1.0)).epsilon(1e-7));
  // (0,1) at pos 2 → (−sin 2, cos 2)
  auto z = rope_rotate(std::vector<float>{0, 1}, 2.0, cfg(2));
  CHECK(z[0] == doctest::Approx(-std::sin(2.0)).epsilon(1e-7));
  CHECK(z[1] == doctest::Approx(std::cos(2.0)).epsilon(1e-7));
  // D=4: pair 1 has inv_freq 10000^(−2/4) = 0.01, so at pos 3 its angle is 0.03
  auto w = rope_rotate(std::vector<float>{0, 0, 1, 0}, 3.0, cfg(4));
  CHECK(w[0] == 0.0f);
  CHECK(w[1] == 0.0f);
  CHECK(w[2] == doctest::Approx(std::cos(0.03)).epsilon(1e-7));
  CHECK(w[3] == doctest::Approx(std::sin(0.03)).epsilon(1e-7));
  // position 0 is the identity
  auto v = rope_random_vector(16, 5);
  CHECK(maxdiff(rope_rotate(v, 0.0, cfg(16)), v) == 0.0);
}

TEST_CASE("rope_angles / cos / sin tables are the lecture's pos / 10000^(2j/D)") {
  const std::size_t L = 20, D = 16;
  Tensor th = rope_angles(L, cfg(D)), co = rope_cos_table(L, cfg(D)), si = rope_sin_table(L, cfg(D));
  REQUIRE(th.shape() == std::vector<std::size_t>{L, D / 2});
  REQUIRE(co.shape() == std::vector<std::size_t>{L, D / 2});
  double m = 0;
  for (std::size_t p = 0; p < L; ++p)
    for (std::size_t j = 0; j < D / 2; ++j) {
      const double a = static_cast<double>(p) / std::pow(10000.0, 2.0 * j / D);
      m = std::max({m, std::abs(th(p, j) - a), std::abs(co(p, j) - std::cos(a)), std::abs(si(p, j) - std::sin(a))});
    }
  CHECK(m < 1e-5);
  CHECK(th(1, 1) == doctest::Approx(std::pow(10000.0, -2.0 / 16)));
}

TEST_CASE("rotation preserves norms (no scaling), for both layouts") {
  for (RopeLayout layout : {RopeLayout::interleaved, RopeLayout::half}) {
    RopeConfig c = cfg(64);
    c.layout = layout;
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      auto x = rope_random_vector(64, seed);
      for (double pos : {0.0, 1.0, 17.0, 1000.0, 123456.0}) {
        auto y = rope_rotate(x, pos, c);
        CHECK(norm(y) == doctest::Approx(norm(x)).epsilon(1e-6));
      }
    }
  }
}

TEST_CASE("<R_i q, R_j k> equals <q, R_(j-i) k>") {
  const RopeConfig c = cfg(32);
  auto q = rope_random_vector(32, 11), k = rope_random_vector(32, 12);
  for (const auto& ij : std::vector<std::pair<int, int>>{{0, 0}, {3, 7}, {7, 3}, {10, 50}, {100, 101}, {250, 5}}) {
    const int i = ij.first, j = ij.second;  // (no structured binding: CAPTURE is a lambda, clang 14)
    CAPTURE(i);
    CAPTURE(j);
    const double lhs = dot(rope_rotate(q, i, c, RopeRole::query), rope_rotate(k, j, c, RopeRole::key));
    const double rhs = dot(q, rope_rotate(k, static_cast<double>(j - i), c, RopeRole::key));
    CHECK(lhs == doctest::Approx(rhs).epsilon(1e-5));
  }
}

TEST_CASE("relative scores are constant along diagonals; additive PE scores are not") {
  const std::size_t L = 24, D = 64;
  auto q = rope_random_vector(D, 42), k = rope_random_vector(D, 43);
  Tensor s = rope_relative_scores(q, k, L, cfg(D));
  REQUIRE(s.shape() == std::vector<std::size_t>{L, L});
  // s_ij against the closed form Σ_j over pairs (q_a k_a + q_b k_b) cos(Δθ) + (q_b k_a − q_a k_b) sin(Δθ)
  double m = 0;
  for (std::size_t i = 0; i < L; ++i)
    for (std::size_t j = 0; j < L; ++j) {
      double want = 0;
      for (std::size_t p = 0; p < D / 2; ++p) {
        const double d = (static_cast<double>(j) - static_cast<double>(i)) * default_inv(p, D, 10000.0);
        const double qa = q[2 * p], qb = q[2 * p + 1], ka = k[2 * p], kb = k[2 * p + 1];
        want += (qa * ka + qb * kb) * std::cos(d) + (qb * ka - qa * kb) * std::sin(d);
      }
      m = std::max(m, std::abs(s(i, j) - want / std::sqrt(static_cast<double>(D))));
    }
  CHECK(m < 1e-5);
  auto spread = diagonal_spread(s);
  CHECK(spread.size() == 2 * L - 1);
  CHECK(*std::max_element(spread.begin(), spread.end()) < 1e-5);

  Tensor a = additive_pe_scores(q, k, L);
  // (q + PE_i)·(k + PE_j) by hand at one cell
  Tensor pe = sinusoidal_encoding(L, D);
  double want = 0;
  for (std::size_t d = 0; d < D; ++d) want += (q[d] + pe(3, d)) * (k[d] + pe(5, d));
  CHECK(a(3, 5) == doctest::Approx(want / 8.0).epsilon(1e-5));
  auto pspread = diagonal_spread(a);
  CHECK(*std::max_element(pspread.begin(), pspread.end()) > 0.1);
}

TEST_CASE("real form equals complex multiplication z * e^(i theta)") {
  for (RopeScaling s : {RopeScaling::none, RopeScaling::xpos}) {
    RopeConfig c = cfg(16, s);
    auto x = rope_random_vector(16, 9);
    const auto inv = rope_default_inv_freq(16, 10000.0);
    for (double pos : {0.0, 1.0, 37.0, 4096.0}) {
      auto y = rope_rotate(x, pos, c);
      auto z = rope_rotate_complex(x, pos, c);
      for (std::size_t j = 0; j < 8; ++j) {
        // independent: (x_2j + i x_2j+1)·e^{i pos inv_j}·scale
        const double sc = s == RopeScaling::xpos ? std::pow((2.0 * j + 0.4 * 16) / (1.4 * 16), pos / 512.0) : 1.0;
        const std::complex<double> want = std::complex<double>(x[2 * j], x[2 * j + 1]) * std::exp(std::complex<double>(0, pos * inv[j])) * sc;
        CHECK(std::abs(z[j] - want) < 1e-9 * std::max(1.0, std::abs(want)));
        CHECK(std::abs(std::complex<double>(y[2 * j], y[2 * j + 1]) - want) < 1e-6 * std::max(1.0, std::abs(want)));
      }
    }
  }
}

TEST_CASE("interleaved and half layouts agree after the permutation; half matches HF rotate_half") {
  const std::size_t D = 12, P = D / 2;
  RopeConfig ci = cfg(D), ch = cfg(D);
  ch.layout = RopeLayout::half;
  auto x = rope_random_vector(D, 4);
  auto perm = rope_half_from_interleaved(D);
  std::vector<float> xh(D);
  for (std::size_t k = 0; k < D; ++k) xh[k] = x[perm[k]];
  for (double pos : {1.0, 5.0, 300.0}) {
    auto yi = rope_rotate(x, pos, ci);
    auto yh = rope_rotate(xh, pos, ch);
    std::vector<float> yi_perm(D);
    for (std::size_t k = 0; k < D; ++k) yi_perm[k] = yi[perm[k]];
    CHECK(maxdiff(yi_perm, yh) < 1e-6);
    // HF: x·cat(cos, cos) + rotate_half(x)·cat(sin, sin), rotate_half(x) = cat(−x2, x1)
    std::vector<float> hf(D);
    for (std::size_t k = 0; k < D; ++k) {
      const double a = pos * default_inv(k % P, D, 10000.0);
      const double rot = k < P ? -xh[k + P] : xh[k - P];
      hf[k] = static_cast<float>(xh[k] * std::cos(a) + rot * std::sin(a));
    }
    CHECK(maxdiff(hf, yh) < 1e-6);
  }
  CHECK(rope_pair_indices(2, 12, RopeLayout::interleaved) == std::pair<std::size_t, std::size_t>{4, 5});
  CHECK(rope_pair_indices(2, 12, RopeLayout::half) == std::pair<std::size_t, std::size_t>{2, 8});
}

TEST_CASE("linear scaling (position interpolation) divides every inverse frequency by f") {
  RopeConfig c = cfg(32, RopeScaling::linear);
  c.factor = 4.0;
  auto inv = rope_inv_freq(c);
  for (std::size_t j = 0; j < 16; ++j) CHECK(inv[j] == doctest::Approx(default_inv(j, 32, 10000.0) / 4.0).epsilon(1e-12));
  // rotating at pos 8 with f = 4 equals the unscaled rotation at pos 2
  auto x = rope_random_vector(32, 1);
  CHECK(maxdiff(rope_rotate(x, 8.0, c), rope_rotate(x, 2.0, cfg(32))) < 1e-6);
}

TEST_CASE("NTK: base' = base * f^(D/(D-2)); first pair kept, last pair divided by f") {
  RopeConfig c = cfg(4, RopeScaling::ntk);
  c.factor = 4.0;
  CHECK(rope_effective_base(c) == doctest::Approx(160000.0));  // 10000 · 4^(4/2)
  auto inv = rope_inv_freq(c);
  CHECK(inv[0] == 1.0);
  CHECK(inv[1] == doctest::Approx(1.0 / 400.0).epsilon(1e-12));  // 160000^(−1/2)
  RopeConfig d = cfg(128, RopeScaling::ntk);
  d.factor = 8.0;
  auto v = rope_inv_freq(d);
  const double base2 = 10000.0 * std::pow(8.0, 128.0 / 126.0);
  for (std::size_t j = 0; j < 64; ++j) CHECK(v[j] == doctest::Approx(default_inv(j, 128, base2)).epsilon(1e-10));
  CHECK(v[63] == doctest::Approx(default_inv(63, 128, 10000.0) / 8.0).epsilon(1e-10));
}

TEST_CASE("dynamic NTK: no change up to L0; at T = 2·L0 with f = 2, base' = base·3^(D/(D−2))") {
  RopeConfig c = cfg(64, RopeScaling::dynamic);
  c.factor = 2.0;
  c.original_max_pos = 1024;
  c.seq_len = 512;
  CHECK(rope_effective_base(c) == doctest::Approx(10000.0));
  c.seq_len = 2048;
  CHECK(rope_effective_base(c) == doctest::Approx(10000.0 * std::pow(3.0, 64.0 / 62.0)));
  auto inv = rope_inv_freq(c);
  for (std::size_t j = 0; j < 32; ++j)
    CHECK(inv[j] == doctest::Approx(default_inv(j, 64, 10000.0 * std::pow(3.0, 64.0 / 62.0))).epsilon(1e-10));
  // XPos leaves the frequencies alone
  auto xi = rope_inv_freq(cfg(64, RopeScaling::xpos));
  for (std::size_t j = 0; j < 32; ++j) CHECK(xi[j] == doctest::Approx(default_inv(j, 64, 10000.0)).epsilon(1e-12));
}

TEST_CASE("YaRN: correction range with truncation, ramp blend, attention factor 0.1 ln f + 1") {
  RopeConfig c = cfg(128, RopeScaling::yarn);
  c.factor = 4.0;
  c.original_max_pos = 4096;
  // d(r) = D·ln(L0/(2πr))/(2 ln base): d(32) = 20.94 → floor 20, d(1) = 45.03 → ceil 46
  auto [low, high] = yarn_correction_range(c);
  CHECK(low == 20.0);
  CHECK(high == 46.0);
  c.yarn_truncate = false;
  auto [l2, h2] = yarn_correction_range(c);
  CHECK(l2 == doctest::Approx(128.0 * std::log(4096.0 / (2 * std::numbers::pi * 32)) / (2 * std::log(10000.0))));
  CHECK(h2 == doctest::Approx(45.02688127375455));
  c.yarn_truncate = true;
  auto inv = rope_inv_freq(c);
  for (std::size_t j = 0; j < 64; ++j) {
    const double base_inv = default_inv(j, 128, 10000.0);
    const double ramp = std::clamp((j - 20.0) / 26.0, 0.0, 1.0);  // 0 = keep, 1 = interpolate
    CAPTURE(j);
    CHECK(inv[j] == doctest::Approx(base_inv * (1 - ramp) + base_inv / 4.0 * ramp).epsilon(1e-10));
  }
  CHECK(inv[10] == doctest::Approx(default_inv(10, 128, 10000.0)).epsilon(1e-12));       // fast: kept
  CHECK(inv[60] == doctest::Approx(default_inv(60, 128, 10000.0) / 4).epsilon(1e-12));   // slow: ÷ f
  CHECK(inv[33] == doctest::Approx(default_inv(33, 128, 10000.0) * 0.625).epsilon(1e-12));  // half way: (1 + 1/4)/2
  CHECK(rope_attention_factor(c) == doctest::Approx(1.138629436111989));
  c.factor = 1.0;
  CHECK(rope_attention_factor(c) == 1.0);
  // the attention factor multiplies the rotated vector (cos and sin), so norms scale by it
  c.factor = 4.0;
  auto x = rope_random_vector(128, 3);
  CHECK(norm(rope_rotate(x, 77.0, c)) == doctest::Approx(1.138629436111989 * norm(x)).epsilon(1e-6));
}

TEST_CASE("Llama 3 (f 8, low 1, high 4, L0 8192): high-frequency kept, low-frequency / 8, band blended") {
  RopeConfig c = cfg(128, RopeScaling::llama3);
  c.base = 500000.0;
  c.factor = 8.0;
  c.original_max_pos = 8192;
  c.low_freq_factor = 1.0;
  c.high_freq_factor = 4.0;
  auto inv = rope_inv_freq(c);
  int kept = 0, divided = 0, blended = 0;
  for (std::size_t j = 0; j < 64; ++j) {
    const double b = default_inv(j, 128, 500000.0), wave = 2 * std::numbers::pi / b;
    CAPTURE(j);
    if (wave < 8192.0 / 4.0) {
      CHECK(inv[j] == doctest::Approx(b).epsilon(1e-12));
      ++kept;
    } else if (wave > 8192.0 / 1.0) {
      CHECK(inv[j] == doctest::Approx(b / 8.0).epsilon(1e-12));
      ++divided;
    } else {
      const double s = (8192.0 / wave - 1.0) / (4.0 - 1.0);
      CHECK(inv[j] == doctest::Approx((1 - s) * b / 8.0 + s * b).epsilon(1e-12));
      CHECK(inv[j] < b);
      CHECK(inv[j] > b / 8.0);
      ++blended;
    }
  }
  CHECK(kept > 0);
  CHECK(divided > 0);
  CHECK(blended == 6);  // wavelengths in [2048, 8192]: pairs 29..34
  // literal values (computed independently in Python's float arithmetic)
  CHECK(inv[0] == 1.0);
  CHECK(inv[30] == doctest::Approx(0.0013718935677611381).epsilon(1e-10));
  CHECK(inv[63] == doctest::Approx(3.068925988914511e-07).epsilon(1e-10));
}

TEST_CASE("XPos: q·ζ^(n/B), k·ζ^(−m/B); scores still depend only on j − i") {
  RopeConfig c = cfg(32, RopeScaling::xpos);
  auto z = xpos_zeta(c);
  CHECK(z[0] == doctest::Approx(0.4 / 1.4));                       // (0 + 0.4·32)/(1.4·32)
  CHECK(z[15] == doctest::Approx((30 + 12.8) / 44.8));
  // a query pair's length grows by ζ_j^(n/B)
  std::vector<float> e(32, 0.0f);
  e[0] = 1;
  auto y = rope_rotate(e, 256.0, c, RopeRole::query);
  CHECK(std::hypot(y[0], y[1]) == doctest::Approx(std::pow(0.4 / 1.4, 0.5)).epsilon(1e-6));
  auto yk = rope_rotate(e, 256.0, c, RopeRole::key);
  CHECK(std::hypot(yk[0], yk[1]) == doctest::Approx(std::pow(0.4 / 1.4, -0.5)).epsilon(1e-6));
  auto q = rope_random_vector(32, 5), k = rope_random_vector(32, 6);
  Tensor s = rope_relative_scores(q, k, 40, c);
  auto spread = diagonal_spread(s);
  CHECK(*std::max_element(spread.begin(), spread.end()) < 1e-5);
  // and differs from plain RoPE off the main diagonal (the decay factor)
  Tensor s0 = rope_relative_scores(q, k, 40, cfg(32));
  CHECK(std::abs(s(0, 39) - s0(0, 39)) > 1e-4);
  CHECK(s(5, 5) == doctest::Approx(s0(5, 5)).epsilon(1e-5));  // ζ^0 on the diagonal
}

TEST_CASE("decay curve: (P+1)/2 at m = 0; a hand loop at m = 10") {
  auto curve = rope_decay_curve(50, cfg(128));
  CHECK(curve[0] == doctest::Approx(32.5));  // S_j = j, mean of 1..64
  const std::size_t D = 8;
  auto c8 = rope_decay_curve(11, cfg(D));
  double total = 0;
  for (std::size_t j = 1; j <= D / 2; ++j) {
    double re = 0, im = 0;
    for (std::size_t k = 0; k < j; ++k) {
      re += std::cos(10 * default_inv(k, D, 10000.0));
      im += std::sin(10 * default_inv(k, D, 10000.0));
    }
    total += std::sqrt(re * re + im * im);
  }
  CHECK(c8[10] == doctest::Approx(total / (D / 2)).epsilon(1e-12));
  // decays on average: the mean over far distances is well below the start
  double far = 0;
  for (std::size_t m = 40; m < 50; ++m) far += curve[m];
  CHECK(far / 10 < 0.8 * curve[0]);
}

TEST_CASE("validate_rope_config names the field in the library's terms and lists it in params()") {
  auto msg = [](const RopeConfig& c) {
    try {
      validate_rope_config(c);
    } catch (const Error& e) {
      CHECK(e.kind() == Error::Kind::usage);
      CHECK(!e.params().empty());  // the command layer puts its flag in place of each
      for (const std::string& p : e.params()) CHECK(has(e.what(), p));
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(msg(cfg(5)).find("dim 5 is odd") != std::string::npos);
  CHECK(msg(cfg(0)).find("dim") != std::string::npos);
  RopeConfig y = cfg(64, RopeScaling::yarn);
  CHECK(msg(y).find("factor") != std::string::npos);
  y.factor = 4.0;
  CHECK(msg(y).find("original_max_pos") != std::string::npos);
  y.original_max_pos = 4096;
  CHECK(msg(y).empty());
  y.beta_fast = 0.5;
  CHECK(msg(y).find("beta_fast") != std::string::npos);
  RopeConfig l = cfg(64, RopeScaling::linear);
  l.factor = 0.0;
  CHECK(msg(l).find("factor 0") != std::string::npos);
  l.factor = -1.0;
  CHECK(msg(l).find("factor -1") != std::string::npos);
  RopeConfig b = cfg(8);
  b.base = 1.0;
  CHECK(msg(b).find("base") != std::string::npos);
  RopeConfig ll = cfg(64, RopeScaling::llama3);
  ll.factor = 8.0;
  ll.original_max_pos = 8192;
  ll.high_freq_factor = 1.0;
  CHECK(msg(ll).find("high_freq_factor") != std::string::npos);
  CHECK_THROWS_AS(parse_rope_scaling("bogus"), Error);
  CHECK_THROWS_AS(parse_rope_layout("bogus"), Error);
}

// ---------------------------------------------------------------- CLI

TEST_CASE("cli: tfx rope tables, csv equal to the formula") {
  TempDir dir;
  const CsvNumbers csv = csv_of(dir, "rope --len 6 --dim 8 --what sin", "sin.csv");
  CHECK(csv.header == "pos,0,1,2,3");
  const double m = csv_max_diff(csv, 4, [](int p, int j) { return std::sin(p / std::pow(10000.0, 2.0 * j / 8)); });
  CHECK(csv.rows.size() == 6);
  CHECK(m < 1e-6);
  Run t = run_tfx("rope --len 4 --dim 4 --what theta");
  check_stdout(t, 0, "theta [4, 2]");
  Run p = run_tfx("rope --len 50 --dim 128 --png", dir.path);
  check_wrote(p, dir / "rope_cos_len50_dim128.png");
  Run h = run_tfx("rope --help");
  check_stdout(h, 0, "Example");
  CHECK(h.out.find("rotate") != std::string::npos);
  Run top = run_tfx("--help");
  CHECK(top.out.find("Positional encodings") != std::string::npos);
  CHECK(top.out.find("rope") != std::string::npos);
}

TEST_CASE("cli: tfx rope rotate prints (cos 1, sin 1), norms, complex difference") {
  Run r = run_tfx("rope rotate --dim 2 --pos 1 --vector 1,0 --complex --format json");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("\"command\":\"rope rotate\"") != std::string::npos);
  CHECK(r.out.find("0.5403023") != std::string::npos);
  CHECK(r.out.find("0.84147") != std::string::npos);
  CHECK(r.out.find("\"complex_max_diff\"") != std::string::npos);
  const auto at = r.out.find("\"norm_ratio\":");
  REQUIRE(at != std::string::npos);
  CHECK(std::stod(r.out.substr(at + 13)) == doctest::Approx(1.0).epsilon(1e-6));
  Run t = run_tfx("rope rotate --dim 8 --pos 5 --seed 7 --layout half");
  check_stdout(t, 0, "norm_before");
  CHECK(t.out.find("(0,4)") != std::string::npos);  // half layout pairs x_0 with x_4
  Run s1 = run_tfx("rope rotate --dim 8 --pos 5 --seed 7"), s2 = run_tfx("rope rotate --dim 8 --pos 5 --seed 7");
  CHECK(s1.out == s2.out);
  CHECK(run_tfx("rope rotate --help").out.find("Example") != std::string::npos);
  // YaRN's attention factor 0.1·ln 4 + 1 lengthens the rotated vector
  Run y = run_tfx("rope rotate --dim 8 --pos 9 --seed 1 --scaling yarn --factor 4 --original-max-pos 64 --format json");
  REQUIRE(y.code == 0);
  const auto ay = y.out.find("\"norm_ratio\":");
  REQUIRE(ay != std::string::npos);
  CHECK(std::stod(y.out.substr(ay + 13)) == doctest::Approx(0.1 * std::log(4.0) + 1.0).epsilon(1e-6));
}

TEST_CASE("cli: tfx rope relative: RoPE spread < 1e-5, additive PE spread large; png") {
  TempDir dir;
  Run r = run_tfx("rope relative --dim 64 --len 16 --format json", dir.path);
  REQUIRE(r.code == 0);
  auto value = [&](const std::string& key) {
    const auto at = r.out.find("\"" + key + "\":");
    REQUIRE(at != std::string::npos);
    return std::stod(r.out.substr(at + key.size() + 3));
  };
  CHECK(value("rope_max_diagonal_spread") < 1e-5);
  CHECK(value("additive_pe_max_diagonal_spread") > 0.1);
  Run p = run_tfx("rope relative --dim 32 --len 16 --png", dir.path);
  check_wrote(p, dir / "rope_relative_len16_dim32.png");
  CHECK(run_tfx("rope relative --help").out.find("Example") != std::string::npos);
}

TEST_CASE("cli: tfx rope freqs and decay") {
  TempDir dir;
  Run f = run_tfx("rope freqs --dim 8 --scaling linear --factor 2 --format csv");
  REQUIRE(f.code == 0);
  CHECK(f.out.rfind("j,none_inv_freq,none_wavelength,linear_inv_freq,linear_wavelength\n", 0) == 0);
  CHECK(f.out.find("\n0,1,6.2831855,0.5,12.566371\n") != std::string::npos);
  Run all = run_tfx("rope freqs --dim 128 --scaling linear,ntk,dynamic,yarn,llama3,xpos --factor 8 --original-max-pos 8192 --png",
                    dir.path);
  check_wrote(all, dir / "rope_freqs_dim128_linear_ntk_dynamic_yarn_llama3_xpos.png");
  Run d = run_tfx("rope decay --dim 128 --len 64 --format csv");
  REQUIRE(d.code == 0);
  CHECK(d.out.find("\n0,32.5\n") != std::string::npos);
  Run dp = run_tfx("rope decay --dim 64 --len 512 --scaling linear,xpos --factor 4 --png", dir.path);
  check_wrote(dp, dir / "rope_decay_len512_dim64_linear_xpos.png");
  CHECK(run_tfx("rope freqs --help").out.find("Example") != std::string::npos);
  CHECK(run_tfx("rope decay --help").out.find("Example") != std::string::npos);
}

TEST_CASE("cli: tfx rope bad input gives one error line and exit 2, no file") {
  TempDir dir;
  for (const char* args : {"rope --dim 5", "rope rotate --dim 7 --pos 1", "rope relative --dim 3", "rope freqs --dim 9",
                           "rope decay --dim 127", "rope rotate --dim 4 --vector 1,2,3", "rope rotate --vector 1,a",
                           "rope rotate --dim 2 --vector 1,", "rope rotate --dim 2 --vector 1,inf",
                           "rope freqs --scaling linear --factor 0", "rope freqs --scaling linear --factor -2",
                           "rope decay --scaling ntk --factor -1", "rope rotate --dim 4 --scaling yarn --factor 4",
                           "rope freqs --scaling yarn --original-max-pos 4096", "rope --scaling yarn",
                           "rope --len 0", "rope relative --len 0", "rope decay --len 0", "rope rotate --dim 4 --pos -1",
                           "rope --scaling bogus", "rope --layout diagonal", "rope --what tan", "rope --base 1",
                           "rope rotate --vector 1,0 --seed 3", "rope --scaling linear,ntk --factor 2",
                           "rope relative --len 100000", "rope --len 100000000 --dim 100000 --png",
                           "rope freqs --scaling yarn --factor 4 --original-max-pos 4096 --beta-fast 0.5",
                           "rope freqs --scaling llama3 --factor 8 --original-max-pos 8192 --high-freq-factor 1"}) {
    CAPTURE(args);
    check_one_line_error(run_tfx(args, dir.path), 2);
  }
  CHECK(std::filesystem::is_empty(dir.path));
  Run odd = run_tfx("rope --dim 5");
  CHECK(odd.err.find("--dim 5 is odd") != std::string::npos);
  Run yarn = run_tfx("rope freqs --scaling yarn --factor 4");
  CHECK(yarn.err.find("--scaling yarn needs --original-max-pos") != std::string::npos);
  Run vec = run_tfx("rope rotate --dim 4 --vector 1,2,3");
  CHECK(vec.err.find("--vector has 3 values but --dim is 4") != std::string::npos);
  Run nan = run_tfx("rope rotate --vector 1,x,3");
  CHECK(nan.err.find("--vector: item 2 'x' is not a number") != std::string::npos);
  Run fac = run_tfx("rope freqs --scaling linear --factor 0");
  CHECK(fac.err.find("--factor 0") != std::string::npos);
}

TEST_CASE("cli: rope rotate refuses a rotation that overflows float32 and a --dim with a multi-GB pair table") {
  // x = (3e38, 3e38) at pos 1: x'_b = 3e38·(sin 1 + cos 1) ≈ 4.1e38 > FLT_MAX ≈ 3.4e38
  Run big = run_tfx("rope rotate --vector 3e38,3e38 --complex");
  check_stderr_starts(big, 2, "tfx: error: the rotated vector at --pos 1 overflows float32");
  CHECK(big.out.find("inf") == std::string::npos);
  // XPos key scale zeta^(-pos/B) with zeta_0 = 0.4/1.4, B = 512: at pos 1e5 it is (3.5)^195 > FLT_MAX
  Run key = run_tfx("rope rotate --scaling xpos --key --pos 100000 --dim 4");
  check_stderr(key, 2, "or a smaller --pos");
  // a --dim whose per-pair table would take 16 GiB: refused by the memory budget before anything is
  // allocated (the flag itself takes any size up to 2^40, as every --dim does)
  Run dim = run_tfx("rope rotate --dim 16777216", {}, "TFX_MEMORY_LIMIT=1G");
  check_stderr(dim, 1, "--dim 16777216 (a table row per pair) needs about 16.0 GiB, over the memory budget");
}

TEST_CASE("cli: --factor or --original-max-pos without --scaling is a usage error (was silently ignored)") {
  for (const char* args : {"rope --factor 2", "rope freqs --factor 2", "rope rotate --original-max-pos 10"}) {
    Run r = run_tfx(args);
    check_stderr(r, 2, "does nothing without --scaling");
    CHECK(count_lines(r.err) == 1);
  }
  CHECK(run_tfx("rope --len 4 --dim 4 --scaling linear --factor 2").code == 0);
}
