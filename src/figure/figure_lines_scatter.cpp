// The shared tick drawing, and the two panels on value axes:
//   line    — several series told apart by color and marker (reference curves dashed, under the
//             measured ones), a legend when there are two or more, linear or log y;
//   scatter — labelled points (labels placed so they overlap neither each other nor the points)
//             and arrows between them.
// Anatomy of every panel, top to bottom: title, subtitle, plot with ticks, x label; y label on
// the left, rotated.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "figure_layout.hpp"
#include "figure_text.hpp"

namespace tfx::draw {

double max_width(const std::vector<std::string>& labels, const Type& t) {
  double w = 0;
  for (const auto& s : labels) w = std::max(w, text_width(s, t));
  return w;
}

void draw_left_ticks(Canvas& cv, const Frame& f, const AxisTicks& t) {
  for (std::size_t k = 0; k < t.pos.size(); ++k) {
    const double y = f.y + t.pos[k];
    cv.rect(f.x - kTick, y - 0.5, kTick, 1, kInk);
    cv.text(f.x - kTick - 4, y + center_baseline(kTickType), t.labels[k], kTickType, kInk, Align::right);
  }
}

void draw_bottom_ticks(Canvas& cv, const Frame& f, const AxisTicks& t) {
  for (std::size_t k = 0; k < t.pos.size(); ++k) {
    const double x = f.x + t.pos[k];
    cv.rect(x - 0.5, f.y + f.h, 1, kTick, kInk);
    cv.text(x, f.y + f.h + kTick + 3 + kTickType.size * text::kAscent, t.labels[k], kTickType, kInk, Align::center);
  }
}

AxisTicks value_ticks(double lo, double hi, double pixels, bool flip, int target, bool whole) {
  AxisTicks t;
  Ticks nt = nice_ticks(lo, hi, target);
  if (whole && nt.step < 1) {  // an axis of whole numbers (pair j, layer, step) has no tick at 0.5
    nt.step = 1;
    nt.values.clear();
    for (double v = std::ceil(lo - 1e-9); v <= hi + 1e-9; v += 1) nt.values.push_back(v);
  }
  for (double v : nt.values) {
    const double u = (v - lo) / (hi - lo) * pixels;
    t.pos.push_back(flip ? pixels - u : u);
    t.labels.push_back(tick_label(v, nt.step));
  }
  return t;
}

std::string value_text(double v, double magnitude) {
  if (magnitude > 0 && magnitude < 0.01 && std::isfinite(v)) {
    // values all below 0.01 (a KL divergence of 7e-5): two significant digits, as the axis writes
    // them ("7.0e-5"), not "0.00" on a bar the axis says is 7e-5 tall
    if (v == 0) return "0";
    const std::string e = fmt::format("{:.1e}", std::abs(v));  // "7.0e-05"
    const std::size_t at = e.find('e');
    return fmt::format("{}{}e{}", v < 0 ? "−" : "", e.substr(0, at), std::stoi(e.substr(at + 1)));
  }
  const int decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2;
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s.find_first_not_of("-0.") == std::string::npos) s = fmt::format("{:.{}f}", 0.0, decimals);  // no "-0.00"
  if (!s.empty() && s[0] == '-') s = "−" + s.substr(1);
  return s;
}

