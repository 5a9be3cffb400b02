// The tensor core's op set (ops.hpp) against independent references: matmul/matmul_bt against a
// double-precision triple loop on awkward sizes, threads against one thread; softmax by its
// properties and hand values; layer norm, dot, norm, cosine, top-k by hand.
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "matmul_reference.hpp"
#include "tfx/core/ops.hpp"

using namespace tfx;
using tfx::test::error_of;
using tfx::test::check_product;
using tfx::test::random_matrix;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }


}  // namespace

TEST_CASE("matmul: 2x3 · 3x2 by hand") {
  Tensor a = Tensor::matrix({{1, 2, 3}, {4, 5, 6}});
  Tensor b = Tensor::matrix({{7, 8}, {9, 10}, {11, 12}});
  Tensor c = matmul(a, b);
  // [1·7+2·9+3·11, 1·8+2·10+3·12; 4·7+5·9+6·11, 4·8+5·10+6·12]
  CHECK(c.values() == std::vector<float>{58, 64, 139, 154});
  // a·bᵀ with b given as its transpose gives the same product
  Tensor bt = Tensor::matrix({{7, 9, 11}, {8, 10, 12}});
  CHECK(matmul_bt(a, bt).values() == std::vector<float>{58, 64, 139, 154});
}

TEST_CASE("matmul and matmul_bt match a double reference on sizes that are not multiples of the tile") {
  // (M, K, N): tiny, odd, K beyond one packed panel (256), M beyond one row block, N beyond one
  // column block (2048), thin and wide shapes, and the classic 257.
  const std::vector<std::array<std::size_t, 3>> sizes = {
      {1, 1, 1},     {7, 13, 5},     {13, 17, 33},  {3, 1, 4},      {1, 1000, 1},  {100, 3, 1},
      {25, 300, 65}, {200, 5, 200},  {33, 513, 47}, {1, 64, 2100},  {257, 257, 257}, {12, 256, 32},
      // at most 4 rows or columns: the unpacked dot-product / row-update path
      {1, 300, 5000}, {3, 77, 1100},  {4, 1000, 600}, {2000, 129, 1}, {900, 45, 4}, {5, 300, 700}};
  unsigned seed = 1;
  for (const auto& mkn : sizes) {
    const std::size_t M = mkn[0], K = mkn[1], N = mkn[2];  // plain names: CAPTURE cannot take bindings
    CAPTURE(M);
    CAPTURE(K);
    CAPTURE(N);
    Tensor a = random_matrix(M, K, seed++);
    Tensor b = random_matrix(K, N, seed++);
    check_product(a, b, matmul(a, b), false);
    Tensor bt = random_matrix(N, K, seed++);
    check_product(a, bt, matmul_bt(a, bt), true);
  }
}

TEST_CASE("matmul of exact small integers is exact") {
  // entries in {-2..2} and K = 300: every partial sum is an integer below 2^24, so float is exact
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> d(-2, 2);
  Tensor a({31, 300}), b({300, 45});
  for (float& v : a.values()) v = static_cast<float>(d(rng));
  for (float& v : b.values()) v = static_cast<float>(d(rng));
  Tensor c = matmul(a, b, 2);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < 31; ++i)
    for (std::size_t j = 0; j < 45; ++j) {
      long s = 0;
      for (std::size_t k = 0; k < 300; ++k) s += static_cast<long>(a(i, k)) * static_cast<long>(b(k, j));
      wrong += c(i, j) != static_cast<float>(s);
    }
  CHECK(wrong == 0);
}

TEST_CASE("matmul: threads = 1, 2 and all give the same product") {
  for (const auto& mkn : std::vector<std::array<std::size_t, 3>>{{257, 257, 257}, {20, 300, 1500}, {600, 200, 30}, {3, 400, 6000}, {7000, 300, 2}}) {
    const std::size_t M = mkn[0], K = mkn[1], N = mkn[2];
    CAPTURE(M);
    CAPTURE(N);
    Tensor a = random_matrix(M, K, 11), b = random_matrix(K, N, 12), bt = random_matrix(N, K, 13);
    Tensor one = matmul(a, b, 1);
    CHECK(matmul(a, b, 2).values() == one.values());
    CHECK(matmul(a, b, 0).values() == one.values());
    CHECK(matmul(a, b, 5).values() == one.values());
    Tensor one_bt = matmul_bt(a, bt, 1);
    CHECK(matmul_bt(a, bt, 2).values() == one_bt.values());
    CHECK(matmul_bt(a, bt, 0).values() == one_bt.values());
  }
}

TEST_CASE("matmul: empty inner dimension gives zeros, empty outer gives an empty matrix") {
  Tensor a({3, 0}), b({0, 4});
  Tensor c = matmul(a, b);
  CHECK(c.shape() == std::vector<std::size_t>{3, 4});
  CHECK(c.values() == std::vector<float>(12, 0.0f));
  CHECK(matmul(Tensor({0, 5}), Tensor({5, 2})).shape() == std::vector<std::size_t>{0, 2});
}

