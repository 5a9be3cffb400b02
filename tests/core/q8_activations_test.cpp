// --activations q8 (tfx/core/gemm.hpp's QuantActivations, src/core/kernels/q8/q8_activations.hpp):
//  - the activation quantizers equal llama.cpp's references (quantize_row_q8_0 = gguf-py's Q8_0,
//    quantize_row_q8_K) on known values: constants printed by
//    tests/reference/gen_q8_activations_reference.py (Q8_0 cross-checked there with gguf-py);
//  - every integer kernel (generic, AVX2, AVX-512 VNNI: those this CPU runs) gives, for Q8_0, Q4_K
//    and Q6_K weights, exactly the result q8_activations.hpp defines (re-computed here by plain
//    loops over the blocks' integers), and that equals the dot product of the dequantized weights
//    with the dequantized 8-bit activations within the rounding of the float sums;
//  - the AMX prefill kernel (where this CPU has AMX-INT8) gives, for Q8_0, Q4_0 and Q5_0 weights,
//    exactly the block-sum definition (re-computed here by plain loops);
//  - matmul_bt in q8 mode runs the row kernel for 1–4 rows (any thread count), the AMX kernel
//    for more rows of Q8_0/Q4_0/Q5_0 where the CPU has AMX (else float), stays float for a
//    K-quant prefill and for the other types, and the default (f32) is untouched;
//  - a GGUF model's logits in q8 mode stay close to the exact forward (within 3 % of the largest
//    logit: measured 0.8 % on the tiny Q8_0 llama, 2.4 % on the K-quant one).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/kernels/q8/q8_activations.hpp"
#include "helpers.hpp"
#include "tfx/core/gemm.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/stored.hpp"
#include "tfx/model/checkpoint.hpp"

using namespace tfx;
using namespace tfx::gemm_kernels;

