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

// How a product of a few activation rows (decoding) with GGUF-quantized weights (Q8_0, Q4_K,
// Q6_K) is computed, process-wide (`--activations`): f32, the default, is the float forward on the
// dequantized weights, bit for bit; q8 is llama.cpp's arithmetic: the activation row quantized to
// 8 bits (Q8_0 blocks of 32, Q8_K blocks of 256) and integer dot products, block by block
// (src/core/kernels/q8/q8_activations.hpp) — faster, and the outputs differ slightly. A prefill
// (more than 4 rows) in q8 takes whole-block integer sums in AMX tiles for Q8_0, Q4_0 and Q5_0
// weights on a CPU with AMX-INT8, as llama.cpp's AMX build does; elsewhere, and for the other
// types, a prefill stays float.
enum class QuantActivations { f32, q8 };
void set_quant_activations(QuantActivations a);
QuantActivations quant_activations();
// The integer kernel q8 uses with the GEMM kernel chosen now: "vnni" (AVX-512 VNNI), "avx2", "generic".
std::string q8_kernel();
// Whether q8 may use AMX tiles where the CPU has them (default true; TFX_AMX=off: the results of a
// CPU without AMX, e.g. to compare machines, or llama.cpp's build without AMX).
void set_amx(bool allowed);

}  // namespace tfx