TEST_CASE("matmul/matmul_bt: shape mismatches name both shapes") {
  Tensor a({2, 3}), b({4, 5});
  std::string m = error_of([&] { matmul(a, b); });
  CHECK(contains(m, "[2, 3]"));
  CHECK(contains(m, "[4, 5]"));
  std::string mb = error_of([&] { matmul_bt(a, b); });
  CHECK(contains(mb, "[2, 3]"));
  CHECK(contains(mb, "[4, 5]"));
  CHECK(contains(error_of([&] { matmul(Tensor({2, 3, 4}), b); }), "[2, 3, 4]"));
  CHECK(contains(error_of([&] { matmul_bt(a, Tensor({6})); }), "[6]"));
}

TEST_CASE("transpose, add, scale by hand") {
  Tensor a = Tensor::matrix({{1, 2, 3}, {4, 5, 6}});
  Tensor t = transpose(a);
  CHECK(t.shape() == std::vector<std::size_t>{3, 2});
  CHECK(t.values() == std::vector<float>{1, 4, 2, 5, 3, 6});
  Tensor big = random_matrix(70, 45, 5);  // spans several tiles, with partial ones at the edges
  Tensor bt = transpose(big);
  REQUIRE(bt.shape() == std::vector<std::size_t>{45, 70});
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < 70; ++i)
    for (std::size_t j = 0; j < 45; ++j) wrong += bt(j, i) != big(i, j);
  CHECK(wrong == 0);
  CHECK(transpose(bt).values() == big.values());
  CHECK(add(a, a).values() == std::vector<float>{2, 4, 6, 8, 10, 12});
  CHECK(scale(a, -0.5f).values() == std::vector<float>{-0.5f, -1, -1.5f, -2, -2.5f, -3});
  std::string m = error_of([&] { add(a, t); });
  CHECK(contains(m, "[2, 3]"));
  CHECK(contains(m, "[3, 2]"));
}

TEST_CASE("softmax: hand values, rows sum to 1, shift invariance") {
  // exp(0), exp(ln 2), exp(ln 3) = 1, 2, 3 -> 1/6, 2/6, 3/6
  Tensor x = Tensor::matrix({{0.0f, std::log(2.0f), std::log(3.0f)}, {5, 5, 5}});
  Tensor y = softmax_rows(x);
  CHECK(y(0, 0) == doctest::Approx(1.0 / 6).epsilon(1e-6));
  CHECK(y(0, 1) == doctest::Approx(2.0 / 6).epsilon(1e-6));
  CHECK(y(0, 2) == doctest::Approx(3.0 / 6).epsilon(1e-6));
  for (std::size_t j = 0; j < 3; ++j) CHECK(y(1, j) == doctest::Approx(1.0 / 3).epsilon(1e-6));

  Tensor r = random_matrix(6, 37, 3);
  Tensor s = softmax_rows(scale(r, 20.0f));
  for (std::size_t i = 0; i < 6; ++i) {
    double sum = 0;
    for (float v : s.row(i)) {
      CHECK(v >= 0.0f);
      sum += v;
    }
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
  }
  // adding 1000 to every entry would overflow exp() without the max subtraction
  Tensor shifted = r;
  for (float& v : shifted.values()) v += 1000.0f;
  Tensor s0 = softmax_rows(r), s1 = softmax_rows(shifted);
  double maxdiff = 0;
  for (std::size_t i = 0; i < s0.size(); ++i) maxdiff = std::max(maxdiff, static_cast<double>(std::abs(s0[i] - s1[i])));
  CHECK(maxdiff < 1e-4);  // 1000 + x carries only ~6e-5 absolute precision in float
  for (float v : s1.values()) CHECK(std::isfinite(v));
}

TEST_CASE("softmax: masked entries are exactly 0, the rest renormalise; all-masked row is an error") {
  Tensor x = Tensor::matrix({{1, 2, 3}, {0, 0, 0}});
  std::vector<unsigned char> mask{1, 0, 1, 0, 1, 1};
  Tensor y = softmax_rows(x, &mask);
  CHECK(y(0, 1) == 0.0f);
  CHECK(y(1, 0) == 0.0f);
  const double e1 = std::exp(1.0), e3 = std::exp(3.0);
  CHECK(y(0, 0) == doctest::Approx(e1 / (e1 + e3)).epsilon(1e-6));
  CHECK(y(0, 2) == doctest::Approx(e3 / (e1 + e3)).epsilon(1e-6));
  CHECK(y(1, 1) == doctest::Approx(0.5).epsilon(1e-6));
  CHECK(y(1, 2) == doctest::Approx(0.5).epsilon(1e-6));

  std::vector<unsigned char> dead{1, 1, 1, 0, 0, 0};
  CHECK(contains(error_of([&] { softmax_rows(x, &dead); }), "row 1"));
  std::vector<unsigned char> short_mask{1, 1};
  std::string m = error_of([&] { softmax_rows(x, &short_mask); });
  CHECK(contains(m, "2 entries"));
  CHECK(contains(m, "[2, 3]"));
}

