// Figures: colormaps (diverging RdBu, viridis, gray), the heatmap scale, block-mean
// downsampling, the grid of panels laid out once and drawn on the raster or the SVG canvas,
// and PNG encoding. The panels are drawn in figure_heatmap/panels/bars.cpp with the primitives
// of figure_canvas.hpp; text in figure_text.cpp; --view lives in figure_view.cpp.
#include "tfx/figure/figure.hpp"
#include "tfx/core/i18n.hpp"

#include <fmt/format.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cmath>

#include "figure_canvas.hpp"

namespace tfx {

Colormap parse_colormap(const std::string& name) { return parse_choice<Colormap>(kColormapChoices, name, "cmap"); }

const char* colormap_name(Colormap c) { return choice_name<Colormap>(kColormapChoices, c); }

namespace {

// viridis (van der Walt & Smith, CC0), the 256 entries of matplotlib's table as 8-bit RGB hex.
const char kViridis[] =
#include "figure_viridis.inc"
    ;

// ColorBrewer RdBu, 11 classes, from the bottom of the scale (dark red, −) through white (0) to
// the top (dark blue, +): the lecture's PE figure, where blue is +1 and red is −1.
const Rgb kRdBu[] = {{103, 0, 31},    {178, 24, 43},   {214, 96, 77},   {244, 165, 130}, {253, 219, 199}, {247, 247, 247},
                     {209, 229, 240}, {146, 197, 222}, {67, 147, 195},  {33, 102, 172},  {5, 48, 97}};

int hex_digit(char c) { return c <= '9' ? c - '0' : c - 'a' + 10; }

Rgb viridis_entry(int i) {
  const char* p = kViridis + i * 6;
  return {static_cast<std::uint8_t>(hex_digit(p[0]) * 16 + hex_digit(p[1])),
          static_cast<std::uint8_t>(hex_digit(p[2]) * 16 + hex_digit(p[3])),
          static_cast<std::uint8_t>(hex_digit(p[4]) * 16 + hex_digit(p[5]))};
}

// Linear interpolation between n evenly spaced stops.
template <class Stop>
Rgb interpolate(int n, double t, Stop stop) {
  const double x = std::clamp(t, 0.0, 1.0) * (n - 1);
  const int i = std::min(static_cast<int>(x), n - 2);
  const double f = x - i;
  const Rgb a = stop(i), b = stop(i + 1);
  auto mix = [f](std::uint8_t u, std::uint8_t v) { return static_cast<std::uint8_t>(std::lround(u + (v - u) * f)); };
  return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

}  // namespace

Rgb colormap_color(Colormap c, double t) {
  if (std::isnan(t)) return draw::kMaskBase;
  switch (c) {
    case Colormap::diverging: return interpolate(11, t, [](int i) { return kRdBu[i]; });
    // the same colors the other way round: −1 blue … +1 red (matplotlib's RdBu_r)
    case Colormap::bluered: return interpolate(11, t, [](int i) { return kRdBu[10 - i]; });
    case Colormap::viridis: return interpolate(256, t, viridis_entry);
    case Colormap::gray: {
      const auto v = static_cast<std::uint8_t>(std::lround(std::clamp(t, 0.0, 1.0) * 255));
      return {v, v, v};
    }
  }
  return {};
}

Heatmap transposed(const Heatmap& h) {
  Heatmap t = h;
  const std::size_t R = h.values.rows(), C = h.values.cols();
  t.values = Tensor({C, R});
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t j = 0; j < C; ++j) t.values(j, i) = h.values(i, j);
  if (h.masked.size() == R * C) {
    t.masked.assign(R * C, 0);
    for (std::size_t i = 0; i < R; ++i)
      for (std::size_t j = 0; j < C; ++j) t.masked[j * R + i] = h.masked[i * C + j];
  }
  if (h.cell_text.size() == R * C)
    for (std::size_t i = 0; i < R; ++i)
      for (std::size_t j = 0; j < C; ++j) t.cell_text[j * R + i] = h.cell_text[i * C + j];
  std::swap(t.x_label, t.y_label);
  std::swap(t.row_labels, t.col_labels);
  std::swap(t.source_rows, t.source_cols);
  std::swap(t.row_group, t.col_group);
  return t;
}

std::pair<double, double> heatmap_scale(const Heatmap& h) {
  double lo = INFINITY, hi = -INFINITY;
  for (std::size_t k = 0; k < h.values.size(); ++k) {
    if (!h.masked.empty() && k < h.masked.size() && h.masked[k]) continue;
    const double v = h.values[k];
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  if (h.symmetric) {
    const double m = std::max(std::abs(lo), std::abs(hi));
    lo = -m, hi = m;
  }
  if (h.vmin) lo = *h.vmin;
  if (h.vmax) hi = *h.vmax;
  if (!(hi > lo)) {  // constant data: centre a unit-wide scale on it
    const double mid = lo;
    lo = mid - 0.5, hi = mid + 0.5;
  }
  return {lo, hi};
}

Downsampled downsample_mean(const Tensor& values, const std::vector<unsigned char>& masked, std::size_t max_rows,
                            std::size_t max_cols) {
  const std::size_t M = values.rows(), N = values.cols();
  Downsampled d;
  d.block_rows = std::max<std::size_t>(1, (M + max_rows - 1) / std::max<std::size_t>(max_rows, 1));
  d.block_cols = std::max<std::size_t>(1, (N + max_cols - 1) / std::max<std::size_t>(max_cols, 1));
  const std::size_t R = (M + d.block_rows - 1) / d.block_rows, C = (N + d.block_cols - 1) / d.block_cols;
  const bool has_mask = masked.size() == values.size();
  d.values = Tensor({R, C});
  if (has_mask) d.masked.assign(R * C, 0);
  std::vector<double> sum(C);
  std::vector<std::size_t> count(C);
  for (std::size_t r = 0; r < R; ++r) {
    std::fill(sum.begin(), sum.end(), 0.0);
    std::fill(count.begin(), count.end(), 0);
    for (std::size_t i = r * d.block_rows; i < std::min(M, (r + 1) * d.block_rows); ++i) {
      const float* row = values.data() + i * N;
      for (std::size_t j = 0; j < N; ++j) {
        if (has_mask && masked[i * N + j]) continue;
        sum[j / d.block_cols] += row[j];
        ++count[j / d.block_cols];
      }
    }
    for (std::size_t c = 0; c < C; ++c) {
      d.values(r, c) = count[c] ? static_cast<float>(sum[c] / static_cast<double>(count[c])) : 0.0f;
      if (has_mask && count[c] == 0) d.masked[r * C + c] = 1;
    }
  }
  return d;
}

namespace {

// The figure laid out once: each panel's scene and where it goes.
struct Layout {
  double width = 0, height = 0;
  std::vector<draw::Scene> panels;
  std::vector<draw::Pt> at;
  std::string title;
  double title_h = 0;
  void draw(draw::Canvas& cv) const {
    if (title_h > 0) draw::draw_titles(cv, width, title, "");
    for (std::size_t k = 0; k < panels.size(); ++k) panels[k].replay(cv, at[k].x, at[k].y);
  }
};

// Panels in a grid: `columns` per row (auto: all in one row up to 3, else about square); each
// grid cell as wide as its column's widest panel and as tall as its row's tallest; the figure
// title above all.
Layout lay_out(const Figure& figure) {
  Layout l;
  for (const Panel& p : figure.panels)
    l.panels.push_back(std::visit(
        [](const auto& panel) {
          using T = std::decay_t<decltype(panel)>;
          if constexpr (std::is_same_v<T, Heatmap>) return draw::heatmap_scene(panel);
          else if constexpr (std::is_same_v<T, LineChart>) return draw::line_chart_scene(panel);
          else if constexpr (std::is_same_v<T, Scatter>) return draw::scatter_scene(panel);
          else if constexpr (std::is_same_v<T, Bars>) return draw::bars_scene(panel);
          else if constexpr (std::is_same_v<T, Diagram>) return draw::diagram_scene(panel);
          else return draw::picture_scene(panel);
        },
        p));
  l.title = figure.panels.empty() && figure.title.empty() ? std::string(tr("(empty figure)")) : figure.title;
  l.title_h = l.title.empty() ? 0 : draw::title_height(l.title, "");
  const double title_w = l.title.empty() ? 0 : draw::text_width(l.title, draw::kTitleType) + 24;
  const int n = static_cast<int>(l.panels.size());
  if (n == 0) {
    l.width = std::max(320.0, title_w), l.height = l.title_h + 40;
    return l;
  }
  const int cols = figure.columns > 0 ? std::min(figure.columns, n) : n <= 3 ? n : static_cast<int>(std::ceil(std::sqrt(n)));
  const int rows = (n + cols - 1) / cols;
  std::vector<double> col_w(cols, 0), row_h(rows, 0);
  for (int k = 0; k < n; ++k) {
    col_w[k % cols] = std::max(col_w[k % cols], l.panels[k].width);
    row_h[k / cols] = std::max(row_h[k / cols], l.panels[k].height);
  }
  for (double w : col_w) l.width += w;
  for (double h : row_h) l.height += h;
  const double extra = std::max(0.0, title_w - l.width) / 2;  // a title wider than the panels
  l.width = std::ceil(std::max(l.width, title_w));
  l.height = std::ceil(l.height + l.title_h);
  double y = l.title_h;
  for (int r = 0; r < rows; ++r) {
    double x = extra;
    for (int c = 0; c < cols && r * cols + c < n; ++c) {
      l.at.push_back({x + (col_w[c] - l.panels[r * cols + c].width) / 2, y});
      x += col_w[c];
    }
    y += row_h[r];
  }
  return l;
}

void check_scale(double scale, double width, double height) {
  if (!(scale >= kMinScale && scale <= kMaxScale))
    throw usage_error(fmt::format(N_("figure scale must be from {} to {}, got {}"), kMinScale, kMaxScale, scale));
  if (width * height * scale * scale > kMaxFigurePixels)
    throw usage_error(fmt::format(N_("the figure would be {:.0f}×{:.0f} pixels at scale {}; use a smaller scale"), width * scale,
                                  height * scale, scale));
}

bool figure_has_page(const Figure& f) { return f.page_width > 0 && f.page_height > 0; }

// Where the laid-out figure goes on its canvas: the canvas's size in figure units, the zoom the
// backend multiplies the scale by, and the offset that centres the figure. A page of W × H
// zoomed by z is W/z × H/z units drawn at scale·z, so the image is W·scale × H·scale pixels.
struct PagePlacement {
  double width = 0, height = 0, zoom = 1, dx = 0, dy = 0;
};

PagePlacement page_placement(const Figure& f, const Layout& l) {
  if (!figure_has_page(f)) return {l.width, l.height, 1, 0, 0};
  PagePlacement p;
  p.zoom = std::min(f.page_width / l.width, f.page_height / l.height);
  p.width = f.page_width / p.zoom, p.height = f.page_height / p.zoom;
  p.dx = (p.width - l.width) / 2, p.dy = (p.height - l.height) / 2;
  return p;
}

// Draws the layout at the placement's offset (through a Scene, which replays shifted).
void draw_on_page(draw::Canvas& cv, const Layout& l, const PagePlacement& p) {
  if (p.dx == 0 && p.dy == 0) return l.draw(cv);
  draw::Scene scene(l.width, l.height);
  l.draw(scene);
  scene.replay(cv, p.dx, p.dy);
}

}  // namespace

std::pair<double, double> figure_pixels(const Figure& figure, double scale) {
  if (figure_has_page(figure)) return {figure.page_width * scale, figure.page_height * scale};
  const Layout l = lay_out(figure);
  return {l.width * scale, l.height * scale};
}

double page_zoom(const Figure& figure) {
  if (!figure_has_page(figure)) return 1;
  return page_placement(figure, lay_out(figure)).zoom;
}

namespace {

// The figure laid out, placed on its page and drawn on a new canvas of type C (raster or SVG).
template <class C, class Take>
auto draw_figure(const Figure& figure, double scale, Take take) {
  const Layout l = lay_out(figure);
  const PagePlacement p = page_placement(figure, l);
  check_scale(scale, p.width * p.zoom, p.height * p.zoom);
  C cv(p.width, p.height, scale * p.zoom);
  draw_on_page(cv, l, p);
  return take(cv);
}

}  // namespace

Image render(const Figure& figure, double scale) {
  return draw_figure<draw::RasterCanvas>(figure, scale, [](draw::RasterCanvas& cv) { return cv.take(); });
}

std::string encode_svg(const Figure& figure, double scale) {
  return draw_figure<draw::SvgCanvas>(figure, scale, [](draw::SvgCanvas& cv) { return cv.finish(); });
}

std::string encode_png(const Image& image) {
  std::string out;
  auto sink = [](void* ctx, void* data, int size) {
    static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
  };
  if (!stbi_write_png_to_func(sink, &out, image.width, image.height, 3, image.rgb.data(), image.width * 3))
    throw Error(N_("PNG encoding failed"));
  return out;
}

}  // namespace tfx
