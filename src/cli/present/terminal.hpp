// What the command layer knows about the terminal: its size (ioctl, else COLUMNS/LINES, else
// 80×24) and whether escape sequences may be written to it (a terminal, TERM not "dumb",
// NO_COLOR unset). The only place that reads TERM, COLUMNS and LINES.
#pragma once
#include "tfx/core/i18n.hpp"
#include <cstdio>

#include "tfx/core/choices.hpp"

namespace tfx::cli {

// --color: when --view uses 24-bit colours.
enum class ColorWhen { always, never, automatic };
inline constexpr Choice<ColorWhen> kColorWhenChoices[] = {
    {ColorWhen::always, "always"},
    {ColorWhen::never, "never"},
    {ColorWhen::automatic, "auto", N_("when stdout is a terminal and NO_COLOR is unset")},
};

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
