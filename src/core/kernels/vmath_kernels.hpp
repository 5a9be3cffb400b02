// The builds of vmath.hpp's functions, one file per instruction set (vmath_sse2.cpp,
// vmath_avx2.cpp, vmath_avx512.cpp); vmath.cpp picks one at run time.
#pragma once
#include <cstddef>

namespace tfx::vmath_kernels {
#define TFX_VMATH_DECLARE(ISA)                                        \
  namespace ISA {                                                     \
  void sincos_pairs(const double* x, float* out, std::size_t n);      \
  void exp_inplace(float* x, std::size_t n);                          \
  void tanh_inplace(float* x, std::size_t n);                         \
  void erf_inplace(float* x, std::size_t n);                          \
  }
TFX_VMATH_DECLARE(sse2)
TFX_VMATH_DECLARE(avx2)
TFX_VMATH_DECLARE(avx512)
#undef TFX_VMATH_DECLARE
}  // namespace tfx::vmath_kernels
