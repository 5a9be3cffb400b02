// --view uses the terminal's width: a matrix wider than the terminal shows as many whole columns
// (whole sin/cos pairs) as fit, evenly spaced from the first to the last, not every s-th one
// when that would leave much of the width empty (tfx pe --len 50 --dim 128 at 120 columns showed
// 64 columns: every other pair).
#include <doctest/doctest.h>

#include "helpers.hpp"
#include "pty.hpp"
#include "tfx/figure/figure.hpp"
#include "tfx/positional/positional.hpp"
#include "tfx/core/text_width.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

// The grid lines of an ASCII view: a row label (digits, right-aligned in `gutter` columns), a
// space, then the cells.
std::vector<std::string> grid_cells(const std::string& view, std::size_t gutter) {
  std::vector<std::string> cells;
  for (const auto& l : split_lines(view)) {
    if (l.size() <= gutter || l[gutter - 1] != ' ' || l[gutter - 2] < '0' || l[gutter - 2] > '9') continue;
    cells.push_back(l.substr(gutter));
  }
  return cells;
}

}  // namespace

TEST_CASE("view width: pe --len 50 --dim 128 in 120 columns shows 58 whole pairs in 116 columns, first and last") {
  Heatmap h;
  h.values = sinusoidal_encoding(50, 128);
  h.vmin = -1.0, h.vmax = 1.0;
  h.cmap = Colormap::diverging;
  h.col_group = 2;
  h.x_label = "embedding dimension i";
  ViewOptions v;
  v.width = 120, v.height = 40, v.color = false;
  const std::string view = render_view(h, v);
  CAPTURE(view);
  const auto cells = grid_cells(view, 3);  // labels 0…49: two digits and a space
  REQUIRE(cells.size() >= 10);
  // 120 − 3 label columns = 117: 58 pairs, one column each
  for (const auto& row : cells) CHECK(row.size() == 116);
  CHECK(has(view, "116 of 128: 58 of 64 pairs, evenly spaced"));
  // row 0 is sin 0 = 0, cos 0 = 1 in every pair: '+' (the ramp's middle) then '@' (+1), whole pairs
  for (std::size_t x = 0; x + 1 < cells[0].size(); x += 2) {
    CHECK(cells[0][x] == '+');
    CHECK(cells[0][x + 1] == '@');
  }
  // the last pair (dimensions 126, 127) is shown: a matrix that is 1 only there ends in "@@"
  Heatmap last;
  last.values = Tensor({50, 128});
  for (std::size_t i = 0; i < 50; ++i) last.values(i, 126) = last.values(i, 127) = 1.0f;
  last.col_group = 2;
  const auto last_cells = grid_cells(render_view(last, v), 3);
  REQUIRE(!last_cells.empty());
  CHECK(last_cells[0].size() == 116);
  CHECK(last_cells[0].find('@') == 114);
}

TEST_CASE("view width: a stride that fills the width is kept; square matrices show the same rows and columns") {
  // 200 columns in 118 (4 rows: a 1-digit label and a space): every other column (100) would leave
  // 18 empty, 15 % — evenly spaced fills it
  Tensor wide({4, 200});
  for (std::size_t j = 0; j < 200; ++j)
    for (std::size_t i = 0; i < 4; ++i) wide(i, j) = static_cast<float>(j);
  Heatmap h;
  h.values = wide;
  ViewOptions v;
  v.width = 120, v.height = 40, v.color = false;
  std::string view = render_view(h, v);
  CHECK(has(view, "118 of 200, evenly spaced"));
  // 200 columns in 100 (+ 2 label columns): every other column fills all of it
  v.width = 102;
  view = render_view(h, v);
  CHECK(has(view, "100 of 200: every other"));
  // a square similarity: the same positions down and across, so the diagonal stays the diagonal
  Heatmap sq;
  sq.values = Tensor({50, 50});
  for (std::size_t i = 0; i < 50; ++i) sq.values(i, i) = 1.0f;
  v.width = 120, v.height = 24;
  view = render_view(sq, v);
  CAPTURE(view);
  const auto cells = grid_cells(view, 3);
  REQUIRE(!cells.empty());
  // every shown row has its diagonal cell at the column of the same index: one '@' per row, and
  // they step right by one shown column (cw characters) per row
  std::size_t prev = std::string::npos;
  for (const auto& row : cells) {
    const std::size_t at = row.find('@');
    REQUIRE(at != std::string::npos);
    if (prev != std::string::npos) CHECK(at > prev);
    prev = at;
  }
}

TEST_CASE("view width: tfx pe --view in a 120×40 terminal uses the width") {
  PtyRun r = run_in_pty({"pe", "--len", "50", "--dim", "128", "--view"}, 120, 40, {"TERM=dumb"});
  if (!r.ok) return;
  CAPTURE(r.screen);
  std::size_t widest = 0;
  for (const auto& l : split_lines(r.screen)) {
    CHECK(display_width(l) <= 120);
    widest = std::max(widest, display_width(l));
  }
  CHECK(widest >= 110);
  CHECK(has(r.screen, "58 of 64 pairs"));
}
