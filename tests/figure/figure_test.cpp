// Figures: colormaps against their published colors, block-mean downsampling against hand
// sums, rendered PNGs decoded with stb_image (size, the colormap's colors where known cells are),
// masked cells, line/scatter panels, --view with colors on and off, and figure bad input.
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <sstream>

#include "helpers.hpp"
#include "png.hpp"
#include "figure/figure_layout.hpp"
#include "tfx/figure/figure.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

bool near(Rgb a, Rgb b, int tol = 1) {
  return std::abs(a.r - b.r) <= tol && std::abs(a.g - b.g) <= tol && std::abs(a.b - b.b) <= tol;
}

std::size_t count_color(const Decoded& d, Rgb c) {
  std::size_t n = 0;
  for (const Rgb& p : d.px) n += p == c;
  return n;
}

// Bounding box of the pixels of color c: {x0, y0, x1, y1} (inclusive).
std::array<int, 4> bbox(const Decoded& d, Rgb c) {
  std::array<int, 4> b{d.w, d.h, -1, -1};
  for (int y = 0; y < d.h; ++y)
    for (int x = 0; x < d.w; ++x)
      if (d.at(x, y) == c) b = {std::min(b[0], x), std::min(b[1], y), std::max(b[2], x), std::max(b[3], y)};
  return b;
}

// ColorBrewer RdBu ends and centre, matplotlib viridis ends and middle (#440154, #21918c, #fde725)
const Rgb kRed{103, 0, 31}, kBlue{5, 48, 97}, kMid{247, 247, 247};

}  // namespace

TEST_CASE("colormaps: published end and centre colors") {
  CHECK(colormap_color(Colormap::diverging, 0.0) == kRed);
  CHECK(colormap_color(Colormap::diverging, 0.5) == kMid);
  CHECK(colormap_color(Colormap::diverging, 1.0) == kBlue);
  CHECK(colormap_color(Colormap::diverging, 7.0) == kBlue);  // clamped
  // bluered is the reverse: −1 blue … +1 red
  CHECK(colormap_color(Colormap::bluered, 0.0) == kBlue);
  CHECK(colormap_color(Colormap::bluered, 0.5) == kMid);
  CHECK(colormap_color(Colormap::bluered, 1.0) == kRed);
  CHECK(parse_colormap("rdbu_r") == Colormap::bluered);
  CHECK(near(colormap_color(Colormap::viridis, 0.0), {0x44, 0x01, 0x54}));
  CHECK(near(colormap_color(Colormap::viridis, 0.5), {0x21, 0x91, 0x8c}));
  CHECK(near(colormap_color(Colormap::viridis, 1.0), {0xfd, 0xe7, 0x25}));
  CHECK(colormap_color(Colormap::gray, 0.5) == Rgb{128, 128, 128});
  // viridis is finely sampled: consecutive 1/255 steps never jump by more than a few levels
  for (int k = 0; k < 255; ++k) {
    Rgb a = colormap_color(Colormap::viridis, k / 255.0), b = colormap_color(Colormap::viridis, (k + 1) / 255.0);
    CHECK(near(a, b, 4));
  }
  CHECK_THROWS_AS(parse_colormap("jet"), Error);
  CHECK(parse_colormap("rdbu") == Colormap::diverging);
}

TEST_CASE("heatmap_scale: data range, symmetric, explicit, constant") {
  Heatmap h;
  h.values = Tensor::matrix({{-0.5f, 2.0f}, {1.0f, 0.0f}});
  CHECK(heatmap_scale(h) == std::pair<double, double>{-0.5, 2.0});
  h.symmetric = true;
  CHECK(heatmap_scale(h) == std::pair<double, double>{-2.0, 2.0});
  h.vmin = -1.0, h.vmax = 1.0;
  CHECK(heatmap_scale(h) == std::pair<double, double>{-1.0, 1.0});
  Heatmap c;
  c.values = Tensor({2, 2}, 3.0f);
  auto [lo, hi] = heatmap_scale(c);
  CHECK(lo < 3.0);
  CHECK(hi > 3.0);
}

