// Drawing primitives, text in the baked font, UTF-8 decoding and tick placement.
#include "figure_canvas.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace tfx::font {

const Glyph* find_glyph(const Font& f, char32_t cp) {
  const Glyph* end = f.glyphs + f.count;
  const Glyph* g = std::lower_bound(f.glyphs, end, cp, [](const Glyph& a, char32_t c) { return static_cast<char32_t>(a.codepoint) < c; });
  return g != end && static_cast<char32_t>(g->codepoint) == cp ? g : nullptr;
}

char32_t next_codepoint(std::string_view s, std::size_t& i) {
  const auto b0 = static_cast<unsigned char>(s[i++]);
  if (b0 < 0x80) return b0;
  const int extra = b0 >= 0xf0 ? 3 : b0 >= 0xe0 ? 2 : b0 >= 0xc0 ? 1 : -1;
  if (extra < 0) return 0xfffd;
  char32_t cp = b0 & (0x3f >> extra);
  for (int k = 0; k < extra; ++k) {
    if (i >= s.size() || (static_cast<unsigned char>(s[i]) & 0xc0) != 0x80) return 0xfffd;
    cp = (cp << 6) | (static_cast<unsigned char>(s[i++]) & 0x3f);
  }
  return cp;
}

}  // namespace tfx::font

