// Terminal size and capabilities (terminal.hpp).
#include "cli/present/terminal.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace tfx::cli {

namespace {
int env_int(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return 0;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return *end == '\0' && n > 0 && n < 100000 ? static_cast<int>(n) : 0;
}
}  // namespace

bool is_terminal(std::FILE* stream) { return isatty(fileno(stream)) != 0; }

TerminalSize terminal_size(std::FILE* stream) {
  TerminalSize t;
  winsize ws{};
  const bool tty = is_terminal(stream) && ioctl(fileno(stream), TIOCGWINSZ, &ws) == 0;
  if (tty && ws.ws_col > 0) t.columns = ws.ws_col;
  else if (int c = env_int("COLUMNS")) t.columns = c;
  if (tty && ws.ws_row > 0) t.lines = ws.ws_row;
  else if (int l = env_int("LINES")) t.lines = l;
  return t;
}

bool dumb_terminal() {
  const char* term = std::getenv("TERM");
  return term && std::strcmp(term, "dumb") == 0;
}

bool escapes_allowed(std::FILE* stream) {
  const char* no = std::getenv("NO_COLOR");
  return is_terminal(stream) && !dumb_terminal() && !(no && *no);
}

}  // namespace tfx::cli
