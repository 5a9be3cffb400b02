// safetensors reading against files written by an independent writer (PyTorch state_dicts written
// by tests/reference/gen_transformer_reference.py with struct + json), F16/BF16 bit patterns
// against their definitions, the round trip through tfx's writer, and every malformed file the
// reader must refuse, each named by tensor.
#include "tfx/model/safetensors.hpp"

#include "tfx/io/format.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "helpers.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

std::string ref(const std::string& name) { return std::string(TFX_SOURCE_DIR) + "/tests/reference/" + name; }

// A safetensors file from a header text and a buffer of `buffer_bytes` zero bytes.
std::string file_of(const std::string& header, std::size_t buffer_bytes) {
  std::string out(8, '\0');
  const std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return out + header + std::string(buffer_bytes, '\0');
}

std::string parse_error(const std::string& bytes) {
  return error_of([&] { parse_safetensors(bytes, "w.safetensors"); });
}

}  // namespace

TEST_CASE("safetensors: PyTorch's nn.MultiheadAttention state_dict, written by Python struct + json") {
  const TensorMap m = read_safetensors(ref("mha.safetensors"));
  REQUIRE(m.size() == 4);
  CHECK(m.at("in_proj_weight").shape() == std::vector<std::size_t>{24, 8});
  CHECK(m.at("in_proj_bias").shape() == std::vector<std::size_t>{24});
  CHECK(m.at("out_proj.weight").shape() == std::vector<std::size_t>{8, 8});
  CHECK(m.at("out_proj.bias").shape() == std::vector<std::size_t>{8});
  // F16 and BF16 copies hold the same values rounded: within half's and bfloat16's relative step
  const TensorMap h = read_safetensors(ref("mha_f16.safetensors")), b = read_safetensors(ref("mha_bf16.safetensors"));
  for (const auto& [name, t] : m)
    for (std::size_t i = 0; i < t.size(); ++i) {
      CHECK(std::abs(h.at(name)[i] - t[i]) <= std::abs(t[i]) * 0x1p-11f + 0x1p-24f);
      CHECK(std::abs(b.at(name)[i] - t[i]) <= std::abs(t[i]) * 0x1p-8f);
    }
}

TEST_CASE("safetensors: half and bfloat16 bit patterns decode to their defined values") {
  CHECK(half_to_float(0x3C00) == 1.0f);
  CHECK(half_to_float(0xC000) == -2.0f);
  CHECK(half_to_float(0x7BFF) == 65504.0f);              // largest half
  CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));  // smallest subnormal
  CHECK(half_to_float(0x3555) == 0.333251953125f);
  CHECK(std::isinf(half_to_float(0x7C00)));
  CHECK(std::isnan(half_to_float(0x7E00)));
  CHECK(std::signbit(half_to_float(0x8000)));
  CHECK(bfloat16_to_float(0x3F80) == 1.0f);
  CHECK(bfloat16_to_float(0x4049) == 3.140625f);
  CHECK(bfloat16_to_float(0xC2F7) == -123.5f);
}

TEST_CASE("safetensors: tfx's writer round-trips every value and shape, metadata kept out of the tensors") {
  TensorMap m;
  m["b"] = Tensor::from({3}, {1.5f, -0.0f, 3e-38f});
  m["a.weight"] = Tensor::from({2, 2}, {1, 2, 3, 4});
  const std::string bytes = encode_safetensors(m, {{"heads", "2"}});
  const TensorMap back = parse_safetensors(bytes, "x");
  REQUIRE(back.size() == 2);
  CHECK(back.at("a.weight").values() == m.at("a.weight").values());
  CHECK(back.at("b").values() == m.at("b").values());
  CHECK(back.at("b").shape() == std::vector<std::size_t>{3});
  // 8-byte aligned buffer, as the reference writer pads its header
  std::uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  CHECK((8 + n) % 8 == 0);
}