namespace {

// tests/reference/gen_q8_activations_reference.py's output
const float kQ8_0_d[] = {0.5f, 0.06451416f, 0.08996582f, 0.11248779f, 0.13122559f, 0.14697266f, 0.16870117f, 0.1875f, 0.20214844f, 0.39770508f, 0.24377441f, 0.25732422f, 0.28125f, 0.30004883f, 0.31225586f, 0.33740234f};
const int kQ8_0_q[] = {-14, -4, 7, -11, -1, 127, 3, -6, 13, -6, 5, -13, -3, 8, -11, 0, 11, -8, 3, 13, -5, 6, -13, -2, 9, -10, 1, 11, -7, 4, 14, -4, 68, -121, -12, 97, -92, 18, 127, -62, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -32, 66, -103, -5, 93, -77, 21, 119, -50, 48, -122, -24, 74, -95, 3, 101, -69, 29, 127, -42, 56, -114, -16, 82, -84, 10, 104, -58, 36, -127, -33, 61, -102, -8, 86, -76, 18, 112, -51, 43, -119, -25, 69, -94, 0, 94, -69, 25, 119, -43, 51, -112, -18, 76, -86, 8, 102, -61, 33, 127, -36, 58, -104, -10, 84, -79, 15, 109, -53, 41, -122, -28, 66, -97, -3, 91, -71, 23, 117, -46, 48, -114, -20, 74, -89, 5, 99, -64, 31, 127, -39, 57, -109, -13, 83, -83, 13, 109, -57, 39, -127, -31, 65, -101, -5, 91, -75, 21, 117, -49, 47, -119, -23, 73, -93, 3, 98, -67, 29, 124, -41, 53, -109, -15, 79, -84, 10, 104, -58, 36, -127, -33, 61, -102, -8, 86, -76, 18, 112, -51, 43, -119, -25, 69, -94, 0, 94, -69, 25, 119, -43, 51, -112, -18, 76, -86, 8, 102, -61, 33, 127, -36, 58, -104, -10, 84, -79, 15, 109, -53, 41, -122, -28, 66, -97, -3, 91, -71, 23, 117, -46, 48, -114, -20, 75, -91, 5, 101, -65, 31, 127, -39, 57, -109, -13, 83, -83, 13, 109, -57, 39, -127, -31, 65, -101, -5, 91, -75, 21, 117, -49, 47, -119, -23, 73, -93, 1, 55, -37, 16, 69, -23, 30, -62, -9, 45, -47, 6, -127, -33, 20, -72, -19, 34, -57, -4, 49, -43, 10, 63, -29, 24, -68, -14, 39, -53, 0, 53, -69, 25, 119, -43, 51, -112, -18, 76, -86, 8, 102, -61, 33, 127, -36, 58, -104, -10, 84, -79, 15, 109, -53, 41, -122, -28, 66, -97, -3, 91, -71, 23, 119, -47, 49, -117, -21, 75, -91, 5, 101, -65, 31, 127, -39, 57, -109, -13, 83, -83, 13, 109, -57, 39, -127, -31, 65, -101, -5, 91, -75, 21, 117, -49, 46, -117, -23, 71, -91, 3, 97, -66, 28, 122, -41, 53, -109, -15, 79, -84, 10, 104, -58, 36, -127, -33, 61, -102, -8, 86, -76, 18, 112, -51, 43, -119, -25, 69, -94, 0, 94, -69, 25, 119, -43, 51, -112, -18, 76, -86, 8, 102, -61, 33, 127, -36, 58, -104, -10, 84, -79, 15, 109, -53, 41, -122, -28, 66, -98, -3, 93, -73, 23, 119, -47, 49, -117, -21, 75, -91, 5, 101, -65, 31, 127, -39, 57, -109, -13, 83, -83, 13, 109, -57, 39, -127, -31, 65, -101, -5, 89, -74, 20, 114, -48, 46, -117, -23, 71, -91, 3, 97, -66, 28, 122, -41, 53, -109, -15, 79, -84, 10, 104, -58, 36, -127, -33, 61, -102, -8, 86, -76};
const float kQ8_K_d[] = {-0.5f, 0.39763778f};
const int kQ8_K_q[] = {14, 4, -7, 11, 1, -127, -2, 6, -13, 6, -5, 13, 3, -8, 11, 0, -11, 8, -3, -13, 5, -6, 13, 2, -9, 10, -1, -11, 7, -4, -14, 4, -9, 16, 2, -13, 12, -2, -16, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6, -12, 19, 1, -17, 14, -4, -21, 9, -9, 22, 4, -13, 17, 0, -18, 12, -5, -23, 8, -10, 20, 3, -15, 19, -2, -23, 13, -8, 29, 7, -14, 23, 2, -19, 17, -4, -25, 11, -10, 27, 6, -15, 21, 0, -21, 15, -6, -27, 10, -11, 25, 4, -17, 19, -2, -27, 16, -9, -33, 9, -15, 27, 3, -22, 21, -4, -29, 14, -11, 32, 7, -17, 25, 1, -24, 19, -6, -31, 12, -13, 30, 5, -19, 23, -1, -26, 17, -9, -37, 11, -17, 32, 4, -24, 24, -4, -32, 17, -11, 37, 9, -19, 30, 2, -27, 22, -6, -34, 14, -14, 35, 7, -21, 27, -1, -29, 20, -8, -37, 14, -18, 37, 5, -27, 28, -3, -35, 20, -12, 43, 11, -21, 34, 3, -29, 26, -6, -38, 17, -15, 40, 9, -23, 32, 0, -32, 23, -9, -40, 15, -17, 42, 7, -29, 32, -3, -38, 23, -12, -48, 13, -22, 39, 4, -31, 30, -6, -41, 20, -15, 46, 10, -25, 36, 1, -34, 27, -9, -44, 17, -18, 43, 8, 38, -46, 3, 51, -33, 16, 65, -20, 29, -55, -7, 42, -42, 7, 55, -29, 20, -65, -16, 33, -51, -3, 46, -38, 11, 59, -25, 24, -61, -12, 37, -47, 1, 55, -37, 16, 69, -23, 30, -62, -9, 45, -47, 6, -127, -33, 20, -72, -19, 34, -57, -4, 49, -43, 10, 63, -29, 24, -68, -14, 39, -53, 0, 53, -42, 16, 73, -26, 31, -68, -11, 47, -53, 5, 62, -37, 20, 78, -22, 36, -64, -6, 51, -48, 9, 67, -33, 25, -75, -17, 40, -59, -2, 56, -44, 14, 77, -30, 32, -75, -13, 49, -59, 3, 65, -42, 20, 82, -25, 37, -70, -8, 54, -54, 8, 70, -37, 25, -82, -20, 42, -65, -3, 59, -49, 13, 75, -32, 32, -83, -16, 50, -65, 2, 68, -47, 20, 86, -29, 38, -77, -11, 56, -59, 7, 74, -41, 25, -90, -23, 43, -72, -5, 61, -54, 13, 79, -36, 31, -84, -19, 52, -71, 0, 71, -52, 19, 90, -33, 38, -84, -13, 57, -65, 6, 77, -46, 25, 96, -27, 44, -79, -8, 63, -59, 11, 82, -40, 31, -92, -21, 50, -77, -2, 73, -57, 18, 94, -37, 39, -92, -16, 59, -71, 4, 79, -51, 24, 100, -31, 45, -86, -10, 65, -65, 10, 86, -45, 31, -100, -24, 51, -79, -4, 75, -63, 17, 97, -41, 39, -99, -19, 60, -78, 2, 82, -56, 24, 103, -34, 45, -93, -13, 67, -71, 9, 88, -50, 30, -108, -28, 52, -86, -6, 73, -65};
const int kQ8_K_bsums[] = {-93, -23, -2, 0, -14, 2, 16, 28, -21, -5, 11, -50, 50, -18, 1, 22, 74, -88, -168, -15, 109, -86, 43, 4, -35, -72, 73, 30, -13, -56, 109, -156};

std::vector<float> q8_input() {  // the script's x
  std::vector<float> x(512);
  for (std::size_t j = 0; j < 512; ++j)
    x[j] = static_cast<float>((static_cast<double>((j * 37) % 101) - 50.0) / 7.0 * (1.0 + static_cast<double>(j / 32) / 3.0));
  for (std::size_t j = 40; j < 72; ++j) x[j] = 0.0f;
  x[300] = -50.5f;
  x[5] = 63.5f;
  x[6] = 1.25f;
  x[7] = -2.75f;
  return x;
}

struct Q8Kernel {
  const char* name;
  Q8Rows run;
};

std::vector<Q8Kernel> q8_kernels() {
  std::vector<Q8Kernel> out = {{"generic", q8_rows_generic}};
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) out.push_back({"avx2", q8_rows_avx2});
  if (__builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw"))
    out.push_back({"vnni", q8_rows_vnni});
  else
    MESSAGE("TFX-SKIP: this CPU has no AVX-512 VNNI: the vnni kernel is not run");
#endif
  return out;
}

void put_half(unsigned char* p, float v) {
  const std::uint16_t h = narrow_f16(v);
  std::memcpy(p, &h, 2);
}
float get_half(const unsigned char* p) {
  std::uint16_t h;
  std::memcpy(&h, p, 2);
  return widen_f16(h);
}

// random valid rows: random bytes, finite scales of a few sizes
std::vector<unsigned char> q8_random_weights(StoredType t, std::size_t rows, std::size_t k, unsigned seed) {
  std::mt19937 gen(seed);
  const std::size_t bb = stored_block_bytes(t);
  std::vector<unsigned char> v(rows * stored_row_bytes(t, k));
  for (auto& c : v) c = static_cast<unsigned char>(gen());
  std::uniform_real_distribution<float> scale(0.001f, 0.05f);
  for (std::size_t off = 0; off < v.size(); off += bb) {
    if (t == StoredType::q8_0 || t == StoredType::q4_0 || t == StoredType::q5_0) put_half(&v[off], scale(gen));
    if (t == StoredType::q4_k) put_half(&v[off], scale(gen)), put_half(&v[off + 2], scale(gen));
    if (t == StoredType::q6_k) put_half(&v[off + 208], scale(gen));
  }
  return v;
}

void q4k_scale_min(const unsigned char* s, int j, int& sc, int& m) {
  if (j < 4) {
    sc = s[j] & 63, m = s[j + 4] & 63;
  } else {
    sc = (s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4), m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  }
}

// value p of a 32-value block (Q8_0: byte p after the scale; Q4_0: nibble p / 16 of qs[p % 16],
// minus 8; Q5_0: Q4_0's nibble with bit p of qh as its fifth bit, minus 16)
int value32(StoredType t, const unsigned char* blk, std::size_t p) {
  if (t == StoredType::q8_0) return static_cast<std::int8_t>(blk[2 + p]);
  if (t == StoredType::q4_0) return ((blk[2 + p % 16] >> (4 * (p / 16))) & 0xF) - 8;
  const int high = (blk[2 + p / 8] >> (p % 8)) & 1;
  return (((blk[6 + p % 16] >> (4 * (p / 16))) & 0xF) | (high << 4)) - 16;
}

// the block-sum definition of a prefill (q8_activations.hpp), by plain loops: per block the whole
// integer sum, (d_w·d_a)·float(sum), summed in block order
float q8_block_spec(StoredType t, const unsigned char* row, std::size_t k, const std::int8_t* q, const float* d) {
  float acc = 0.0f;
  for (std::size_t b = 0; b < k / 32; ++b) {
    const unsigned char* blk = row + b * stored_block_bytes(t);
    long long s = 0;
    for (std::size_t p = 0; p < 32; ++p) s += static_cast<long long>(value32(t, blk, p)) * q[b * 32 + p];
    const float dw = get_half(blk) * d[b];
    const float prod = dw * static_cast<float>(s);
    acc = acc + prod;
  }
  return acc;
}

// whether this CPU runs the AMX prefill kernel (and so matmul_bt in q8 mode takes it for a prefill
// with the default GEMM kernel)
bool amx_prefill() {
#if defined(__x86_64__)
  return amx_usable() && gemm_kernel() == "avx512";
#else
  return false;
#endif
}

// q8_activations.hpp's definition, by plain loops: per block the integers of each value (Q4_K:
// nibble and its sub-block's scale and min; Q6_K: the unsigned 6-bit value and its scale), lane
// L = positions ≡ 4L … 4L+3 (mod 32)
float q8_spec(StoredType t, const unsigned char* row, std::size_t k, const std::vector<std::int8_t>& q, const std::vector<float>& d,
              const std::vector<std::int16_t>& bs) {
  float lanes[8] = {};
  float corr = 0.0f;
  const bool b32 = t == StoredType::q8_0 || t == StoredType::q4_0 || t == StoredType::q5_0;
  const std::size_t bsz = b32 ? 32 : 256;
  for (std::size_t b = 0; b < k / bsz; ++b) {
    const unsigned char* blk = row + b * stored_block_bytes(t);
    long long s[8] = {};
    long long extra = 0;
    float dw = 0, dm = 0;
    for (std::size_t p = 0; p < bsz; ++p) {
      const int a = q[b * bsz + p];
      long long term = 0;
      if (b32) {
        term = static_cast<long long>(value32(t, blk, p)) * a;
      } else if (t == StoredType::q4_k) {
        const std::size_t chunk = p / 64, in = p % 64;  // 64 values per 32 bytes: low nibbles, then high
        const int nib = in < 32 ? blk[16 + 32 * chunk + in] & 0xF : blk[16 + 32 * chunk + in - 32] >> 4;
        int sc, mn;
        q4k_scale_min(blk + 4, static_cast<int>(p / 32), sc, mn);
        term = static_cast<long long>(sc) * nib * a;
      } else {  // q6_k: half n of 128 values, quarter t4 of 32
        const std::size_t n = p / 128, t4 = (p % 128) / 32, l = p % 32;
        const unsigned char* ql = blk + 64 * n;
        const unsigned char* qh = blk + 128 + 32 * n;
        const int lo = t4 == 0 ? ql[l] & 0xF : t4 == 1 ? ql[l + 32] & 0xF : t4 == 2 ? ql[l] >> 4 : ql[l + 32] >> 4;
        const int u = lo | (((qh[l] >> (2 * t4)) & 3) << 4);
        const int sc = static_cast<std::int8_t>(blk[192 + p / 16]);
        term = static_cast<long long>(sc) * u * a;
      }
      s[(p % 32) / 4] += term;
    }
    if (b32) {
      dw = get_half(blk) * d[b];
    } else if (t == StoredType::q4_k) {
      dw = get_half(blk) * d[b];
      dm = get_half(blk + 2) * d[b];
      for (int j = 0; j < 8; ++j) {
        int sc, mn;
        q4k_scale_min(blk + 4, j, sc, mn);
        extra += static_cast<long long>(mn) * (bs[b * 16 + 2 * j] + bs[b * 16 + 2 * j + 1]);
      }
    } else {
      dw = get_half(blk + 208) * d[b];
      dm = dw;
      for (int j = 0; j < 16; ++j) extra += 32LL * static_cast<std::int8_t>(blk[192 + j]) * bs[b * 16 + j];
    }
    for (int l = 0; l < 8; ++l) {
      REQUIRE(std::llabs(s[l]) < (1LL << 31));
      const float prod = dw * static_cast<float>(s[l]);
      lanes[l] = lanes[l] + prod;
    }
    const float cprod = dm * static_cast<float>(extra);
    corr = corr + cprod;
  }
  float total = lanes[0];
  for (int l = 1; l < 8; ++l) total = total + lanes[l];
  return total - corr;
}

QType q8_qtype(StoredType t) {
  switch (t) {
    case StoredType::q8_0: return QType::q8_0;
    case StoredType::q4_0: return QType::q4_0;
    case StoredType::q5_0: return QType::q5_0;
    case StoredType::q4_k: return QType::q4_k;
    default: return QType::q6_k;
  }
}

}  // namespace

