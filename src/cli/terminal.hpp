// What the command layer knows about the terminal: its size (ioctl, else COLUMNS/LINES, else
// 80×24) and whether escape sequences may be written to it (a terminal, TERM not "dumb",
// NO_COLOR unset). The only place that reads TERM, COLUMNS and LINES.
#pragma once
#include <cstdio>

namespace tfx::cli {

struct TerminalSize {
  int columns = 80;
  int lines = 24;
};

// The size of the terminal on `stream`: the kernel's (TIOCGWINSZ) when it is a terminal, else
// $COLUMNS / $LINES, else 80×24 — each dimension on its own.
TerminalSize terminal_size(std::FILE* stream);

// True when `stream` is a terminal.
bool is_terminal(std::FILE* stream);

// True when TERM is "dumb" (a terminal that understands no escape sequences).
bool dumb_terminal();

// Colors and other escape sequences on `stream`: a terminal, TERM is not "dumb", NO_COLOR unset.
bool escapes_allowed(std::FILE* stream);

}  // namespace tfx::cli
