// Figure text and size: Hangul and Latin labels drawn from real fonts (two figures differing in
// one token differ in their label pixels — empty boxes would be identical), the baked font
// only when no font file is used, --font/TFX_FONT errors, and --scale growing the figure.
#include <fmt/format.h>
#include <stb_image.h>

#include <cmath>

#include "helpers.hpp"
#include "tfx/figure/figure.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

// A 3×3 heatmap with fixed values whose first row is labelled `token`.
Figure token_figure(const std::string& token) {
  Heatmap h;
  h.values = Tensor::from({3, 3}, {0.1f, 0.5f, 0.4f, 0.3f, 0.3f, 0.4f, 0.2f, 0.2f, 0.6f});
  h.row_labels = {token, "x", "y"};
  h.col_labels = {"a", "b", "c"};
  h.title = "tokens";
  Figure f;
  f.panels.push_back(h);
  return f;
}

// Pixels that differ between two images of the same size.
std::size_t differing(const Image& a, const Image& b) {
  REQUIRE(a.width == b.width);
  REQUIRE(a.height == b.height);
  std::size_t n = 0;
  for (std::size_t k = 0; k < a.rgb.size(); k += 3)
    n += a.rgb[k] != b.rgb[k] || a.rgb[k + 1] != b.rgb[k + 1] || a.rgb[k + 2] != b.rgb[k + 2];
  return n;
}

// Dark pixels (ink) in the rectangle [x0, x1) × [y0, y1).
std::size_t ink(const Image& img, int x0, int y0, int x1, int y1) {
  std::size_t n = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) n += img.at(x, y).r < 128;
  return n;
}

}  // namespace

TEST_CASE("fonts: Hangul tokens are drawn from a Hangul font, so two tokens differ in pixels") {
  const Image a = render(token_figure("학생")), b = render(token_figure("나는"));
  // the same values and layout: only the label differs (same width in Nanum, so same size)
  CHECK(differing(a, b) > 40);
  const FontStatus s = figure_font_status();
  CHECK_FALSE(s.builtin);
  bool hangul_face = false;
  for (const auto& f : s.files) hangul_face |= f.find("anum") != std::string::npos;
  CHECK(hangul_face);  // setup.sh installs fonts-nanum
  // and the token is not a box: "학생" and "학학" differ too (boxes would be two equal outlines)
  CHECK(differing(a, render(token_figure("학학"))) > 20);
}

TEST_CASE("fonts: Latin labels differ in pixels at scale 1 and at scale 2") {
  for (double scale : {1.0, 2.0}) {
    // b, d, p, q share one advance in DejaVu Sans: the same layout, different letters
    const Image a = render(token_figure("bob"), scale), b = render(token_figure("pop"), scale);
    CHECK(differing(a, b) > 5 * scale * scale);
  }
}

TEST_CASE("fonts: the figure grows with --scale (text, cells and margins together)") {
  const Image one = render(token_figure("학생"), 1.0), two = render(token_figure("학생"), 2.0), half = render(token_figure("학생"), 0.5);
  CHECK(std::abs(two.width - 2 * one.width) <= 2);
  CHECK(std::abs(two.height - 2 * one.height) <= 2);
  CHECK(std::abs(2 * half.width - one.width) <= 2);
  // the ink of the text grows too: about 4× the dark pixels over the whole image
  const double r = static_cast<double>(ink(two, 0, 0, two.width, two.height)) / static_cast<double>(ink(one, 0, 0, one.width, one.height));
  CHECK(r > 3.0);
  CHECK(r < 5.0);
  CHECK_THROWS_AS(render(token_figure("x"), 0.0), Error);
  CHECK_THROWS_AS(render(token_figure("x"), 100.0), Error);
}

TEST_CASE("fonts: without any font file the built-in bitmap font draws, and Latin still differs") {
  set_figure_fonts({{}, false});
  CHECK(figure_font_status().builtin);
  CHECK(figure_font_status().files.empty());
  const Image a = render(token_figure("123")), b = render(token_figure("456"));  // digits share one advance
  CHECK(differing(a, b) > 5);
  CHECK_THROWS_AS(set_figure_fonts({{"/nonexistent/font.ttf"}, true}), Error);
}

TEST_CASE("cli: --font and TFX_FONT choose the font, a missing or broken file is an error naming it") {
  TempDir dir;
  const std::string mono = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf";
  Run plain = run_tfx("pe --len 6 --dim 8 --png plain.png", dir.path);
  REQUIRE(plain.code == 0);
  Run font = run_tfx("pe --len 6 --dim 8 --png mono.png --font " + mono, dir.path);
  REQUIRE(font.code == 0);
  CHECK(read_file(dir / "plain.png") != read_file(dir / "mono.png"));
  Run env = run_tfx("pe --len 6 --dim 8 --png env.png", dir.path, "TFX_FONT=" + mono);
  REQUIRE(env.code == 0);
  CHECK(read_file(dir / "env.png") == read_file(dir / "mono.png"));
  Run missing = run_tfx("pe --len 6 --dim 8 --png m.png --font /nonexistent.ttf", dir.path);
  CHECK(missing.code == 1);
  CHECK(has(missing.err, "--font /nonexistent.ttf: cannot read the font file"));
  CHECK_FALSE(std::filesystem::exists(dir / "m.png"));
  Run bad_env = run_tfx("pe --len 6 --dim 8 --png m.png", dir.path, "TFX_FONT=/nonexistent.ttf");
  CHECK(bad_env.code == 1);
  CHECK(has(bad_env.err, "TFX_FONT=/nonexistent.ttf: cannot read the font file"));
  write_file(dir / "not_a_font.ttf", "hello, I am not a font at all");
  Run junk = run_tfx("pe --len 6 --dim 8 --png m.png --font not_a_font.ttf", dir.path);
  CHECK(junk.code == 1);
  CHECK(has(junk.err, "not a TrueType or OpenType font"));
  CHECK(plain.err.empty());  // real fonts found: nothing said
}
