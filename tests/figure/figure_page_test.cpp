// Figures on a page (Figure::page_width/page_height, the 16:9 slides of tfx trace --slides): the
// image is exactly the page times the scale, and the figure inside is the unpaged figure zoomed by
// min(page_width / width, page_height / height) and centred — checked against the unpaged render's
// own size and a known cell's box, not against the page code's numbers.
#include <array>
#include <cmath>

#include "helpers.hpp"
#include "png.hpp"
#include "tfx/figure/figure.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

// Box of the pixels of color c in the left half (the colorbar, right of the cells, has the color
// too): {x0, y0, x1, y1} (inclusive), x1 = −1 when none.
std::array<int, 4> page_test_bbox(const Decoded& d, Rgb c) {
  std::array<int, 4> b{d.w, d.h, -1, -1};
  for (int y = 0; y < d.h; ++y)
    for (int x = 0; x < d.w / 2; ++x)
      if (d.at(x, y) == c) b = {std::min(b[0], x), std::min(b[1], y), std::max(b[2], x), std::max(b[3], y)};
  return b;
}

// A heatmap whose one cell at value 1 is pure viridis yellow (scale 0 … 1), the others purple.
Figure page_test_figure(std::size_t rows, std::size_t cols) {
  Heatmap h;
  h.values = Tensor({rows, cols});
  h.values(0, 0) = 1.0f;
  h.vmin = 0.0, h.vmax = 1.0;
  h.annotate = false;
  h.title = "one bright cell";
  Figure f;
  f.panels.push_back(h);
  return f;
}

}  // namespace

TEST_CASE("page: a slide is exactly 1920×1080 × scale, the figure zoomed to fit and centred") {
  const Rgb yellow = colormap_color(Colormap::viridis, 1.0);
  // a wide figure (limited by the page's width) and a tall one (by its height)
  for (const auto& shape : {std::pair<std::size_t, std::size_t>{2, 12}, {8, 2}}) {
    const std::size_t rows = shape.first, cols = shape.second;  // (clang 14: no structured binding in CAPTURE's lambda)
    CAPTURE(rows);
    Figure plain = page_test_figure(rows, cols);
    const Decoded d0 = decode_png(encode_png(plain));
    Figure paged = plain;
    paged.page_width = 1920, paged.page_height = 1080;
    const double zoom = std::min(1920.0 / d0.w, 1080.0 / d0.h);
    CHECK(std::abs(page_zoom(paged) - zoom) < 0.01 * zoom);
    CHECK(page_zoom(plain) == 1.0);
    for (double scale : {1.0, 2.0}) {
      CAPTURE(scale);
      const Decoded d = decode_png(encode_png(paged, scale));
      CHECK(d.w == static_cast<int>(1920 * scale));
      CHECK(d.h == static_cast<int>(1080 * scale));
      // the bright cell: zoomed, and where the centred, zoomed figure puts it
      const auto c0 = page_test_bbox(d0, yellow), c = page_test_bbox(d, yellow);
      REQUIRE(c0[2] >= 0);
      REQUIRE(c[2] >= 0);
      const double z = zoom * scale;
      const double w0 = c0[2] - c0[0] + 1, w = c[2] - c[0] + 1;
      CHECK(std::abs(w - z * w0) <= z + 1);
      const double left = (d.w - z * d0.w) / 2, top = (d.h - z * d0.h) / 2;
      CHECK(std::abs(c[0] - (left + z * c0[0])) <= z + 1);
      CHECK(std::abs(c[1] - (top + z * c0[1])) <= z + 1);
      // the corners are page, white
      CHECK(d.at(0, 0) == Rgb{255, 255, 255});
      CHECK(d.at(d.w - 1, d.h - 1) == Rgb{255, 255, 255});
    }
    // the SVG says the same size, its text zoomed with the drawing (viewBox = page / zoom)
    const std::string svg = encode_svg(paged, 2.0);
    CHECK(has(svg, "width=\"3840\" height=\"2160\""));
  }
}