namespace {

// The plot area of a line chart or scatter with its data ranges.
struct Axes {
  Frame f;
  double x0, x1, y0, y1;  // data range (y in log10 units when log)
  bool whole_x = false;   // every x is a whole number: ticks 1 apart at the least
  double px(double x) const { return f.x + (x - x0) / (x1 - x0) * f.w; }
  double py(double y) const { return f.y + f.h - (y - y0) / (y1 - y0) * f.h; }
};

// "10⁻⁴", "10⁹": a decade as a power of ten with a superscript exponent.
std::string power_of_ten(int e) {
  static const char* const digits[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  std::string exp;
  for (int m = std::abs(e); m > 0 || exp.empty(); m /= 10) exp = digits[m % 10] + exp;
  return "10" + std::string(e < 0 ? "⁻" : "") + exp;
}

// Ticks for a log10 axis spanning [lo, hi] (in log10 units): the decades (0.001 … 1000 as
// decimals, beyond as 10ⁿ), or nice ticks inside one decade.
AxisTicks log_ticks(double lo, double hi, double pixels) {
  AxisTicks t;
  for (double e = std::ceil(lo - 1e-9); e <= hi + 1e-9; e += 1) {
    t.pos.push_back(pixels - (e - lo) / (hi - lo) * pixels);
    t.labels.push_back(std::abs(e) <= 3 ? tick_label(std::pow(10.0, e), std::pow(10.0, std::min(e, 0.0)))
                                        : power_of_ten(static_cast<int>(std::lround(e))));
  }
  if (t.pos.size() >= 2) return t;
  t = {};
  Ticks nt = nice_ticks(std::pow(10.0, lo), std::pow(10.0, hi), 4);
  for (double v : nt.values) {
    if (v <= 0) continue;
    t.pos.push_back(pixels - (std::log10(v) - lo) / (hi - lo) * pixels);
    t.labels.push_back(tick_label(v, nt.step));
  }
  return t;
}

// Lays out a panel around a w×h plot: titles, y ticks and label, x ticks and label, and
// `extra_right` units on the right (legend). Draws grid, frame, ticks and labels.
Scene axes_scene(const std::string& title, const std::string& subtitle, const std::string& x_label, const std::string& y_label, Axes& a,
                 bool log_y, double extra_right, bool log_x = false) {
  const AxisTicks yt = log_y ? log_ticks(a.y0, a.y1, a.f.h) : value_ticks(a.y0, a.y1, a.f.h, true, 6);
  AxisTicks xt = log_x ? log_ticks(a.x0, a.x1, a.f.w) : value_ticks(a.x0, a.x1, a.f.w, false, 7, a.whole_x);
  if (log_x)  // log_ticks counts from the bottom of a y axis: from the left here
    for (double& p : xt.pos) p = a.f.w - p;
  const double label_line = line_height(kLabelType);
  const double left = kPad + (y_label.empty() ? 0 : label_line + kLabelGap) + max_width(yt.labels) + kTick + 4;
  const double top = title_height(title, subtitle);
  const double bottom = kTick + 3 + line_height(kTickType) + (x_label.empty() ? 0 : kLabelGap + label_line) + kPad;
  double width = left + a.f.w + kPad + extra_right + max_width(xt.labels) / 2;
  width = std::max({width, text_width(title, kTitleType) + 2 * kPad, text_width(subtitle, kSubtitleType) + 2 * kPad});
  Scene cv(width, top + a.f.h + bottom);
  draw_titles(cv, width, title, subtitle);
  a.f.x = left;
  a.f.y = top;
  for (double p : yt.pos) cv.rect(a.f.x, a.f.y + p - 0.5, a.f.w, 1, kGrid);
  for (double p : xt.pos) cv.rect(a.f.x + p - 0.5, a.f.y, 1, a.f.h, kGrid);
  cv.frame(a.f.x - 1, a.f.y - 1, a.f.w + 2, a.f.h + 2, kInk);
  draw_left_ticks(cv, a.f, yt);
  draw_bottom_ticks(cv, a.f, xt);
  if (!y_label.empty()) cv.text_up(kPad + label_line / 2, a.f.y + a.f.h / 2, y_label, kLabelType, kInk);
  if (!x_label.empty())
    cv.text(a.f.x + a.f.w / 2, a.f.y + a.f.h + kTick + 3 + line_height(kTickType) + kLabelGap + kLabelType.size * text::kAscent, x_label,
            kLabelType, kInk, Align::center);
  return cv;
}

// [lo, hi] widened by `margin` of its length (a single value gets ±1 or ±10 %).
void widen(double& lo, double& hi, double margin) {
  if (!(hi > lo)) {
    const double d = lo == 0 ? 1 : std::abs(lo) * 0.1;
    lo -= d, hi += d;
    return;
  }
  const double d = (hi - lo) * margin;
  lo -= d, hi += d;
}

}  // namespace

Scene line_chart_scene(const LineChart& c) {
  Axes a{{0, 0, 620, std::clamp(c.plot_height, 100.0, 2000.0)}, INFINITY, -INFINITY, INFINITY, -INFINITY};
  a.whole_x = !c.log_x;
  auto yv = [&](double y) { return c.log_y ? (y > 0 ? std::log10(y) : NAN) : y; };
  auto xv = [&](double x) { return c.log_x ? (x > 0 ? std::log10(x) : NAN) : x; };
  for (const Series& s : c.series)
    for (std::size_t k = 0; k < std::min(s.x.size(), s.y.size()); ++k) {
      const double y = yv(s.y[k]), x = xv(s.x[k]);
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      a.whole_x = a.whole_x && x == std::round(x);
      a.x0 = std::min(a.x0, x), a.x1 = std::max(a.x1, x);
      a.y0 = std::min(a.y0, y), a.y1 = std::max(a.y1, y);
    }
  if (!std::isfinite(a.x0)) a.x0 = 0, a.x1 = 1, a.y0 = 0, a.y1 = 1;
  if (!(a.x1 > a.x0)) widen(a.x0, a.x1, 0);
  if (c.ymin && c.ymax && *c.ymax > *c.ymin) a.y0 = yv(*c.ymin), a.y1 = yv(*c.ymax);
  if (!std::isfinite(a.y0) || !std::isfinite(a.y1)) a.y0 = 0, a.y1 = 1;
  widen(a.y0, a.y1, 0.04);
  std::vector<std::string> names;
  for (const Series& s : c.series)
    if (!s.name.empty()) names.push_back(s.name);
  // a legend when several series are drawn and some have names (one series needs none)
  const bool legend = c.series.size() >= 2 && !names.empty();
  const double sample = 34;
  const double legend_w = legend ? 16 + sample + 8 + max_width(names) : 0;
  Scene cv = axes_scene(c.title, c.subtitle, c.x_label, c.y_label, a, c.log_y, legend_w, c.log_x);
  // reference curves first (dashed, under), then the others in order, the last on top; markers
  // at every point of short series, else at ~12 points shifted per series so they do not coincide
  // A reference is drawn wider than the measured line (4.5 vs 2 px), so where the two coincide its
  // dashes still show on both sides of the measured line drawn over it.
  constexpr double kReferenceWidth = 4.5;
  std::vector<std::size_t> order;
  std::size_t measured = 0;  // series that are not references: markers tell them apart
  for (const Series& s : c.series) measured += s.reference ? 0 : 1;
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t i = 0; i < c.series.size(); ++i)
      if (c.series[i].reference == (pass == 0)) order.push_back(i);
  const std::size_t n_series = std::max<std::size_t>(1, c.series.size());
  for (std::size_t i : order) {
    const Series& s = c.series[i];
    const Rgb col = series_color(i);
    const std::size_t n = std::min(s.x.size(), s.y.size());
    std::vector<Pt> run;
    auto flush = [&] {
      if (run.size() >= 2) cv.path(run, col, s.reference ? kReferenceWidth : 2.0, s.reference ? Dash::dashed : Dash::solid);
      run.clear();
    };
    for (std::size_t k = 0; k < n; ++k) {
      const double y = yv(s.y[k]), x = xv(s.x[k]);
      if (std::isfinite(y) && std::isfinite(x)) run.push_back({a.px(x), a.py(y)});
      else flush();
    }
    flush();
    // markers tell series apart: none on a single long measured series (they would read as data)
    if (s.reference || (measured < 2 && n > 40)) continue;
    const std::size_t every = n <= 40 ? 1 : std::max<std::size_t>(1, n / 12);
    const std::size_t start = n <= 40 ? 0 : every * i / n_series;
    for (std::size_t k = start; k < n; k += every)
      if (std::isfinite(yv(s.y[k])) && std::isfinite(xv(s.x[k]))) cv.marker(static_cast<int>(i), a.px(xv(s.x[k])), a.py(yv(s.y[k])), 3.6, col);
  }
  // legend, right of the plot: a sample of each named series' line and marker, and its name
  if (legend) {
    double y = a.f.y + 8;
    for (std::size_t i = 0; i < c.series.size(); ++i) {
      if (c.series[i].name.empty()) continue;
      const double x = a.f.x + a.f.w + 16;
      const bool ref = c.series[i].reference;
      cv.line(x, y, x + sample, y, series_color(i), ref ? 3.0 : 2.0, ref ? Dash::dashed : Dash::solid);  // thinner: two dashes show
      const std::size_t n = std::min(c.series[i].x.size(), c.series[i].y.size());
      if (!ref && (measured >= 2 || n <= 40)) cv.marker(static_cast<int>(i), x + sample / 2, y, 3.6, series_color(i));
      cv.text(x + sample + 8, y + center_baseline(kTickType), c.series[i].name, kTickType, kInk);
      y += line_height(kTickType) + 4;
    }
  }
  return cv;
}

