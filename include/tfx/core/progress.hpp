// Progress of long steps. The library never prints: a long step (loading a big embedding file,
// evaluating an analogy set, forming a big similarity matrix) takes a Progress callback and
// calls it with (done, total) in its own units — bytes read, questions answered, rows formed;
// total 0 = not known in advance. The command layer decides whether and how to show it
// (src/cli/present/progress_bar.cpp draws a tqdm-like bar on stderr when stderr is a terminal).
#pragma once
#include <cstddef>
#include <functional>
#include <string>

namespace tfx {

// done ≤ total (when total > 0); the last call of a step has done == total.
using Progress = std::function<void(std::size_t done, std::size_t total)>;

// Forwards to a Progress at most about `steps` times per step: when done crosses the next
// 1/steps of total, and always for done == total. A loop may call it every iteration: when no
// Progress is set, or between steps, a call is one comparison.
class ProgressTicker {
 public:
  ProgressTicker(const Progress& progress, std::size_t total, std::size_t steps = 1000)
      : progress_(progress), total_(total), stride_(total / (steps ? steps : 1) + 1) {}
  void operator()(std::size_t done) {
    if (progress_ && (done >= next_ || done == total_)) {
      next_ = done + stride_;
      progress_(done, total_);
    }
  }

 private:
  // a copy, not a pointer: callers pass temporaries (`cond ? progress : Progress{}`), and a
  // pointer to one dangled — the fastText .bin segfault under a terminal
  Progress progress_;
  std::size_t total_, stride_, next_ = 0;
};

// What one line of a progress bar shows.
struct ProgressState {
  std::string label;         // "loading glove.6B.300d.txt"
  std::string unit;          // "B" (scaled: kB, MB, GB), or a plural noun: "questions", "rows"
  std::size_t done = 0;
  std::size_t total = 0;     // 0 = unknown: no percentage, bar or ETA
  double elapsed = 0;        // seconds since the step began
};

// One line like tqdm's, at most `width` display columns (the label is shortened first):
//   "loading glove.txt  42%|████▏     | 2.10/5.00 GB [00:08<00:11, 262 MB/s]"
// `unicode` = false draws the bar with '#' and '.' (TERM=dumb, non-UTF-8 terminals).
std::string progress_line(const ProgressState& s, int width, bool unicode = true);

// "00:08", "1:02:03": a duration in seconds as tqdm prints it.
std::string format_duration(double seconds);

}  // namespace tfx