TEST_CASE("downsample_mean: block means equal hand sums; masked cells left out") {
  // v(i, j) = 10 i + j on 5×7, at most 2×3 blocks -> block 3×3: means of the index ranges
  Tensor v({5, 7});
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t j = 0; j < 7; ++j) v(i, j) = static_cast<float>(10 * i + j);
  Downsampled d = downsample_mean(v, {}, 2, 3);
  CHECK(d.block_rows == 3);
  CHECK(d.block_cols == 3);
  REQUIRE(d.values.shape() == std::vector<std::size_t>{2, 3});
  // rows 0..2 (mean i = 1), cols 0..2 (mean j = 1): 11; rows 3..4 (3.5), col 6 (6): 41
  CHECK(d.values(0, 0) == doctest::Approx(11.0));
  CHECK(d.values(1, 2) == doctest::Approx(41.0));
  CHECK(d.values(0, 2) == doctest::Approx(16.0));
  std::vector<unsigned char> mask(35, 0);
  mask[0] = 1;  // (0,0) = 0 left out: mean of the other 8 cells of the first block = 99/8
  Downsampled dm = downsample_mean(v, mask, 2, 3);
  CHECK(dm.values(0, 0) == doctest::Approx(99.0 / 8));
  std::vector<unsigned char> all(35, 1);
  Downsampled da = downsample_mean(v, all, 2, 3);
  CHECK(da.masked[0] == 1);
}

TEST_CASE("render: heatmap cells get the colormap's colors in the right places") {
  Heatmap h;
  h.values = Tensor::matrix({{-1, 1}, {-1, 1}});  // on a [−2, 2] scale: left column at 1/4, right at 3/4
  h.cmap = Colormap::diverging;
  h.vmin = -2.0, h.vmax = 2.0;
  h.title = "two columns";
  h.annotate = false;  // plain cells: every pixel of a cell has its color
  Figure f;
  f.panels.push_back(h);
  Decoded d = decode_png(encode_png(f));
  const Rgb left = colormap_color(Colormap::diverging, 0.25), right = colormap_color(Colormap::diverging, 0.75);
  CHECK(left.r > left.b);   // reddish
  CHECK(right.b > right.r);  // bluish
  auto red = bbox(d, left), blue = bbox(d, right);
  REQUIRE(red[2] >= 0);
  REQUIRE(blue[2] >= 0);
  // the red cells sit left of the blue cells, both square blocks of the same size
  const int rw = red[2] - red[0] + 1, rh = red[3] - red[1] + 1;
  CHECK(rw >= 24);
  CHECK(rh >= 2 * 24 - 1);
  CHECK(red[2] < blue[0] + 1);
  CHECK(count_color(d, left) >= static_cast<std::size_t>(rw * rh));
}

TEST_CASE("render: masked cells are hatched grey, not colored") {
  Heatmap h;
  h.values = Tensor::matrix({{1, 2}, {3, 4}});
  h.masked = {0, 1, 0, 0};
  Figure f;
  f.panels.push_back(h);
  Decoded d = decode_png(encode_png(f));
  CHECK(count_color(d, {150, 150, 150}) > 50);
  CHECK(count_color(d, {205, 205, 205}) > 100);
}

TEST_CASE("render: line chart series colors, legend, log y; scatter arrows; grid of panels") {
  LineChart c;
  c.title = "two series";
  c.series.push_back({"a", {1, 2, 3}, {1, 10, 100}});
  c.series.push_back({"b", {1, 2, 3}, {100, 10, 0}});  // 0 is skipped on a log axis
  c.log_y = true;
  Scatter s;
  s.points = {{0, 0, "king"}, {1, 1, "queen"}};
  s.arrows = {{0, 1}};
  Figure f;
  f.panels.push_back(c);
  f.panels.push_back(s);
  Image img = render(f);
  Decoded d = decode_png(encode_png(img));
  CHECK(d.w == img.width);
  CHECK(d.h == img.height);
  CHECK(count_color(d, {31, 119, 180}) > 50);   // series 0 (tab blue), also the scatter points
  CHECK(count_color(d, {255, 127, 14}) > 50);   // series 1 (tab orange)
  CHECK(count_color(d, {214, 39, 40}) > 10);    // the arrow
  // two panels side by side: wider than tall
  CHECK(img.width > img.height);
  f.columns = 1;
  Image stacked = render(f);
  CHECK(stacked.height > stacked.width);
}

