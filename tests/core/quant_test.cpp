// GGUF's quantized weights used as stored (stored.hpp, src/core/kernels/quant.cpp): dequantization of every
// type equal bit for bit to llama.cpp's Python reference (gguf-py's quants.py, through
// tests/reference/gen_gguf_reference.py's files tests/data/gguf/dequant_<type>.bin), and every op
// that reads a quantized matrix — matmul and matmul_bt on every GEMM kernel and path, a transposed
// matrix, the embedding lookup — bit-identical to the same op on the dequantized float32 matrix
// (the GEMM dequantizes panels and runs the same kernel on them).
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "tfx/core/gemm.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/stored.hpp"

using namespace tfx;

namespace {

struct QuantReference {
  std::vector<unsigned char> blocks;
  std::vector<float> values;
};

QuantReference quant_reference(const std::string& name) {
  const std::string bytes = test::read_file(std::string(TFX_SOURCE_DIR) + "/tests/data/gguf/dequant_" + name + ".bin");
  REQUIRE(bytes.size() >= 8);
  std::uint32_t n, b;
  std::memcpy(&n, bytes.data(), 4);
  std::memcpy(&b, bytes.data() + 4, 4);
  QuantReference r;
  const std::size_t block_bytes = bytes.size() - 8 - 4 * std::size_t{n};
  r.blocks.assign(bytes.begin() + 8, bytes.begin() + 8 + static_cast<std::ptrdiff_t>(block_bytes));
  r.values.resize(n);
  std::memcpy(r.values.data(), bytes.data() + 8 + block_bytes, 4 * std::size_t{n});
  return r;
}

std::uint32_t quant_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// random but valid blocks of type t: random bytes with small finite float16 scales in place
std::vector<unsigned char> quant_random_blocks(StoredType t, std::size_t rows, std::size_t cols, unsigned seed) {
  std::mt19937 gen(seed);
  const std::size_t row_bytes = stored_row_bytes(t, cols), bb = stored_block_bytes(t);
  std::vector<unsigned char> v(rows * row_bytes);
  for (auto& c : v) c = static_cast<unsigned char>(gen());
  auto put_scale = [&](unsigned char* p) {
    const unsigned e = 5 + gen() % 6;  // 2^(e−15): 2⁻¹⁰ … 2⁻⁵
    const auto h = static_cast<std::uint16_t>(((gen() & 1) << 15) | (e << 10) | (gen() & 0x3ff));
    p[0] = static_cast<unsigned char>(h & 0xff);
    p[1] = static_cast<unsigned char>(h >> 8);
  };
  for (std::size_t off = 0; off < v.size(); off += bb) {
    if (t == StoredType::q6_k) {
      put_scale(&v[off + 208]);
    } else {
      put_scale(&v[off]);
      if (t == StoredType::q4_k || t == StoredType::q5_k || t == StoredType::q4_1 || t == StoredType::q5_1) put_scale(&v[off + 2]);
    }
  }
  return v;
}

struct QuantForceKernel {
  explicit QuantForceKernel(const std::string& name) { set_gemm_kernel(name); }
  ~QuantForceKernel() { set_gemm_kernel("auto"); }
};

}  // namespace

TEST_CASE("quant: dequantization equals llama.cpp's gguf-py quants.py bit for bit on every type") {
  const std::vector<std::pair<std::string, StoredType>> types = {
      {"f16", StoredType::f16},   {"bf16", StoredType::bf16}, {"q8_0", StoredType::q8_0}, {"q4_0", StoredType::q4_0},
      {"q4_1", StoredType::q4_1}, {"q5_0", StoredType::q5_0}, {"q5_1", StoredType::q5_1},
      {"q4_k", StoredType::q4_k}, {"q5_k", StoredType::q5_k}, {"q6_k", StoredType::q6_k}};
  for (const auto& entry : types) {
    const std::string& name = entry.first;  // not a structured binding: clang 14 cannot capture one in CAPTURE
    const StoredType type = entry.second;
    CAPTURE(name);
    const QuantReference r = quant_reference(name);
    REQUIRE(r.blocks.size() == stored_row_bytes(type, r.values.size()));
    std::vector<float> got(r.values.size());
    dequantize(type, r.blocks.data(), got.data(), got.size());
    std::size_t same = 0;
    for (std::size_t i = 0; i < got.size(); ++i) same += quant_bits(got[i]) == quant_bits(r.values[i]);
    MESSAGE(name << ": " << same << " of " << got.size() << " values bit-identical to gguf-py");
    CHECK(same == got.size());
    // the same through a StoredMatrix row (the embedding lookup's path)
    const StoredMatrix m(r.blocks.data(), type, 1, r.values.size());
    CHECK(widen(m).values() == r.values);
  }
}

