// The fused dequantize-and-dot kernel (gemv_quant.inc) for AVX-512F, built with -mavx512f -mavx2 -mfma -mf16c
// -ffp-contract=off (CMakeLists.txt); gemm.cpp only calls it with gemm_avx512.cpp's kernel.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "gemm_kernels.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#if !defined(__AVX512F__) || !defined(__FMA__) || !defined(__F16C__)
#error "gemv_quant_avx512.cpp must be built with -mavx512f -mavx2 -mfma -mf16c (see CMakeLists.txt)"
#endif
namespace tfx::gemm_kernels {
namespace avx512_quant {
namespace {
#include "gemv_quant.inc"
}  // namespace
}  // namespace avx512_quant

void quant_rows_avx512(const float* a, std::size_t lda, std::size_t m, const void* w, QType type, std::size_t row_bytes,
                     std::size_t k, float* c, std::size_t ldc, std::size_t j0, std::size_t j1) {
  avx512_quant::quant_rows_impl(a, lda, m, w, type, row_bytes, k, c, ldc, j0, j1);
}

void quant_dequant_avx512(const void* w, QType type, float* out, std::size_t n) {
  avx512_quant::quant_dequant_impl(w, type, out, n);
}

}  // namespace tfx::gemm_kernels
#endif
