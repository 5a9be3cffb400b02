// The allocation policy a command can ask for (heap_policy.hpp): glibc's thresholds for mmap and
// trimming. (Large blocks on huge pages are huge_pages.cpp's, the executable's operator new.)
#include "cli/heap_policy.hpp"

#include <malloc.h>

namespace tfx {

// Blocks up to kMmapThreshold from the heap, kept there when freed. A model's forward pass
// allocates and frees the same few-MB activations layer after layer, and glibc's default (a fresh
// mmap per block once its dynamic threshold is passed, munmap on free) made every layer fault its
// pages in again: a 128-token prefill of a 0.5 B model took 0.61 s instead of 0.43 s
// (bench/bench_generate). Only the model commands ask for it: elsewhere the kept blocks would only
// add to the peak (a 2M-word embedding load: +87 MB). The sanitizers' allocators ignore the call.
void keep_freed_blocks() {
  constexpr int kMmapThreshold = 32 << 20;
  ::mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  ::mallopt(M_TRIM_THRESHOLD, kMmapThreshold);
}

void release_freed_blocks() {
#if defined(__GLIBC__)
  ::malloc_trim(0);
#endif
}

}  // namespace tfx
