// The sse2 build of vmath.hpp's functions (compiled with its instruction set, CMakeLists.txt;
// vmath.cpp calls it only where the CPU has it). The body is vmath_kernel.inc.
#if defined(__x86_64__)
#include <emmintrin.h>
#include <sleef.h>

#include <algorithm>
#include <cstddef>

#include "vmath_kernels.hpp"

namespace tfx::vmath_kernels::sse2 {
#define VD __m128d
#define VF __m128
#define KD 2
#define KF 4
#define LOAD_PD _mm_loadu_pd
#define STORE_PD _mm_storeu_pd
#define LOAD_PS _mm_loadu_ps
#define STORE_PS _mm_storeu_ps
#define SINCOS Sleef_sincosd2_u10sse2
#define EXP Sleef_expf4_u10sse2
#define TANH Sleef_tanhf4_u10sse2
#define ERF Sleef_erff4_u10sse2
#include "vmath_kernel.inc"
}  // namespace tfx::vmath_kernels::sse2

#endif  // __x86_64__