TEST_CASE("q8 activations: Q8_0 and Q8_K quantization equal llama.cpp's references (quantize_row_q8_0 / _q8_K)") {
  const std::vector<float> x = q8_input();
  std::vector<std::int8_t> q(512);
  std::vector<float> d(16);
  quantize_q8_0(x.data(), 512, q.data(), d.data());
  for (std::size_t b = 0; b < 16; ++b) CHECK(d[b] == kQ8_0_d[b]);
  for (std::size_t j = 0; j < 512; ++j) CHECK(q[j] == kQ8_0_q[j]);
  CHECK(q[6] == 3);   // 2.5: half away from zero, as roundf
  CHECK(q[7] == -6);  // −5.5
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f")) {  // the AVX-512 quantizer: the same bits, here and on random rows
    std::vector<std::int8_t> qv(512);
    std::vector<float> dv(16);
    quantize_q8_0_avx512(x.data(), 512, qv.data(), dv.data());
    for (std::size_t b = 0; b < 16; ++b) CHECK(dv[b] == kQ8_0_d[b]);
    for (std::size_t j = 0; j < 512; ++j) CHECK(qv[j] == kQ8_0_q[j]);
    std::mt19937 gen(5);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float> r(4096);
    for (std::size_t i = 0; i < r.size(); ++i) r[i] = nd(gen) * (i % 97 == 0 ? 1000.0f : 1.0f);
    for (std::size_t i = 64; i < 96; ++i) r[i] = 0.0f;  // an all-zero block
    for (std::size_t i = 96; i < 128; ++i) r[i] = 0.5f * static_cast<float>(i % 9) - 2.0f;  // x·id on .5 exactly
    r[127] = 127.0f / 32.0f;
    std::vector<std::int8_t> q1(4096), q2(4096);
    std::vector<float> d1(128), d2(128);
    quantize_q8_0(r.data(), 4096, q1.data(), d1.data());
    quantize_q8_0_avx512(r.data(), 4096, q2.data(), d2.data());
    CHECK(q1 == q2);
    CHECK(d1 == d2);
  } else {
    MESSAGE("TFX-SKIP: this CPU has no AVX-512: quantize_q8_0_avx512 is not run");
  }
