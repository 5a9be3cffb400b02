// --format png/svg (or -o FILE.png/.svg) makes the figure the output: it must be the same figure
// --png draws, not an empty one (pe sim once built its heatmap only for --png/--view).
#include "helpers.hpp"
#include "xml_check.hpp"
#include "png.hpp"

using namespace tfx::test;

TEST_CASE("figure output: pe and pe sim --format png -o draw the same picture as --png") {
  for (const std::string cmd : {"pe --len 8 --dim 8", "pe sim --len 8 --dim 8", "pe sim --len 8 --dim 8 --profile"}) {
    CAPTURE(cmd);
    TempDir dir;
    REQUIRE(run_tfx(cmd + " --format png -o a.png", dir.path).code == 0);
    REQUIRE(run_tfx(cmd + " --png b.png", dir.path).code == 0);
    const std::string a = read_file(dir / "a.png"), b = read_file(dir / "b.png");
    const Decoded da = decode_png(a), db = decode_png(b);
    CHECK(da.w == db.w);
    CHECK(da.h == db.h);
    CHECK(a == b);  // deterministic: one figure, byte for byte
    CHECK(da.w > 400);  // a heatmap with its colorbar, not the 320-px "(empty figure)"
  }
}

TEST_CASE("figure output: pe sim -o x.svg holds the heatmap's cells with their values") {
  TempDir dir;
  REQUIRE(run_tfx("pe sim --len 4 --dim 4 -o s.svg", dir.path).code == 0);
  const std::string svg = read_file(dir / "s.svg");
  CHECK(svg_problem(svg) == "");
  CHECK(has(svg, "<rect"));
  CHECK(has(svg, "<title>"));
  CHECK_FALSE(has(svg, "empty figure"));
}
