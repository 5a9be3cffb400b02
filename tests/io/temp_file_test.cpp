// install_temp_file_cleanup replaces only default signal actions: a handler the host installed
// first (libFuzzer's -timeout SIGALRM handler, an embedding program's SIGUSR1) stays in place,
// and an ignored signal stays ignored (`nohup tfx …`).
#include <doctest/doctest.h>

#include <csignal>

#include "tfx/io/temp_file.hpp"

namespace {
extern "C" void host_handler(int) {}

struct SavedAction {
  int sig;
  struct sigaction old {};
  explicit SavedAction(int s) : sig(s) { sigaction(sig, nullptr, &old); }
  ~SavedAction() { sigaction(sig, &old, nullptr); }
};

void set_handler(int sig, void (*h)(int)) {
  struct sigaction sa {};
  sa.sa_handler = h;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, nullptr);
}

void (*handler_of(int sig))(int) {
  struct sigaction cur {};
  sigaction(sig, nullptr, &cur);
  return cur.sa_handler;
}
}  // namespace

TEST_CASE("install_temp_file_cleanup: a host's handler and an ignored signal are kept, a default action is replaced") {
  SavedAction alrm(SIGALRM), usr2(SIGUSR2), hup(SIGHUP);
  set_handler(SIGALRM, host_handler);
  set_handler(SIGUSR2, SIG_IGN);
  set_handler(SIGHUP, SIG_DFL);
  tfx::install_temp_file_cleanup();
  const bool host_kept = handler_of(SIGALRM) == host_handler;
  const bool ignored_kept = handler_of(SIGUSR2) == SIG_IGN;
  const bool default_replaced = handler_of(SIGHUP) != SIG_DFL && handler_of(SIGHUP) != SIG_IGN;
  CHECK(host_kept);
  CHECK(ignored_kept);
  CHECK(default_replaced);
}