#endif
  std::vector<float> dk(2);
  std::vector<std::int16_t> bs(32);
  quantize_q8_k(x.data(), 512, q.data(), dk.data(), bs.data());
  for (std::size_t b = 0; b < 2; ++b) CHECK(dk[b] == kQ8_K_d[b]);
  for (std::size_t j = 0; j < 512; ++j) CHECK(q[j] == kQ8_K_q[j]);
  for (std::size_t j = 0; j < 32; ++j) CHECK(bs[j] == kQ8_K_bsums[j]);
}

TEST_CASE("q8 activations: every integer kernel equals the defined result, and the dot of the dequantized operands") {
  const std::size_t K = 768, N = 9;
  std::mt19937 gen(7);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (StoredType t : {StoredType::q8_0, StoredType::q4_0, StoredType::q5_0, StoredType::q4_k, StoredType::q6_k}) {
    const std::vector<unsigned char> w = q8_random_weights(t, N, K, 11 + static_cast<unsigned>(t));
    const std::size_t row_bytes = stored_row_bytes(t, K);
    const bool kq = t == StoredType::q4_k || t == StoredType::q6_k;
    const std::size_t M = 3, bsz = kq ? 256 : 32;
    std::vector<float> x(M * K);
    for (float& v : x) v = nd(gen);
    x[5] = 0;  // a zero and a large value
    x[K + 9] = 40.0f;
    std::vector<std::int8_t> q(M * K);
    std::vector<float> d(M * K / bsz);
    std::vector<std::int16_t> bs(M * K / 16);
    Q8Row rows[3];
    for (std::size_t i = 0; i < M; ++i) {
      if (kq) quantize_q8_k(&x[i * K], K, &q[i * K], &d[i * K / bsz], &bs[i * K / 16]);
      else quantize_q8_0(&x[i * K], K, &q[i * K], &d[i * K / bsz]);
      rows[i] = {&q[i * K], &d[i * K / bsz], kq ? &bs[i * K / 16] : nullptr};
    }
    std::vector<float> deq(K);
    for (const Q8Kernel& kern : q8_kernels()) {
      std::vector<float> c(M * N, -1.0f);
      // in two bands, as two workers take them: rows 0-1 one at a time, then 2-5 as a group of
      // four and 6-8 one at a time (the kernels take four rows at once where four are left)
      kern.run(rows, M, w.data(), q8_qtype(t), row_bytes, K, c.data(), N, 0, 2);
      kern.run(rows, M, w.data(), q8_qtype(t), row_bytes, K, c.data(), N, 2, N);
      for (std::size_t i = 0; i < M; ++i) {
        const std::vector<std::int8_t> qi(q.begin() + static_cast<std::ptrdiff_t>(i * K), q.begin() + static_cast<std::ptrdiff_t>((i + 1) * K));
        const std::vector<float> di(d.begin() + static_cast<std::ptrdiff_t>(i * K / bsz), d.begin() + static_cast<std::ptrdiff_t>((i + 1) * K / bsz));
        const std::vector<std::int16_t> bi = kq ? std::vector<std::int16_t>(bs.begin() + static_cast<std::ptrdiff_t>(i * K / 16),
                                                                               bs.begin() + static_cast<std::ptrdiff_t>((i + 1) * K / 16))
                                                : std::vector<std::int16_t>();
        for (std::size_t j = 0; j < N; ++j) {
          const float want = q8_spec(t, w.data() + j * row_bytes, K, qi, di, bi);
          INFO(stored_type_name(t) << " kernel " << kern.name << " row " << i << " col " << j);
          CHECK(c[i * N + j] == want);
          // the dequantized weights · the dequantized 8-bit activations, in double
          dequantize(t, w.data() + j * row_bytes, deq.data(), K);
          double exact = 0, mag = 0;
          for (std::size_t p = 0; p < K; ++p) {
            const double a = static_cast<double>(di[p / bsz]) * qi[p];
            exact += static_cast<double>(deq[p]) * a;
            mag += std::abs(static_cast<double>(deq[p]) * a);
          }
          CHECK(std::abs(c[i * N + j] - exact) <= 2e-6 * mag + 1e-30);
        }
      }
    }
  }
}

