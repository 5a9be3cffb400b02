// The GEMM kernel for AVX-512F (x86-64 CPUs since Skylake-X and Zen 4), built with -mavx512f -mfma
// (CMakeLists.txt); matmul.cpp only calls it when the CPU and the OS support it.
#include <cstddef>
#include <cstring>
#include <new>

#include "gemm_kernels.hpp"

#if defined(__x86_64__)
#if !defined(__AVX512F__) || !defined(__FMA__)
#error "matmul_avx512.cpp must be built with -mavx512f -mfma (see CMakeLists.txt)"
#endif
namespace tfx::gemm_kernels {
namespace avx512_kernel {
namespace {
#include "gemm_kernel.inc"
}  // namespace
}  // namespace avx512_kernel

const Kernel avx512 = {"avx512", avx512_kernel::MR, avx512_kernel::NR, &avx512_kernel::gemm_small, &avx512_kernel::gemm_skinny,
                     &avx512_kernel::gemm_blocked, &quant_rows_avx512, &quant_dequant_avx512,
                     &avx512_kernel::gemm_quant_blocked};

}  // namespace tfx::gemm_kernels
#endif