TEST_CASE("layer_norm: hand-computed values, gamma/beta, constant row, shape errors") {
  // x = 1 2 3 4: μ = 2.5, σ² = (2.25 + 0.25 + 0.25 + 2.25)/4 = 1.25, (x − μ)/√1.25 = ±0.4472, ±1.3416
  Tensor x = Tensor::matrix({{1, 2, 3, 4}, {7, 7, 7, 7}});
  Tensor y = layer_norm(x, {}, {}, 0.0f);
  const double s = std::sqrt(1.25);
  CHECK(y(0, 0) == doctest::Approx(-1.5 / s).epsilon(1e-6));
  CHECK(y(0, 1) == doctest::Approx(-0.5 / s).epsilon(1e-6));
  CHECK(y(0, 2) == doctest::Approx(0.5 / s).epsilon(1e-6));
  CHECK(y(0, 3) == doctest::Approx(1.5 / s).epsilon(1e-6));
  // a constant row has σ² = 0: eps keeps it finite, the result is 0 (then beta)
  Tensor gamma = Tensor::from({4}, {1, 2, 1, 1}), beta = Tensor::from({4}, {0, 0, 0, 10});
  Tensor z = layer_norm(x, gamma, beta, 1e-5f);
  CHECK(z(0, 1) == doctest::Approx(2 * -0.5 / std::sqrt(1.25 + 1e-5)).epsilon(1e-6));
  CHECK(z(0, 3) == doctest::Approx(10 + 1.5 / std::sqrt(1.25 + 1e-5)).epsilon(1e-6));
  CHECK(z(1, 0) == 0.0f);
  CHECK(z(1, 3) == 10.0f);
  std::string m = error_of([&] { layer_norm(x, Tensor::from({3}, {1, 1, 1}), {}); });
  CHECK(contains(m, "[3]"));
  CHECK(contains(m, "[2, 4]"));
}

TEST_CASE("dot, norm, cosine by hand; cosine of a zero vector is 0") {
  std::vector<float> a{1, 2, 2}, b{2, 0, 0}, z{0, 0, 0}, n{-2, -4, -4};
  CHECK(dot(a, b) == 2.0);
  CHECK(norm(a) == 3.0);
  CHECK(norm(std::vector<float>{3, 4}) == 5.0);
  CHECK(cosine(a, b) == doctest::Approx(1.0 / 3));  // 2 / (3·2)
  CHECK(cosine(a, n) == doctest::Approx(-1.0));
  CHECK(cosine(a, std::vector<float>{0, 1, -1}) == 0.0);
  CHECK(cosine(a, z) == 0.0);
  CHECK(cosine(z, z) == 0.0);
  std::string m = error_of([&] { dot(a, std::vector<float>{1, 2}); });
  CHECK(contains(m, "lengths 3 and 2"));
}

TEST_CASE("top_k: largest first, ties by smaller index, NaN last, k clamped") {
  std::vector<float> v{3, 1, 3, 2, 3, NAN, 5};
  auto t = top_k(v, 3);
  REQUIRE(t.size() == 3);
  CHECK(t[0] == std::pair<std::size_t, float>{6, 5.0f});
  CHECK(t[1] == std::pair<std::size_t, float>{0, 3.0f});
  CHECK(t[2] == std::pair<std::size_t, float>{2, 3.0f});
  auto all = top_k(v, 100);
  REQUIRE(all.size() == v.size());
  CHECK(all[3].first == 4);
  CHECK(all[4].first == 3);
  CHECK(all[5].first == 1);
  CHECK(all[6].first == 5);  // NaN sorts last
  CHECK(top_k(v, 0).empty());
  CHECK(top_k(std::vector<float>{}, 2).empty());
}

TEST_CASE("softmax_rows in place (an rvalue) gives the same bits as the copying version, mask included") {
  Tensor x({3, 5});
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = std::sin(static_cast<float>(i) * 1.7f) * 4.0f;
  std::vector<unsigned char> keep(15, 1);
  keep[3] = keep[7] = 0;
  const std::vector<unsigned char>* masks[] = {nullptr, &keep};
  for (const auto* mask : masks) {
    const Tensor copy = softmax_rows(x, mask);
    Tensor moved = x;
    const float* buffer = moved.data();
    const Tensor in_place = softmax_rows(std::move(moved), mask);
    CHECK(in_place.data() == buffer);  // no second buffer
    REQUIRE(in_place.size() == copy.size());
    for (std::size_t i = 0; i < copy.size(); ++i) CHECK(in_place[i] == copy[i]);
  }
}