TEST_CASE("quant: a hand-built Q8_0 and Q4_0 block") {
  // Q8_0: d = 0.5 (0x3800), q = 0, 1, −1, …
  std::vector<unsigned char> q8(34, 0);
  q8[0] = 0x00;
  q8[1] = 0x38;
  for (int i = 0; i < 32; ++i) q8[2 + i] = static_cast<unsigned char>(static_cast<std::int8_t>(i % 2 ? -i : i));
  std::vector<float> y(32);
  dequantize(StoredType::q8_0, q8.data(), y.data(), 32);
  for (int i = 0; i < 32; ++i) CHECK(y[i] == 0.5f * static_cast<float>(i % 2 ? -i : i));
  // Q4_0: d = 2 (0x4000), byte i = (15 − i)·16 + i: low nibble i → value i, high nibble 15 − i → value 16 + i
  std::vector<unsigned char> q4(18, 0);
  q4[1] = 0x40;
  for (int i = 0; i < 16; ++i) q4[2 + i] = static_cast<unsigned char>(((15 - i) << 4) | i);
  dequantize(StoredType::q4_0, q4.data(), y.data(), 32);
  for (int i = 0; i < 16; ++i) {
    CHECK(y[i] == 2.0f * static_cast<float>(i - 8));
    CHECK(y[16 + i] == 2.0f * static_cast<float>(15 - i - 8));
  }
}

TEST_CASE("quant: matmul and matmul_bt on quantized weights equal the product with the dequantized matrix, bit for bit") {
  // K multiples of 256 (K-quants) and of 32; paths: plain loops, skinny (decode), packed tiles,
  // several panels and threads. The packed tiles of a prefill are packed straight from the blocks:
  // there, several depth panels with a short last one (800 = 3 · 256 + 32), more rows of A than one
  // packed block of A (200), more columns than one packed block of B (2100 > 2048) and columns
  // that end mid-tile (45, 2100)
  const std::vector<std::array<std::size_t, 3>> sizes = {{1, 256, 40},  {3, 512, 300}, {37, 256, 77}, {2, 256, 3},
                                                         {1, 32, 3},    {200, 800, 45}, {13, 768, 2100}};
  unsigned seed = 11;
  for (const std::string& kernel : available_gemm_kernels()) {
    CAPTURE(kernel);
    QuantForceKernel force(kernel);
    for (StoredType type : {StoredType::q8_0, StoredType::q4_0, StoredType::q4_1, StoredType::q5_0, StoredType::q5_1, StoredType::q4_k,
                            StoredType::q5_k, StoredType::q6_k}) {
      const std::string type_name = stored_type_name(type);
      CAPTURE(type_name);
      for (const auto& mkn : sizes) {
        const std::size_t M = mkn[0], K = mkn[1], N = mkn[2];
        if (K % stored_block_size(type)) continue;
        CAPTURE(M);
        CAPTURE(K);
        CAPTURE(N);
        std::mt19937 gen(seed++);
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        std::vector<float> av(M * K);
        for (float& x : av) x = u(gen);
        const Tensor a = Tensor::from({M, K}, av);
        const std::vector<unsigned char> b = quant_random_blocks(type, N, K, seed++);
        const StoredMatrix b_nk(b.data(), type, N, K);
        const Tensor wide_nk = widen(b_nk);
        StoredMatrix b_kn = b_nk;  // the same bytes read as the (K, N) transpose
        b_kn.rows = K;
        b_kn.cols = N;
        b_kn.transposed = true;
        const Tensor wide_kn = transpose(wide_nk);
        CHECK(widen(b_kn).values() == wide_kn.values());
        for (unsigned threads : {1u, 2u}) {
          CAPTURE(threads);
          CHECK(matmul_bt(a, b_nk, threads).values() == matmul_bt(a, wide_nk, threads).values());
          // (the transposed view runs as a·bᵀ on the stored rows)
          CHECK(matmul(a, b_kn, threads).values() == matmul_bt(a, wide_nk, threads).values());
        }
        // a (K, N) matrix quantized along N (rows of N): matmul without the transpose
        if (N % stored_block_size(type) == 0) {
          const StoredMatrix rows_kn(b.data(), type, K, N);
          CHECK(matmul(a, rows_kn, 2).values() == matmul(a, widen(rows_kn), 2).values());
        }
      }
    }
  }
}

