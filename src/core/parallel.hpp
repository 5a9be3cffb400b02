// Private to the library: the one way it runs work on several threads. parallel_for_threads
// runs shares 1 … T−1 on persistent worker threads (parallel.cpp) and share 0 on the caller;
// worker_threads and hardware_threads say how many to use. Used by the matmul kernel, the
// embedding loaders and queries, and the analogy evaluation.
#pragma once
#include <algorithm>
#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace tfx {

// All hardware threads (at least 1): what `threads = 0` means in the library's options. Asked
// once: glibc answers std::thread::hardware_concurrency() by opening and reading
// /sys/devices/system/cpu/online each time, and a decoding step asks for every product (~100 times
// a token on Qwen2.5-0.5B: strace -c -e openat bench_generate, ~1 ms of a 23 ms step).
inline unsigned hardware_threads() {
  static const unsigned n = std::max(1u, std::thread::hardware_concurrency());
  return n;
}

// Worker threads for a job of `work` units: 1 when small (< 2^20), else all hardware threads
// (at most 8).
inline unsigned worker_threads(std::size_t work) {
  if (work < (1u << 20)) return 1;
  return std::min(hardware_threads(), 8u);
}

namespace detail {
// The library's persistent workers (parallel.cpp): runs job(ctx, t, T) for t = 1 … T−1 on
// threads kept from one call to the next (starting a thread costs tens of microseconds, as much as
// a 256×256 product on one core), while the caller runs t = 0; returns when all are done. False
// (nothing run) when the workers are busy with another call or this is one of them (a nested
// call), or when no thread can be started: the caller then starts threads of its own.
bool run_on_workers(unsigned T, void (*job)(void*, unsigned, unsigned), void* ctx);
}  // namespace detail

// Runs f(t, T) for t = 0 … T−1, share 0 on the calling thread and the others on the library's
// persistent worker threads (or, when those are busy, on threads of their own); returns when all
// are done and rethrows the first exception (in share order). A share whose thread cannot be
// started (no more threads to be had) is run by the caller.
template <class F>
void parallel_for_threads(unsigned T, F&& f) {
  if (T <= 1) {
    f(0u, 1u);
    return;
  }
  std::vector<std::exception_ptr> errors(T);
  auto run = [&](unsigned t) {
    try {
      f(t, T);
    } catch (...) {
      errors[t] = std::current_exception();
    }
  };
  auto job = [](void* ctx, unsigned t, unsigned) { (*static_cast<decltype(run)*>(ctx))(t); };
  if (!detail::run_on_workers(T, job, &run)) {
    std::vector<std::thread> pool;
    unsigned started = 1;
    try {
      for (; started < T; ++started) pool.emplace_back(run, started);
    } catch (const std::system_error&) {
    }
    for (unsigned t = started; t < T; ++t) run(t);
    run(0);
    for (auto& th : pool) th.join();
  }
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace tfx
