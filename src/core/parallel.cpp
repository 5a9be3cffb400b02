// The library's persistent worker threads (parallel.hpp): started on the first parallel call and
// kept, so a call costs a wake-up instead of a thread start and join. A worker that finishes a
// share spins briefly for the next call (a GEMM issues calls microseconds apart), then sleeps on
// a condition variable. The workers are never joined: they sleep when idle and end with the
// process. After fork() the child has none of them and starts its own.
//
// One atomic word holds the call's number, its share count and the next share to claim, so a
// worker that arrives late for one call can never take a share of the next.
#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "parallel.hpp"

namespace tfx::detail {

namespace {

thread_local bool on_worker = false;

inline void pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

constexpr int kSpins = 20000;  // ~50 µs of pause instructions before sleeping

struct Workers {
  std::mutex busy;  // held by the call being run
  std::mutex mu;    // for the condition variables
  std::condition_variable wake, done;
  // call number (bits 32–63) | share count (16–31) | next share to claim (0–15)
  std::atomic<std::uint64_t> state{0};
  void (*job)(void*, unsigned, unsigned) = nullptr;
  void* ctx = nullptr;
  std::atomic<unsigned> left{0};  // shares 1 … T−1 not finished
  unsigned started = 0;           // threads running

  static std::uint32_t call_of(std::uint64_t s) { return static_cast<std::uint32_t>(s >> 32); }

  // Claims and runs shares of call `call` until none is left.
  void claim_all(std::uint32_t call) {
    std::uint64_t s = state.load(std::memory_order_acquire);
    for (;;) {
      const unsigned shares = (s >> 16) & 0xFFFF, t = s & 0xFFFF;
      if (call_of(s) != call || t >= shares) return;
      if (!state.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
      job(ctx, t, shares);
      if (left.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard lock(mu);
        done.notify_all();
      }
      s = state.load(std::memory_order_acquire);
    }
  }

  void loop(std::uint32_t seen) {
    on_worker = true;
    for (;;) {
      for (int i = 0; i < kSpins && call_of(state.load(std::memory_order_acquire)) == seen; ++i) pause();
      if (call_of(state.load(std::memory_order_acquire)) == seen) {
        std::unique_lock lock(mu);
        wake.wait(lock, [&] { return call_of(state.load(std::memory_order_acquire)) != seen; });
      }
      seen = call_of(state.load(std::memory_order_acquire));
      claim_all(seen);
    }
  }
};

// set in a forked child (pthread_atfork), which has none of the parent's threads: it starts its
// own Workers (a flag, not getpid() on every call: that is a system call, ~100 a decoded token)
std::atomic<bool> forked{false};

Workers* workers() {
  static Workers* w = [] {
    pthread_atfork(nullptr, nullptr, [] { forked.store(true, std::memory_order_relaxed); });
    return new Workers;  // never destroyed: its threads outlive main()
  }();
  if (forked.load(std::memory_order_relaxed) && forked.exchange(false, std::memory_order_relaxed)) w = new Workers;
  return w;
}

}  // namespace

bool run_on_workers(unsigned T, void (*job)(void*, unsigned, unsigned), void* ctx) {
  if (on_worker || T > 0xFFFF) return false;
  Workers& w = *workers();
  std::unique_lock call(w.busy, std::try_to_lock);
  if (!call.owns_lock()) return false;
  const std::uint32_t previous = Workers::call_of(w.state.load(std::memory_order_acquire));
  try {
    for (; w.started < T - 1; ++w.started) std::thread(&Workers::loop, &w, previous).detach();
  } catch (const std::system_error&) {
    if (w.started == 0) return false;  // the caller starts threads of its own (or runs all)
  }
  w.job = job;
  w.ctx = ctx;
  w.left.store(T - 1, std::memory_order_relaxed);
  const std::uint32_t now = previous + 1;
  {
    std::lock_guard lock(w.mu);
    w.state.store((std::uint64_t{now} << 32) | (std::uint64_t{T} << 16) | 1u, std::memory_order_release);
  }
  w.wake.notify_all();
  job(ctx, 0, T);
  w.claim_all(now);  // shares no worker has taken yet (fewer workers than shares, or slow ones)
  for (int i = 0; i < kSpins && w.left.load(std::memory_order_acquire) != 0; ++i) pause();
  if (w.left.load(std::memory_order_acquire) != 0) {
    std::unique_lock lock(w.mu);
    w.done.wait(lock, [&] { return w.left.load(std::memory_order_acquire) == 0; });
  }
  return true;
}

}  // namespace tfx::detail
