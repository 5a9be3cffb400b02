// Weights used as stored (stored.hpp): F16/BF16 widening against independent definitions (the
// compiler's _Float16 conversion over all 65,536 patterns, hand-decoded values), and every op
// that reads a stored matrix — matmul and matmul_bt on every GEMM kernel and path, the embedding
// lookup, the norms — bit-identical to the same op on the matrix widened to float32 first (the
// widening is exact and the order of operations unchanged, so equality is exact, not ≤ tol).
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "tfx/core/gemm.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/stored.hpp"

using namespace tfx;

namespace {

float stored_bits_to_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Random F16 patterns (no Inf/NaN: exponent field < 31; subnormals and ±0 included) or BF16
// patterns with exponents within 2^±20 (so products and sums stay finite).
std::vector<std::uint16_t> stored_random_bits(std::size_t n, StoredType t, unsigned seed) {
  std::mt19937 gen(seed);
  std::vector<std::uint16_t> v(n);
  for (auto& h : v) {
    const auto r = static_cast<std::uint16_t>(gen());
    if (t == StoredType::f16) {
      h = ((r >> 10) & 0x1f) == 31 ? static_cast<std::uint16_t>(r & 0xbfff) : r;
    } else {
      const unsigned e = 107 + gen() % 41;
      h = static_cast<std::uint16_t>((r & 0x8000) | (e << 7) | (r & 0x7f));
    }
  }
  return v;
}

std::vector<float> stored_random_floats(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = u(gen);
  return v;
}

struct StoredForceKernel {
  explicit StoredForceKernel(const std::string& name) { set_gemm_kernel(name); }
  ~StoredForceKernel() { set_gemm_kernel("auto"); }
};

}  // namespace

TEST_CASE("stored: F16 widening equals the definition on hand-decoded values and _Float16 on all patterns") {
  // hand-decoded: (−1)^s · 2^(e−15) · (1 + m/1024), subnormals m · 2⁻²⁴
  CHECK(widen_f16(0x3c00) == 1.0f);
  CHECK(widen_f16(0xc000) == -2.0f);
  CHECK(widen_f16(0x3555) == 0.333251953125f);  // 2⁻² · (1 + 341/1024)
  CHECK(widen_f16(0x7bff) == 65504.0f);         // largest finite
  CHECK(widen_f16(0x0001) == std::ldexp(1.0f, -24));
  CHECK(widen_f16(0x03ff) == std::ldexp(1023.0f, -24));
  CHECK(widen_f16(0x0400) == std::ldexp(1.0f, -14));
  CHECK(widen_f16(0x0000) == 0.0f);
  CHECK(std::signbit(widen_f16(0x8000)));
  CHECK(widen_f16(0x7c00) == INFINITY);
  CHECK(widen_f16(0xfc00) == -INFINITY);
  CHECK(std::isnan(widen_f16(0x7e00)));
#if defined(__FLT16_MAX__)
  for (std::uint32_t h = 0; h < 65536; ++h) {
    _Float16 x;
    const auto bits = static_cast<std::uint16_t>(h);
    std::memcpy(&x, &bits, 2);
    const float want = static_cast<float>(x), got = widen_f16(bits);
    if (std::isnan(want)) {
      REQUIRE(std::isnan(got));
    } else {
      std::uint32_t a, b;
      std::memcpy(&a, &want, 4);
      std::memcpy(&b, &got, 4);
      REQUIRE_MESSAGE(a == b, "pattern ", h);
    }
  }
#endif
}

TEST_CASE("stored: BF16 widening is the float32 with those 16 high bits") {
  CHECK(widen_bf16(0x3f80) == 1.0f);
  CHECK(widen_bf16(0xc000) == -2.0f);
  CHECK(widen_bf16(0x4049) == 3.140625f);  // 2 · (1 + 73/128)
  CHECK(widen_bf16(0x0001) == std::ldexp(1.0f, -133));
  CHECK(widen_bf16(0x7f80) == INFINITY);
  CHECK(std::isnan(widen_bf16(0x7fc0)));
  CHECK(widen_bf16(0x3e80) == stored_bits_to_float(0x3e800000u));
}

