// tfx's quantizers (stored.hpp's quantize, src/core/quantize.cpp) against llama.cpp's Python
// reference: the blocks gguf-py's quants.py quantize writes for the same float32 inputs
// (tests/data/gguf/quantize_<type>.bin, made by tests/reference/gen_gguf_reference.py), byte for
// byte on F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1. The K-quants have no quantizer (gguf-py has none
// either): quantize refuses them.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/stored.hpp"

using namespace tfx;

TEST_CASE("quantize: equals llama.cpp's gguf-py quants.py quantize byte for byte") {
  const std::vector<std::pair<std::string, StoredType>> types = {
      {"f16", StoredType::f16},   {"bf16", StoredType::bf16}, {"q8_0", StoredType::q8_0}, {"q4_0", StoredType::q4_0},
      {"q4_1", StoredType::q4_1}, {"q5_0", StoredType::q5_0}, {"q5_1", StoredType::q5_1}};
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
    MESSAGE(name << ": " << same << " of " << got.size() << " bytes equal gguf-py's (first difference at " << first_diff << ")");
    CHECK(same == got.size());
  }
}

TEST_CASE("quantize: dequantize(quantize(x)) keeps each value within half a step, and the K-quants are refused") {
  std::vector<float> x(64);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) / 8.0f - 4.0f;  // −4 … 3.875
  std::vector<unsigned char> q(stored_row_bytes(StoredType::q8_0, 64));
  quantize(StoredType::q8_0, x.data(), q.data(), 64);
  std::vector<float> y(64);
  dequantize(StoredType::q8_0, q.data(), y.data(), 64);
  for (std::size_t i = 0; i < 64; ++i) CHECK(std::abs(y[i] - x[i]) <= 4.0f / 127.0f * 0.5f + 1e-3f);  // step d = max|x| / 127
  std::vector<unsigned char> k(stored_row_bytes(StoredType::q4_k, 256));
  std::vector<float> z(256, 1.0f);
  CHECK(!quantizer_available(StoredType::q4_k));
  CHECK_THROWS_AS(quantize(StoredType::q4_k, z.data(), k.data(), 256), Error);
  // float16 rounding: ties to even, past 65504 to infinity, subnormals
  CHECK(narrow_f16(1.0f) == 0x3c00);
  CHECK(narrow_f16(65520.0f) == 0x7c00);
  CHECK(narrow_f16(65519.0f) == 0x7bff);
  CHECK(narrow_f16(5.9604645e-8f) == 0x0001);
  CHECK(narrow_f16(-2.0f) == 0xc000);
  CHECK(narrow_bf16(1.0f) == 0x3f80);
}