TEST_CASE("render: an x axis of whole numbers (pair 0 … 3) has ticks at whole numbers only; fractional x keeps fractional ticks") {
  const auto ticks = [](std::vector<double> x) {
    LineChart c;
    c.series.push_back({"s", x, std::vector<double>(x.size(), 1.0)});
    Figure f;
    f.panels.push_back(c);
    return encode_svg(f);
  };
  const std::string whole = ticks({0, 1, 2, 3});
  CHECK(whole.find(">0.5<") == std::string::npos);
  CHECK(whole.find(">2.5<") == std::string::npos);
  CHECK(whole.find(">2<") != std::string::npos);
  const std::string half = ticks({0, 0.5, 1.5, 3});  // 0.5 steps stay
  CHECK(half.find(">0.5<") != std::string::npos);
}

TEST_CASE("render: empty and non-finite inputs do not crash") {
  Figure f;
  Heatmap empty;
  empty.title = "nothing";
  f.panels.push_back(empty);
  Heatmap odd;
  odd.values = Tensor::matrix({{NAN, INFINITY}, {-INFINITY, 1}});
  f.panels.push_back(odd);
  LineChart c;
  c.series.push_back({"nan", {0, 1, 2}, {NAN, NAN, NAN}});
  f.panels.push_back(c);
  Scatter one;
  one.points = {{1, 1, "alone"}};
  one.arrows = {{0, 5}};  // out of range: skipped
  f.panels.push_back(one);
  Image img = render(f);
  CHECK(img.width > 0);
  CHECK(decode_png(encode_png(img)).w == img.width);
  CHECK(render(Figure{}).width > 0);
  Heatmap e;
  CHECK(render_view(e, {40, false}).find("empty") != std::string::npos);
}

TEST_CASE("render: a 3000×3000 heatmap is downsampled to at most kMaxHeatmapCells per axis") {
  Heatmap h;
  h.values = Tensor({3000, 3000}, 0.5f);
  Figure f;
  f.panels.push_back(h);
  Image img = render(f);
  CHECK(img.width < static_cast<int>(kMaxHeatmapCells) + 400);
  CHECK(img.height < static_cast<int>(kMaxHeatmapCells) + 200);
  CHECK(img.width >= 1000);  // 1000 cells (blocks of 3) at ≥ 1 pixel each
}

TEST_CASE("render_view: ASCII ramp without color, half blocks with color, width limits") {
  Heatmap h;  // PE-like: row 0 alternates 0 and +1 on a [−1, 1] scale
  h.values = Tensor::matrix({{0, 1, 0, 1, 0, 1, 0, 1}, {0, 1, 0, 1, 0, 1, 0, 1}});
  h.cmap = Colormap::diverging;
  h.vmin = -1.0, h.vmax = 1.0;
  std::string plain = render_view(h, {40, false});
  CHECK(plain.find('\x1b') == std::string::npos);
  // 8 columns in 40: each cell 2 characters (one line tall: square) after the row label "0 "; 0 is
  // the middle of the ramp '+', +1 the top '@'
  CHECK(plain.rfind("0 ++@@++@@++@@++@@\n1 ++@@", 0) == 0);
  CHECK(plain.find("max 1") != std::string::npos);
  std::string color = render_view(h, {40, true});
  CHECK(color.find("\x1b[38;2;5;48;97m") != std::string::npos);     // +1: top of RdBu as foreground
  CHECK(color.find("\x1b[48;2;247;247;247m") != std::string::npos);  // 0: the white centre as background
  CHECK(color.find("▀") != std::string::npos);
  CHECK_THROWS_AS(render_view(h, {10, true}), Error);
  // a wide matrix is sampled down to the width
  Heatmap wide;
  wide.values = Tensor({50, 500}, 1.0f);
  std::string w = render_view(wide, {30, false});
  std::istringstream lines(w);
  std::string line;
  int n = 0;
  while (std::getline(lines, line) && n < 5) {
    CHECK(line.size() <= 30);
    ++n;
  }
}

