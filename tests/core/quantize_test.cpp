// tfx's quantizers (stored.hpp's quantize, src/core/kernels/quantize.cpp) against llama.cpp's Python
// reference: the blocks gguf-py's quants.py quantize writes for the same float32 inputs
// (tests/data/gguf/quantize_<type>.bin, made by tests/reference/gen_gguf_reference.py), byte for
// byte on F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1; and the K-quants Q4_K, Q5_K, Q6_K (which gguf-py
// cannot quantize) against ggml's own C quantize_row_q*_K_ref (tests/data/gguf/quantize_q*_k.bin,
// made by tests/reference/gen_kquant_reference.py from a ggml snapshot).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "helpers.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/stored.hpp"

using namespace tfx;

TEST_CASE("quantize: equals llama.cpp's gguf-py quants.py quantize (and ggml's C K-quants) byte for byte") {
  const std::vector<std::pair<std::string, StoredType>> types = {
      {"f16", StoredType::f16},   {"bf16", StoredType::bf16}, {"q8_0", StoredType::q8_0}, {"q4_0", StoredType::q4_0},
      {"q4_1", StoredType::q4_1}, {"q5_0", StoredType::q5_0}, {"q5_1", StoredType::q5_1},
      {"q4_k", StoredType::q4_k}, {"q5_k", StoredType::q5_k}, {"q6_k", StoredType::q6_k}};
  for (const auto& entry : types) {
    const std::string& name = entry.first;
    const StoredType type = entry.second;
    CAPTURE(name);
    const std::string bytes = test::read_file(std::string(TFX_SOURCE_DIR) + "/tests/data/gguf/quantize_" + name + ".bin");
    REQUIRE(bytes.size() >= 8);
    std::uint32_t n, b;
    std::memcpy(&n, bytes.data(), 4);
    std::memcpy(&b, bytes.data() + 4, 4);
    REQUIRE(b == stored_block_bytes(type));
    REQUIRE(bytes.size() == 8 + 4 * std::size_t{n} + stored_row_bytes(type, n));
    std::vector<float> x(n);
    std::memcpy(x.data(), bytes.data() + 8, 4 * std::size_t{n});
    std::vector<unsigned char> got(stored_row_bytes(type, n));
    quantize(type, x.data(), got.data(), n);
    const auto* want = reinterpret_cast<const unsigned char*>(bytes.data() + 8 + 4 * std::size_t{n});
    std::size_t same = 0, first_diff = got.size();
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (got[i] == want[i]) ++same;
      else if (first_diff == got.size()) first_diff = i;
    }
    MESSAGE(name << ": " << same << " of " << got.size() << " bytes equal the reference's (first difference at " << first_diff << ")");
    CHECK(same == got.size());
  }
}

TEST_CASE("quantize: dequantize(quantize(x)) keeps each value within half a step") {
  std::vector<float> x(64);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) / 8.0f - 4.0f;  // −4 … 3.875
  std::vector<unsigned char> q(stored_row_bytes(StoredType::q8_0, 64));
  quantize(StoredType::q8_0, x.data(), q.data(), 64);
  std::vector<float> y(64);
  dequantize(StoredType::q8_0, q.data(), y.data(), 64);
  for (std::size_t i = 0; i < 64; ++i) CHECK(std::abs(y[i] - x[i]) <= 4.0f / 127.0f * 0.5f + 1e-3f);  // step d = max|x| / 127
  std::vector<float> z(100, 1.0f);
  std::vector<unsigned char> k(stored_row_bytes(StoredType::q4_k, 256));
  CHECK_THROWS_AS(quantize(StoredType::q4_k, z.data(), k.data(), 100), Error);  // not whole super-blocks of 256
  // float16 rounding: ties to even, past 65504 to infinity, subnormals
  CHECK(narrow_f16(1.0f) == 0x3c00);
  CHECK(narrow_f16(65520.0f) == 0x7c00);
  CHECK(narrow_f16(65519.0f) == 0x7bff);
  CHECK(narrow_f16(5.9604645e-8f) == 0x0001);
  CHECK(narrow_f16(-2.0f) == 0xc000);
  CHECK(narrow_bf16(1.0f) == 0x3f80);
}