TEST_CASE("q8 activations: the AMX prefill kernel equals the block-sum definition") {
#if defined(__x86_64__)
  if (!amx_prefill()) {
    MESSAGE("TFX-SKIP: this CPU (or Linux) gives no AMX-INT8 tiles: the AMX prefill kernel is not run (a q8 prefill stays float)");
    return;
  }
  std::mt19937 gen(17);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  const std::size_t N = 37;  // two whole groups of 16 weight rows and 5 more
  for (StoredType t : {StoredType::q8_0, StoredType::q4_0, StoredType::q5_0})
    for (std::size_t K : {std::size_t{96}, std::size_t{512}})
      for (std::size_t M : {std::size_t{5}, std::size_t{16}, std::size_t{21}}) {
        const std::vector<unsigned char> w = q8_random_weights(t, N, K, 23 + static_cast<unsigned>(t) + static_cast<unsigned>(K));
        const std::size_t row_bytes = stored_row_bytes(t, K), nb = K / 32, padded = (M + 15) / 16 * 16;
        std::vector<float> x(M * K);
        for (float& v : x) v = nd(gen);
        x[3] = 0.0f;
        x[K + 1] = 60.0f;  // one large value: that block's other values round to small integers
        std::vector<std::int8_t> q(M * K), tq(padded * K, 0);
        std::vector<float> d(M * nb), td(padded * nb, 0.0f);
        for (std::size_t i = 0; i < M; ++i) {
          quantize_q8_0(&x[i * K], K, &q[i * K], &d[i * nb]);
          q8_tile_order(i, K, &q[i * K], &d[i * nb], tq.data(), td.data());
        }
        {
          std::vector<float> c(M * N, -1.0f);
          // in two bands, as two workers take them: 0-20 (a group of 16 weight rows, then one of 4)
          // and 20-37 (16, then 1)
          q8_block_amx(tq.data(), td.data(), M, w.data(), q8_qtype(t), row_bytes, K, c.data(), N, 0, 20);
          q8_block_amx(tq.data(), td.data(), M, w.data(), q8_qtype(t), row_bytes, K, c.data(), N, 20, N);
          std::vector<float> deq(K);
          for (std::size_t i = 0; i < M; ++i)
            for (std::size_t j = 0; j < N; ++j) {
              INFO(stored_type_name(t) << " K " << K << " M " << M << " row " << i << " col " << j);
              CHECK(c[i * N + j] == q8_block_spec(t, w.data() + j * row_bytes, K, &q[i * K], &d[i * nb]));
              // and the dequantized weights · the dequantized 8-bit activations, in double
              dequantize(t, w.data() + j * row_bytes, deq.data(), K);
              double exact = 0, mag = 0;
              for (std::size_t p = 0; p < K; ++p) {
                const double a = static_cast<double>(d[i * nb + p / 32]) * q[i * K + p];
                exact += static_cast<double>(deq[p]) * a;
                mag += std::abs(static_cast<double>(deq[p]) * a);
              }
              CHECK(std::abs(c[i * N + j] - exact) <= 2e-6 * mag + 1e-30);
            }
        }
      }
#else
  MESSAGE("TFX-SKIP: not an x86-64 build: there is no AMX prefill kernel");
#endif
}