TEST_CASE("cli: tfx pe --png: PE(0, odd) = +1 is the top of the diverging scale, PE(0, even) = 0 its centre") {
  TempDir dir;
  Run r = run_tfx("pe --len 50 --dim 128 --png pe.png", dir.path);
  REQUIRE(r.code == 0);
  Decoded d = decode_png(read_file(dir / "pe.png"));
  CHECK(d.w >= 128);
  CHECK(d.h >= 50);
  CHECK(r.out.find(fmt::format("({}×{})", d.w, d.h)) != std::string::npos);
  // the first image row with many top-color pixels is cell row 0; in it, blue and white runs
  // alternate 64 times each (odd columns cos 0 = +1, even columns sin 0 = 0)
  int y0 = -1;
  for (int y = 0; y < d.h && y0 < 0; ++y) {
    int n = 0;
    for (int x = 0; x < d.w; ++x) n += d.at(x, y) == kBlue;
    if (n >= 128) y0 = y;
  }
  REQUIRE(y0 >= 0);
  y0 += 2;  // the middle of cell row 0 (cells are 5 px), below the colorbar's top row
  int blue_runs = 0, white_runs = 0;
  for (int x = 1; x < d.w; ++x) {
    if (d.at(x, y0) == kBlue && !(d.at(x - 1, y0) == kBlue)) ++blue_runs;
    if (d.at(x, y0) == kMid && !(d.at(x - 1, y0) == kMid)) ++white_runs;
  }
  CHECK(blue_runs == 64);
  CHECK(white_runs == 64);
}

TEST_CASE("cli: --png - writes the PNG to stdout; not together with --view") {
  Run r = run_tfx("pe --len 4 --dim 4 --png -");
  REQUIRE(r.code == 0);
  CHECK(r.out.rfind("\x89PNG\r\n", 0) == 0);
  Decoded d = decode_png(r.out);
  CHECK(d.w > 4);
  Run both = run_tfx("pe --len 4 --dim 4 --png - --view");
  CHECK(both.code == 2);
  CHECK(both.out.empty());
}

TEST_CASE("cli: --png FILE with a table on stdout keeps stdout clean (the note goes to stderr)") {
  TempDir dir;
  Run r = run_tfx("pe --len 3 --dim 4 --png pe.png --format csv", dir.path);
  REQUIRE(r.code == 0);
  CHECK(r.out.rfind("pos,0,1,2,3\n", 0) == 0);
  CHECK(r.out.find("wrote") == std::string::npos);
  CHECK(r.err.find("wrote pe.png") != std::string::npos);
  CHECK(std::filesystem::exists(dir / "pe.png"));
}

TEST_CASE("cli: --view colors: --color always, never, NO_COLOR, width 10") {
  Run on = run_tfx("pe --len 8 --dim 8 --view --width 40 --color always");
  REQUIRE(on.code == 0);
  CHECK(on.out.find("\x1b[38;2;") != std::string::npos);
  Run off = run_tfx("pe --len 8 --dim 8 --view --width 40", {}, "NO_COLOR=1");
  REQUIRE(off.code == 0);
  CHECK(off.out.find('\x1b') == std::string::npos);
  CHECK(off.out.find("min -1") != std::string::npos);
  Run never = run_tfx("pe --len 8 --dim 8 --view --width 40 --color never");
  CHECK(never.out.find('\x1b') == std::string::npos);
  Run narrow = run_tfx("pe --len 8 --dim 8 --view --width 10");
  check_stderr(narrow, 2, "--width 10");
  CHECK(count_lines(narrow.err) == 1);
  Run env = run_tfx("pe --len 8 --dim 8 --view", {}, "COLUMNS=10");
  CHECK(env.code == 2);
  CHECK(run_tfx("pe --len 8 --dim 8 --view --color bogus").code == 2);
}

TEST_CASE("cli: a figure of 100000 positions is downsampled, not refused") {
  TempDir dir;
  Run r = run_tfx("pe --len 100000 --dim 64 --png big.png", dir.path);
  REQUIRE(r.code == 0);
  Decoded d = decode_png(read_file(dir / "big.png"));
  CHECK(d.h < 1400);
  CHECK(d.h > static_cast<int>(kMaxHeatmapCells) / 2);
}

