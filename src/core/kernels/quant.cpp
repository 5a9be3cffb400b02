// GGUF's quantized blocks (stored.hpp) → float32, block by block, as llama.cpp's Python reference
// (gguf-py's quants.py, dequantize_blocks) computes them: every product is one float32 rounding
// and nothing is fused (this file is built with -ffp-contract=off, CMakeLists.txt), so the values
// equal the reference's bit for bit (tests/core/quant_test.cpp against
// tests/reference/gen_gguf_reference.py's constants).
//
// Block layouts (little-endian; d, dmin: IEEE binary16):
//   Q8_0  34 B, 32 values:  d, q[32] int8                      x = q·d
//   Q4_0  18 B, 32 values:  d, qs[16]: low nibbles are values 0…15, high nibbles 16…31
//                                                              x = (q − 8)·d
//   Q4_1  20 B, 32 values:  d, m, qs[16] (Q4_0's order)         x = d·q + m
//   Q5_0  22 B, 32 values:  d, qh (uint32: bit j the fifth bit of value j), qs[16] (Q4_0's order)
//                                                              x = (q − 16)·d
//   Q5_1  24 B, 32 values:  d, m, qh, qs[16]                   x = d·q + m
//   Q4_K 144 B, 256 values: d, dmin, scales[12] (8 six-bit scales sc and mins m), qs[128]:
//         value 64c + 32h + l is nibble h of qs[32c + l]       x = (d·sc)·q − dmin·m
//   Q5_K 176 B, 256 values: Q4_K's d, dmin, scales, then qh[32], qs[128]: the fifth bit of
//         value 32j + l is bit j of qh[l]                      x = (d·sc)·q − dmin·m
//   Q6_K 210 B, 256 values: ql[128], qh[64], scales[16] int8, d: value 128h + 32s + l has low
//         nibble (ql[64h + l + 32(s&1)] >> 4(s>>1)), high bits (qh[32h + l] >> 2s) & 3
//                                                              x = (d·scale)·(q − 32), scale per 16
#include <cstdint>
#include <cstring>

#include "tfx/core/stored.hpp"

namespace tfx {

namespace {

float half(const unsigned char* p) { return widen_f16(static_cast<std::uint16_t>(p[0] | (p[1] << 8))); }

// Q4_K / Q5_K: the scale and min of sub-block j (0 … 7) from the 12 packed bytes
void scale_min_k4(const unsigned char* s, int j, int& sc, int& m) {
  if (j < 4) {
    sc = s[j] & 63;
    m = s[j + 4] & 63;
  } else {
    sc = (s[j + 4] & 0x0f) | ((s[j - 4] >> 6) << 4);
    m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  }
}

void q8_0(const unsigned char* b, float* y) {
  const float d = half(b);
  for (int i = 0; i < 32; ++i) y[i] = static_cast<float>(static_cast<std::int8_t>(b[2 + i])) * d;
}

void q4_0(const unsigned char* b, float* y) {
  const float d = half(b);
  for (int i = 0; i < 16; ++i) {
    y[i] = d * static_cast<float>((b[2 + i] & 0x0f) - 8);
    y[i + 16] = d * static_cast<float>((b[2 + i] >> 4) - 8);
  }
}

// Q4_1, Q5_0, Q5_1: nibbles as Q4_0's, the fifth bit from qh (nullptr: none); m: nullptr for
// none (then q − offset times d), else d·q + m
void q_legacy(const unsigned char* d_at, const unsigned char* m_at, const unsigned char* qh, const unsigned char* qs, int offset,
              float* y) {
  const float d = half(d_at);
  const float m = m_at ? half(m_at) : 0.0f;
  std::uint32_t h = 0;
  if (qh) h = static_cast<std::uint32_t>(qh[0] | (qh[1] << 8) | (qh[2] << 16)) | (static_cast<std::uint32_t>(qh[3]) << 24);
  for (int j = 0; j < 32; ++j) {
    int q = j < 16 ? (qs[j] & 0x0f) : (qs[j - 16] >> 4);
    if (qh) q |= static_cast<int>((h >> j) & 1u) << 4;
    if (m_at) {
      const float p = d * static_cast<float>(q);
      y[j] = p + m;
    } else {
      y[j] = d * static_cast<float>(q - offset);
    }
  }
}

// Q4_K and Q5_K share everything but the fifth bit (qh: nullptr for Q4_K)
void q45_k(const unsigned char* b, const unsigned char* qh, const unsigned char* qs, float* y) {
  const float d = half(b), dmin = half(b + 2);
  const unsigned char* scales = b + 4;
  for (int j = 0; j < 8; ++j) {
    int sc, m;
    scale_min_k4(scales, j, sc, m);
    const float dl = d * static_cast<float>(sc), ml = dmin * static_cast<float>(m);
    const unsigned char* q = qs + 32 * (j / 2);
    const int shift = 4 * (j % 2);
    for (int l = 0; l < 32; ++l) {
      int v = (q[l] >> shift) & 0x0f;
      if (qh) v |= ((qh[l] >> j) & 1) << 4;
      const float p = dl * static_cast<float>(v);
      y[32 * j + l] = p - ml;
    }
  }
}

void q6_k(const unsigned char* b, float* y) {
  const unsigned char* ql = b;
  const unsigned char* qh = b + 128;
  const unsigned char* sc = b + 192;
  const float d = half(b + 208);
  for (int e = 0; e < 256; ++e) {
    const int h = e / 128, s = (e % 128) / 32, l = e % 32;
    const int lo = (ql[64 * h + l + 32 * (s & 1)] >> (4 * (s >> 1))) & 0x0f;
    const int hi = (qh[32 * h + l] >> (2 * s)) & 3;
    const float scale = d * static_cast<float>(static_cast<std::int8_t>(sc[e / 16]));
    y[e] = scale * static_cast<float>((lo | (hi << 4)) - 32);
  }
}

}  // namespace

void dequantize(StoredType t, const void* src, float* out, std::size_t n) {
  const auto* p = static_cast<const unsigned char*>(src);
  const std::size_t block = stored_block_size(t), bytes = stored_block_bytes(t);
  for (std::size_t i = 0; i < n; i += block, p += bytes, out += block) {
    switch (t) {
      case StoredType::q8_0: q8_0(p, out); break;
      case StoredType::q4_0: q4_0(p, out); break;
      case StoredType::q4_1: q_legacy(p, p + 2, nullptr, p + 4, 0, out); break;
      case StoredType::q5_0: q_legacy(p, nullptr, p + 2, p + 6, 16, out); break;
      case StoredType::q5_1: q_legacy(p, p + 2, p + 4, p + 8, 0, out); break;
      case StoredType::q4_k: q45_k(p, nullptr, p + 16, out); break;
      case StoredType::q5_k: q45_k(p, p + 16, p + 48, out); break;
      case StoredType::q6_k: q6_k(p, out); break;
      case StoredType::f16: {
        std::uint16_t h;
        std::memcpy(&h, p, 2);
        *out = widen_f16(h);
        break;
      }
      case StoredType::bf16: {
        std::uint16_t h;
        std::memcpy(&h, p, 2);
        *out = widen_bf16(h);
        break;
      }
      case StoredType::f32: std::memcpy(out, p, 4); break;
    }
  }
}

}  // namespace tfx
