// The integer dot products of --activations q8 (gemv_q8.inc) for vnni: AVX-512 VNNI on 256-bit vectors, built with -mavx512f -mavx512vl -mavx512bw -mavx512vnni -mavx2
// and -ffp-contract=off (CMakeLists.txt); gemm.cpp picks it at run time.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "q8_activations.hpp"
#include "tfx/core/stored.hpp"

#if defined(__x86_64__)
#include <immintrin.h>

namespace tfx::gemm_kernels {
namespace q8_vnni {
namespace {
#define Q8_SIMD 1
#define Q8_VNNI 1
inline float widen_f16_q8(std::uint16_t h) { return _cvtsh_ss(h); }  // F16C: exact, as widen_f16
#include "gemv_q8.inc"
}  // namespace
}  // namespace q8_vnni

void q8_rows_vnni(const Q8Row* a, std::size_t m, const void* w, QType type, std::size_t row_bytes, std::size_t k, float* c,
                std::size_t ldc, std::size_t j0, std::size_t j1) {
  q8_vnni::q8_rows_impl(a, m, w, type, row_bytes, k, c, ldc, j0, j1);
}

}  // namespace tfx::gemm_kernels
#endif
