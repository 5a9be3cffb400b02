// Progress bar on stderr (progress_bar.hpp). Redraws with a carriage return and erases with
// spaces, so it needs no escape sequences and works under TERM=dumb too.
#include "cli/present/progress_bar.hpp"

#include <cstdio>
#include <cstdlib>

#include "cli/present/terminal.hpp"
#include "tfx/core/text_width.hpp"

namespace tfx::cli {

namespace {
// $TFX_PROGRESS_DELAY: seconds before a bar first appears (default 0.5; tests set 0).
double first_draw_delay() {
  const char* v = std::getenv("TFX_PROGRESS_DELAY");
  if (!v || !*v) return 0.5;
  char* end = nullptr;
  const double d = std::strtod(v, &end);
  return *end == '\0' && d >= 0 ? d : 0.5;
}
}  // namespace

ProgressBar::ProgressBar(std::string label, std::string unit, bool enabled, Clock clock)
    : enabled_(enabled && is_terminal(stderr)), clock_(clock), start_(std::chrono::steady_clock::now()), delay_(first_draw_delay()) {
  state_.label = std::move(label);
  state_.unit = std::move(unit);
}

ProgressBar::~ProgressBar() { finish(); }

Progress ProgressBar::callback() {
  if (!enabled_) return {};
  return [this](std::size_t done, std::size_t total) { update(done, total); };
}

void ProgressBar::update(std::size_t done, std::size_t total) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (!reported_ && clock_ == Clock::at_first_report) start_ = now;  // another step came first
  reported_ = true;
  state_.done = done;
  state_.total = total;
  state_.elapsed = std::chrono::duration<double>(now - start_).count();
  if (total > 0 && done >= total) {  // the step is over: nothing left to show
    finish();
    return;
  }
  if (state_.elapsed < delay_) return;
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  // one column less than the terminal: writing the last column makes some terminals wrap
  const int width = terminal_size(stderr).columns - 1;
  const std::string line = progress_line(state_, width, !dumb_terminal());
  const std::size_t w = display_width(line);
  const std::string pad = drawn_width_ > w ? std::string(drawn_width_ - w, ' ') : "";
  std::fprintf(stderr, "\r%s%s", line.c_str(), pad.c_str());
  std::fflush(stderr);
  drawn_ = true;
  drawn_width_ = w;
}

void ProgressBar::finish() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r%s\r", std::string(drawn_width_, ' ').c_str());
  std::fflush(stderr);
  drawn_ = false;
  drawn_width_ = 0;
}

}  // namespace tfx::cli
