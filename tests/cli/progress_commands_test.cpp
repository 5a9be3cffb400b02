// Progress bars of the steps a user waits for besides loading and eval-analogies: tfx project's
// label placement (each label is tried against every label before it) and eval-similarity's
// vocabulary and pair scoring. On a terminal's stderr a tqdm-like line is drawn and erased;
// with stderr not a terminal nothing is written.
#include <doctest/doctest.h>

#include "helpers.hpp"
#include "pty.hpp"

using namespace tfx::test;

namespace {

// The bar was drawn (its label and unit, a rate) and erased: the screen ends in "\r   …   \r".
void check_bar(const PtyRun& r, const std::string& label, const std::string& unit) {
  CAPTURE(r.screen);
  CHECK(r.code == 0);
  CHECK(has(r.screen, "\r" + label));
  CHECK(has(r.screen, " " + unit + "/s]"));
  const std::size_t last_cr = r.screen.rfind('\r');
  REQUIRE(last_cr != std::string::npos);
  CHECK(last_cr + 1 == r.screen.size());
  const std::size_t prev_cr = r.screen.rfind('\r', last_cr - 1);
  REQUIRE(prev_cr != std::string::npos);
  CHECK(r.screen.substr(prev_cr + 1, last_cr - prev_cr - 1).find_first_not_of(' ') == std::string::npos);
}

}  // namespace

TEST_CASE("progress: tfx project draws a bar while it places the labels, and none when stderr is a file") {
  TempDir t;
  const std::string png = (t / "p.png").string();
  PtyRun r = run_in_pty({"project", "king", "queen", "man", "woman", "prince", "princess", "--png", png}, 80, 24,
                        {"TFX_PROGRESS_DELAY=0"}, true, true);
  if (!r.ok) {
    MESSAGE("no pty available; skipped");
    return;
  }
  check_bar(r, "project: placing labels", "labels");
  CHECK(std::filesystem::file_size(png) > 1000);
  const Run plain = run_tfx("project king queen man woman --png " + shell_quote((t / "q.png").string()), {}, "TFX_PROGRESS_DELAY=0");
  CHECK(plain.code == 0);
  CHECK(plain.err.empty());
}

TEST_CASE("progress: tfx eval-similarity draws a bar over the vocabulary and the pairs; --no-progress none") {
  TempDir t;
  const std::string pairs = (t / "pairs.tsv").string();
  write_file(pairs, "king\tqueen\t8.5\nman\twoman\t8.3\ndog\tcat\t7.4\ncar\tking\t1.2\n");
  PtyRun r = run_in_pty({"eval-similarity", pairs}, 80, 24, {"TFX_PROGRESS_DELAY=0"}, true, true);
  if (!r.ok) {
    MESSAGE("no pty available; skipped");
    return;
  }
  check_bar(r, "eval-similarity: ", "words+pairs");  // 518 words keyed, then 4 pairs
  PtyRun quiet = run_in_pty({"eval-similarity", pairs, "--no-progress"}, 80, 24, {"TFX_PROGRESS_DELAY=0"}, true, true);
  CAPTURE(quiet.screen);
  CHECK(quiet.code == 0);
  CHECK(!has(quiet.screen, "words+pairs/s]"));
}
