// The command layer's progress bar: draws the library's Progress reports (progress.hpp) on
// stderr as one tqdm-like line, only when stderr is a terminal, first after a short delay (quick
// steps stay silent), at most ten times a second, and erases it when the step ends.
#pragma once
#include <chrono>
#include <string>
#include <utility>

#include "tfx/core/progress.hpp"

namespace tfx::cli {

class ProgressBar {
 public:
  // When the clock (elapsed time, rate, the delay before the first draw) starts: when the bar is
  // made, or with its first report — for a step that another step's bar shows first.
  enum class Clock { at_construction, at_first_report };
  // label: what the step is ("loading glove.txt"); unit: "B" for bytes or a plural noun.
  // enabled = false (e.g. --no-progress) draws nothing.
  ProgressBar(std::string label, std::string unit, bool enabled = true, Clock clock = Clock::at_construction);
  ~ProgressBar();  // erases the line (also when the step threw)
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // The callback to hand to the library; valid while this bar lives. Empty when disabled, so
  // the library skips the calls.
  Progress callback();
  void update(std::size_t done, std::size_t total);
  // Replaces the label (e.g. with the latest loss); drawn with the next update.
  void set_label(std::string label) { state_.label = std::move(label); }
  // Erases the line now.
  void finish();

 private:
  ProgressState state_;
  bool enabled_;
  bool drawn_ = false;
  bool reported_ = false;
  Clock clock_;
  std::size_t drawn_width_ = 0;
  std::chrono::steady_clock::time_point start_, last_draw_{};
  double delay_;  // seconds before the first draw
};

}  // namespace tfx::cli
