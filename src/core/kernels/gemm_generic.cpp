// The GEMM kernel for the build's baseline instruction set (SSE2 on a default x86-64 build, NEON on
// aarch64, all of -march=native with TFX_NATIVE): runs on every CPU the program runs on.
#include <cstddef>
#include <cstring>
#include <new>

#include "gemm_kernels.hpp"

namespace tfx::gemm_kernels {
namespace generic_kernel {
namespace {
#include "gemm_kernel.inc"
}  // namespace
}  // namespace generic_kernel

const Kernel generic = {"generic", generic_kernel::MR, generic_kernel::NR, &generic_kernel::gemm_small, &generic_kernel::gemm_skinny,
                     &generic_kernel::gemm_blocked, &quant_rows_generic, &quant_dequant_generic,
                     &generic_kernel::gemm_quant_blocked};

}  // namespace tfx::gemm_kernels

