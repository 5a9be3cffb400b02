// The raster backend: figure units × scale → RGB pixels. Rectangles snap to whole pixels (so
// heatmap cells abut without seams at any scale); lines, discs, rings and polygons are
// anti-aliased from the exact geometry; text comes from figure_text.cpp.
#include <algorithm>
#include <cmath>

#include "figure_canvas.hpp"
#include "figure_text.hpp"

namespace tfx::draw {

namespace {
int px(double v) { return static_cast<int>(std::lround(v)); }

// On/off lengths of a dash pattern, in multiples of the line width (at least 1 unit).
std::vector<double> dash_pattern(Dash d) {
  switch (d) {
    case Dash::dashed: return {5, 3};
    case Dash::dotted: return {1, 2};
    case Dash::dashdot: return {5, 2.5, 1, 2.5};
    case Dash::solid: break;
  }
  return {};
}
}  // namespace

RasterCanvas::RasterCanvas(double width, double height, double scale) : s_(scale) {
  img_.width = std::max(1, px(width * scale));
  img_.height = std::max(1, px(height * scale));
  img_.rgb.assign(static_cast<std::size_t>(img_.width) * img_.height * 3, 255);
}

void RasterCanvas::blend(int x, int y, Rgb c, double a) {
  if (x < 0 || y < 0 || x >= img_.width || y >= img_.height || a <= 0) return;
  a = std::min(a, 1.0);
  const std::size_t k = (static_cast<std::size_t>(y) * img_.width + x) * 3;
  auto mix = [a](std::uint8_t old, std::uint8_t v) { return static_cast<std::uint8_t>(std::lround(old + (v - old) * a)); };
  img_.rgb[k] = mix(img_.rgb[k], c.r), img_.rgb[k + 1] = mix(img_.rgb[k + 1], c.g), img_.rgb[k + 2] = mix(img_.rgb[k + 2], c.b);
}

void RasterCanvas::rect(double x, double y, double w, double h, Rgb fill, const std::string&) {
  const int x0 = std::max(0, px(x * s_)), y0 = std::max(0, px(y * s_));
  int x1 = std::min(img_.width, px((x + w) * s_)), y1 = std::min(img_.height, px((y + h) * s_));
  if (w > 0 && x1 == x0 && x0 < img_.width) x1 = x0 + 1;  // a hairline still shows
  if (h > 0 && y1 == y0 && y0 < img_.height) y1 = y0 + 1;
  for (int yy = y0; yy < y1; ++yy)
    for (int xx = x0; xx < x1; ++xx) blend(xx, yy, fill, 1.0);
}

void RasterCanvas::hatch(double x, double y, double w, double h, const std::string&) {
  const int x0 = std::max(0, px(x * s_)), y0 = std::max(0, px(y * s_));
  const int x1 = std::min(img_.width, px((x + w) * s_)), y1 = std::min(img_.height, px((y + h) * s_));
  const int period = std::max(3, px(6 * s_)), on = std::max(1, px(2 * s_));
  for (int yy = y0; yy < y1; ++yy)
    for (int xx = x0; xx < x1; ++xx) blend(xx, yy, (xx + yy) % period < on ? kMaskHatch : kMaskBase, 1.0);
}

void RasterCanvas::ramp(double x, double y, double w, double h, Colormap cmap) {
  const int x0 = px(x * s_), y0 = px(y * s_), x1 = px((x + w) * s_), y1 = px((y + h) * s_);
  for (int yy = y0; yy < y1; ++yy) {
    const Rgb c = colormap_color(cmap, 1.0 - (yy - y0 + 0.5) / std::max(1, y1 - y0));
    for (int xx = x0; xx < x1; ++xx) blend(xx, yy, c, 1.0);
  }
}

void RasterCanvas::picture(double x, double y, double w, double h, const Image& p) {
  const int x0 = px(x * s_), y0 = px(y * s_), x1 = px((x + w) * s_), y1 = px((y + h) * s_);
  for (int yy = std::max(0, y0); yy < std::min(img_.height, y1); ++yy)
    for (int xx = std::max(0, x0); xx < std::min(img_.width, x1); ++xx) {
      const int sx = std::min(p.width - 1, (xx - x0) * p.width / std::max(1, x1 - x0));
      const int sy = std::min(p.height - 1, (yy - y0) * p.height / std::max(1, y1 - y0));
      blend(xx, yy, p.at(sx, sy), 1.0);
    }
}

// coverage(pixel) = clamp(width/2 + 0.5 − distance(pixel centre, segment), 0, 1)
void RasterCanvas::segment(double x0, double y0, double x1, double y1, Rgb c, double width) {
  const double half = width / 2;
  const int bx0 = static_cast<int>(std::floor(std::min(x0, x1) - half - 1)), bx1 = static_cast<int>(std::ceil(std::max(x0, x1) + half + 1));
  const int by0 = static_cast<int>(std::floor(std::min(y0, y1) - half - 1)), by1 = static_cast<int>(std::ceil(std::max(y0, y1) + half + 1));
  const double dx = x1 - x0, dy = y1 - y0, len2 = dx * dx + dy * dy;
  for (int y = std::max(by0, 0); y <= std::min(by1, img_.height - 1); ++y)
    for (int x = std::max(bx0, 0); x <= std::min(bx1, img_.width - 1); ++x) {
      const double qx = x + 0.5, qy = y + 0.5;
      const double t = len2 > 0 ? std::clamp(((qx - x0) * dx + (qy - y0) * dy) / len2, 0.0, 1.0) : 0.0;
      const double d = std::hypot(qx - (x0 + t * dx), qy - (y0 + t * dy));
      blend(x, y, c, std::clamp(half + 0.5 - d, 0.0, 1.0));
    }
}

void RasterCanvas::path(const std::vector<Pt>& pts, Rgb c, double width, Dash dash) {
  const double w = std::max(0.6, width * s_);
  const std::vector<double> pattern = dash_pattern(dash);
  if (pattern.empty()) {
    for (std::size_t k = 0; k + 1 < pts.size(); ++k) segment(pts[k].x * s_, pts[k].y * s_, pts[k + 1].x * s_, pts[k + 1].y * s_, c, w);
    return;
  }
  // walk the polyline, drawing the "on" stretches of the pattern (lengths × line width, ≥ 1 unit)
  const double unit = std::max(width, 1.0) * s_;
  std::size_t phase = 0;
  double left = pattern[0] * unit;
  for (std::size_t k = 0; k + 1 < pts.size(); ++k) {
    double ax = pts[k].x * s_, ay = pts[k].y * s_;
    const double bx = pts[k + 1].x * s_, by = pts[k + 1].y * s_;
    double len = std::hypot(bx - ax, by - ay);
    if (len <= 0) continue;
    const double ux = (bx - ax) / len, uy = (by - ay) / len;
    while (len > 0) {
      const double step = std::min(left, len);
      if (phase % 2 == 0) segment(ax, ay, ax + ux * step, ay + uy * step, c, w);
      ax += ux * step, ay += uy * step, len -= step, left -= step;
      if (left <= 1e-9) phase = (phase + 1) % pattern.size(), left = pattern[phase] * unit;
    }
  }
}

void RasterCanvas::polygon(const std::vector<Pt>& pts, Rgb fill) {
  if (pts.size() < 3) return;
  double minx = INFINITY, miny = INFINITY, maxx = -INFINITY, maxy = -INFINITY;
  std::vector<Pt> q;
  for (const Pt& p : pts) {
    q.push_back({p.x * s_, p.y * s_});
    minx = std::min(minx, q.back().x), maxx = std::max(maxx, q.back().x);
    miny = std::min(miny, q.back().y), maxy = std::max(maxy, q.back().y);
  }
  // 4×4 supersampling, even-odd rule
  for (int y = static_cast<int>(std::floor(miny)); y <= static_cast<int>(std::ceil(maxy)); ++y)
    for (int x = static_cast<int>(std::floor(minx)); x <= static_cast<int>(std::ceil(maxx)); ++x) {
      int inside = 0;
      for (int s = 0; s < 16; ++s) {
        const double sx = x + (s % 4 + 0.5) / 4, sy = y + (s / 4 + 0.5) / 4;
        bool in = false;
        for (std::size_t i = 0, j = q.size() - 1; i < q.size(); j = i++)
          if ((q[i].y > sy) != (q[j].y > sy) && sx < (q[j].x - q[i].x) * (sy - q[i].y) / (q[j].y - q[i].y) + q[i].x) in = !in;
        inside += in;
      }
      blend(x, y, fill, inside / 16.0);
    }
}

void RasterCanvas::disc(double cx, double cy, double r, Rgb c) {
  cx *= s_, cy *= s_, r *= s_;
  for (int y = static_cast<int>(cy - r - 1); y <= static_cast<int>(cy + r + 1); ++y)
    for (int x = static_cast<int>(cx - r - 1); x <= static_cast<int>(cx + r + 1); ++x)
      blend(x, y, c, std::clamp(r + 0.5 - std::hypot(x + 0.5 - cx, y + 0.5 - cy), 0.0, 1.0));
}

void RasterCanvas::ring(double cx, double cy, double r, Rgb c, double width) {
  cx *= s_, cy *= s_, r *= s_;
  const double half = std::max(0.6, width * s_) / 2;
  for (int y = static_cast<int>(cy - r - half - 1); y <= static_cast<int>(cy + r + half + 1); ++y)
    for (int x = static_cast<int>(cx - r - half - 1); x <= static_cast<int>(cx + r + half + 1); ++x)
      blend(x, y, c, std::clamp(half + 0.5 - std::abs(std::hypot(x + 0.5 - cx, y + 0.5 - cy) - r), 0.0, 1.0));
}

void RasterCanvas::text(double x, double y, std::string_view s, const Type& t, Rgb c, Align align, bool up) {
  const double w = text_width(s, t);
  const double shift = align == Align::center ? w / 2 : align == Align::right ? w : 0;
  if (up) y += shift;
  else x -= shift;
  text::rasterize(s, x * s_, y * s_, t.size * s_, t.bold, up, [&](int px_, int py_, double a) { blend(px_, py_, c, a); });
}

}  // namespace tfx::draw
