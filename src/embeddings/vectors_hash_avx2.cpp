// XXH3 built with -mavx2 (CMakeLists.txt), used only where the CPU has AVX2 (see vectors_hash.hpp).
#include "vectors_hash.hpp"
#include "vectors_hash_kernel.inc"

namespace tfx::xxh3_kernels {
std::uint64_t avx2(const void* data, std::size_t bytes) { return XXH3_64bits(data, bytes); }
}  // namespace tfx::xxh3_kernels
