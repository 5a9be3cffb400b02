// --view under a pseudo-terminal of a given size: no line wider than the terminal, no more lines
// than its height, labels present, no escapes under TERM=dumb or NO_COLOR, every panel drawn,
// and the PE view never averages a sin column with its cos partner (the right half still
// alternates between neighbouring shown columns).
#include <doctest/doctest.h>

#include <cmath>

#include "helpers.hpp"
#include "pty.hpp"
#include "tfx/figure/figure.hpp"
#include "tfx/positional/positional.hpp"
#include "tfx/core/text_width.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

// Checks the screen fits columns × lines (one line left for the prompt) and returns its lines.
std::vector<std::string> check_fits(const PtyRun& r, int columns, int lines) {
  CAPTURE(r.screen);
  CHECK(r.code == 0);
  const auto out = split_lines(r.screen);
  CHECK(out.size() <= static_cast<std::size_t>(lines - 1));
  for (const auto& l : out) {
    CAPTURE(l);
    CHECK(display_width(l) <= static_cast<std::size_t>(columns));
  }
  return out;
}

bool has_escape(const std::string& s) { return s.find('\x1b') != std::string::npos; }

}  // namespace

TEST_CASE("view: pe, pe sim, rope, rope relative and attention fit 80×24 and 120×40") {
  const std::vector<std::vector<std::string>> commands = {
      {"pe", "--len", "50", "--dim", "128", "--view"},
      {"pe", "sim", "--len", "50", "--view"},
      {"pe", "sim", "--len", "1000", "--view"},
      {"rope", "--len", "64", "--dim", "64", "--view"},
      {"rope", "relative", "--dim", "64", "--len", "32", "--view"},
      {"attention", "--sentence", "the cat sat on the mat", "--heads", "2", "--view"},
      {"attention", "--sentence", "the cat sat on the mat", "--heads", "4", "--view"},
  };
  for (const auto& wh : {std::pair{80, 24}, std::pair{120, 40}}) {
    const int w = wh.first, h = wh.second;  // (no structured binding: CAPTURE is a lambda, clang 14)
    for (const auto& args : commands) {
      CAPTURE(w);
      CAPTURE(args[0]);
      PtyRun color = run_in_pty(args, w, h);
      if (!color.ok) {
        MESSAGE("no pty available; skipped");
        return;
      }
      check_fits(color, w, h);
      CHECK(has_escape(color.screen));
      PtyRun dumb = run_in_pty(args, w, h, {"TERM=dumb"});
      check_fits(dumb, w, h);
      CHECK(!has_escape(dumb.screen));
      PtyRun nocolor = run_in_pty(args, w, h, {"NO_COLOR=1"});
      check_fits(nocolor, w, h);
      CHECK(!has_escape(nocolor.screen));
    }
  }
}

TEST_CASE("view: every panel and the title; token labels on rows and columns") {
  PtyRun rel = run_in_pty({"rope", "relative", "--dim", "64", "--len", "16", "--view"}, 120, 40, {"TERM=dumb"});
  if (!rel.ok) return;
  CAPTURE(rel.screen);
  CHECK(has(rel.screen, "RoPE ⟨R_i q, R_j k⟩/√D"));
  CHECK(has(rel.screen, "Additive PE ⟨q + PE_i, k + PE_j⟩/√D"));
  CHECK(has(rel.screen, "Scores of fixed q, k at every (i, j)"));
  // square cells (issue 24 §11): 16 key positions drawn 2 characters each (one line per query), so
  // the constant diagonals run at 45°
  bool row0 = false;
  for (const auto& l : split_lines(rel.screen))
    if (l.rfind(" 0 ", 0) == 0) {
      const std::string grid = l.substr(3, l.find(' ', 3) - 3);
      CHECK(grid.size() == 32);
      row0 = true;
    }
  CHECK(row0);
  PtyRun att = run_in_pty({"attention", "--sentence", "the cat sat", "--heads", "2", "--view"}, 80, 24, {"TERM=dumb"});
  CAPTURE(att.screen);
  CHECK(has(att.screen, "Attention weights"));  // the figure's title
  CHECK(has(att.screen, "head 0"));
  CHECK(has(att.screen, "head 1"));
  std::size_t first = att.screen.find("head 0");
  CHECK(att.screen.find("head 0", first + 1) == std::string::npos);  // once, not twice
  // each row starts with its token; the ruler under the grid names the columns
  const auto lines = split_lines(att.screen);
  int rows_with_token = 0;
  for (const auto& l : lines)
    if (l.rfind("the ", 0) == 0 || l.rfind("cat ", 0) == 0 || l.rfind("sat ", 0) == 0) ++rows_with_token;
  CHECK(rows_with_token >= 3);
  bool ruler = false;
  for (const auto& l : lines) ruler = ruler || (has(l, "the") && has(l, "cat") && has(l, "sat") && l.find_first_not_of(' ') > 2);
  CHECK(ruler);
}

