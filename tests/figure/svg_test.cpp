// SVG figures and the figure flags: the SVG is well-formed XML (read with the XML reader in
// xml_check.hpp) holding text as <text> and each heatmap cell's row, column and value as a
// hover <title>; --png/--svg/-o file names must match their format; --vmin/--vmax change the
// colorbar ticks; --annotate prints values in the cells; --title replaces the title; new
// figures (layernorm, rope rotate, similar) draw; the gallery script runs.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>
#include <sstream>

#include "helpers.hpp"
#include "tfx/figure/figure.hpp"
#include "xml_check.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

std::vector<XmlElement> read_svg(const std::filesystem::path& p) {
  const std::string doc = read_file(p);
  REQUIRE(doc.rfind("<?xml", 0) == 0);
  std::vector<XmlElement> els;
  try {
    els = parse_xml(doc);
  } catch (const std::exception& e) {
    FAIL("not well-formed XML: " << e.what());
  }
  REQUIRE(!els.empty());
  CHECK(els[0].name == "svg");
  CHECK(els[0].attrs["xmlns"] == "http://www.w3.org/2000/svg");
  CHECK(els[0].attrs["version"] == "1.1");
  for (const auto& e : els) CHECK(e.name != "script");  // no JavaScript
  CHECK(doc.find("http://", doc.find("<defs")) == std::string::npos);  // nothing fetched from anywhere
  return els;
}

std::vector<std::string> texts_of(const std::vector<XmlElement>& els, const std::string& name) {
  std::vector<std::string> out;
  for (const auto& e : els)
    if (e.name == name) out.push_back(e.text);
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

TEST_CASE("svg: a 3×3 attention table holds its 9 weights as hover titles with the tokens") {
  TempDir dir;
  Run csv = run_tfx("attention --sentence \"I love you\" --dk 4 --format csv", dir.path);
  REQUIRE(csv.code == 0);
  Run svg = run_tfx("attention --sentence \"I love you\" --dk 4 --svg a.svg", dir.path);
  REQUIRE(svg.code == 0);
  CHECK(has(svg.out, "wrote a.svg"));
  const auto els = read_svg(dir / "a.svg");
  const auto titles = texts_of(els, "title"), texts = texts_of(els, "text");
  // every <title> sits inside a <rect> (a cell)
  for (const auto& e : els)
    if (e.name == "title") CHECK(els[static_cast<std::size_t>(e.parent)].name == "rect");
  CHECK(titles.size() == 9);
  std::istringstream in(csv.out);
  std::string line;
  std::getline(in, line);  // header: query,i,love,you
  const std::vector<std::string> tokens{"I", "love", "you"};  // "I" as written (looked up as "i")
  for (std::size_t r = 0; r < 3; ++r) {
    REQUIRE(std::getline(in, line));
    std::istringstream cells(line);
    std::string cell;
    std::getline(cells, cell, ',');
    CHECK(cell == tokens[r]);
    for (std::size_t c = 0; c < 3; ++c) {
      REQUIRE(std::getline(cells, cell, ','));
      const std::string want = fmt::format("row {} “{}” · column {} “{}” · {:.6g}", r, tokens[r], c, tokens[c], std::stof(cell));
      CHECK_MESSAGE(contains(titles, want), want);
    }
  }
  // the labels are text, the axis names too, and the title
  CHECK(contains(texts, "love"));
  CHECK(contains(texts, "query"));
  CHECK(contains(texts, "key"));
  CHECK(contains(texts, "attention weight"));  // the colorbar's caption
  CHECK(std::any_of(texts.begin(), texts.end(), [](const std::string& t) { return t.find("Attention weights") == 0; }));
  // the colorbar runs 0 – 1 whatever the largest weight is (these rows are near-uniform), as
  // encoder/decoder draw it; --vmax moves the top
  double top = 0;
  for (const auto& t : titles) top = std::max(top, std::stod(t.substr(t.rfind("· ") + 3)));
  CHECK(top < 0.8);
  CHECK(contains(texts, "1.0"));
  CHECK(contains(texts, "0.0"));
  REQUIRE(run_tfx("attention --sentence \"I love you\" --dk 4 --svg b.svg --vmax 0.5", dir.path).code == 0);
  const auto b = texts_of(read_svg(dir / "b.svg"), "text");
  CHECK(contains(b, "0.4"));  // ticks 0.0, 0.2, 0.4 under the top 0.5
  CHECK_FALSE(contains(b, "1.0"));
}

TEST_CASE("svg: --png x.svg and -o x.svg write SVG; a name that contradicts the format is a usage error") {
  TempDir dir;
  REQUIRE(run_tfx("pe --len 4 --dim 4 --png p.svg", dir.path).code == 0);
  CHECK(read_file(dir / "p.svg").rfind("<?xml", 0) == 0);
  REQUIRE(run_tfx("pe --len 4 --dim 4 -o o.svg", dir.path).code == 0);
  CHECK(read_file(dir / "o.svg").rfind("<?xml", 0) == 0);
  REQUIRE(run_tfx("pe --len 4 --dim 4 -o o.png", dir.path).code == 0);
  CHECK(read_file(dir / "o.png").substr(1, 3) == "PNG");
  REQUIRE(run_tfx("pe --len 4 --dim 4 --svg", dir.path).code == 0);
  CHECK(std::filesystem::exists(dir / "pe_len4_dim4.svg"));
  REQUIRE(run_tfx("pe --len 4 --dim 4 --png --svg", dir.path).code == 0);  // both, same base name
  CHECK(std::filesystem::exists(dir / "pe_len4_dim4.png"));
  const auto before = std::distance(std::filesystem::directory_iterator(dir.path), std::filesystem::directory_iterator());
  for (const char* bad : {"pe --len 4 --dim 4 --format png -o x.svg", "pe --len 4 --dim 4 --format svg -o x.png",
                          "pe --len 4 --dim 4 --format csv -o x.png", "pe --len 4 --dim 4 --svg x.png",
                          "pe --len 4 --dim 4 --png x.jpg", "pe --len 4 --dim 4 --format json -o x.svg",
                          "analogy king man woman --format png -o x.png", "pe --len 4 --dim 4 --vmin 1 --vmax 0 --png",
                          "pe --len 4 --dim 4 --scale 0 --png", "pe --len 4 --dim 4 --scale 100 --png"}) {
    Run r = run_tfx(bad, dir.path);
    CHECK_MESSAGE(r.code == 2, bad);
    check_one_line_error(r, 2);
  }
  // nothing was written by the refused runs
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path), std::filesystem::directory_iterator()) == before);
}

