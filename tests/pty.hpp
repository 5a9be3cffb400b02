// Runs the built tfx under a pseudo-terminal of a given size (forkpty), so tests see what a user
// sees: stdout (and optionally stderr) is a terminal whose TIOCGWINSZ is COLUMNS×LINES.
#pragma once
#include <pty.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "helpers.hpp"

namespace tfx::test {

struct PtyRun {
  int code = -1;
  std::string screen;  // what the terminal received (stdout, and stderr when it went there too)
  std::string err;     // stderr when it went to a file
  bool ok = false;     // a pty could be opened
};

// args: tfx's arguments; env: "NAME=value" entries set in the child (TERM defaults to xterm-256color,
// COLUMNS/LINES unset so the size comes from the pty); stderr_to_pty: stderr goes to the terminal
// too (else to a file, returned in err); stdout_to_null: stdout goes to /dev/null instead.
inline PtyRun run_in_pty(const std::vector<std::string>& args, int columns, int lines,
                         const std::vector<std::string>& env = {}, bool stderr_to_pty = false,
                         bool stdout_to_null = false) {
  PtyRun r;
  TempDir io;
  const std::string err_path = (io / "err").string();
  winsize ws{};
  ws.ws_col = static_cast<unsigned short>(columns);
  ws.ws_row = static_cast<unsigned short>(lines);
  termios tio{};
  cfmakeraw(&tio);  // no "\n" -> "\r\n" translation: the bytes tfx wrote
  int master = -1;
  const pid_t child = forkpty(&master, nullptr, &tio, &ws);
  if (child < 0) return r;
  if (child == 0) {
    unsetenv("COLUMNS");
    unsetenv("LINES");
    unsetenv("NO_COLOR");
    setenv("TERM", "xterm-256color", 1);
    for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
    if (!stderr_to_pty) std::freopen(err_path.c_str(), "w", stderr);
    if (stdout_to_null) std::freopen("/dev/null", "w", stdout);
    std::vector<char*> argv{const_cast<char*>("tfx")};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(TFX_BINARY, argv.data());
    _exit(127);
  }
  r.ok = true;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(master, buf, sizeof buf);
    if (n > 0) r.screen.append(buf, static_cast<std::size_t>(n));
    else if (n < 0 && errno == EINTR) continue;
    else break;  // EIO: the child closed the terminal
  }
  int status = 0;
  waitpid(child, &status, 0);
  close(master);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (!stderr_to_pty) r.err = read_file(io / "err");
  return r;
}

// The lines of s (split at '\n'; a final '\n' ends the last line).
inline std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::string line;
  for (char c : s) {
    if (c == '\n') {
      out.push_back(line);
      line.clear();
    } else {
      line += c;
    }
  }
  if (!line.empty()) out.push_back(line);
  return out;
}

}  // namespace tfx::test
