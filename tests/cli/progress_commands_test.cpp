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

TEST_CASE("progress: a first load of a big text file shows its row count pass, then its parse, each bar with its own clock") {
  // The rows are counted in a pass of their own before they are parsed: for a big file that is
  // not in the page cache, that pass is the disk read, so it has its own bar.
  TempDir t;
  write_glove(t / "big.txt", 32000, 50);  // ~12 MB: several 4 MiB windows
  // the file's size as the bar shows it ("12.58 MB")
  const double mb = static_cast<double>(std::filesystem::file_size(t / "big.txt")) / 1e6;
  char size[32];
  std::snprintf(size, sizeof size, "/%.2f MB [", mb);
  for (const char* lang : {"en", "ko"}) {
    CAPTURE(lang);
    const std::string xdg = "XDG_CACHE_HOME=" + (t / lang).string();
    PtyRun r = run_in_pty({"embeddings", "info", (t / "big.txt").string(), "--lang", lang}, 100, 24,
                          {"TFX_PROGRESS_DELAY=0", xdg}, true, true);
    if (!r.ok) {
      std::cout << "TFX-SKIP: no pseudo-terminal available\n";
      return;
    }
    const std::string counting = std::string(lang) == "en" ? "\rcounting the rows of big.txt" : "\rbig.txt의 행 세는 중";
    const std::string loading = std::string(lang) == "en" ? "\rloading big.txt" : "\rbig.txt 로드 중";
    CAPTURE(r.screen.substr(0, 3000));
    CHECK(r.code == 0);
    const std::size_t c = r.screen.find(counting), l = r.screen.find(loading);
    REQUIRE(c != std::string::npos);
    REQUIRE(l != std::string::npos);
    CHECK(c < l);
    CHECK(r.screen.find(counting, l) == std::string::npos);  // counted once, before the parse
    CHECK(has(r.screen, size));  // bytes of the file
    CHECK(r.screen.substr(r.screen.size() - 2) == " \r");  // the last bar erased
  }
}
