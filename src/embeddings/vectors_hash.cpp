// Picks the XXH3 build for this CPU once (see vectors_hash.hpp).
#include "vectors_hash.hpp"

namespace tfx {

std::uint64_t xxh3_64(const void* data, std::size_t bytes) {
#if defined(__x86_64__) || defined(_M_X64)
  static const bool has_avx2 = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
  }();
  if (has_avx2) return xxh3_kernels::avx2(data, bytes);
#endif
  return xxh3_kernels::baseline(data, bytes);
}

}  // namespace tfx
