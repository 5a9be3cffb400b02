// float32 → GGUF's blocks (stored.hpp's quantize), as llama.cpp's Python reference (gguf-py's
// quants.py, quantize_blocks) computes them, bit for bit: each float32 operation rounded once,
// nothing fused (this file is built with -ffp-contract=off, CMakeLists.txt), float16 scales by
// round-to-nearest-even (numpy's astype(float16)). Checked against gguf-py's own quantize in
// tests/core/quantize_test.cpp (constants from tests/reference/gen_gguf_reference.py). The
// K-quants (Q4_K, Q5_K, Q6_K), which gguf-py cannot quantize, follow ggml's C reference instead:
// quantize_k.cpp.
//
// Per block of 32 values x (quants.py's names):
//   Q8_0  d = max|x| / 127, id = 1/d (0 when d = 0), q = round(x·id) half away from zero
//   Q4_0  m = the x of largest |x| (the first), d = m / −8, id = 1/d,
//         q = trunc(float32(double(x)·double(id) + 8.5)) clipped to 0 … 15 (the double product,
//         then one rounding to float32 before trunc: quants.py's np.trunc(…, dtype=float32))
//   Q5_0  the same with −16, 16.5, 0 … 31; the fifth bits packed into qh (bit j: value j)
//   Q4_1  d = (max − min) / 15, id = 1/d, q = trunc((x − min)·id + 0.5) clipped to 0 … 15, m = min
//   Q5_1  the same with 31, 0 … 31
//   F16   round to nearest even;  BF16  quiet NaNs, then round to nearest even on the high half
#include <cmath>
#include <cstdint>
#include <cstring>

#include "tfx/core/error.hpp"
#include "tfx/core/stored.hpp"
#include "quantize_k.hpp"

namespace tfx {

std::uint16_t narrow_f16(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));  // NaN stays a NaN
  if (abs >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds past 65504: ±Inf
  if (abs < 0x38800000u) {
    // a float16 subnormal (or 0): the value in units of 2^-24, rounded to nearest even
    if (abs < 0x33000000u) return static_cast<std::uint16_t>(sign);  // below half the smallest subnormal
    const std::uint32_t e = abs >> 23, mant = (abs & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126 - e;  // 14 + (112 − e) + 1 … value = mant · 2^(e−150), unit 2^-24
    std::uint32_t q = mant >> shift;
    const std::uint32_t rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1u))) ++q;
    return static_cast<std::uint16_t>(sign | q);
  }
  // normal: rebias the exponent (127 → 15), round the 23-bit mantissa to 10 bits (a carry may
  // move into the exponent, which is right)
  std::uint32_t h = ((abs >> 13) - (112u << 10));
  const std::uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return static_cast<std::uint16_t>(sign | h);
}

std::uint16_t narrow_bf16(float f) {
  std::uint32_t n;
  std::memcpy(&n, &f, 4);
  if ((n & 0x7fffffffu) > 0x7f800000u) n = (n & 0xffff0000u) | (64u << 16);  // force a NaN quiet
  const std::uint64_t r = (static_cast<std::uint64_t>(n) + (0x7fffu + ((n >> 16) & 1u))) >> 16;
  return static_cast<std::uint16_t>(r);
}