TEST_CASE("svg: --vmin/--vmax change the colorbar ticks; --title replaces the title; --annotate prints values") {
  TempDir dir;
  REQUIRE(run_tfx("pe --len 4 --dim 4 --svg a.svg", dir.path).code == 0);
  REQUIRE(run_tfx("pe --len 4 --dim 4 --svg b.svg --vmin -4 --vmax 4 --title \"My PE\"", dir.path).code == 0);
  const auto a = texts_of(read_svg(dir / "a.svg"), "text"), b = texts_of(read_svg(dir / "b.svg"), "text");
  // PE values are in [−1, 1]: the default scale's ticks end at ±1; the given one at ±4
  CHECK(contains(a, "1.0"));
  CHECK(contains(a, "−1.0"));
  CHECK_FALSE(contains(a, "4"));
  CHECK(contains(b, "4"));
  CHECK(contains(b, "−4"));
  CHECK_FALSE(contains(b, "−1.0"));
  CHECK(contains(b, "My PE"));
  CHECK_FALSE(contains(a, "My PE"));
  // a 4×4 matrix is annotated automatically (its 16 values as text); --no-annotate turns it off
  REQUIRE(run_tfx("pe --len 4 --dim 4 --svg c.svg --no-annotate", dir.path).code == 0);
  const auto c = texts_of(read_svg(dir / "c.svg"), "text");
  CHECK(contains(a, "0.84"));   // PE(1, 0) = sin 1
  CHECK(contains(a, "0.54"));   // PE(1, 1) = cos 1
  CHECK_FALSE(contains(c, "0.84"));
  CHECK(a.size() >= c.size() + 16);
  // large matrices are not annotated unless asked
  REQUIRE(run_tfx("pe --len 20 --dim 20 --svg d.svg", dir.path).code == 0);
  REQUIRE(run_tfx("pe --len 20 --dim 20 --svg e.svg --annotate", dir.path).code == 0);
  CHECK(texts_of(read_svg(dir / "e.svg"), "text").size() >= texts_of(read_svg(dir / "d.svg"), "text").size() + 400);
}

TEST_CASE("svg: the library's SVG and PNG come from one layout (same size at every scale)") {
  Heatmap h;
  h.values = Tensor::matrix({{1, 2}, {3, 4}});
  h.title = "θ, π, √D, Σ, ·, ᵀ";
  Figure f;
  f.panels.push_back(h);
  for (double scale : {1.0, 2.0}) {
    const Image img = render(f, scale);
    const auto els = parse_xml(encode_svg(f, scale));
    CHECK(std::lround(std::stod(els[0].attrs.at("width"))) == img.width);
    CHECK(std::lround(std::stod(els[0].attrs.at("height"))) == img.height);
  }
  const auto texts = texts_of(parse_xml(encode_svg(f)), "text");
  CHECK(contains(texts, "θ, π, √D, Σ, ·, ᵀ"));
}

