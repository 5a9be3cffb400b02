// The GEMM kernel for AVX2 + FMA (x86-64 CPUs since Haswell and Zen), built with -mavx2 -mfma
// (CMakeLists.txt); matmul.cpp only calls it when the CPU has both.
#include <cstddef>
#include <cstring>
#include <new>

#include "gemm_kernels.hpp"

#if defined(__x86_64__)
#if !defined(__AVX2__) || !defined(__FMA__) || defined(__AVX512F__)
#error "matmul_avx2.cpp must be built with -mavx2 -mfma -mno-avx512f (see CMakeLists.txt)"
#endif
namespace tfx::gemm_kernels {
namespace avx2_kernel {
namespace {
#include "gemm_kernel.inc"
}  // namespace
}  // namespace avx2_kernel

const Kernel avx2 = {"avx2", avx2_kernel::MR, avx2_kernel::NR, &avx2_kernel::gemm_small, &avx2_kernel::gemm_skinny,
                     &avx2_kernel::gemm_blocked, &quant_rows_avx2, &quant_dequant_avx2,
                     &avx2_kernel::gemm_quant_blocked};

}  // namespace tfx::gemm_kernels
#endif
