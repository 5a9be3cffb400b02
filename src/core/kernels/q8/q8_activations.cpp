// The activation side of --activations q8 (q8_activations.hpp): llama.cpp's reference
// quantize_row_q8_0 / quantize_row_q8_K, built with -ffp-contract=off (the same float steps).
#include "q8_activations.hpp"

#include <algorithm>
#include <cmath>

#include "tfx/core/stored.hpp"

namespace tfx::gemm_kernels {

void quantize_q8_0(const float* x, std::size_t k, std::int8_t* q, float* d) {
  for (std::size_t b = 0; b < k / 32; ++b) {
    const float* v = x + b * 32;
    float amax = 0.0f;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(v[j]));
    const float db = amax / 127.0f;
    const float id = db != 0.0f ? 1.0f / db : 0.0f;
    d[b] = widen_f16(narrow_f16(db));
    for (int j = 0; j < 32; ++j) {
      const float x0 = v[j] * id;
      // roundf (half away from zero), inline: |x0| ≤ 127.0…, so the truncation t is exact and so is
      // x0 − t (Sterbenz: t ≤ x0 < 2t for |x0| ≥ 1); the libm call was 0.7 % of a decoding step
      const int t = static_cast<int>(x0);
      const float frac = x0 - static_cast<float>(t);
      q[b * 32 + j] = static_cast<std::int8_t>(t + (frac >= 0.5f ? 1 : frac <= -0.5f ? -1 : 0));
    }
  }
}

void quantize_q8_k(const float* x, std::size_t k, std::int8_t* q, float* d, std::int16_t* bsums) {
  for (std::size_t b = 0; b < k / 256; ++b) {
    const float* v = x + b * 256;
    std::int8_t* qb = q + b * 256;
    float max = 0.0f, amax = 0.0f;
    for (int j = 0; j < 256; ++j) {
      const float ax = std::fabs(v[j]);
      if (ax > amax) {
        amax = ax;
        max = v[j];
      }
    }
    if (amax == 0.0f) {
      d[b] = 0.0f;
      for (int j = 0; j < 256; ++j) qb[j] = 0;
      for (int j = 0; j < 16; ++j) bsums[b * 16 + j] = 0;
      continue;
    }
    const float iscale = -127.0f / max;
    for (int j = 0; j < 256; ++j) {
      const float p = iscale * v[j];
      const auto n = static_cast<long>(std::nearbyint(p));  // nearest_int: ties to even
      qb[j] = static_cast<std::int8_t>(std::min<long>(127, n));
    }
    for (int j = 0; j < 16; ++j) {
      int sum = 0;
      for (int i = 0; i < 16; ++i) sum += qb[j * 16 + i];
      bsums[b * 16 + j] = static_cast<std::int16_t>(sum);
    }
    d[b] = 1.0f / iscale;
  }
}

bool q8_supported(QType type) {
  return type == QType::q8_0 || type == QType::q4_0 || type == QType::q5_0 || type == QType::q4_k || type == QType::q6_k;
}

}  // namespace tfx::gemm_kernels
