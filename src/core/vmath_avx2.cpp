// The avx2 build of vmath.hpp's functions (compiled with its instruction set, CMakeLists.txt).
#if defined(__x86_64__)
#include <immintrin.h>
#include <sleef.h>

#include <algorithm>
#include <cstddef>

#include "vmath_kernels.hpp"

namespace tfx::vmath_kernels::avx2 {

namespace {
constexpr std::size_t kD = 4, kF = 8;
}

void sincos_pairs(const double* x, float* out, std::size_t n) {
  alignas(64) double pad[kD] = {}, s[kD], c[kD];
  for (std::size_t i = 0; i < n; i += kD) {
    const std::size_t m = std::min(kD, n - i);
    const double* src = x + i;
    if (m < kD) {  // the tail through the same function, padded
      std::copy(src, src + m, pad);
      src = pad;
    }
    const auto r = Sleef_sincosd4_u10avx2(_mm256_loadu_pd(src));
    _mm256_storeu_pd(s, r.x);
    _mm256_storeu_pd(c, r.y);
    for (std::size_t k = 0; k < m; ++k) {
      out[2 * (i + k)] = static_cast<float>(s[k]);
      out[2 * (i + k) + 1] = static_cast<float>(c[k]);
    }
  }
}

#define TFX_VMATH_MAP(NAME, FN)                                      \
  void NAME(float* x, std::size_t n) {                               \
    std::size_t i = 0;                                               \
    for (; i + kF <= n; i += kF) _mm256_storeu_ps(x + i, FN(_mm256_loadu_ps(x + i)));         \
    if (i < n) {                                                     \
      alignas(64) float pad[kF] = {};                                \
      std::copy(x + i, x + n, pad);                                  \
      _mm256_storeu_ps(pad, FN(_mm256_loadu_ps(pad)));                                        \
      std::copy(pad, pad + (n - i), x + i);                          \
    }                                                                \
  }
TFX_VMATH_MAP(exp_inplace, Sleef_expf8_u10avx2)
TFX_VMATH_MAP(tanh_inplace, Sleef_tanhf8_u10avx2)
TFX_VMATH_MAP(erf_inplace, Sleef_erff8_u10avx2)

}  // namespace tfx::vmath_kernels::avx2

#endif  // __x86_64__
