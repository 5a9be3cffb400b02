// The integer dot products of --activations q8 (gemv_q8.inc) for avx2, built with -mavx2 -mfma -mf16c -mno-avx512f
// and -ffp-contract=off (CMakeLists.txt); gemm.cpp picks it at run time.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "q8_activations.hpp"
#include "tfx/core/stored.hpp"

#if defined(__x86_64__)
#include <immintrin.h>

namespace tfx::gemm_kernels {
namespace q8_avx2 {
namespace {
#define Q8_SIMD 1
inline float widen_f16_q8(std::uint16_t h) { return _cvtsh_ss(h); }  // F16C: exact, as widen_f16
#include "gemv_q8.inc"
}  // namespace
}  // namespace q8_avx2

void q8_rows_avx2(const Q8Row* a, std::size_t m, const void* w, QType type, std::size_t row_bytes, std::size_t k, float* c,
                std::size_t ldc, std::size_t j0, std::size_t j1) {
  q8_avx2::q8_rows_impl(a, m, w, type, row_bytes, k, c, ldc, j0, j1);
}

}  // namespace tfx::gemm_kernels
#endif