TEST_CASE("cli: --png and -o naming the same file is a usage error, nothing written") {
  TempDir dir;
  for (const char* args : {"pe --len 3 --dim 4 --png x -o x --format csv", "pe --len 3 --dim 4 --png x -o ./x"}) {
    Run r = run_tfx(args, dir.path);
    check_stderr(r, 2, "name the same file");
    CHECK(count_lines(r.err) == 1);
  }
  // a .png name for CSV output is refused before the names are compared
  Run png_csv = run_tfx("pe --len 3 --dim 4 --png -o pe_len3_dim4.png --format csv", dir.path);
  CHECK(png_csv.code == 2);
  CHECK(has(png_csv.err, "the .png extension does not match --format csv"));
  CHECK(count_lines(png_csv.err) == 1);
  CHECK(std::filesystem::is_empty(dir.path));
  Run ok = run_tfx("pe --len 3 --dim 4 --png x.png -o x.csv", dir.path);
  CHECK(ok.code == 0);
  CHECK(read_file(dir / "x.png").substr(1, 3) == "PNG");
  CHECK(read_file(dir / "x.csv").rfind("pos,", 0) == 0);  // CSV, from the extension
}

TEST_CASE("cli: a bare --png with -o x.png writes that one file, not a default-named copy") {
  TempDir dir;
  Run r = run_tfx("pe --len 3 --dim 4 --png -o x.png", dir.path);
  REQUIRE(r.code == 0);
  CHECK(read_file(dir / "x.png").substr(1, 3) == "PNG");
  CHECK_FALSE(std::filesystem::exists(dir / "pe_len3_dim4.png"));
  CHECK(count_lines(r.err) == 1);  // one "wrote x.png"
  // the same for a bare --svg with -o x.svg, and -o naming the default name is not "the same file"
  Run s = run_tfx("pe --len 3 --dim 4 --svg -o y.svg", dir.path);
  REQUIRE(s.code == 0);
  CHECK_FALSE(std::filesystem::exists(dir / "pe_len3_dim4.svg"));
  Run d = run_tfx("pe --len 3 --dim 4 --png -o pe_len3_dim4.png", dir.path);
  CHECK(d.code == 0);
  // a different format still gets its own file: -o z.svg and a bare --png → z.svg and the default PNG
  Run both = run_tfx("pe --len 3 --dim 4 --png -o z.svg", dir.path);
  REQUIRE(both.code == 0);
  CHECK(read_file(dir / "z.svg").find("<svg") != std::string::npos);
  CHECK(read_file(dir / "pe_len3_dim4.png").substr(1, 3) == "PNG");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path)) ++files;
  CHECK(files == 4);  // x.png, y.svg, pe_len3_dim4.png, z.svg
  // --format png -o - with a bare --png: the one figure, on stdout; a named --png there is refused
  Run out = run_tfx("pe --len 3 --dim 4 --format png -o - --png", dir.path);
  REQUIRE(out.code == 0);
  CHECK(out.out.substr(1, 3) == "PNG");
  Run named = run_tfx("pe --len 3 --dim 4 --format png -o - --png w.png", dir.path);
  check_stderr(named, 2, "cannot go there too");
  CHECK_FALSE(std::filesystem::exists(dir / "w.png"));
}

TEST_CASE("figure: a value label keeps two significant digits when every value is below 0.01") {
  // a KL divergence of 7e-5 was labelled "0.00" on a bar whose axis read 7e-5
  CHECK(tfx::draw::value_text(7.0e-5, 7.0e-5) == "7.0e-5");
  CHECK(tfx::draw::value_text(-3.25e-3, 4e-3) == "−3.2e-3");  // (3.25e-3 is 0.003249… in binary: rounds down)
  CHECK(tfx::draw::value_text(0.0, 4e-3) == "0");
  // larger magnitudes keep the fixed decimals of before
  CHECK(tfx::draw::value_text(0.5, 1.0) == "0.50");
  CHECK(tfx::draw::value_text(-0.0074, 0.0074) == "−7.4e-3");
  CHECK(tfx::draw::value_text(12.345, 20.0) == "12.3");
  CHECK(tfx::draw::value_text(-0.001, 0.5) == "0.00");  // no "−0.00"
}
