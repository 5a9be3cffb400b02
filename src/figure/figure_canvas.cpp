// The canvas primitives composed into frames, lines, arrows and markers; the Scene recorder;
// text measurement; tick placement and labels; the series palette.
#include "figure_canvas.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "figure_text.hpp"

namespace tfx::draw {

double text_width(std::string_view s, const Type& t) { return text::width(s, t.size, t.bold); }

void Canvas::frame(double x, double y, double w, double h, Rgb c, double width) {
  rect(x, y, w, width, c);
  rect(x, y + h - width, w, width, c);
  rect(x, y, width, h, c);
  rect(x + w - width, y, width, h, c);
}

void Canvas::line(double x0, double y0, double x1, double y1, Rgb c, double width, Dash dash) {
  path({{x0, y0}, {x1, y1}}, c, width, dash);
}

void Canvas::arrow(double x0, double y0, double x1, double y1, Rgb c, double width, double head) {
  const double len = std::hypot(x1 - x0, y1 - y0);
  if (len < 1e-9) return;
  head = std::min(head, len * 0.6);
  const double ux = (x1 - x0) / len, uy = (y1 - y0) / len;
  const double bx = x1 - ux * head, by = y1 - uy * head, px = -uy * head * 0.42, py = ux * head * 0.42;
  path({{x0, y0}, {x1 - ux * head * 0.7, y1 - uy * head * 0.7}}, c, width);
  polygon({{x1, y1}, {bx + px, by + py}, {bx - px, by - py}}, c);
}

void Canvas::marker(int kind, double cx, double cy, double r, Rgb c) {
  switch (kind % 5) {
    case 0: disc(cx, cy, r, c); break;
    case 1: polygon({{cx - r * 0.85, cy - r * 0.85}, {cx + r * 0.85, cy - r * 0.85}, {cx + r * 0.85, cy + r * 0.85}, {cx - r * 0.85, cy + r * 0.85}}, c); break;
    case 2: polygon({{cx, cy - r * 1.15}, {cx + r, cy + r * 0.7}, {cx - r, cy + r * 0.7}}, c); break;
    case 3: polygon({{cx, cy - r * 1.2}, {cx + r, cy}, {cx, cy + r * 1.2}, {cx - r, cy}}, c); break;
    default: polygon({{cx, cy + r * 1.15}, {cx + r, cy - r * 0.7}, {cx - r, cy - r * 0.7}}, c); break;
  }
}

// ---- Scene: each call becomes a closure that repeats it on a target at an offset ----

namespace {
std::vector<Pt> shifted(std::vector<Pt> pts, double dx, double dy) {
  for (Pt& p : pts) p.x += dx, p.y += dy;
  return pts;
}
}  // namespace

void Scene::replay(Canvas& target, double dx, double dy) const {
  for (const auto& op : ops_) op(target, dx, dy);
}
void Scene::rect(double x, double y, double w, double h, Rgb fill, const std::string& tip) {
  ops_.push_back([=](Canvas& c, double dx, double dy) { c.rect(x + dx, y + dy, w, h, fill, tip); });
}
void Scene::hatch(double x, double y, double w, double h, const std::string& tip) {
  ops_.push_back([=](Canvas& c, double dx, double dy) { c.hatch(x + dx, y + dy, w, h, tip); });
}
void Scene::ramp(double x, double y, double w, double h, Colormap cmap) {
  ops_.push_back([=](Canvas& c, double dx, double dy) { c.ramp(x + dx, y + dy, w, h, cmap); });
}
void Scene::picture(double x, double y, double w, double h, const Image& pixels) {
  ops_.push_back([=](Canvas& c, double dx, double dy) { c.picture(x + dx, y + dy, w, h, pixels); });
}
void Scene::path(const std::vector<Pt>& pts, Rgb col, double width, Dash dash) {
  ops_.push_back([=](Canvas& c, double dx, double dy) { c.path(shifted(pts, dx, dy), col, width, dash); });
}
void Scene::polygon(const std::vector<Pt>& pts, Rgb fill) {
  ops_.push_back([=](Canvas& c, double dx, double dy) { c.polygon(shifted(pts, dx, dy), fill); });
}
void Scene::disc(double cx, double cy, double r, Rgb fill) {
  ops_.push_back([=](Canvas& c, double dx, double dy) { c.disc(cx + dx, cy + dy, r, fill); });
}
void Scene::ring(double cx, double cy, double r, Rgb col, double width) {
  ops_.push_back([=](Canvas& c, double dx, double dy) { c.ring(cx + dx, cy + dy, r, col, width); });
}
void Scene::text(double x, double y, std::string_view s, const Type& t, Rgb col, Align align, bool up) {
  ops_.push_back([=, s = std::string(s)](Canvas& c, double dx, double dy) { c.text(x + dx, y + dy, s, t, col, align, up); });
}

// ---- ticks ----

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

// ---- titles ----

double title_height(const std::string& title, const std::string& subtitle) {
  double h = 8;
  if (!title.empty()) h += line_height(kTitleType) + 2;
  if (!subtitle.empty()) h += line_height(kSubtitleType);
  return h + 6;
}

void draw_titles(Canvas& cv, double width, const std::string& title, const std::string& subtitle) {
  double y = 8;
  if (!title.empty()) {
    cv.text(width / 2, y + kTitleType.size * text::kAscent + 2, title, kTitleType, kBlack, Align::center);
    y += line_height(kTitleType) + 2;
  }
  if (!subtitle.empty())
    cv.text(width / 2, y + kSubtitleType.size * text::kAscent + 1, subtitle, kSubtitleType, kGrey, Align::center);
}

}  // namespace tfx::draw
