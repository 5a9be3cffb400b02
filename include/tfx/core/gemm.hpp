// The choice of GEMM kernel behind matmul/matmul_bt (ops.hpp). The kernels are built once per
// instruction set and picked at run time, so one binary runs on any x86-64 and still uses the
// widest FMAs the CPU has: "avx512" (AVX-512F), "avx2" (AVX2 + FMA), "generic" (the build's
// baseline: SSE2 on x86-64, NEON on aarch64; everything -march=native allows with TFX_NATIVE).
#pragma once
#include <string>
#include <vector>

namespace tfx {

// The kernels this CPU can run, fastest first (always ending with "generic"). By default matmul
// uses the first.
std::vector<std::string> available_gemm_kernels();

// Makes matmul/matmul_bt use kernel `name` from now on, process-wide ("auto" = the fastest);
// throws a usage tfx::Error naming the available kernels when `name` is not one of them.
void set_gemm_kernel(const std::string& name);

// The kernel matmul uses now.
std::string gemm_kernel();

}  // namespace tfx