TEST_CASE("q8 activations: matmul_bt runs the integer kernel for 1-4 rows only when asked; f32 stays the float forward") {
  const std::size_t K = 512, N = 40;
  const bool amx = amx_prefill();
  std::mt19937 gen(3);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (StoredType t : {StoredType::q8_0, StoredType::q4_k, StoredType::q6_k, StoredType::q5_0, StoredType::q5_k}) {
    const bool supported = t != StoredType::q5_k;  // Q5_K has no integer kernel: the float forward
    std::vector<unsigned char> w = supported ? q8_random_weights(t, N, K, 5) : std::vector<unsigned char>(N * stored_row_bytes(t, K));
    if (!supported) {
      std::vector<float> src(N * K);
      for (float& v : src) v = nd(gen);
      quantize(t, src.data(), w.data(), N * K);
    }
    const StoredMatrix W(w.data(), t, N, K);
    for (std::size_t m : {std::size_t{1}, std::size_t{4}, std::size_t{6}}) {
      Tensor a({m, K});
      for (std::size_t i = 0; i < a.size(); ++i) a[i] = nd(gen);
      set_quant_activations(QuantActivations::f32);
      const Tensor exact = matmul_bt(a, W, 2);
      set_quant_activations(QuantActivations::q8);
      const Tensor one = matmul_bt(a, W, 1), two = matmul_bt(a, W, 2), seven = matmul_bt(a, W, 7);
      set_quant_activations(QuantActivations::f32);
      INFO(stored_type_name(t) << " m " << m);
      CHECK(one.values() == two.values());
      CHECK(one.values() == seven.values());
      CHECK(matmul_bt(a, W, 2).values() == exact.values());  // the default again
      const bool block = (t == StoredType::q8_0 || t == StoredType::q5_0) && amx;
      if (!supported || (m > 4 && !block)) {
        CHECK(one.values() == exact.values());  // float: other types, a K-quant prefill
        continue;
      }
      if (m > 4) {  // a prefill on AMX: the block-sum definition
        CHECK(one.values() != exact.values());
        std::vector<std::int8_t> q(K);
        std::vector<float> d(K / 32);
        for (std::size_t i = 0; i < m; ++i) {
          quantize_q8_0(&a[i * K], K, q.data(), d.data());
          for (std::size_t j = 0; j < N; ++j)
            CHECK(one[i * N + j] == q8_block_spec(t, w.data() + j * stored_row_bytes(t, K), K, q.data(), d.data()));
        }
        continue;
      }
      CHECK(one.values() != exact.values());
      // the kernel's own result
      const bool kq = t == StoredType::q4_k || t == StoredType::q6_k;
      const std::size_t bsz = kq ? 256 : 32;
      std::vector<std::int8_t> q(K);
      std::vector<float> d(K / bsz);
      std::vector<std::int16_t> bs(K / 16);
      for (std::size_t i = 0; i < m; ++i) {
        if (kq) quantize_q8_k(&a[i * K], K, q.data(), d.data(), bs.data());
        else quantize_q8_0(&a[i * K], K, q.data(), d.data());
        for (std::size_t j = 0; j < N; ++j) CHECK(one[i * N + j] == q8_spec(t, w.data() + j * stored_row_bytes(t, K), K, q, d, bs));
      }
    }
  }
}