TEST_CASE("safetensors: a lying header length, bad JSON, unknown dtype, offsets past the end, overlap, gaps") {
  CHECK(has(parse_error("abc"), "8-byte header length"));
  std::string lying = file_of("{}", 0);
  lying[0] = 100;
  CHECK(has(parse_error(lying), "header length 100 runs past the end"));
  // a header, the buffer's size after it, a part of the error
  const struct {
    const char* header;
    std::size_t buffer_bytes;
    const char* part;
  } cases[] = {
      {"{not json", 0, "not valid JSON"},
      {R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                                     "a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})", 8, "tensor 'a' is named twice"},
      {"[]", 0, "not a JSON object"},
      {R"({"w": {"dtype": "I64", "shape": [1], "data_offsets": [0, 8]}})", 8, "tensor 'w': dtype 'I64' is not supported"},
      {R"({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})", 8, "tensor 'w': data_offsets [0, 16] run past the end of the 8-byte buffer"},
      {R"({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})", 8, "tensor 'w': shape [3] of F32 needs 12 bytes but data_offsets [0, 8] hold 8"},
      {R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                                     "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})", 12, "'a' [0, 8] and 'b' [4, 12] overlap"},
      {R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})", 8, "bytes 0…4 of the buffer before tensor 'a' belong to no tensor"},
      {R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})", 8, "4 bytes after the last tensor"},
      {R"({"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})", 4, "tensor 'a' shape: expected a whole number"},
      {R"({"a": {"dtype": "F32", "data_offsets": [0, 4]}})", 4, "tensor 'a': missing \"shape\""},
      {R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [8, 4]}})", 8, "end before they begin"},
      {R"({"a": {"dtype": "F32", "shape": [4294967296, 4294967296], "data_offsets": [0, 4]}})", 4, "tensor 'a'"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.header);
    CHECK(has(parse_error(file_of(c.header, c.buffer_bytes)), c.part));
  }
}

TEST_CASE("safetensors: expect_tensor names a missing or misshapen tensor and the expected shape") {
  const TensorMap m = read_safetensors(ref("mha.safetensors"));
  CHECK(has(error_of([&] { expect_tensor(m, "in_proj_weight", {24, 4}, "f"); }),
            "f: tensor 'in_proj_weight' is [24, 8]; expected [24, 4]"));
  CHECK(has(error_of([&] { expect_tensor(m, "linear1.weight", {16, 8}, "f"); }), "f: no tensor 'linear1.weight' [16, 8]"));
  CHECK(has(error_of([] { read_safetensors("/nonexistent/w.safetensors"); }), "/nonexistent/w.safetensors: no such file"));
}

TEST_CASE("weights directory: one .npy per state_dict key reads like the safetensors file") {
  const TensorMap m = read_safetensors(ref("mha.safetensors"));
  TempDir d;
  for (const auto& [name, t] : m) write_file(d / (name + ".npy"), encode_npy(t));
  const TensorMap n = read_weights(d.path.string());
  REQUIRE(n.size() == m.size());
  for (const auto& [name, t] : m) {
    CHECK(n.at(name).shape() == t.shape());
    CHECK(n.at(name).values() == t.values());
  }
  TempDir empty;
  CHECK(has(error_of([&] { read_weights(empty.path.string()); }), "no .npy files"));
}

TEST_CASE("safetensors: a NaN or infinite weight is refused at load, naming the tensor (F32, F16, BF16)") {
  std::string f32 = file_of(R"({"bias": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})", 8);
  const float inf = std::numeric_limits<float>::infinity();
  std::memcpy(f32.data() + f32.size() - 4, &inf, 4);  // bias[1] = +inf: every encoder value was nan
  CHECK(has(parse_error(f32), "tensor 'bias' holds +inf at index 1; weights must be finite"));
  std::string f16 = file_of(R"({"in_proj_weight": {"dtype": "F16", "shape": [2, 2], "data_offsets": [0, 8]}})", 8);
  f16[f16.size() - 8] = '\x00';
  f16[f16.size() - 7] = '\x7e';  // 0x7e00: a half NaN at index 0
  CHECK(has(parse_error(f16), "tensor 'in_proj_weight' holds NaN at index 0"));
  std::string bf16 = file_of(R"({"w": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}})", 4);
  bf16[bf16.size() - 2] = '\x80';
  bf16[bf16.size() - 1] = '\xff';  // 0xff80: bfloat16 −inf at index 1
  CHECK(has(parse_error(bf16), "tensor 'w' holds -inf at index 1"));
}
