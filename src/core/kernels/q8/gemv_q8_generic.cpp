// The integer dot products of --activations q8 (gemv_q8.inc) for generic: plain C++, the reference the others equal bit for bit
// and -ffp-contract=off (CMakeLists.txt); gemm.cpp picks it at run time.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "q8_activations.hpp"
#include "tfx/core/stored.hpp"

namespace tfx::gemm_kernels {
namespace q8_generic {
namespace {

inline float widen_f16_q8(std::uint16_t h) { return widen_f16(h); }
#include "gemv_q8.inc"
}  // namespace
}  // namespace q8_generic

void q8_rows_generic(const Q8Row* a, std::size_t m, const void* w, QType type, std::size_t row_bytes, std::size_t k, float* c,
                std::size_t ldc, std::size_t j0, std::size_t j1) {
  q8_generic::q8_rows_impl(a, m, w, type, row_bytes, k, c, ldc, j0, j1);
}

}  // namespace tfx::gemm_kernels
