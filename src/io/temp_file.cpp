// TempFile (temp_file.hpp): unique temporaries beside a target, removed on failure and on the
// termination signals. The signal handler may only call async-signal-safe functions, so live
// temporaries are kept in a fixed table of path buffers claimed with atomics.
#include "tfx/io/temp_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {

// 256 live temporaries at once (files written together — a slide deck, a model's folder — each
// have one until the renames); 1 MB of path buffers in untouched pages until used
constexpr int kSlots = 256;
constexpr std::size_t kPathMax = 4096;
std::array<std::atomic<bool>, kSlots> slot_used{};
std::array<std::atomic<bool>, kSlots> slot_ready{};
char slot_path[kSlots][kPathMax];

int claim_slot(const std::string& path) {
  if (path.size() >= kPathMax) return -1;
  for (int i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (slot_used[i].compare_exchange_strong(expected, true)) {
      std::memcpy(slot_path[i], path.c_str(), path.size() + 1);
      slot_ready[i].store(true);
      return i;
    }
  }
  return -1;  // more than kSlots at once: still removed on every normal way out
}

void release_slot(int i) {
  if (i < 0) return;
  slot_ready[i].store(false);
  slot_used[i].store(false);
}

std::atomic<int> deferring{0};        // defer_termination_signals() is in force
std::atomic<int> deferred_signal{0};  // the signal that arrived meanwhile (0: none)

extern "C" void remove_temporaries_and_die(int sig) {
  if (deferring.load() > 0) {
    deferred_signal.store(sig);
    return;
  }
  remove_live_temporaries();
  std::signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void remove_live_temporaries() {
  for (int i = 0; i < kSlots; ++i)
    if (slot_ready[i].load()) unlink(slot_path[i]);
}

mode_t default_file_mode() {
  const mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

TempFile::TempFile(const std::string& dir, const std::string& prefix, const std::string& suffix, const std::string& what) {
  const std::string base = (dir.empty() ? std::string(".") : dir) + "/" + prefix;
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  static std::atomic<std::uint64_t> counter{0};
  std::uint64_t seed = std::random_device{}() ^ (static_cast<std::uint64_t>(getpid()) << 32) ^ counter.fetch_add(0x9e3779b97f4a7c15);
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name = base;
    for (int i = 0; i < 6; ++i, seed = seed * 6364136223846793005ull + 1442695040888963407ull)
      name += kChars[(seed >> 33) % (sizeof kChars - 1)];
    name += suffix;
    // the name is on the signal-time cleanup list before the file exists, so a signal delivered
    // to any thread at any moment finds it; O_CREAT | O_EXCL never opens an existing name (a
    // planted symlink included)
    const int slot = claim_slot(name);
    const int fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
      fd_ = fd;
      path_ = name;
      slot_ = slot;
      return;
    }
    const int err = errno;
    release_slot(slot);
    if (err != EEXIST)
      throw Error(fmt::format(N_("{}: cannot write: {} (a temporary file in {})"), what, std::strerror(err), dir.empty() ? "." : dir));
  }
  throw Error(fmt::format(N_("{}: cannot write: no free temporary name in {}"), what, dir.empty() ? "." : dir));
}

TempFile::~TempFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) unlink(path_.c_str());
  release_slot(slot_);
}

bool TempFile::write_all(const char* bytes, std::size_t n) {
  while (n) {
    const ssize_t w = ::write(fd_, bytes, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    bytes += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

bool TempFile::close_fd() {
  const int fd = fd_;
  fd_ = -1;
  return fd < 0 || ::close(fd) == 0;
}

void TempFile::renamed() {
  committed_ = true;
  release_slot(slot_);
  slot_ = -1;
}

void TempFile::commit(const std::string& target, mode_t mode, const std::string& what) {
  bool ok = fd_ < 0 || fchmod(fd_, mode) == 0;
  int err = errno;
  if (!close_fd() && ok) ok = false, err = errno;
  if (ok && std::rename(path_.c_str(), target.c_str()) != 0) ok = false, err = errno;
  if (!ok) {
    unlink(path_.c_str());
    committed_ = true;  // nothing left to remove
    release_slot(slot_);
    slot_ = -1;
    throw Error(fmt::format(N_("{} {}: cannot write: {}"), what, target, std::strerror(err)));
  }
  committed_ = true;
  release_slot(slot_);
  slot_ = -1;
}

void defer_termination_signals() { deferring.fetch_add(1); }

void resume_termination_signals() {
  if (deferring.fetch_sub(1) != 1) return;
  if (const int sig = deferred_signal.exchange(0)) remove_temporaries_and_die(sig);
}

void install_temp_file_cleanup() {
  struct sigaction sa {};
  sa.sa_handler = remove_temporaries_and_die;
  sigemptyset(&sa.sa_mask);
  // every signal whose default action ends the process and that a handler may catch (SIGBUS has
  // its own handler; SIGSEGV/SIGABRT/SIGILL/SIGFPE/SIGTRAP are bugs, left to the sanitizers): a
  // file-size limit (SIGXFSZ) or CPU limit (SIGXCPU), Ctrl-backslash (SIGQUIT), an alarm or a stray SIGUSR1 during
  // a write leaves no .tfx-*.tmp behind either
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ, SIGXCPU, SIGALRM, SIGVTALRM, SIGPROF, SIGUSR1, SIGUSR2,
                  SIGPOLL, SIGSYS}) {
    struct sigaction old {};
    sigaction(sig, nullptr, &old);
    // `nohup tfx …` keeps ignoring SIGHUP, and a handler someone else installed first (a host
    // program, libFuzzer's -timeout alarm) stays theirs: only default actions are replaced
    if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;
    sigaction(sig, &sa, nullptr);
  }
}

}  // namespace tfx
