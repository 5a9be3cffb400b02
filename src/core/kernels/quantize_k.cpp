// float32 → GGUF's K-quant super-blocks of 256 values (stored.hpp's quantize for Q4_K, Q5_K,
// Q6_K), as ggml's C reference computes them, bit for bit: quantize_row_q4_K_ref,
// quantize_row_q5_K_ref, quantize_row_q6_K_ref with their helpers make_qkx2_quants and
// make_qx_quants (ggml-quants.c; llama-quantize calls exactly these when no importance matrix is
// given). Every float32 operation is written in ggml's order and rounded once (this file is built
// with -ffp-contract=off, CMakeLists.txt); d and dmin are float16 (round to nearest even).
// Checked byte for byte against ggml's own C code in tests/core/quantize_test.cpp (the blocks
// from tests/reference/gen_kquant_reference.sh).
//
// Q4_K (and Q5_K with 31 levels): per sub-block j of 32 values, weights w = rms(x) + |x|, and
//   make_qkx2_quants fits x ≈ scale·L − min (L in 0 … 15, min ≥ 0) by trying 21 (Q5_K: 16)
//   scales (nmax + rmin + rdelta·is)/(max − min) and keeping the least weighted squared error
//   (each candidate's scale and min from weighted least squares). The 8 scales and mins are then
//   themselves quantized to 6 bits against the largest (d = max scale/63, dmin = max min/63) and
//   L recomputed with the stored scales: L = round((x + dmin·m)/(d·sc)).
// Q6_K: per sub-block of 16 values, make_qx_quants (rmse_type 1: weights x²) searches 19 scales
//   around −32/max for the best Σw·x·l / Σw·l², the 16 scales are quantized to int8 against the
//   largest |scale| (d = max/−128), then L = round(x/(d·sc)) + 32 in 0 … 63.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "tfx/core/stored.hpp"
#include "quantize_k.hpp"

