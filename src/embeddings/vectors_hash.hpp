// XXH3-64 of a byte range, through xxHash's own code built twice (baseline SSE2 and AVX2, picked
// at run time like the GEMM kernels): the value is the same, the AVX2 build about twice as fast,
// which the embedding cache needs to check gigabytes of vectors in a cached query's time.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tfx {

std::uint64_t xxh3_64(const void* data, std::size_t bytes);

namespace xxh3_kernels {
std::uint64_t baseline(const void* data, std::size_t bytes);
std::uint64_t avx2(const void* data, std::size_t bytes);
}  // namespace xxh3_kernels

}  // namespace tfx
