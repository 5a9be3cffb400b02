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

constexpr int kMappings = 32;
constexpr std::size_t kPathMax = 1024;
struct Mapping {
  std::atomic<bool> used{false}, ready{false};
  std::uintptr_t begin = 0, end = 0;
  char path[kPathMax];
};
std::array<Mapping, kMappings> mappings;
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
  for (Mapping& m : mappings) {
    if (m.ready.load() && at >= m.begin && at < m.end) {
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
  for (int i = 0; i < kMappings; ++i) {
    bool expected = false;
    if (mappings[i].used.compare_exchange_strong(expected, true)) {
      Mapping& m = mappings[i];
      m.begin = reinterpret_cast<std::uintptr_t>(addr);
      m.end = m.begin + bytes;
      const std::size_t n = std::min(path.size(), kPathMax - 1);
      std::memcpy(m.path, path.data(), n);
      m.path[n] = '\0';
      m.ready.store(true);
      return i;
    }
  }
  return -1;
}

void unwatch_mapping(int handle) {
  if (handle < 0 || handle >= kMappings) return;
  mappings[handle].ready.store(false);
  mappings[handle].used.store(false);
}

void install_sigbus_handler() {
  struct sigaction sa {};
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGBUS, &sa, nullptr);
}

}  // namespace tfx