TEST_CASE("view: pe --len 50 --dim 128 in 80 columns shows whole sin/cos pairs and says which") {
  PtyRun r = run_in_pty({"pe", "--len", "50", "--dim", "128", "--view"}, 80, 24, {"TERM=dumb"});
  if (!r.ok) return;
  const auto lines = check_fits(r, 80, 24);
  CHECK(has(r.screen, "38 of 64 pairs, evenly spaced"));  // 77 columns hold 38 whole pairs
  CHECK(has(r.screen, "of 128"));
  CHECK(has(r.screen, "of 50"));
  // the library view directly: row 0 of PE is sin 0 = 0, cos 0 = 1 — with pairs kept whole,
  // neighbouring shown columns alternate '+' (0, the ramp's middle) and '@' (+1)
  Heatmap h;
  h.values = sinusoidal_encoding(50, 128);
  h.vmin = -1.0, h.vmax = 1.0;
  h.cmap = Colormap::diverging;
  h.col_group = 2;
  ViewOptions v;
  v.width = 80, v.height = 24, v.color = false;
  const auto view = split_lines(render_view(h, v));
  REQUIRE(view.size() > 3);
  const std::string row0 = view[0].substr(3);  // after the " 0 " label (indices up to 49: 2 digits)
  CAPTURE(row0);
  REQUIRE(row0.size() >= 40);
  for (std::size_t x = 0; x + 1 < row0.size(); x += 2) {
    CHECK(row0[x] == '+');
    CHECK(row0[x + 1] == '@');
  }
  // a later row: the right half (slow frequencies) still alternates sin ≈ 0 / cos ≈ 1
  const std::string row9 = view[9].substr(3);
  for (std::size_t x = row9.size() / 2; x + 1 < row9.size(); x += 2) CHECK(row9[x] != row9[x + 1]);
}

TEST_CASE("view: a matrix larger than the terminal is sampled, not averaged") {
  // columns alternate −1, +1: any average of neighbours would be 0
  Tensor t({30, 400});
  for (std::size_t i = 0; i < 30; ++i)
    for (std::size_t j = 0; j < 400; ++j) t(i, j) = j % 2 ? 1.0f : -1.0f;
  Heatmap h;
  h.values = t;
  h.vmin = -1.0, h.vmax = 1.0;
  h.col_group = 2;
  ViewOptions v;
  v.width = 60, v.height = 20, v.color = false;
  const std::string s = render_view(h, v);
  CAPTURE(s);
  // grid lines (" 0 ", " 2 ", … then cells): only the two ends of the ramp, ' ' and '@' — no
  // cell at the middle of the scale, where a mean of −1 and +1 would land
  int grid = 0;
  for (const auto& l : split_lines(s)) {
    if (l.size() < 3 || l[1] < '0' || l[1] > '9' || l[2] != ' ') continue;
    ++grid;
    CHECK(l.substr(3).find_first_not_of(" @") == std::string::npos);
  }
  CHECK(grid >= 10);
  CHECK(has(s, "of 200 pairs"));  // 28 of the 200 pairs fit 57 columns (the footer is cut at 60)
  for (const auto& l : split_lines(s)) CHECK(display_width(l) <= 60);
  CHECK(split_lines(s).size() <= 19);
}
