// The mapping table and SIGBUS handler of mapped_file.hpp. The handler may only use
// async-signal-safe calls: it reads the table (atomics and fixed buffers), write()s the message,
// unlinks the temporaries and _exit()s.
#include "tfx/io/mapped_file.hpp"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>

#include "tfx/io/temp_file.hpp"

namespace tfx {

namespace {

// The table is a chain of blocks of 64 entries that only grows: a block is allocated (outside any
// signal) when every entry is taken and linked with one atomic store, and never freed, so the
// handler can walk it at any moment without a lock. Any number of mappings is watched (a
// checkpoint of hundreds of shards); an entry is reused once its mapping is unwatched.
constexpr int kBlock = 64;
constexpr std::size_t kPathMax = 1024;
struct Mapping {
  std::atomic<bool> used{false}, ready{false};
  std::uintptr_t begin = 0, end = 0;
  char path[kPathMax];
};
struct Block {
  std::array<Mapping, kBlock> entries;
  std::atomic<Block*> next{nullptr};
};
Block first_block;
std::atomic_flag reporting = ATOMIC_FLAG_INIT;  // several threads may fault at once: one reports

void say(const char* s) {
  std::size_t n = std::strlen(s);
  while (n) {
    const ssize_t w = ::write(2, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<std::size_t>(w);
  }
}

extern "C" void on_sigbus(int sig, siginfo_t* info, void*) {
  const auto at = reinterpret_cast<std::uintptr_t>(info ? info->si_addr : nullptr);
  for (Block* b = &first_block; b; b = b->next.load(std::memory_order_acquire)) {
    for (Mapping& m : b->entries) {
      if (!m.ready.load(std::memory_order_acquire) || at < m.begin || at >= m.end) continue;
      if (reporting.test_and_set())
        for (;;) pause();  // another thread is reporting and will _exit the process
      remove_live_temporaries();
      say("tfx: error: ");
      say(m.path);
      say(": the file changed while reading (truncated by another program?); nothing was written\n");
      _exit(1);
    }
  }
  // not one of ours: the default action
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

int watch_mapping(const void* addr, std::size_t bytes, const std::string& path) {
  // the handle is block number · kBlock + entry
  int index = 0;
  for (Block* b = &first_block;; b = b->next.load(std::memory_order_acquire), index += kBlock) {
    for (int i = 0; i < kBlock; ++i) {
      bool expected = false;
      if (b->entries[i].used.compare_exchange_strong(expected, true)) {
        Mapping& m = b->entries[i];
        m.begin = reinterpret_cast<std::uintptr_t>(addr);
        m.end = m.begin + bytes;
        const std::size_t n = std::min(path.size(), kPathMax - 1);
        std::memcpy(m.path, path.data(), n);
        m.path[n] = '\0';
        m.ready.store(true, std::memory_order_release);
        return index + i;
      }
    }
    // every entry of this block taken: the next block, added when there is none yet (a thread
    // that loses the race frees its own and walks on into the winner's)
    if (!b->next.load(std::memory_order_acquire)) {
      Block* fresh = new Block;
      Block* none = nullptr;
      if (!b->next.compare_exchange_strong(none, fresh, std::memory_order_acq_rel)) delete fresh;
    }
  }
}

void unwatch_mapping(int handle) {
  if (handle < 0) return;
  Block* b = &first_block;
  for (int k = handle / kBlock; k > 0 && b; --k) b = b->next.load(std::memory_order_acquire);
  if (!b) return;
  Mapping& m = b->entries[static_cast<std::size_t>(handle % kBlock)];
  m.ready.store(false, std::memory_order_release);
  m.used.store(false);
}

void install_sigbus_handler() {
  struct sigaction sa {};
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGBUS, &sa, nullptr);
}

}  // namespace tfx
