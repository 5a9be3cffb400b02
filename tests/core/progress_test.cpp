// Progress reporting: the library's ProgressTicker, the tqdm-like line (rate, ETA, fitted to the
// width) and the CLI's bar on stderr (drawn only on a terminal, erased when the step ends).
#include <doctest/doctest.h>

#include "helpers.hpp"
#include "pty.hpp"
#include "tfx/core/progress.hpp"
#include "tfx/core/text_width.hpp"

using namespace tfx;
using namespace tfx::test;

TEST_CASE("progress: the ticker forwards about `steps` calls and always the last one") {
  std::vector<std::size_t> seen;
  Progress p = [&](std::size_t done, std::size_t total) {
    CHECK(total == 10000);
    seen.push_back(done);
  };
  ProgressTicker tick(p, 10000, 100);
  for (std::size_t i = 0; i <= 10000; ++i) tick(i);
  CHECK(seen.size() >= 100);
  CHECK(seen.size() <= 102);
  CHECK(seen.front() == 0);
  CHECK(seen.back() == 10000);
  ProgressTicker silent(Progress{}, 5);  // no callback: nothing to call
  silent(5);
}

TEST_CASE("progress: the line shows percent, bar, counts, elapsed<remaining and rate") {
  ProgressState s{"analogies", "questions", 250, 1000, 5.0};
  // 250 done in 5 s: 50 questions/s, 750 left: 15 s
  const std::string line = progress_line(s, 120, false);
  CAPTURE(line);
  CHECK(line.rfind("analogies:  25%|##########..............................| 250/1000 questions [00:05<00:15, 50 questions/s]", 0) == 0);
  CHECK(display_width(line) <= 120);
  // bytes are scaled: 2.1 GB of 5 GB in 8 s = 262.5 MB/s, 2.9 GB left ≈ 11 s
  ProgressState b{"loading glove.txt", "B", 2100000000, 5000000000, 8.0};
  const std::string lb = progress_line(b, 120, true);
  CAPTURE(lb);
  CHECK(has(lb, " 42%|"));
  CHECK(has(lb, "2.10 GB/5.00 GB [00:08<00:11, 262.50 MB/s]"));
  CHECK(has(lb, "█"));
  // narrow terminals drop the bar, then shorten the label; never wider than asked
  for (int w : {20, 40, 60, 79}) CHECK(display_width(progress_line(b, w, true)) <= static_cast<std::size_t>(w));
  CHECK(has(progress_line(b, 60, true), "2.10 GB/5.00 GB"));
  // unknown total: counts and rate only
  ProgressState u{"reading", "B", 3000000, 0, 2.0};
  CHECK(progress_line(u, 80, true) == "reading: 3.00 MB [00:02, 1.50 MB/s]");
}

TEST_CASE("progress: durations read like tqdm's") {
  CHECK(format_duration(0) == "00:00");
  CHECK(format_duration(8.4) == "00:08");
  CHECK(format_duration(62) == "01:02");
  CHECK(format_duration(3723) == "1:02:03");
  CHECK(format_duration(-1) == "?");
}

TEST_CASE("cli: a long step draws a bar on a terminal's stderr and erases it; nothing when stderr is not a terminal") {
  const std::vector<std::string> args{"pe", "sim", "--len", "300000", "--dim", "8", "--view"};
  PtyRun r = run_in_pty(args, 80, 24, {"TFX_PROGRESS_DELAY=0"}, true, true);
  if (!r.ok) {
    MESSAGE("no pty available; skipped");
    return;
  }
  CHECK(r.code == 0);
  CAPTURE(r.screen);
  CHECK(has(r.screen, "\rpe sim: 300000×300000 block means:"));
  CHECK(has(r.screen, "block rows ["));
  CHECK(has(r.screen, "block rows/s]"));
  // erased: the last bytes are a carriage return, blanks, a carriage return
  const std::size_t last_cr = r.screen.rfind('\r');
  REQUIRE(last_cr != std::string::npos);
  CHECK(last_cr + 1 == r.screen.size());
  const std::size_t prev_cr = r.screen.rfind('\r', last_cr - 1);
  CHECK(r.screen.substr(prev_cr + 1, last_cr - prev_cr - 1).find_first_not_of(' ') == std::string::npos);
  // every drawn line fits the terminal (79 columns: the last one is left free)
  for (std::size_t i = 0; (i = r.screen.find('\r', i)) != std::string::npos; ++i) {
    const std::size_t j = r.screen.find('\r', i + 1);
    if (j == std::string::npos) break;
    CHECK(display_width(r.screen.substr(i + 1, j - i - 1)) <= 79);
  }
  CHECK(r.screen.find('\x1b') == std::string::npos);  // no escapes: works under TERM=dumb too
  // stderr to a file: no bar
  Run plain = run_tfx("pe sim --len 300000 --dim 8 --view", {}, "TFX_PROGRESS_DELAY=0");
  CHECK(plain.code == 0);
  CHECK(plain.err.empty());
}
