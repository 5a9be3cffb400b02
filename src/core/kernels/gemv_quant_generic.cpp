// The fused dequantize-and-dot kernel (gemv_quant.inc) for the build's baseline instruction set,
// built with -ffp-contract=off (CMakeLists.txt): the values equal quant.cpp's bit for bit.
#include <cstddef>
#include <cstdint>
#include <cstring>
#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

#include "gemm_kernels.hpp"

namespace tfx::gemm_kernels {
namespace generic_quant {
namespace {
#include "gemv_quant.inc"
}  // namespace
}  // namespace generic_quant

void quant_rows_generic(const float* a, std::size_t lda, std::size_t m, const void* w, QType type, std::size_t row_bytes,
                        std::size_t k, float* c, std::size_t ldc, std::size_t j0, std::size_t j1) {
  generic_quant::quant_rows_impl(a, lda, m, w, type, row_bytes, k, c, ldc, j0, j1);
}

void quant_dequant_generic(const void* w, QType type, float* out, std::size_t n) {
  generic_quant::quant_dequant_impl(w, type, out, n);
}

}  // namespace tfx::gemm_kernels