TEST_CASE("stored: matmul and matmul_bt on F16/BF16 weights are bit-identical to the widened float32 product") {
  // shapes reaching each path: plain loops, skinny (decode: one row; thin B), packed tiles with
  // edges, and a wide short product split between threads by columns
  const std::vector<std::array<std::size_t, 3>> sizes = {{3, 5, 7},     {1, 300, 700}, {2, 129, 3},
                                                         {37, 513, 71}, {8, 64, 2100}, {700, 33, 5}};
  unsigned seed = 7;
  for (const std::string& kernel : available_gemm_kernels()) {
    CAPTURE(kernel);
    StoredForceKernel force(kernel);
    for (StoredType type : {StoredType::f16, StoredType::bf16}) {
      const std::string type_name = stored_type_name(type);
      CAPTURE(type_name);
      for (const auto& mkn : sizes) {
        const std::size_t M = mkn[0], K = mkn[1], N = mkn[2];
        CAPTURE(M);
        CAPTURE(K);
        CAPTURE(N);
        const Tensor a = Tensor::from({M, K}, stored_random_floats(M * K, seed++));
        const std::vector<std::uint16_t> b = stored_random_bits(K * N, type, seed++);
        const StoredMatrix b_kn(b.data(), type, K, N), b_nk(b.data(), type, N, K);
        const Tensor wide_kn = widen(b_kn), wide_nk = widen(b_nk);
        for (unsigned threads : {1u, 2u}) {
          CAPTURE(threads);
          CHECK(matmul(a, b_kn, threads).values() == matmul(a, wide_kn, threads).values());
          CHECK(matmul_bt(a, b_nk, threads).values() == matmul_bt(a, wide_nk, threads).values());
        }
      }
    }
  }
  // an F32 StoredMatrix is the tensor itself
  const Tensor a = Tensor::from({4, 9}, stored_random_floats(36, 1)), b = Tensor::from({9, 6}, stored_random_floats(54, 2));
  CHECK(matmul(a, StoredMatrix(b)).values() == matmul(a, b).values());
  CHECK_THROWS_WITH_AS(matmul_bt(a, StoredMatrix(b)), doctest::Contains("[9, 6]"), Error);
}

TEST_CASE("stored: embedding lookup and norms widen their weights exactly") {
  const std::vector<std::uint16_t> table = stored_random_bits(10 * 6, StoredType::bf16, 3);
  const StoredMatrix t(table.data(), StoredType::bf16, 10, 6);
  const std::vector<std::size_t> ids = {9, 0, 4, 4};
  const Tensor rows = stored_rows(t, ids);
  REQUIRE(rows.shape() == std::vector<std::size_t>{4, 6});
  for (std::size_t i = 0; i < ids.size(); ++i)
    for (std::size_t j = 0; j < 6; ++j)
      CHECK(rows(i, j) == stored_bits_to_float(static_cast<std::uint32_t>(table[ids[i] * 6 + j]) << 16));
  const std::vector<std::size_t> bad = {1, 10};
  CHECK_THROWS_WITH_AS(stored_rows(t, bad), doctest::Contains("id 10 at position 1"), Error);

  const Tensor x = Tensor::from({3, 6}, stored_random_floats(18, 4));
  const std::vector<std::uint16_t> g = stored_random_bits(6, StoredType::f16, 5), b = stored_random_bits(6, StoredType::f16, 6);
  const StoredMatrix gs(g.data(), StoredType::f16, 1, 6), bs(b.data(), StoredType::f16, 1, 6);
  CHECK(stored_layer_norm(x, gs, bs).values() == layer_norm(x, widen(gs).reshaped({6}), widen(bs).reshaped({6})).values());
  // RMSNorm against the formula in double: x / √(mean(x²) + ε) · w
  const Tensor y = stored_rms_norm(x, gs, 1e-6);
  for (std::size_t i = 0; i < 3; ++i) {
    double s = 0;
    for (std::size_t j = 0; j < 6; ++j) s += double(x(i, j)) * x(i, j);
    for (std::size_t j = 0; j < 6; ++j) {
      const double want = x(i, j) / std::sqrt(s / 6 + 1e-6) * widen_f16(g[j]);
      CHECK(y(i, j) == doctest::Approx(want).epsilon(1e-6));
    }
  }
  CHECK_THROWS_WITH_AS(stored_rms_norm(x, StoredMatrix(g.data(), StoredType::f16, 1, 5), 1e-6),
                       doctest::Contains("need 6 values"), Error);
}
