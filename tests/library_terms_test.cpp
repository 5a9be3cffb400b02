// The library speaks its own terms: notes in tables and terminal views name library options
// (`full`, encode_png) unless the caller names them otherwise; the CLI puts its flags there.
#include <string>

#include "helpers.hpp"
#include "tfx/figure.hpp"
#include "tfx/format.hpp"

using namespace tfx;
using namespace tfx::test;

TEST_CASE("library notes: a summarized table names `full`, the CLI names --full") {
  Result r;
  r.command = "test";
  Matrix m;
  m.name = "big";
  m.values = Tensor({30, 20});  // more than 24 rows and 12 columns: summarized
  r.blocks.push_back(m);
  OutputOptions o;
  const std::string lib = encode_table(r, o);
  CHECK(lib.find("; full prints all)") != std::string::npos);
  CHECK(lib.find("--") == std::string::npos);
  o.full_name = "--full";
  CHECK(encode_table(r, o).find("; --full prints all)") != std::string::npos);
  o.full = true;
  CHECK(encode_table(r, o).find("prints all") == std::string::npos);  // nothing elided

  const Run cli = run_tfx("pe --len 30 --dim 20", {}, "-u COLUMNS NO_COLOR=1");
  CHECK(cli.code == 0);
  CHECK(cli.out.find("(… = not shown: 16 of 30 rows, 10 of 20 columns shown; --full prints all)") != std::string::npos);
}

TEST_CASE("library notes: a view without heatmaps names encode_png, or the caller's word for it") {
  Figure f;
  LineChart line;
  line.series.push_back(Series{"a", {0, 1}, {0, 1}});
  f.panels.push_back(line);
  ViewOptions v{100, false};
  CHECK(render_view(f, v).find("(no heatmap to draw in the terminal; use encode_png for this figure)") != std::string::npos);
  v.whole_figure = "--png";
  CHECK(render_view(f, v).find("use --png for this figure") != std::string::npos);
}
