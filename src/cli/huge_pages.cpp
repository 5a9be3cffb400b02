// Large allocations on transparent huge pages, as numpy does for its arrays (it madvises
// MADV_HUGEPAGE for every buffer of 4 MB or more). tfx's big steps fill fresh buffers — a
// 4096×4096 PE·PEᵀ is 64 MB, 16,384 page faults of 4 KB — and on a virtual machine each fault is
// expensive: `pe sim --len 4096 --dim 512 -o s.npy` spent 0.4 of its 0.7 s in the kernel. With
// 2 MB pages the same run takes about a third of the time (docs/bench.md).
//
// The replaceable global operator new (C++ [new.delete]) of the tfx executable only: blocks of
// kHugeThreshold bytes or more are allocated 2 MB-aligned and advised MADV_HUGEPAGE (honoured when
// /sys/kernel/mm/transparent_hugepage/enabled is "madvise" or "always"; a no-op otherwise);
// smaller ones come from malloc as before. Everything is released with free(), which both paths
// allow. Left out under the sanitizers, whose own operator new checks new/delete pairs.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TFX_SANITIZED 1
#endif
#endif
#if !defined(__SANITIZE_ADDRESS__) && !defined(TFX_SANITIZED)
#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kHugeThreshold = kHugePage;  // the GEMM's 2 MB packing panels included

void* allocate(std::size_t n, std::size_t align = 0) {
  if (n >= kHugeThreshold && align <= kHugePage) {
    // 2 MB-aligned, not rounded up: the last, partial 2 MB of the block stays on small pages
    // (the mapping ends inside it), so a tensor's resident size stays its own size
    if (void* p = std::aligned_alloc(kHugePage, n)) {
      ::madvise(p, n, MADV_HUGEPAGE);
      return p;
    }
    throw std::bad_alloc();
  }
  void* p = nullptr;
  if (align > alignof(std::max_align_t)) {
    // aligned_alloc wants a size that is a multiple of the alignment
    p = std::aligned_alloc(align, (n + align - 1) / align * align);
  } else {
    p = std::malloc(n == 0 ? 1 : n);
  }
  if (p) return p;
  throw std::bad_alloc();
}

}  // namespace

void* operator new(std::size_t n) { return allocate(n); }
void* operator new[](std::size_t n) { return allocate(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return allocate(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void* operator new(std::size_t n, std::align_val_t a) { return allocate(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return allocate(n, static_cast<std::size_t>(a)); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
#endif