namespace {

void put_half(unsigned char* p, float v) {
  const std::uint16_t h = narrow_f16(v);
  p[0] = static_cast<unsigned char>(h & 0xff);
  p[1] = static_cast<unsigned char>(h >> 8);
}

// quants.py's np_roundf: half away from zero
float round_away(float v) { return std::round(v); }

void q8_0(const float* x, unsigned char* b) {
  float amax = 0;
  for (int i = 0; i < 32; ++i) amax = std::fmax(amax, std::fabs(x[i]));
  const float d = amax / 127.0f;
  const float id = d == 0 ? 0.0f : 1.0f / d;
  put_half(b, d);
  for (int i = 0; i < 32; ++i) {
    const float p = round_away(x[i] * id);
    // |p| ≤ 127 for finite weights; a NaN or infinite weight (no meaningful block) stores 0
    b[2 + i] = static_cast<unsigned char>(static_cast<std::int8_t>(std::isfinite(p) ? static_cast<int>(std::fmax(-128.0f, std::fmin(127.0f, p))) : 0));
  }
}

// Q4_0 (levels 16) and Q5_0 (levels 32): symmetric around the value of largest magnitude; returns d
float q_sym(const float* x, int levels, unsigned char* q) {
  int imax = 0;
  float amax = -1;
  for (int i = 0; i < 32; ++i)
    if (std::fabs(x[i]) > amax) amax = std::fabs(x[i]), imax = i;
  const float d = x[imax] / static_cast<float>(-levels / 2);
  const float id = d == 0 ? 0.0f : 1.0f / d;
  const double offset = levels / 2 + 0.5;
  for (int i = 0; i < 32; ++i) {
    const float v = static_cast<float>(static_cast<double>(x[i]) * static_cast<double>(id) + offset);
    float t = std::trunc(v);
    if (!(t > 0)) t = 0;  // quants.py casts to uint8 then clips; the values here are ≥ 0 anyway (NaN: 0)
    q[i] = static_cast<unsigned char>(std::fmin(t, static_cast<float>(levels - 1)));
  }
  return d;
}

// Q4_1 (levels 16) and Q5_1 (levels 32): from the block's min to its max; returns d and min
void q_affine(const float* x, int levels, unsigned char* q, float& d, float& mn) {
  float mx = x[0];
  mn = x[0];
  for (int i = 1; i < 32; ++i) mx = std::fmax(mx, x[i]), mn = std::fmin(mn, x[i]);
  d = (mx - mn) / static_cast<float>(levels - 1);
  const float id = d == 0 ? 0.0f : 1.0f / d;
  for (int i = 0; i < 32; ++i) {
    const float s = x[i] - mn;
    const float p = s * id;
    const float v = p + 0.5f;
    const float t = std::trunc(v);
    q[i] = static_cast<unsigned char>(t > 0 ? std::fmin(t, static_cast<float>(levels - 1)) : 0.0f);  // NaN: 0
  }
}

// low nibbles: values 0 … 15 in the low halves of qs[0 … 15], values 16 … 31 in the high halves
void pack_nibbles(const unsigned char* q, unsigned char* qs) {
  for (int i = 0; i < 16; ++i) qs[i] = static_cast<unsigned char>((q[i] & 0x0f) | ((q[i + 16] & 0x0f) << 4));
}
void pack_fifth_bits(const unsigned char* q, unsigned char* qh) {
  std::uint32_t h = 0;
  for (int i = 0; i < 32; ++i) h |= static_cast<std::uint32_t>((q[i] >> 4) & 1u) << i;
  for (int k = 0; k < 4; ++k) qh[k] = static_cast<unsigned char>((h >> (8 * k)) & 0xff);
}

}  // namespace

bool quantizer_available(StoredType) { return true; }

void quantize(StoredType t, const float* x, void* dst, std::size_t n) {
  auto* out = static_cast<unsigned char*>(dst);
  const std::size_t block = stored_block_size(t), bytes = stored_block_bytes(t);
  if (n % block != 0) throw Error("quantize: the value count is not a multiple of the block size");
  if (!quantizer_available(t)) throw Error(std::string("quantize: no quantizer for ") + stored_type_name(t));
  unsigned char q[32];
  for (std::size_t i = 0; i < n; i += block, x += block, out += bytes) {
    switch (t) {
      case StoredType::f32: std::memcpy(out, x, 4); break;
      case StoredType::f16: {
        const std::uint16_t h = narrow_f16(*x);
        std::memcpy(out, &h, 2);
        break;
      }
      case StoredType::bf16: {
        const std::uint16_t h = narrow_bf16(*x);
        std::memcpy(out, &h, 2);
        break;
      }
      case StoredType::q8_0: q8_0(x, out); break;
      case StoredType::q4_0:
        put_half(out, q_sym(x, 16, q));
        pack_nibbles(q, out + 2);
        break;
      case StoredType::q5_0:
        put_half(out, q_sym(x, 32, q));
        pack_fifth_bits(q, out + 2);
        pack_nibbles(q, out + 6);
        break;
      case StoredType::q4_1: {
        float d, mn;
        q_affine(x, 16, q, d, mn);
        put_half(out, d);
        put_half(out + 2, mn);
        pack_nibbles(q, out + 4);
        break;
      }
      case StoredType::q5_1: {
        float d, mn;
        q_affine(x, 32, q, d, mn);
        put_half(out, d);
        put_half(out + 2, mn);
        pack_fifth_bits(q, out + 4);
        pack_nibbles(q, out + 8);
        break;
      }
      case StoredType::q4_k: quantize_q4_k_block(x, out); break;
      case StoredType::q5_k: quantize_q5_k_block(x, out); break;
      case StoredType::q6_k: quantize_q6_k_block(x, out); break;
    }
  }
}

}  // namespace tfx