// The K-quants' round trip, bounded by their own steps: every value comes back within one of its
// sub-block's (max − min)/levels (half a step when the fitted scale is exact; the 6-bit or int8
// scales and the least-squares fit stretch it a little). Relative errors ‖x − x̂‖/‖x‖ on
// Gaussian weights, per type: each extra bit should about halve it (a uniform quantizer's error is
// step/√12, the step halving per bit), so the bounds are 0.12, 0.06, 0.03 and each type must beat
// the one with a bit less.
TEST_CASE("quantize: K-quants dequantize(quantize(x)) within a step of x, and their relative error shrinks with the bits") {
  const std::size_t n = 256 * 16;
  std::vector<float> x(n);
  std::uint32_t s = 12345;
  for (std::size_t i = 0; i < n; i += 2) {  // Box–Muller from a little LCG: Gaussian weights of scale 0.02
    s = s * 1664525u + 1013904223u;
    const double u1 = (s >> 8) / 16777216.0 + 1e-9;
    s = s * 1664525u + 1013904223u;
    const double u2 = (s >> 8) / 16777216.0;
    const double r = std::sqrt(-2 * std::log(u1));
    x[i] = static_cast<float>(0.02 * r * std::cos(6.283185307179586 * u2));
    x[i + 1] = static_cast<float>(0.02 * r * std::sin(6.283185307179586 * u2));
  }
  const std::vector<std::pair<StoredType, double>> bounds = {
      {StoredType::q4_k, 0.12}, {StoredType::q5_k, 0.06}, {StoredType::q6_k, 0.03}};
  double previous = 1;
  for (const auto& entry : bounds) {
    const StoredType type = entry.first;
    const std::string name = stored_type_name(type);
    CAPTURE(name);
    std::vector<unsigned char> q(stored_row_bytes(type, n));
    quantize(type, x.data(), q.data(), n);
    std::vector<float> y(n);
    dequantize(type, q.data(), y.data(), n);
    double err2 = 0, ref2 = 0, worst_steps = 0;
    const std::size_t sub = type == StoredType::q6_k ? 16 : 32;
    for (std::size_t b = 0; b < n; b += sub) {
      // this sub-block's nominal step: its range over the level count
      float lo = x[b], hi = x[b];
      for (std::size_t i = b; i < b + sub; ++i) lo = std::fmin(lo, x[i]), hi = std::fmax(hi, x[i]);
      const double levels = type == StoredType::q4_k ? 15 : type == StoredType::q5_k ? 31 : 63;
      const double step = (static_cast<double>(hi) - lo) / levels;
      for (std::size_t i = b; i < b + sub; ++i) {
        const double e = std::abs(static_cast<double>(y[i]) - x[i]);
        if (step > 0) worst_steps = std::max(worst_steps, e / step);
        err2 += e * e;
        ref2 += static_cast<double>(x[i]) * x[i];
      }
    }
    const double rel = std::sqrt(err2 / ref2);
    MESSAGE(name << ": relative error " << rel << ", worst |error| " << worst_steps << " of the sub-block's range/levels");
    CHECK(rel < entry.second);
    CHECK(rel < previous);
    CHECK(worst_steps < 1.0);  // measured 0.55, 0.68, 0.82
    previous = rel;
  }
  // an all-zero super-block comes back exactly
  std::vector<float> zero(256, 0.0f), back(256);
  for (StoredType type : {StoredType::q4_k, StoredType::q5_k, StoredType::q6_k}) {
    std::vector<unsigned char> q(stored_row_bytes(type, 256));
    quantize(type, zero.data(), q.data(), 256);
    dequantize(type, q.data(), back.data(), 256);
    for (float v : back) CHECK(v == 0.0f);
  }
}