namespace tfx {

namespace {

constexpr float group_max_eps = 1e-15f;

// ggml's nearest_int: round half to even through the float32 magic number 1.5·2^23 (|v| < 2^22)
int nearest_int(float v) {
  const float s = v + 12582912.f;
  std::int32_t i;
  std::memcpy(&i, &s, 4);
  return (i & 0x007fffff) - 0x00400000;
}
int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

void put_half(unsigned char* p, float v) {
  const std::uint16_t h = narrow_f16(v);
  p[0] = static_cast<unsigned char>(h & 0xff);
  p[1] = static_cast<unsigned char>(h >> 8);
}
float get_half(const unsigned char* p) { return widen_f16(static_cast<std::uint16_t>(p[0] | (p[1] << 8))); }

// x ≈ scale·L + min over n values (L in 0 … nmax, min ≤ 0), returns scale and −min
float make_qkx2_quants(int n, int nmax, const float* x, const float* weights, unsigned char* L, float* the_min, unsigned char* Laux,
                       float rmin, float rdelta, int nstep) {
  float min = x[0], max = x[0];
  float sum_w = weights[0];
  float sum_x = sum_w * x[0];
  for (int i = 1; i < n; ++i) {
    if (x[i] < min) min = x[i];
    if (x[i] > max) max = x[i];
    const float w = weights[i];
    sum_w += w;
    sum_x += w * x[i];
  }
  if (min > 0) min = 0;
  if (max == min) {
    for (int i = 0; i < n; ++i) L[i] = 0;
    *the_min = -min;
    return 0.f;
  }
  float iscale = static_cast<float>(nmax) / (max - min);
  float scale = 1 / iscale;
  float best_error = 0;
  for (int i = 0; i < n; ++i) {
    const int l = nearest_int(iscale * (x[i] - min));
    L[i] = static_cast<unsigned char>(clampi(l, 0, nmax));
    float diff = scale * static_cast<float>(L[i]) + min - x[i];
    diff = diff * diff;
    best_error += weights[i] * diff;
  }
  for (int is = 0; is <= nstep; ++is) {
    iscale = (rmin + rdelta * static_cast<float>(is) + static_cast<float>(nmax)) / (max - min);
    float sum_l = 0, sum_l2 = 0, sum_xl = 0;
    for (int i = 0; i < n; ++i) {
      const int l = clampi(nearest_int(iscale * (x[i] - min)), 0, nmax);
      Laux[i] = static_cast<unsigned char>(l);
      const float w = weights[i], fl = static_cast<float>(l);
      sum_l += w * fl;
      sum_l2 += w * fl * fl;
      sum_xl += w * fl * x[i];
    }
    const float D = sum_w * sum_l2 - sum_l * sum_l;
    if (D > 0) {
      float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
      float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
      if (this_min > 0) {
        this_min = 0;
        this_scale = sum_xl / sum_l2;
      }
      float cur_error = 0;
      for (int i = 0; i < n; ++i) {
        float diff = this_scale * static_cast<float>(Laux[i]) + this_min - x[i];
        diff = diff * diff;
        cur_error += weights[i] * diff;
      }
      if (cur_error < best_error) {
        for (int i = 0; i < n; ++i) L[i] = Laux[i];
        best_error = cur_error;
        scale = this_scale;
        min = this_min;
      }
    }
  }
  *the_min = -min;
  return scale;
}

// make_qx_quants with rmse_type 1 and no importance weights: x ≈ scale·(L − nmax), L in 0 … 2·nmax − 1
float make_qx_quants(int n, int nmax, const float* x, std::int8_t* L) {
  float max = 0, amax = 0;
  for (int i = 0; i < n; ++i) {
    const float ax = std::fabs(x[i]);
    if (ax > amax) amax = ax, max = x[i];
  }
  if (amax < group_max_eps) {
    for (int i = 0; i < n; ++i) L[i] = 0;
    return 0.f;
  }
  const float fnmax = static_cast<float>(nmax);
  float iscale = -fnmax / max;
  float sumlx = 0, suml2 = 0;
  for (int i = 0; i < n; ++i) {
    const int l = clampi(nearest_int(iscale * x[i]), -nmax, nmax - 1);
    L[i] = static_cast<std::int8_t>(l + nmax);
    const float w = x[i] * x[i], fl = static_cast<float>(l);
    sumlx += w * x[i] * fl;
    suml2 += w * fl * fl;
  }
  float scale = suml2 != 0 ? sumlx / suml2 : 0.0f;
  float best = scale * sumlx;
  for (int is = -9; is <= 9; ++is) {
    if (is == 0) continue;
    iscale = -(fnmax + 0.1f * static_cast<float>(is)) / max;
    sumlx = suml2 = 0;
    for (int i = 0; i < n; ++i) {
      const int l = clampi(nearest_int(iscale * x[i]), -nmax, nmax - 1);
      const float w = x[i] * x[i], fl = static_cast<float>(l);
      sumlx += w * x[i] * fl;
      suml2 += w * fl * fl;
    }
    if (suml2 > 0 && sumlx * sumlx > best * suml2) {
      for (int i = 0; i < n; ++i) L[i] = static_cast<std::int8_t>(nmax + clampi(nearest_int(iscale * x[i]), -nmax, nmax - 1));
      scale = sumlx / suml2;
      best = scale * sumlx;
    }
  }
  return scale;
}

// the 6-bit scale and min of sub-block j from the 12 packed bytes
void get_scale_min_k4(int j, const unsigned char* q, unsigned char& d, unsigned char& m) {
  if (j < 4) {
    d = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    d = static_cast<unsigned char>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    m = static_cast<unsigned char>((q[j + 4] >> 4) | ((q[j - 0] >> 6) << 4));
  }
}

// Q4_K (nmax 15) and Q5_K (nmax 31) share everything up to the packing: d, dmin, the 12 scale
// bytes at `block` (d at 0, dmin at 2, scales at 4), the levels into L
void k_scales_and_levels(const float* x, int nmax, unsigned char* block, unsigned char* L) {
  unsigned char Laux[32];
  float weights[32], mins[8], scales[8];
  float max_scale = 0, max_min = 0;  // the min is deducted: scales are positive
  const float rmin = nmax == 15 ? -1.f : -0.5f;
  const int nstep = nmax == 15 ? 20 : 15;
  for (int j = 0; j < 8; ++j) {
    float sum_x2 = 0;
    for (int l = 0; l < 32; ++l) sum_x2 += x[32 * j + l] * x[32 * j + l];
    const float av_x = std::sqrt(sum_x2 / 32);
    for (int l = 0; l < 32; ++l) weights[l] = av_x + std::fabs(x[32 * j + l]);
    scales[j] = make_qkx2_quants(32, nmax, x + 32 * j, weights, L + 32 * j, &mins[j], Laux, rmin, 0.1f, nstep);
    if (scales[j] > max_scale) max_scale = scales[j];
    if (mins[j] > max_min) max_min = mins[j];
  }
  const float inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
  const float inv_min = max_min > 0 ? 63.f / max_min : 0.f;
  unsigned char* sc = block + 4;
  for (int j = 0; j < 8; ++j) {
    unsigned char ls = static_cast<unsigned char>(nearest_int(inv_scale * scales[j]));
    unsigned char lm = static_cast<unsigned char>(nearest_int(inv_min * mins[j]));
    if (ls > 63) ls = 63;
    if (lm > 63) lm = 63;
    if (j < 4) {
      sc[j] = ls;
      sc[j + 4] = lm;
    } else {
      sc[j + 4] = static_cast<unsigned char>((ls & 0xF) | ((lm & 0xF) << 4));
      sc[j - 4] = static_cast<unsigned char>(sc[j - 4] | ((ls >> 4) << 6));
      sc[j - 0] = static_cast<unsigned char>(sc[j - 0] | ((lm >> 4) << 6));
    }
  }
  put_half(block, max_scale / 63.f);
  put_half(block + 2, max_min / 63.f);
  // the levels again, with the scales as stored
  for (int j = 0; j < 8; ++j) {
    unsigned char s, m;
    get_scale_min_k4(j, sc, s, m);
    const float d = get_half(block) * static_cast<float>(s);
    if (d == 0) continue;
    const float dm = get_half(block + 2) * static_cast<float>(m);
    for (int ii = 0; ii < 32; ++ii) L[32 * j + ii] = static_cast<unsigned char>(clampi(nearest_int((x[32 * j + ii] + dm) / d), 0, nmax));
  }
}

}  // namespace

// block: d, dmin (f16), scales[12], qs[128] (value j+l low nibble, j+l+32 high nibble of qs[j/2+l])
void quantize_q4_k_block(const float* x, unsigned char* block) {
  unsigned char L[256];
  std::memset(block, 0, 144);
  k_scales_and_levels(x, 15, block, L);
  unsigned char* q = block + 16;
  for (int j = 0; j < 256; j += 64, q += 32)
    for (int l = 0; l < 32; ++l) q[l] = static_cast<unsigned char>(L[j + l] | (L[j + l + 32] << 4));
}

// block: d, dmin (f16), scales[12], qh[32] (the fifth bits), qs[128] (the low nibbles as Q4_K)
void quantize_q5_k_block(const float* x, unsigned char* block) {
  unsigned char L[256];
  std::memset(block, 0, 176);
  k_scales_and_levels(x, 31, block, L);
  unsigned char* qh = block + 16;
  unsigned char* ql = block + 48;
  unsigned m1 = 1, m2 = 2;
  for (int n = 0; n < 256; n += 64, ql += 32, m1 <<= 2, m2 <<= 2) {
    for (int j = 0; j < 32; ++j) {
      int l1 = L[n + j], l2 = L[n + j + 32];
      if (l1 > 15) l1 -= 16, qh[j] = static_cast<unsigned char>(qh[j] | m1);
      if (l2 > 15) l2 -= 16, qh[j] = static_cast<unsigned char>(qh[j] | m2);
      ql[j] = static_cast<unsigned char>(l1 | (l2 << 4));
    }
  }
}

// block: ql[128] (low 4 bits), qh[64] (high 2 bits), scales[16] (int8), d (f16)
void quantize_q6_k_block(const float* x, unsigned char* block) {
  std::int8_t L[256];
  float scales[16];
  float max_scale = 0, max_abs_scale = 0;
  for (int ib = 0; ib < 16; ++ib) {
    const float scale = make_qx_quants(16, 32, x + 16 * ib, L + 16 * ib);
    scales[ib] = scale;
    const float abs_scale = std::fabs(scale);
    if (abs_scale > max_abs_scale) max_abs_scale = abs_scale, max_scale = scale;
  }
  std::memset(block, 0, 210);
  if (max_abs_scale < group_max_eps) {
    put_half(block + 208, 0.f);
    return;
  }
  auto* sc = reinterpret_cast<std::int8_t*>(block + 192);
  const float iscale = -128.f / max_scale;
  put_half(block + 208, 1 / iscale);
  for (int ib = 0; ib < 16; ++ib) {
    const int v = nearest_int(iscale * scales[ib]);
    sc[ib] = static_cast<std::int8_t>(v < 127 ? v : 127);
  }
  for (int j = 0; j < 16; ++j) {
    const float d = get_half(block + 208) * static_cast<float>(sc[j]);
    if (d == 0) continue;
    for (int ii = 0; ii < 16; ++ii) L[16 * j + ii] = static_cast<std::int8_t>(clampi(nearest_int(x[16 * j + ii] / d), -32, 31) + 32);
  }
  unsigned char* ql = block;
  unsigned char* qh = block + 128;
  for (int j = 0; j < 256; j += 128, ql += 64, qh += 32) {
    for (int l = 0; l < 32; ++l) {
      const unsigned q1 = static_cast<unsigned>(L[j + l + 0]) & 0xF, q2 = static_cast<unsigned>(L[j + l + 32]) & 0xF;
      const unsigned q3 = static_cast<unsigned>(L[j + l + 64]) & 0xF, q4 = static_cast<unsigned>(L[j + l + 96]) & 0xF;
      ql[l + 0] = static_cast<unsigned char>(q1 | (q3 << 4));
      ql[l + 32] = static_cast<unsigned char>(q2 | (q4 << 4));
      qh[l] = static_cast<unsigned char>(((L[j + l] >> 4) & 3) | (((L[j + l + 32] >> 4) & 3) << 2) | (((L[j + l + 64] >> 4) & 3) << 4) |
                                         (((L[j + l + 96] >> 4) & 3) << 6));
    }
  }
}

}  // namespace tfx
