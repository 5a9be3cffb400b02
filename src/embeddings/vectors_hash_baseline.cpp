// XXH3 for any x86-64 / aarch64 CPU (see vectors_hash.hpp).
#include "vectors_hash.hpp"
#include "vectors_hash_kernel.inc"

namespace tfx::xxh3_kernels {
std::uint64_t baseline(const void* data, std::size_t bytes) { return XXH3_64bits(data, bytes); }
}  // namespace tfx::xxh3_kernels