namespace tfx::draw {

Canvas::Canvas(int width, int height, Rgb bg) {
  img_.width = std::max(1, width);
  img_.height = std::max(1, height);
  img_.rgb.resize(static_cast<std::size_t>(img_.width) * img_.height * 3);
  for (std::size_t k = 0; k < img_.rgb.size(); k += 3) img_.rgb[k] = bg.r, img_.rgb[k + 1] = bg.g, img_.rgb[k + 2] = bg.b;
}

void Canvas::set(int x, int y, Rgb c) {
  if (x < 0 || y < 0 || x >= img_.width || y >= img_.height) return;
  const std::size_t k = (static_cast<std::size_t>(y) * img_.width + x) * 3;
  img_.rgb[k] = c.r, img_.rgb[k + 1] = c.g, img_.rgb[k + 2] = c.b;
}

void Canvas::blend(int x, int y, Rgb c, double a) {
  if (x < 0 || y < 0 || x >= img_.width || y >= img_.height || a <= 0) return;
  a = std::min(a, 1.0);
  const std::size_t k = (static_cast<std::size_t>(y) * img_.width + x) * 3;
  auto mix = [a](std::uint8_t old, std::uint8_t v) { return static_cast<std::uint8_t>(std::lround(old + (v - old) * a)); };
  img_.rgb[k] = mix(img_.rgb[k], c.r), img_.rgb[k + 1] = mix(img_.rgb[k + 1], c.g), img_.rgb[k + 2] = mix(img_.rgb[k + 2], c.b);
}

void Canvas::fill(int x, int y, int w, int h, Rgb c) {
  const int x0 = std::max(0, x), y0 = std::max(0, y), x1 = std::min(img_.width, x + w), y1 = std::min(img_.height, y + h);
  for (int yy = y0; yy < y1; ++yy)
    for (int xx = x0; xx < x1; ++xx) set(xx, yy, c);
}

void Canvas::frame(int x, int y, int w, int h, Rgb c) {
  fill(x, y, w, 1, c);
  fill(x, y + h - 1, w, 1, c);
  fill(x, y, 1, h, c);
  fill(x + w - 1, y, 1, h, c);
}

// coverage(pixel) = clamp(thickness/2 + 0.5 − distance(pixel centre, segment), 0, 1)
void Canvas::line(double x0, double y0, double x1, double y1, Rgb c, double thickness) {
  const double half = thickness / 2;
  const int bx0 = static_cast<int>(std::floor(std::min(x0, x1) - half - 1)), bx1 = static_cast<int>(std::ceil(std::max(x0, x1) + half + 1));
  const int by0 = static_cast<int>(std::floor(std::min(y0, y1) - half - 1)), by1 = static_cast<int>(std::ceil(std::max(y0, y1) + half + 1));
  const double dx = x1 - x0, dy = y1 - y0, len2 = dx * dx + dy * dy;
  for (int y = std::max(by0, 0); y <= std::min(by1, img_.height - 1); ++y)
    for (int x = std::max(bx0, 0); x <= std::min(bx1, img_.width - 1); ++x) {
      const double px = x + 0.5, py = y + 0.5;
      double t = len2 > 0 ? ((px - x0) * dx + (py - y0) * dy) / len2 : 0;
      t = std::clamp(t, 0.0, 1.0);
      const double d = std::hypot(px - (x0 + t * dx), py - (y0 + t * dy));
      blend(x, y, c, std::clamp(half + 0.5 - d, 0.0, 1.0));
    }
}

void Canvas::disc(double cx, double cy, double r, Rgb c) {
  for (int y = static_cast<int>(cy - r - 1); y <= static_cast<int>(cy + r + 1); ++y)
    for (int x = static_cast<int>(cx - r - 1); x <= static_cast<int>(cx + r + 1); ++x)
      blend(x, y, c, std::clamp(r + 0.5 - std::hypot(x + 0.5 - cx, y + 0.5 - cy), 0.0, 1.0));
}

void Canvas::arrow(double x0, double y0, double x1, double y1, Rgb c) {
  const double len = std::hypot(x1 - x0, y1 - y0);
  if (len < 1) return;
  const double ux = (x1 - x0) / len, uy = (y1 - y0) / len, head = std::min(9.0, len / 2);
  line(x0, y0, x1 - ux * head * 0.8, y1 - uy * head * 0.8, c, 1.6);
  // filled triangle: pixels inside the three edges
  const double bx = x1 - ux * head, by = y1 - uy * head, px = -uy * head * 0.45, py = ux * head * 0.45;
  const double ax[3] = {x1, bx + px, bx - px}, ay[3] = {y1, by + py, by - py};
  for (int y = static_cast<int>(std::min({ay[0], ay[1], ay[2]})) - 1; y <= static_cast<int>(std::max({ay[0], ay[1], ay[2]})) + 1; ++y)
    for (int x = static_cast<int>(std::min({ax[0], ax[1], ax[2]})) - 1; x <= static_cast<int>(std::max({ax[0], ax[1], ax[2]})) + 1; ++x) {
      int sub = 0;  // 4×4 supersampling for a smooth edge
      for (int s = 0; s < 16; ++s) {
        const double sx = x + (s % 4 + 0.5) / 4, sy = y + (s / 4 + 0.5) / 4;
        bool in = true;
        for (int e = 0; e < 3; ++e) {
          const int f = (e + 1) % 3;
          const double cross = (ax[f] - ax[e]) * (sy - ay[e]) - (ay[f] - ay[e]) * (sx - ax[e]);
          const double ref = (ax[f] - ax[e]) * (ay[(e + 2) % 3] - ay[e]) - (ay[f] - ay[e]) * (ax[(e + 2) % 3] - ax[e]);
          if (cross * ref < 0) in = false;
        }
        sub += in;
      }
      blend(x, y, c, sub / 16.0);
    }
}

void Canvas::blit(const Image& src, int x, int y) {
  for (int yy = 0; yy < src.height; ++yy)
    for (int xx = 0; xx < src.width; ++xx) set(x + xx, y + yy, src.at(xx, yy));
}

int text_width(std::string_view s, const font::Font& f) {
  int w = 0;
  for (std::size_t i = 0; i < s.size();) {
    const font::Glyph* g = font::find_glyph(f, font::next_codepoint(s, i));
    w += g ? g->advance : f.ascent * 6 / 10;
  }
  return w;
}

namespace {
// Draws s with pen start (x, y = baseline) through put(px, py, coverage) in unrotated coordinates.
template <class Put>
void draw_run(std::string_view s, const font::Font& f, Put put) {
  int pen = 0;
  for (std::size_t i = 0; i < s.size();) {
    const font::Glyph* g = font::find_glyph(f, font::next_codepoint(s, i));
    if (!g) {  // no glyph: an outlined box
      const int w = f.ascent * 6 / 10;
      for (int y = -f.ascent + 1; y <= 0; ++y)
        for (int x = 1; x < w - 1; ++x)
          if (y == -f.ascent + 1 || y == 0 || x == 1 || x == w - 2) put(pen + x, y, 1.0);
      pen += w;
      continue;
    }
    for (int y = 0; y < g->h; ++y)
      for (int x = 0; x < g->w; ++x) {
        const double a = font::coverage(f, *g, x, y);
        if (a > 0) put(pen + g->x0 + x, g->y0 + y, a);
      }
    pen += g->advance;
  }
}
}  // namespace

int Canvas::text(int x, int y, std::string_view s, const font::Font& f, Rgb c, Align align) {
  const int w = text_width(s, f);
  if (align == Align::center) x -= w / 2;
  if (align == Align::right) x -= w;
  draw_run(s, f, [&](int px, int py, double a) { blend(x + px, y + py, c, a); });
  return w;
}

void Canvas::text_up(int cx, int cy, std::string_view s, const font::Font& f, Rgb c, Align align) {
  const int w = text_width(s, f);
  // unrotated (px, py) → rotated: x = cx + py + (ascent − descent)/2, y = start − px
  int start = cy + w / 2;
  if (align == Align::right) start = cy + w;
  if (align == Align::left) start = cy;
  const int shift = (f.ascent - f.descent) / 2;
  draw_run(s, f, [&](int px, int py, double a) { blend(cx + py + shift, start - px, c, a); });
}

Ticks nice_ticks(double lo, double hi, int target) {
  Ticks t;
  if (!(hi > lo)) {
    t.values = {lo};
    return t;
  }
  const double raw = (hi - lo) / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / mag;
  t.step = (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
  const double eps = t.step * 1e-9;
  for (double v = std::ceil((lo - eps) / t.step) * t.step; v <= hi + eps; v += t.step) t.values.push_back(std::abs(v) < eps ? 0.0 : v);
  return t;
}

std::string tick_label(double v, double step) {
  if (std::abs(v) < step * 1e-6) v = 0;  // no "-0"
  std::string s;
  if (step >= 1e6 || step < 1e-3) {  // 7e-4, 2.5e-3, 1e6: mantissa, "e", exponent without zeros
    if (v == 0) return "0";
    const int e = static_cast<int>(std::floor(std::log10(std::abs(v)) + 1e-9));
    const double m = v / std::pow(10.0, e);
    s = fmt::format("{:.1f}", m);
    if (s.size() > 2 && s.substr(s.size() - 2) == ".0") s.resize(s.size() - 2);
    s += fmt::format("e{}", e);
  } else {
    const int decimals = std::clamp(static_cast<int>(-std::floor(std::log10(step) + 1e-9)), 0, 8);
    s = fmt::format("{:.{}f}", v, decimals);
  }
  if (!s.empty() && s[0] == '-') s = "−" + s.substr(1);  // typographic minus
  return s;
}

Rgb series_color(std::size_t i) {
  static const Rgb tab10[] = {{31, 119, 180}, {255, 127, 14}, {44, 160, 44}, {214, 39, 40}, {148, 103, 189},
                              {140, 86, 75},  {227, 119, 194}, {127, 127, 127}, {188, 189, 34}, {23, 190, 207}};
  return tab10[i % 10];
}

}  // namespace tfx::draw