TEST_CASE("quant: F16 and F32 matrices read transposed equal the transposed product") {
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> w(6 * 10), av(4 * 10);
  for (float& x : w) x = u(gen);
  for (float& x : av) x = u(gen);
  const Tensor a = Tensor::from({4, 10}, av), wt = Tensor::from({6, 10}, w);
  StoredMatrix t(wt.data(), StoredType::f32, 10, 6);
  t.transposed = true;
  CHECK(matmul(a, t).values() == matmul_bt(a, wt).values());
  CHECK(widen(t).values() == transpose(wt).values());
  CHECK(t.bytes() == 240);
}

TEST_CASE("quant: the fused GEMV (a few rows against quantized rows) equals the float GEMM on the dequantized matrix, bit for bit") {
  // The decode path (m ≤ 4 rows of A, a·Wᵀ, gemv_quant.inc): every block type, every kernel (each
  // has its own fused kernel), 1 … 4 rows and 5 (the packing path), K of an odd number of 32-value
  // blocks (half a 4-vector step with 16-lane vectors), odd N, more threads than columns allow;
  // some blocks with subnormal float16 scales. Also within float rounding of a float64 dot.
  const std::vector<std::array<std::size_t, 2>> kn = {{32, 131}, {96, 517}, {256, 67}, {768, 129}, {1280, 33}};
  unsigned seed = 101;
  for (const std::string& kernel : available_gemm_kernels()) {
    CAPTURE(kernel);
    QuantForceKernel force(kernel);
    for (StoredType type : {StoredType::q8_0, StoredType::q4_0, StoredType::q4_1, StoredType::q5_0, StoredType::q5_1, StoredType::q4_k,
                            StoredType::q5_k, StoredType::q6_k}) {
      const std::string type_name = stored_type_name(type);
      CAPTURE(type_name);
      for (const auto& s : kn) {
        const std::size_t K = s[0], N = s[1];
        if (K % stored_block_size(type)) continue;
        CAPTURE(K);
        CAPTURE(N);
        std::vector<unsigned char> b = quant_random_blocks(type, N, K, seed++);
        // every third block's scale (and min) a float16 subnormal
        const std::size_t bb = stored_block_bytes(type), at = type == StoredType::q6_k ? 208 : 0;
        for (std::size_t i = 0; i < b.size() / bb; i += 3) {
          b[i * bb + at] = static_cast<unsigned char>(1 + i % 200);
          b[i * bb + at + 1] = static_cast<unsigned char>((i % 2) << 7 | (i % 3));
        }
        const StoredMatrix w(b.data(), type, N, K);
        const Tensor wide = widen(w);
        for (std::size_t M = 1; M <= 5; ++M) {
          CAPTURE(M);
          std::mt19937 gen(seed++);
          std::uniform_real_distribution<float> u(-1.0f, 1.0f);
          std::vector<float> av(M * K);
          for (float& x : av) x = u(gen);
          const Tensor a = Tensor::from({M, K}, av);
          const Tensor want = matmul_bt(a, wide, 1);
          for (unsigned threads : {1u, 2u, 7u}) {
            CAPTURE(threads);
            const Tensor got = matmul_bt(a, w, threads);
            std::size_t same = 0;
            for (std::size_t i = 0; i < got.size(); ++i) same += quant_bits(got.data()[i]) == quant_bits(want.data()[i]);
            CHECK(same == got.size());
          }
          // against float64: |got − exact| ≤ 1e-5 · Σ|a·w| (float32 accumulation of K products)
          const Tensor got = matmul_bt(a, w, 2);
          std::size_t close = 0;
          for (std::size_t i = 0; i < M; ++i)
            for (std::size_t j = 0; j < N; ++j) {
              double exact = 0, mag = 0;
              for (std::size_t p = 0; p < K; ++p) {
                const double t = static_cast<double>(av[i * K + p]) * static_cast<double>(wide.data()[j * K + p]);
                exact += t;
                mag += t < 0 ? -t : t;
              }
              const double err = static_cast<double>(got.data()[i * N + j]) - exact;
              close += (err < 0 ? -err : err) <= 1e-5 * mag + 1e-30;
            }
          CHECK(close == M * N);
        }
      }
    }
  }
}

