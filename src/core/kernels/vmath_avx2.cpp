// The avx2 build of vmath.hpp's functions (compiled with its instruction set, CMakeLists.txt;
// vmath.cpp calls it only where the CPU has it). The body is vmath_kernel.inc.
#if defined(__x86_64__)
#include <immintrin.h>
#include <sleef.h>

#include <algorithm>
#include <cstddef>

#include "vmath_kernels.hpp"

namespace tfx::vmath_kernels::avx2 {
#define VD __m256d
#define VF __m256
#define KD 4
#define KF 8
#define LOAD_PD _mm256_loadu_pd
#define STORE_PD _mm256_storeu_pd
#define LOAD_PS _mm256_loadu_ps
#define STORE_PS _mm256_storeu_ps
#define SINCOS Sleef_sincosd4_u10avx2
#define EXP Sleef_expf8_u10avx2
#define TANH Sleef_tanhf8_u10avx2
#define ERF Sleef_erff8_u10avx2
#include "vmath_kernel.inc"
}  // namespace tfx::vmath_kernels::avx2

#endif  // __x86_64__
