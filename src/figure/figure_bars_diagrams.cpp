// Two more panels:
//   bars    — one bar per category, vertical or horizontal, with reference rules (mean, ±σ)
//             and optional values at the bar ends;
//   diagram — shapes in data coordinates on an equal-scale plot (unit circles, arrows, arcs with
//             their angle, boxes with captions): RoPE's rotations, block diagrams.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "figure_layout.hpp"
#include "figure_text.hpp"

namespace tfx::draw {

namespace {

// a bar's printed value: the panel's decimals, except that a value below 0.01 (Q8_0's KL of 7e-5
// beside Q4_0's 0.03) keeps two significant digits instead of reading "0.00"
std::string bar_value_text(double v, double magnitude) {
  return value_text(v, v != 0 && std::abs(v) < 0.01 ? std::abs(v) : magnitude);
}

Rgb palette(int i) { return i < 0 ? kInk : series_color(static_cast<std::size_t>(i)); }
Rgb tint(Rgb c, double a) {
  auto mix = [a](std::uint8_t v) { return static_cast<std::uint8_t>(std::lround(255 + (v - 255) * a)); };
  return {mix(c.r), mix(c.g), mix(c.b)};
}

}  // namespace

Scene bars_scene(const Bars& b) {
  const std::size_t n = std::min(b.labels.size(), b.values.size());
  double lo = 0, hi = 0;
  for (std::size_t k = 0; k < n; ++k)
    if (std::isfinite(b.values[k])) lo = std::min(lo, b.values[k]), hi = std::max(hi, b.values[k]);
  for (const Rule& r : b.rules) lo = std::min(lo, r.value), hi = std::max(hi, r.value);
  if (!(hi > lo)) hi = lo + 1;
  const double pad = (hi - lo) * 0.06;
  lo = b.vmin.value_or(lo < 0 ? lo - pad : lo);
  hi = b.vmax.value_or(hi + pad);
  if (!(hi > lo)) hi = lo + 1;
  double magnitude = 0;
  for (std::size_t k = 0; k < n; ++k) magnitude = std::max(magnitude, std::abs(b.values[k]));
  const Rgb col = series_color(static_cast<std::size_t>(std::max(0, b.color)));
  const double label_line = line_height(kLabelType), tick_line = line_height(kTickType);
  const double labels_w = max_width(b.labels);
  const double top = title_height(b.title, b.subtitle);
  std::vector<std::string> printed{value_text(-magnitude, magnitude)};  // the widest a value can print
  for (std::size_t k = 0; k < n && b.annotate; ++k) printed.push_back(bar_value_text(-std::abs(b.values[k]), magnitude));
  const double value_w = b.annotate ? max_width(printed) + 8 : 0;

  if (b.horizontal) {
    // categories down the left, the first at the top; values along the bottom
    const double row = 30, pw = 460, ph = std::max(120.0, row * static_cast<double>(n));
    if (b.annotate && value_w < pw / 2) {
      // room inside the frame for the value printed beyond each bar's end
      double dmin = 0, dmax = 0;
      for (std::size_t k = 0; k < n; ++k)
        if (std::isfinite(b.values[k])) dmin = std::min(dmin, b.values[k]), dmax = std::max(dmax, b.values[k]);
      const double keep = pw / (pw - value_w);
      if (!b.vmax && dmax > 0) hi = std::max(hi, lo + (dmax - lo) * keep);
      if (!b.vmin && dmin < 0) lo = std::min(lo, hi - (hi - dmin) * keep);
    }
    const AxisTicks xt = value_ticks(lo, hi, pw, false, 6);
    const double left = kPad + (b.category_label.empty() ? 0 : label_line + kLabelGap) + labels_w + kTick + 6;
    const double bottom = kTick + 3 + tick_line + (b.value_label.empty() ? 0 : kLabelGap + label_line) + kPad;
    const double width = std::max({left + pw + kPad + max_width(xt.labels) / 2, text_width(b.title, kTitleType) + 2 * kPad,
                                   text_width(b.subtitle, kSubtitleType) + 2 * kPad});
    Scene cv(width, top + ph + bottom);
    draw_titles(cv, width, b.title, b.subtitle);
    const Frame f{left, top, pw, ph};
    auto X = [&](double v) { return f.x + (std::clamp(v, lo, hi) - lo) / (hi - lo) * pw; };
    for (double p : xt.pos) cv.rect(f.x + p - 0.5, f.y, 1, ph, kGrid);
    const double h = ph / std::max<double>(1, static_cast<double>(n));
    for (std::size_t k = 0; k < n; ++k) {
      const double v = b.values[k], y = f.y + h * static_cast<double>(k), x0 = X(std::min(0.0, v)), x1 = X(std::max(0.0, v));
      cv.rect(x0, y + h * 0.15, std::max(1.0, x1 - x0), h * 0.7, col, fmt::format("{} · {:.6g}", b.labels[k], v));
      cv.text(f.x - kTick - 4, y + h / 2 + center_baseline(kTickType), b.labels[k], kTickType, kInk, Align::right);
    }
    if (lo < 0 && hi > 0) cv.rect(X(0) - 0.5, f.y, 1, ph, kInk);
    for (const Rule& r : b.rules) {
      cv.line(X(r.value), f.y, X(r.value), f.y + ph, kBlack, 1.4, r.dashed ? Dash::dashed : Dash::solid);
      cv.text(X(r.value) + 3, f.y + kTickType.size, r.label, kTickType, kBlack);
    }
    // the values last, each on a white patch, so a rule does not strike them out
    for (std::size_t k = 0; k < n && b.annotate; ++k) {
      const double v = b.values[k], y = f.y + h * static_cast<double>(k), x0 = X(std::min(0.0, v)), x1 = X(std::max(0.0, v));
      const std::string t = bar_value_text(v, magnitude);
      const double tw = text_width(t, kTickType), base = y + h / 2 + center_baseline(kTickType);
      double tx = v >= 0 ? x1 + 4 : x0 - 4 - tw;
      // a bar that reaches the frame's edge (a fixed scale, e.g. probabilities up to 1) has no room
      // beyond its end: the value goes inside the bar's end, in white
      if (tx + tw > f.x + pw - 2 || tx < f.x + 2) {
        tx = v >= 0 ? x1 - 4 - tw : x0 + 4;
        if (tx >= f.x + 2 && tx + tw <= f.x + pw - 2) {
          cv.text(tx, base, t, kTickType, kWhite);
          continue;
        }
        tx = std::clamp(tx, f.x + 2, f.x + pw - 2 - tw);  // a bar too short for it as well: on a white patch
      }
      cv.rect(tx - 2, base - kTickType.size * text::kAscent - 1, tw + 4, kTickType.size + 2, kWhite);
      cv.text(tx, base, t, kTickType, kInk);
    }
    cv.frame(f.x - 1, f.y - 1, pw + 2, ph + 2, kInk);
    draw_bottom_ticks(cv, f, xt);
    if (!b.category_label.empty()) cv.text_up(kPad + label_line / 2, f.y + ph / 2, b.category_label, kLabelType, kInk);
    if (!b.value_label.empty())
      cv.text(f.x + pw / 2, f.y + ph + kTick + 3 + tick_line + kLabelGap + kLabelType.size * text::kAscent, b.value_label, kLabelType,
              kInk, Align::center);
    return cv;
  }

  // vertical: categories along the bottom (turned up when they do not fit), values up the left
  const double cell = std::clamp(560.0 / std::max<double>(1, static_cast<double>(n)), 10.0, 64.0);
  const double pw = std::max(240.0, cell * static_cast<double>(n)), ph = 320;
  const AxisTicks yt = value_ticks(lo, hi, ph, true, 6);
  const bool turned = labels_w + 6 > pw / std::max<double>(1, static_cast<double>(n));
  const double xtick_h = turned ? labels_w + 4 : tick_line;
  const double left = kPad + (b.value_label.empty() ? 0 : label_line + kLabelGap) + max_width(yt.labels) + kTick + 4;
  const double bottom = kTick + 3 + xtick_h + (b.category_label.empty() ? 0 : kLabelGap + label_line) + kPad;
  double rules_w = 0;
  for (const Rule& r : b.rules) rules_w = std::max(rules_w, text_width(r.label, kTickType) + 6);
  const double width = std::max({left + pw + rules_w + kPad, text_width(b.title, kTitleType) + 2 * kPad,
                                 text_width(b.subtitle, kSubtitleType) + 2 * kPad});
  Scene cv(width, top + ph + bottom);
  draw_titles(cv, width, b.title, b.subtitle);
  const Frame f{left, top, pw, ph};
  auto Y = [&](double v) { return f.y + ph - (std::clamp(v, lo, hi) - lo) / (hi - lo) * ph; };
  for (double p : yt.pos) cv.rect(f.x, f.y + p - 0.5, pw, 1, kGrid);
  const double w = pw / std::max<double>(1, static_cast<double>(n));
  for (std::size_t k = 0; k < n; ++k) {
    const double v = b.values[k], x = f.x + w * static_cast<double>(k), y0 = Y(std::max(0.0, v)), y1 = Y(std::min(0.0, v));
    cv.rect(x + w * 0.15, y0, w * 0.7, std::max(1.0, y1 - y0), col, fmt::format("{} · {:.6g}", b.labels[k], v));
    if (turned) cv.text(x + w / 2 + center_baseline(kTickType), f.y + ph + kTick + 3, b.labels[k], kTickType, kInk, Align::right, true);
    else cv.text(x + w / 2, f.y + ph + kTick + 3 + kTickType.size * text::kAscent, b.labels[k], kTickType, kInk, Align::center);
  }
  if (lo < 0 && hi > 0) cv.rect(f.x, Y(0) - 0.5, pw, 1, kInk);
  for (const Rule& r : b.rules) {
    cv.line(f.x, Y(r.value), f.x + pw, Y(r.value), kBlack, 1.4, r.dashed ? Dash::dashed : Dash::solid);
    cv.text(f.x + pw + 4, Y(r.value) + center_baseline(kTickType), r.label, kTickType, kBlack);
  }
  // the values last, each on a white patch, so a rule crossing a bar's end does not strike them out
  for (std::size_t k = 0; k < n && b.annotate; ++k) {
    const double v = b.values[k], x = f.x + w * static_cast<double>(k), y0 = Y(std::max(0.0, v)), y1 = Y(std::min(0.0, v));
    const std::string t = bar_value_text(v, magnitude);
    const double tw = text_width(t, kTickType), ascent = kTickType.size * text::kAscent;
    double base = v >= 0 ? y0 - 5 : y1 + kTickType.size + 1;
    // a bar that reaches the frame's top (bottom, when negative): the value would cross the
    // frame and the title (the tick labels) — in white inside the bar's end instead, or, on a
    // bar too short for it, on a white patch inside the frame
    if (v >= 0 ? base - ascent < f.y + 1 : base + kTickType.size * (1 - text::kAscent) > f.y + ph - 1) {
      base = v >= 0 ? y0 + 4 + ascent : y1 - 5;
      if (y1 - y0 >= kTickType.size + 8) {
        cv.text(x + w / 2, base, t, kTickType, kWhite, Align::center);
        continue;
      }
      base = std::clamp(base, f.y + ascent + 2, f.y + ph - 2);
    }
    cv.rect(x + w / 2 - tw / 2 - 2, base - ascent - 1, tw + 4, kTickType.size + 2, kWhite);
    cv.text(x + w / 2, base, t, kTickType, kInk, Align::center);
  }
  cv.frame(f.x - 1, f.y - 1, pw + 2, ph + 2, kInk);
  draw_left_ticks(cv, f, yt);
  for (std::size_t k = 0; k < n; ++k) cv.rect(f.x + w * (static_cast<double>(k) + 0.5) - 0.5, f.y + ph, 1, kTick, kInk);
  if (!b.value_label.empty()) cv.text_up(kPad + label_line / 2, f.y + ph / 2, b.value_label, kLabelType, kInk);
  if (!b.category_label.empty())
    cv.text(f.x + pw / 2, f.y + ph + kTick + 3 + xtick_h + kLabelGap + kLabelType.size * text::kAscent, b.category_label, kLabelType, kInk,
            Align::center);
  return cv;
}

Scene diagram_scene(const Diagram& d) {
  const double dw = std::max(d.x1 - d.x0, 1e-12), dh = std::max(d.y1 - d.y0, 1e-12);
  const double k = d.size / std::max(dw, dh);
  const double pw = dw * k, ph = dh * k, top = title_height(d.title, d.subtitle);
  const double width = std::max({pw + 2 * kPad, text_width(d.title, kTitleType) + 2 * kPad, text_width(d.subtitle, kSubtitleType) + 2 * kPad});
  Scene cv(width, top + ph + kPad);
  draw_titles(cv, width, d.title, d.subtitle);
  const double left = (width - pw) / 2;
  auto X = [&](double x) { return left + (x - d.x0) * k; };
  auto Y = [&](double y) { return top + (d.y1 - y) * k; };
  const Type lt = kTickType;
  if (d.axes) {
    if (d.y0 < 0 && d.y1 > 0) cv.line(X(d.x0), Y(0), X(d.x1), Y(0), {170, 170, 170}, 1);
    if (d.x0 < 0 && d.x1 > 0) cv.line(X(0), Y(d.y0), X(0), Y(d.y1), {170, 170, 170}, 1);
  }
  for (const auto& c : d.circles) {
    if (!c.dashed) {
      cv.ring(X(c.cx), Y(c.cy), c.r * k, kGrey, 1.2);
      continue;
    }
    std::vector<Pt> pts;
    for (int i = 0; i <= 120; ++i) pts.push_back({X(c.cx + c.r * std::cos(i * M_PI / 60)), Y(c.cy + c.r * std::sin(i * M_PI / 60))});
    cv.path(pts, kGrey, 1.2, Dash::dashed);
  }
  for (const auto& b : d.boxes) {
    const Rgb fill = b.color < 0 ? kWhite : tint(palette(b.color), 0.22);
    cv.rect(X(b.x), Y(b.y + b.h), b.w * k, b.h * k, fill);
    cv.frame(X(b.x), Y(b.y + b.h), b.w * k, b.h * k, kInk, 1.2);
    if (b.detail.empty()) {
      cv.text(X(b.x + b.w / 2), Y(b.y + b.h / 2) + center_baseline(kLabelType), b.label, kLabelType, kBlack, Align::center);
    } else {  // two lines centred together: the label, then the detail in smaller grey type
      const Type dt{13, false};
      const double h2 = line_height(kLabelType) + line_height(dt), top = Y(b.y + b.h / 2) - h2 / 2;
      cv.text(X(b.x + b.w / 2), top + line_height(kLabelType) / 2 + center_baseline(kLabelType), b.label, kLabelType, kBlack, Align::center);
      cv.text(X(b.x + b.w / 2), top + line_height(kLabelType) + line_height(dt) / 2 + center_baseline(dt), b.detail, dt, kGrey, Align::center);
    }
  }
  for (const auto& a : d.arcs) {
    std::vector<Pt> pts;
    const int steps = std::max(2, static_cast<int>(std::abs(a.a1 - a.a0) * 40));
    for (int i = 0; i <= steps; ++i) {
      const double t = a.a0 + (a.a1 - a.a0) * i / steps;
      pts.push_back({X(a.cx + a.r * std::cos(t)), Y(a.cy + a.r * std::sin(t))});
    }
    const Rgb c = palette(a.color);
    if (pts.size() >= 3 && std::hypot(pts.back().x - pts.front().x, pts.back().y - pts.front().y) > 8) {
      cv.path(std::vector<Pt>(pts.begin(), pts.end() - 1), c, 1.4);
      cv.arrow(pts[pts.size() - 2].x, pts[pts.size() - 2].y, pts.back().x, pts.back().y, c, 1.4, 7);
    } else {
      cv.path(pts, c, 1.4);
    }
    if (!a.label.empty()) {
      const double mid = (a.a0 + a.a1) / 2, lr = a.r * k + 6;
      const double lx = X(a.cx) + lr * std::cos(mid), ly = Y(a.cy) - lr * std::sin(mid);
      cv.text(lx, ly + center_baseline(lt), a.label, lt, c, std::cos(mid) >= 0 ? Align::left : Align::right);
    }
  }
  for (const auto& a : d.arrows) {
    const Rgb c = palette(a.color);
    if (a.dashed) {
      cv.line(X(a.x0), Y(a.y0), X(a.x1), Y(a.y1), c, 1.6, Dash::dashed);
    } else if (!a.head) {
      cv.line(X(a.x0), Y(a.y0), X(a.x1), Y(a.y1), c, 2.2);
    } else {
      cv.arrow(X(a.x0), Y(a.y0), X(a.x1), Y(a.y1), c, 2.2, 11);
    }
    if (!a.label.empty()) {
      const double len = std::hypot(X(a.x1) - X(a.x0), Y(a.y1) - Y(a.y0));
      double ux = len > 0 ? (X(a.x1) - X(a.x0)) / len : 1, uy = len > 0 ? (Y(a.y1) - Y(a.y0)) / len : 0;
      if (a.side != 0) {  // turn the offset 60° to the left (+1) or right (−1) of the arrow, on screen
        const double t = -a.side * M_PI / 3, cx = ux * std::cos(t) - uy * std::sin(t), cy = ux * std::sin(t) + uy * std::cos(t);
        ux = cx, uy = cy;
      }
      // the label's box sits wholly on the side u points to, 8 px from the head: its centre moves by
      // half the box along u, so a label never lies across its own arrow whatever the direction
      const double tw = text_width(a.label, lt), th = lt.size, gap = 8;
      const double cx = X(a.x1) + ux * (gap + tw / 2), cy = Y(a.y1) + uy * (gap + th / 2);
      cv.text(cx, cy + center_baseline(lt), a.label, lt, c, Align::center);
    }
  }
  for (const auto& l : d.labels) {
    const Type t = l.bold ? kLabelType : lt;
    const Type shown{t.size, l.bold};
    cv.text(X(l.x), Y(l.y) + center_baseline(shown), l.text, shown, palette(l.color),
            l.align < 0 ? Align::left : l.align > 0 ? Align::right : Align::center);
  }
  return cv;
}

}  // namespace tfx::draw
