// The avx512 build of vmath.hpp's functions (compiled with its instruction set, CMakeLists.txt;
// vmath.cpp calls it only where the CPU has it). The body is vmath_kernel.inc.
#if defined(__x86_64__)
#include <immintrin.h>
#include <sleef.h>

#include <algorithm>
#include <cstddef>

#include "vmath_kernels.hpp"

namespace tfx::vmath_kernels::avx512 {
#define VD __m512d
#define VF __m512
#define KD 8
#define KF 16
#define LOAD_PD _mm512_loadu_pd
#define STORE_PD _mm512_storeu_pd
#define LOAD_PS _mm512_loadu_ps
#define STORE_PS _mm512_storeu_ps
#define SINCOS Sleef_sincosd8_u10avx512f
#define EXP Sleef_expf16_u10avx512f
#define TANH Sleef_tanhf16_u10avx512f
#define ERF Sleef_erff16_u10avx512f
#include "vmath_kernel.inc"
}  // namespace tfx::vmath_kernels::avx512

#endif  // __x86_64__