namespace {

struct Box {
  double x0, y0, x1, y1;
  double overlap(const Box& o) const {
    return std::max(0.0, std::min(x1, o.x1) - std::max(x0, o.x0)) * std::max(0.0, std::min(y1, o.y1) - std::max(y0, o.y0));
  }
};

}  // namespace

Scene scatter_scene(const Scatter& s) {
  Axes a{{0, 0, 600, 480}, INFINITY, -INFINITY, INFINITY, -INFINITY};
  for (const Point& p : s.points) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
    a.x0 = std::min(a.x0, p.x), a.x1 = std::max(a.x1, p.x), a.y0 = std::min(a.y0, p.y), a.y1 = std::max(a.y1, p.y);
  }
  if (!std::isfinite(a.x0)) a.x0 = 0, a.x1 = 1, a.y0 = 0, a.y1 = 1;
  widen(a.x0, a.x1, 0.12);
  widen(a.y0, a.y1, 0.1);
  Scene cv = axes_scene(s.title, s.subtitle, s.x_label, s.y_label, a, false, 0);
  const Rgb arrow_col{214, 39, 40}, point_col = series_color(0);
  const double r = 4.5;
  // labels avoid the arrows too: each arrow is a row of small boxes along it
  std::vector<Box> taken;
  for (const auto& [from, to] : s.arrows) {
    if (from >= s.points.size() || to >= s.points.size()) continue;
    const Point &p = s.points[from], &q = s.points[to];
    double x0 = a.px(p.x), y0 = a.py(p.y), x1 = a.px(q.x), y1 = a.py(q.y);
    const double len = std::hypot(x1 - x0, y1 - y0);
    if (len > 12) {  // stop short of the point discs
      const double ux = (x1 - x0) / len, uy = (y1 - y0) / len;
      x0 += ux * (r + 1), y0 += uy * (r + 1), x1 -= ux * (r + 2), y1 -= uy * (r + 2);
    }
    cv.arrow(x0, y0, x1, y1, arrow_col);
    const int steps = static_cast<int>(len / 4);
    for (int k = 0; k <= steps; ++k) {
      const double t = steps ? static_cast<double>(k) / steps : 0, x = x0 + (x1 - x0) * t, y = y0 + (y1 - y0) * t;
      taken.push_back({x - 2, y - 2, x + 2, y + 2});
    }
  }
  // points, then labels: each at the first of 8 places around its point (then 8 farther out)
  // that overlaps no placed label, no point, no arrow and stays inside the plot; else the
  // least-overlapping one
  for (const Point& p : s.points)
    if (std::isfinite(p.x) && std::isfinite(p.y)) {
      cv.disc(a.px(p.x), a.py(p.y), r, point_col);
      taken.push_back({a.px(p.x) - r - 1, a.py(p.y) - r - 1, a.px(p.x) + r + 1, a.py(p.y) + r + 1});
    }
  const Type lt = kTickType;
  const double th = lt.size * (text::kAscent + text::kDescent), gap = r + 3;
  const Box plot{a.f.x, a.f.y, a.f.x + a.f.w, a.f.y + a.f.h};
  ProgressTicker tick(s.progress, s.points.size(), 200);
  std::size_t placed = 0;
  for (const Point& p : s.points) {
    tick(++placed);
    if (p.label.empty() || !std::isfinite(p.x) || !std::isfinite(p.y)) continue;
    const double cx = a.px(p.x), cy = a.py(p.y), w = text_width(p.label, lt);
    Box best{};
    double best_cost = INFINITY;
    bool leader = false;
    for (int ring = 1; ring <= 3 && best_cost > 0; ++ring) {
      const double g = gap + (ring - 1) * th * 1.1;
      // right, left, above, below, and the four diagonals
      const double cand[8][2] = {{cx + g, cy - th / 2},     {cx - g - w, cy - th / 2}, {cx - w / 2, cy - g - th}, {cx - w / 2, cy + g},
                                 {cx + g * 0.7, cy - g * 0.7 - th}, {cx - g * 0.7 - w, cy - g * 0.7 - th}, {cx + g * 0.7, cy + g * 0.7},
                                 {cx - g * 0.7 - w, cy + g * 0.7}};
      for (const auto& c : cand) {
        const Box b{c[0], c[1], c[0] + w, c[1] + th};
        double cost = 0;
        for (const Box& t : taken) cost += b.overlap(t);
        cost += w * th - b.overlap(plot);  // the part outside the plot
        if (cost < best_cost - 1e-9) best_cost = cost, best = b, leader = ring > 1;
      }
    }
    taken.push_back(best);
    if (leader) {  // a thin line from the point to the label's nearest edge
      const double lx = std::clamp(cx, best.x0, best.x1), ly = std::clamp(cy, best.y0, best.y1);
      cv.line(cx, cy, lx, ly, {150, 150, 150}, 0.8);
    }
    cv.text(best.x0, best.y0 + lt.size * text::kAscent, p.label, lt, kBlack);
  }
  return cv;
}

}  // namespace tfx::draw