namespace {
// a test GGUF model's logits for `ids`, exact and in q8: the largest change and the largest |logit|
std::pair<double, double> q8_logit_change(const std::string& name, const std::vector<std::size_t>& ids) {
  const Checkpoint file = load_checkpoint(std::string(TFX_SOURCE_DIR) + "/tests/data/gguf/" + name);
  set_quant_activations(QuantActivations::f32);
  const Tensor exact = model_forward(file, ids).logits;
  set_quant_activations(QuantActivations::q8);
  const Tensor q8 = model_forward(file, ids).logits;
  set_quant_activations(QuantActivations::f32);
  REQUIRE(exact.shape() == q8.shape());
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < exact.size(); ++i) {
    diff = std::max(diff, std::abs(static_cast<double>(exact[i]) - q8[i]));
    scale = std::max(scale, std::abs(static_cast<double>(exact[i])));
  }
  return {diff, scale};
}
}  // namespace

TEST_CASE("q8 activations: a GGUF model's next-token logits stay close to the exact forward") {
  for (const char* name : {"llama_q8_0.gguf", "llama_kquant.gguf"}) {
    const auto [diff, scale] = q8_logit_change(name, {3});  // one row: the decode path
    MESSAGE(std::string(name) << ": max |logits q8 − f32| = " << diff << " (max |logit| " << scale << ")");
    CHECK(diff > 0);
    // measured 2026-11-29: 0.031 of 3.80 (0.8 %) for Q8_0, 4.81 of 196.8 (2.4 %) for the K-quants
    // (Q8_K's 256-value blocks quantize the activations more coarsely; these random weights'
    // logits are large)
    CHECK(diff <= 0.03 * scale);
  }
}

TEST_CASE("q8 activations: a GGUF model's prefill of six tokens (AMX tiles where the CPU has them) stays close to the exact forward") {
  // more than 4 rows: the prefill path
  const auto [diff, scale] = q8_logit_change("llama_q8_0.gguf", {3, 5, 7, 2, 9, 4});
  MESSAGE("llama_q8_0.gguf, 6 tokens: max |logits q8 − f32| = " << diff << " (max |logit| " << scale << ")");
  if (amx_prefill()) CHECK(diff > 0);  // the integer blocks ran
  else CHECK(diff == 0);               // float: a prefill without AMX
  CHECK(diff <= 0.03 * scale);
}