TEST_CASE("quant: every float16 scale reads as its value — dequantization, the fused GEMV and the packed GEMM") {
  // One row per binary16 bit pattern h as the scale d (and min m) of a 32-value block. The
  // reference conversion is written another way than the library's (ldexp on the fields, not bit
  // moves): a subnormal is m·2⁻²⁴, a normal (1 + m/1024)·2^(e−15). dequantize() (quant.cpp) must
  // give d·q exactly; the AVX-512 kernels read scales from a compile-time table of all 65,536
  // (gemv_quant.inc), so matmul_bt — the fused GEMV (1 row of A) and the packing path (5 rows) —
  // must equal the float GEMM on those values on every kernel. Infinite and NaN scales are left
  // to the first check (a product's NaN payload depends on operand order).
  auto reference = [](std::uint32_t h) {
    const int e = static_cast<int>((h >> 10) & 31), man = static_cast<int>(h & 0x3ff);
    const double sign = (h & 0x8000) ? -1.0 : 1.0;
    if (e == 31) return man ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
    if (e == 0) return sign * std::ldexp(static_cast<double>(man), -24);
    return sign * std::ldexp(1.0 + man / 1024.0, e - 15);
  };
  for (StoredType type : {StoredType::q8_0, StoredType::q4_0, StoredType::q4_1, StoredType::q5_0, StoredType::q5_1}) {
    const std::string type_name = stored_type_name(type);
    CAPTURE(type_name);
    const bool has_min = type == StoredType::q4_1 || type == StoredType::q5_1;
    const std::size_t N = 65536, K = 32, bb = stored_block_bytes(type);
    std::vector<unsigned char> b = quant_random_blocks(type, N, K, 7);
    for (std::size_t h = 0; h < N; ++h) {
      b[h * bb] = static_cast<unsigned char>(h & 0xff);
      b[h * bb + 1] = static_cast<unsigned char>(h >> 8);
      if (has_min) {  // m = the scale of the mirrored pattern: every value appears as a min too
        b[h * bb + 2] = static_cast<unsigned char>((N - 1 - h) & 0xff);
        b[h * bb + 3] = static_cast<unsigned char>((N - 1 - h) >> 8);
      }
    }
    // the value at 0: q·d (+ m), q read from the block as quant.cpp's layout has it
    const StoredMatrix w(b.data(), type, N, K);
    const Tensor wide = widen(w);
    std::size_t right = 0, finite_rows = 0;
    std::vector<char> finite(N);  // the row's scale (and min) finite: the kernels' rows below
    for (std::size_t h = 0; h < N; ++h) {
      const unsigned char* blk = &b[h * bb];
      double q;
      if (type == StoredType::q8_0) {
        q = static_cast<std::int8_t>(blk[2]);
      } else {
        const unsigned char* qs = blk + 2 + (has_min ? 2 : 0) + (type == StoredType::q5_0 || type == StoredType::q5_1 ? 4 : 0);
        int n = qs[0] & 15;
        if (type == StoredType::q5_0 || type == StoredType::q5_1) n |= (blk[2 + (has_min ? 2 : 0)] & 1) << 4;
        q = has_min ? n : n - (type == StoredType::q4_0 ? 8 : 16);
      }
      const double d = reference(static_cast<std::uint32_t>(h)), m = has_min ? reference(static_cast<std::uint32_t>(N - 1 - h)) : 0.0;
      // float32 d·q (+ m): d·q is exact in float32 (an 11-bit significand times a small integer);
      // + m rounds once, as quant.cpp's two roundings do
      const float want = has_min ? static_cast<float>(d * q) + static_cast<float>(m) : static_cast<float>(d * q);
      const float got = wide.data()[h * K];
      right += (std::isnan(want) && std::isnan(got)) || quant_bits(want) == quant_bits(got);
      finite[h] = std::isfinite(d) && std::isfinite(m);
      finite_rows += finite[h];
    }
    CHECK(right == N);
    // the kernels' reading, on the rows whose scales are finite
    std::vector<unsigned char> fb;
    std::vector<float> fw;
    for (std::size_t h = 0; h < N; ++h) {
      if (!finite[h]) continue;
      fb.insert(fb.end(), b.begin() + static_cast<std::ptrdiff_t>(h * bb), b.begin() + static_cast<std::ptrdiff_t>((h + 1) * bb));
      fw.insert(fw.end(), wide.data() + h * K, wide.data() + (h + 1) * K);
    }
    REQUIRE(fb.size() == finite_rows * bb);
    const StoredMatrix wf(fb.data(), type, finite_rows, K);
    const Tensor widef = Tensor::from({finite_rows, K}, fw);
    for (const std::string& kernel : available_gemm_kernels()) {
      CAPTURE(kernel);
      QuantForceKernel force(kernel);
      for (std::size_t M : {std::size_t{1}, std::size_t{5}}) {
        CAPTURE(M);
        std::mt19937 gen(static_cast<unsigned>(M));
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        std::vector<float> av(M * K);
        for (float& x : av) x = u(gen);
        const Tensor a = Tensor::from({M, K}, av);
        const Tensor got = matmul_bt(a, wf, 2), want = matmul_bt(a, widef, 1);
        std::size_t same = 0;
        for (std::size_t i = 0; i < got.size(); ++i) same += quant_bits(got.data()[i]) == quant_bits(want.data()[i]);
        CHECK(same == got.size());
      }
    }
  }
}
