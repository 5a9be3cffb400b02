// Raw strided GEMM for code that keeps its activations in flat buffers (the training pass,
// model/train.cpp): the same kernels as matmul, without Tensor allocations.
#pragma once
#include <cstddef>

namespace tfx {

// C[0:m, 0:n] (row stride ldc) = A·B where A(r, c) = a[r·a_rs + c·a_cs] (m × k) and
// B(r, c) = b[r·b_rs + c·b_cs] (k × n). C is written whole. `threads` as matmul's; each entry is
// computed the same way whatever the split.
void gemm_view(const float* a, std::size_t a_rs, std::size_t a_cs, const float* b, std::size_t b_rs, std::size_t b_cs,
               float* c, std::size_t ldc, std::size_t m, std::size_t n, std::size_t k, unsigned threads = 1);

}  // namespace tfx