TEST_CASE("matmul_bt_many: the same bits as one matmul_bt per matrix, on every path, kernel and thread count") {
  // three matrices read with the same rows (q, k, v of a GQA layer: 40, 8 and 8 rows), of one
  // type, and a mixed set; 1 and 3 rows (the one-pass paths) and 6 (each its own call); the
  // float and q8 activations; a tiny set whose products take the plain-loop kernel (its own calls)
  const std::size_t K = 512;
  std::mt19937 gen(17);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  const auto make = [&](StoredType t, std::size_t rows, std::size_t k, std::vector<unsigned char>& bytes) {
    std::vector<float> src(rows * k);
    for (float& v : src) v = nd(gen) * 0.05f;
    bytes.assign(rows * stored_row_bytes(t, k), 0);
    if (t == StoredType::f32) std::memcpy(bytes.data(), src.data(), bytes.size());
    else if (t == StoredType::bf16 || t == StoredType::f16)
      for (std::size_t i = 0; i < src.size(); ++i) {
        const std::uint16_t h = t == StoredType::bf16 ? narrow_bf16(src[i]) : narrow_f16(src[i]);
        std::memcpy(&bytes[2 * i], &h, 2);
      }
    else quantize(t, src.data(), bytes.data(), src.size());
    return StoredMatrix(bytes.data(), t, rows, k);
  };
  struct Set {
    std::vector<StoredType> types;
    std::vector<std::size_t> rows;
    std::size_t k;
  };
  const std::vector<Set> sets = {
      {{StoredType::q8_0, StoredType::q8_0, StoredType::q8_0}, {40, 8, 8}, K},
      {{StoredType::q5_0, StoredType::q5_0, StoredType::q8_0}, {40, 8, 8}, K},
      {{StoredType::q4_k, StoredType::q6_k}, {33, 17}, K},
      {{StoredType::q5_k, StoredType::q4_1}, {24, 24}, K},  // no integer kernel: the float GEMV in q8 mode too
      {{StoredType::bf16, StoredType::bf16, StoredType::f16}, {40, 8, 8}, K},
      {{StoredType::f32, StoredType::q8_0}, {20, 20}, K},
      {{StoredType::q8_0, StoredType::q8_0}, {3, 2}, 32},  // tiny: plain loops, one call each
  };
  for (const std::string& kernel : available_gemm_kernels()) {
    set_gemm_kernel(kernel);
    for (const Set& set : sets) {
      std::vector<std::vector<unsigned char>> bytes(set.types.size());
      std::vector<StoredMatrix> ws;
      for (std::size_t i = 0; i < set.types.size(); ++i) ws.push_back(make(set.types[i], set.rows[i], set.k, bytes[i]));
      for (std::size_t m : {std::size_t{1}, std::size_t{3}, std::size_t{6}})
        for (QuantActivations mode : {QuantActivations::f32, QuantActivations::q8}) {
          Tensor a({m, set.k});
          for (std::size_t i = 0; i < a.size(); ++i) a[i] = nd(gen);
          set_quant_activations(mode);
          for (unsigned threads : {1u, 2u, 3u}) {
            std::vector<Tensor> many;
            if (ws.size() == 3) many = matmul_bt_many(a, {&ws[0], &ws[1], &ws[2]}, threads);
            else many = matmul_bt_many(a, {&ws[0], &ws[1]}, threads);
            REQUIRE(many.size() == ws.size());
            for (std::size_t i = 0; i < ws.size(); ++i) {
              INFO("kernel " << kernel << " " << stored_type_name(set.types[i]) << " matrix " << i << " m " << m << " q8 "
                             << (mode == QuantActivations::q8) << " threads " << threads);
              CHECK(many[i].values() == matmul_bt(a, ws[i], 1).values());
            }
          }
          set_quant_activations(QuantActivations::f32);
        }
    }
  }
  set_gemm_kernel("auto");
  // linear_many adds each bias as linear does
  std::vector<unsigned char> wb, bb;
  const StoredMatrix w = make(StoredType::q8_0, 16, K, wb), b = make(StoredType::f32, 1, 16, bb);
  const StoredMatrix bias(b.data, StoredType::f32, 16, 1);
  Tensor x({1, K});
  for (std::size_t i = 0; i < K; ++i) x[i] = nd(gen);
  const std::vector<Tensor> ys = linear_many(x, {&w, &w}, {&bias, nullptr}, 2);
  CHECK(ys[0].values() == linear(x, w, bias, 1).values());
  CHECK(ys[1].values() == matmul_bt(x, w, 1).values());
}

TEST_CASE("q8 activations: TFX_AMX=off gives a prompt's float forward (as a CPU without AMX), on takes the tiles; a bad value exits 2") {
  const std::string model = std::string(TFX_SOURCE_DIR) + "/tests/data/gguf/llama_q8_0.gguf";
  const std::string args = "model logits " + model + " --ids 3,5,7,2,9,4 --format csv";  // 6 tokens: the prefill path
  const test::Run exact = test::run_tfx(args);
  const test::Run off = test::run_tfx(args + " --activations q8", {}, "TFX_AMX=off");
  const test::Run on = test::run_tfx(args + " --activations q8", {}, "TFX_AMX=on");
  REQUIRE(exact.code == 0);
  CHECK(off.code == 0);
  CHECK(on.code == 0);
  CHECK(off.out == exact.out);
  if (amx_prefill()) CHECK(on.out != exact.out);
  else CHECK(on.out == exact.out);
  test::check_one_line_error(test::run_tfx("pe --len 2 --dim 4", {}, "TFX_AMX=maybe"), 2, "TFX_AMX: expected on or off, got 'maybe'");
}
