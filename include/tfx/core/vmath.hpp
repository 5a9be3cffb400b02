// Vectorized transcendental functions over arrays, through SLEEF (Debian libsleef-dev): its
// 1.0-ULP sin, cos, exp, tanh and erf in AVX-512F, AVX2 + FMA and SSE2 builds, the fastest the
// CPU has picked at run time, as the GEMM kernels are (TFX_VMATH_KERNEL=sse2|avx2|avx512 forces
// one). Tails shorter than a vector go through the same SLEEF function on a padded vector, so
// every element gets the same result whatever its position.
#pragma once
#include <cstddef>

namespace tfx::vmath {

// out[2k] = sin(x[k]), out[2k + 1] = cos(x[k]) (rounded to float), angles in double: the sine and
// cosine pairs of the sinusoidal positional encoding.
void sincos_pairs(const double* x, float* out, std::size_t n);
// x[i] = exp(x[i]), tanh(x[i]), erf(x[i]) in float.
void exp_inplace(float* x, std::size_t n);
void tanh_inplace(float* x, std::size_t n);
void erf_inplace(float* x, std::size_t n);

// "avx512", "avx2" or "sse2": the build in use.
const char* kernel_name();
// Forces a build ("avx512", "avx2", "sse2"); throws tfx::Error when the CPU lacks it.
void set_kernel(const char* name);

}  // namespace tfx::vmath