TEST_CASE("figures: layernorm, rope rotate and similar draw (PNG and SVG) with their symbols") {
  TempDir dir;
  Run ln = run_tfx("layernorm --png ln.png --svg ln.svg", dir.path);
  REQUIRE(ln.code == 0);
  const auto lt = texts_of(read_svg(dir / "ln.svg"), "text");
  CHECK(contains(lt, "μ"));
  CHECK(contains(lt, "μ + σ"));
  CHECK(contains(lt, "x̂ = (x − μ)/√(σ² + ε)"));
  CHECK(contains(lt, "μ = 3.5, σ = 1.12"));  // "thinking": x = 4,2,3,5 (the lecture's numbers)
  CHECK(contains(lt, "1.34"));               // x̂ of 5: (5 − 3.5)/1.118
  Run rr = run_tfx("rope rotate --dim 4 --pos 1 --vector 1,0,0,1 --svg rr.svg", dir.path);
  REQUIRE(rr.code == 0);
  const auto rt = texts_of(read_svg(dir / "rr.svg"), "text");
  CHECK(contains(rt, "θ = 1.00"));                     // pair 0: ω = 1, θ = pos·ω = 1 rad
  CHECK(contains(rt, "ω = 0.01, θ = 0.010 rad"));      // pair 1: ω = 10000^(−2/4) = 0.01
  CHECK(contains(rt, "R x"));
  Run si = run_tfx("similar king -k 3 --svg si.svg", dir.path);
  REQUIRE(si.code == 0);
  const auto st = texts_of(read_svg(dir / "si.svg"), "text");
  CHECK(contains(st, "royal"));  // the built-in embedding's nearest neighbour of king
  CHECK(contains(st, "cosine similarity"));
}

TEST_CASE("svg: --transpose draws the matrix with rows and columns swapped (position along x)") {
  TempDir dir;
  REQUIRE(run_tfx("pe --len 3 --dim 2 --svg a.svg --transpose", dir.path).code == 0);
  const auto els = read_svg(dir / "a.svg");
  const auto titles = texts_of(els, "title"), texts = texts_of(els, "text");
  REQUIRE(titles.size() == 6);
  // row = dimension i, column = position p: PE(p, 0) = sin p, PE(p, 1) = cos p
  for (int i = 0; i < 2; ++i)
    for (int p = 0; p < 3; ++p) {
      const double v = i == 0 ? std::sin(p) : std::cos(p);
      const std::string want = fmt::format("row {} · column {} · {:.6g}", i, p, v == 0 ? 0.0 : v);
      CHECK_MESSAGE(contains(titles, want), want);
    }
  CHECK(contains(texts, "position p"));
  // the axis names moved with the data: "position p" is now the x label (below the cells)
  REQUIRE(run_tfx("pe --len 3 --dim 2 --svg b.svg", dir.path).code == 0);
  CHECK(read_file(dir / "a.svg") != read_file(dir / "b.svg"));
}

TEST_CASE("svg: every SVG the docs ship (docs/img, written by tfx) is a well-formed SVG document") {
  std::size_t n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(std::string(TFX_SOURCE_DIR) + "/docs")) {
    if (e.path().extension() != ".svg") continue;
    ++n;
    INFO(e.path().string());
    CHECK(svg_problem(read_file(e.path())) == "");
  }
  CHECK(n >= 1);
}

TEST_CASE("svg: a bar that reaches the frame keeps its value inside the frame, in the bar's end") {
  // a top-1 agreement of 1.00 on an axis ending at 1 printed its value over the panel's title, and
  // a bar at the axis' low end printed it over the category labels
  Bars b;
  b.title = "agreement";
  b.labels = {"full", "half", "low"};
  b.values = {1.0, 0.5, -1.0};
  b.vmin = -1.0, b.vmax = 1.0;
  b.annotate = true;
  Figure f;
  f.panels.push_back(b);
  const std::string svg = encode_svg(f);
  auto rect_of = [&](const std::string& label) {  // the bar: a <rect> with its hover title
    const std::regex r("<rect x=\"[-0-9.]+\" y=\"([-0-9.]+)\" width=\"[-0-9.]+\" height=\"([-0-9.]+)\"[^>]*><title>" + label + " · ");
    std::smatch m;
    REQUIRE(std::regex_search(svg, m, r));
    return std::pair{std::stod(m[1]), std::stod(m[1]) + std::stod(m[2])};
  };
  auto baseline_of = [&](const std::string& value) {
    const std::regex r("<text x=\"[-0-9.]+\" y=\"([-0-9.]+)\"[^>]*>" + value + "</text>");
    std::smatch m;
    REQUIRE(std::regex_search(svg, m, r));
    return std::stod(m[1]);
  };
  const auto [full_top, full_bottom] = rect_of("full");
  const double full = baseline_of("1.00");
  CHECK(full > full_top + 8);  // inside the bar, below its top (the frame's top)
  CHECK(full < full_bottom);
  const auto [half_top, half_bottom] = rect_of("half");
  CHECK(baseline_of("0.50") < half_top);  // room above: the value stays above the bar
  const auto [low_top, low_bottom] = rect_of("low");
  const double low = baseline_of("−1.00");
  CHECK(low < low_bottom - 2);  // inside the bar's lower end, above the frame's bottom
  CHECK(low > low_top);
  // and every value in the bars' colors stays white-on-bar only where it moved inside
  CHECK(svg.find("fill=\"#ffffff\" text-anchor=\"middle\">1.00</text>") != std::string::npos);
  CHECK(svg.find("text-anchor=\"middle\">0.50</text>") != std::string::npos);
  CHECK(svg.find("fill=\"#ffffff\" text-anchor=\"middle\">0.50</text>") == std::string::npos);
}
