// The three panel kinds, each on its own canvas:
//   heatmap — cells (block means above kMaxHeatmapCells per axis), masked cells hatched grey,
//             token or index ticks on both axes, a colorbar with its scale;
//   line    — several series with a legend, linear or log y, grid at the ticks;
//   scatter — labelled points and arrows between them.
// Anatomy of every panel, top to bottom: title, subtitle, plot with ticks, x label; y label on
// the left, rotated.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "figure_canvas.hpp"

namespace tfx::draw {

namespace {

constexpr int kPad = 10, kTick = 4, kLabelGap = 4;
const int kLine = font::kSmall.line_height() + 2;  // one row of small text

// Where a plot sits inside its panel.
struct Frame {
  int x, y, w, h;
};

// Ticks with labels along the left edge (values increase upward unless `down`) and the bottom.
struct AxisTicks {
  std::vector<double> pos;  // pixel offset along the axis
  std::vector<std::string> labels;
};

int max_width(const std::vector<std::string>& labels) {
  int w = 0;
  for (const auto& s : labels) w = std::max(w, text_width(s, font::kSmall));
  return w;
}

void draw_left_ticks(Canvas& cv, const Frame& f, const AxisTicks& t) {
  for (std::size_t k = 0; k < t.pos.size(); ++k) {
    const int y = f.y + static_cast<int>(std::lround(t.pos[k]));
    cv.fill(f.x - kTick, y, kTick, 1, kInk);
    cv.text(f.x - kTick - 3, y + font::kSmall.ascent / 2, t.labels[k], font::kSmall, kInk, Align::right);
  }
}

void draw_bottom_ticks(Canvas& cv, const Frame& f, const AxisTicks& t) {
  for (std::size_t k = 0; k < t.pos.size(); ++k) {
    const int x = f.x + static_cast<int>(std::lround(t.pos[k]));
    cv.fill(x, f.y + f.h, 1, kTick, kInk);
    cv.text(x, f.y + f.h + kTick + 2 + font::kSmall.ascent, t.labels[k], font::kSmall, kInk, Align::center);
  }
}

// Index ticks for `n` cells of `cell` pixels (nice steps of whole indices, at cell centres).
AxisTicks index_ticks(std::size_t n, double cell, int target) {
  AxisTicks t;
  Ticks nt = nice_ticks(0, static_cast<double>(n - 1), target);
  const double step = std::max(1.0, nt.step);
  for (double v = 0; v <= static_cast<double>(n - 1) + 1e-9; v += step) {
    t.pos.push_back((v + 0.5) * cell);
    t.labels.push_back(fmt::format("{:.0f}", v));
  }
  return t;
}

// Token labels at cell centres; every k-th when cells are smaller than a line of text.
AxisTicks token_ticks(const std::vector<std::string>& labels, double cell, int min_gap) {
  AxisTicks t;
  const auto every = static_cast<std::size_t>(std::max(1.0, std::ceil(min_gap / cell)));
  for (std::size_t k = 0; k < labels.size(); k += every) {
    t.pos.push_back((static_cast<double>(k) + 0.5) * cell);
    t.labels.push_back(labels[k]);
  }
  return t;
}

AxisTicks value_ticks(double lo, double hi, double pixels, bool flip, int target) {
  AxisTicks t;
  Ticks nt = nice_ticks(lo, hi, target);
  for (double v : nt.values) {
    const double u = (v - lo) / (hi - lo) * pixels;
    t.pos.push_back(flip ? pixels - u : u);
    t.labels.push_back(tick_label(v, nt.step));
  }
  return t;
}

}  // namespace

int title_height(const std::string& title, const std::string& subtitle) {
  int h = 6;
  if (!title.empty()) h += font::kLarge.line_height() + 4;
  if (!subtitle.empty()) h += kLine;
  return h + 4;
}

void draw_titles(Canvas& cv, const std::string& title, const std::string& subtitle) {
  int y = 6;
  if (!title.empty()) {
    cv.text(cv.width() / 2, y + font::kLarge.ascent, title, font::kLarge, kBlack, Align::center);
    y += font::kLarge.line_height() + 4;
  }
  if (!subtitle.empty()) cv.text(cv.width() / 2, y + font::kSmall.ascent, subtitle, font::kSmall, {90, 90, 90}, Align::center);
}

Image render_heatmap(const Heatmap& h) {
  const std::size_t M = h.values.rows(), N = h.values.cols();
  if (M == 0 || N == 0 || h.values.empty()) {
    Canvas cv(std::max(240, text_width(h.title, font::kLarge) + 2 * kPad), title_height(h.title, h.subtitle) + 40);
    draw_titles(cv, h.title, h.subtitle);
    cv.text(cv.width() / 2, cv.height() - 16, "(empty matrix)", font::kSmall, kInk, Align::center);
    return cv.take();
  }
  const Downsampled d = downsample_mean(h.values, h.masked, kMaxHeatmapCells, kMaxHeatmapCells);
  const std::size_t R = d.values.rows(), C = d.values.cols();
  std::string subtitle = h.subtitle;
  if (d.block_rows > 1 || d.block_cols > 1)
    subtitle += fmt::format("{}downsampled {}×{} → {}×{} (means of {}×{} blocks)", subtitle.empty() ? "" : "  ·  ", M, N, R, C,
                            d.block_rows, d.block_cols);
  // 1. cell size: square, the longer axis about 640 px, 1..64 px per cell; thin strips widened
  const int cell = static_cast<int>(std::clamp<std::size_t>(640 / std::max<std::size_t>({R, C, 1}), 1, 64));
  const int cw = std::max(cell, static_cast<int>((24 + C - 1) / std::max<std::size_t>(C, 1)));
  const int ch = std::max(cell, static_cast<int>((24 + R - 1) / std::max<std::size_t>(R, 1)));
  const int pw = static_cast<int>(C) * cw, ph = static_cast<int>(R) * ch;
  const auto [lo, hi] = heatmap_scale(h);

  // 2. axis ticks: tokens when given (and not downsampled), else indices (of the source matrix)
  const std::size_t My = h.source_rows ? h.source_rows : M, Nx = h.source_cols ? h.source_cols : N;
  const bool row_tokens = h.row_labels.size() == M && d.block_rows == 1;
  const bool col_tokens = h.col_labels.size() == N && d.block_cols == 1;
  AxisTicks yt = row_tokens ? token_ticks(h.row_labels, ch, kLine)
                            : index_ticks(My, static_cast<double>(ph) / static_cast<double>(My), std::max(2, ph / 70));
  bool col_vertical = false;
  AxisTicks xt;
  if (col_tokens) {
    col_vertical = max_width(h.col_labels) + 6 > cw;
    xt = token_ticks(h.col_labels, cw, col_vertical ? kLine : max_width(h.col_labels) + 6);
  } else {
    xt = index_ticks(Nx, static_cast<double>(pw) / static_cast<double>(Nx), std::max(2, pw / 90));
  }
  const int xtick_h = col_vertical ? max_width(xt.labels) + 4 : kLine;

  // 3. colorbar ticks and the margins around the plot
  const int bar_h = std::max(ph, 120), bar_w = 16;
  AxisTicks ct = value_ticks(lo, hi, bar_h - 1, true, std::max(3, bar_h / 100));
  const int left = kPad + (h.y_label.empty() ? 0 : kLine + kLabelGap) + max_width(yt.labels) + kTick + 4;
  const int right = 18 + bar_w + kTick + 4 + max_width(ct.labels) + (h.value_label.empty() ? 0 : kLabelGap + kLine) + kPad;
  const int top = title_height(h.title, subtitle);
  const int bottom = kTick + 2 + xtick_h + (h.x_label.empty() ? 0 : kLabelGap + kLine) + kPad;
  int width = left + pw + right;
  width = std::max({width, text_width(h.title, font::kLarge) + 2 * kPad, text_width(subtitle, font::kSmall) + 2 * kPad});
  const int height = top + std::max(ph, bar_h) + bottom;
  Canvas cv(width, height);
  draw_titles(cv, h.title, subtitle);
  const Frame f{left + (width - left - pw - right) / 2, top, pw, ph};

  // 4. cells; masked cells hatched
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t c = 0; c < C; ++c) {
      const int x0 = f.x + static_cast<int>(c) * cw, y0 = f.y + static_cast<int>(r) * ch;
      if (!d.masked.empty() && d.masked[r * C + c]) {
        for (int y = y0; y < y0 + ch; ++y)
          for (int x = x0; x < x0 + cw; ++x) cv.set(x, y, (x + y) % 6 < 2 ? kMaskHatch : kMaskBase);
        continue;
      }
      cv.fill(x0, y0, cw, ch, colormap_color(h.cmap, (d.values(r, c) - lo) / (hi - lo)));
    }
  cv.frame(f.x - 1, f.y - 1, pw + 2, ph + 2, kInk);
  draw_left_ticks(cv, f, yt);
  if (col_vertical) {
    for (std::size_t k = 0; k < xt.pos.size(); ++k) {
      const int x = f.x + static_cast<int>(std::lround(xt.pos[k]));
      cv.fill(x, f.y + ph, 1, kTick, kInk);
      cv.text_up(x, f.y + ph + kTick + 3, xt.labels[k], font::kSmall, kInk, Align::right);
    }
  } else {
    draw_bottom_ticks(cv, f, xt);
  }
  if (!h.y_label.empty()) cv.text_up(kPad + kLine / 2 - 2, f.y + ph / 2, h.y_label, font::kSmall, kInk);
  if (!h.x_label.empty())
    cv.text(f.x + pw / 2, f.y + ph + kTick + 2 + xtick_h + kLabelGap + font::kSmall.ascent, h.x_label, font::kSmall, kInk, Align::center);

  // 5. colorbar: top = hi, bottom = lo
  const Frame bar{f.x + pw + 18, f.y, bar_w, bar_h};
  for (int y = 0; y < bar_h; ++y)
    cv.fill(bar.x, bar.y + y, bar_w, 1, colormap_color(h.cmap, 1.0 - static_cast<double>(y) / (bar_h - 1)));
  cv.frame(bar.x - 1, bar.y - 1, bar_w + 2, bar_h + 2, kInk);
  for (std::size_t k = 0; k < ct.pos.size(); ++k) {
    const int y = bar.y + static_cast<int>(std::lround(ct.pos[k]));
    cv.fill(bar.x + bar_w, y, kTick, 1, kInk);
    cv.text(bar.x + bar_w + kTick + 3, y + font::kSmall.ascent / 2, ct.labels[k], font::kSmall, kInk);
  }
  if (!h.value_label.empty())
    cv.text_up(bar.x + bar_w + kTick + 4 + max_width(ct.labels) + kLabelGap + kLine / 2 - 2, bar.y + bar_h / 2, h.value_label,
               font::kSmall, kInk);
  return cv.take();
}

namespace {

// The plot area of a line chart or scatter with its data ranges and grid.
struct Axes {
  Frame f;
  double x0, x1, y0, y1;  // data range (y in log10 units when log)
  double px(double x) const { return f.x + (x - x0) / (x1 - x0) * f.w; }
  double py(double y) const { return f.y + f.h - (y - y0) / (y1 - y0) * f.h; }
};

// Ticks for a log10 axis spanning [lo, hi] (in log10 units): the decades, or nice ticks inside
// one decade.
AxisTicks log_ticks(double lo, double hi, double pixels) {
  AxisTicks t;
  for (double e = std::ceil(lo - 1e-9); e <= hi + 1e-9; e += 1) {
    t.pos.push_back(pixels - (e - lo) / (hi - lo) * pixels);
    t.labels.push_back(std::abs(e) <= 3 ? tick_label(std::pow(10.0, e), std::pow(10.0, std::min(e, 0.0))) : fmt::format("1e{:.0f}", e));
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
// `extra_right` pixels on the right (legend). Draws grid, frame, ticks and labels.
Canvas axes_canvas(const std::string& title, const std::string& subtitle, const std::string& x_label, const std::string& y_label,
                   Axes& a, bool log_y, int extra_right) {
  const AxisTicks yt = log_y ? log_ticks(a.y0, a.y1, a.f.h) : value_ticks(a.y0, a.y1, a.f.h, true, 6);
  const AxisTicks xt = value_ticks(a.x0, a.x1, a.f.w, false, 7);
  const int left = kPad + (y_label.empty() ? 0 : kLine + kLabelGap) + max_width(yt.labels) + kTick + 4;
  const int top = title_height(title, subtitle);
  const int bottom = kTick + 2 + kLine + (x_label.empty() ? 0 : kLabelGap + kLine) + kPad;
  int width = left + a.f.w + kPad + extra_right + max_width(xt.labels) / 2;
  width = std::max({width, text_width(title, font::kLarge) + 2 * kPad, text_width(subtitle, font::kSmall) + 2 * kPad});
  Canvas cv(width, top + a.f.h + bottom);
  draw_titles(cv, title, subtitle);
  a.f.x = left;
  a.f.y = top;
  for (double p : yt.pos) cv.fill(a.f.x, a.f.y + static_cast<int>(std::lround(p)), a.f.w, 1, kGrid);
  for (double p : xt.pos) cv.fill(a.f.x + static_cast<int>(std::lround(p)), a.f.y, 1, a.f.h, kGrid);
  cv.frame(a.f.x - 1, a.f.y - 1, a.f.w + 2, a.f.h + 2, kInk);
  draw_left_ticks(cv, a.f, yt);
  draw_bottom_ticks(cv, a.f, xt);
  if (!y_label.empty()) cv.text_up(kPad + kLine / 2 - 2, a.f.y + a.f.h / 2, y_label, font::kSmall, kInk);
  if (!x_label.empty())
    cv.text(a.f.x + a.f.w / 2, a.f.y + a.f.h + kTick + 2 + kLine + kLabelGap + font::kSmall.ascent, x_label, font::kSmall, kInk,
            Align::center);
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

Image render_line_chart(const LineChart& c) {
  Axes a{{0, 0, 560, 340}, INFINITY, -INFINITY, INFINITY, -INFINITY};
  auto yv = [&](double y) { return c.log_y ? (y > 0 ? std::log10(y) : NAN) : y; };
  for (const Series& s : c.series)
    for (std::size_t k = 0; k < std::min(s.x.size(), s.y.size()); ++k) {
      const double y = yv(s.y[k]);
      if (!std::isfinite(s.x[k]) || !std::isfinite(y)) continue;
      a.x0 = std::min(a.x0, s.x[k]), a.x1 = std::max(a.x1, s.x[k]);
      a.y0 = std::min(a.y0, y), a.y1 = std::max(a.y1, y);
    }
  if (!std::isfinite(a.x0)) a.x0 = 0, a.x1 = 1, a.y0 = 0, a.y1 = 1;
  if (!(a.x1 > a.x0)) widen(a.x0, a.x1, 0);
  widen(a.y0, a.y1, 0.04);
  std::vector<std::string> names;
  for (const Series& s : c.series)
    if (!s.name.empty()) names.push_back(s.name);
  const int legend_w = names.empty() ? 0 : 16 + 22 + 6 + max_width(names);
  Canvas cv = axes_canvas(c.title, c.subtitle, c.x_label, c.y_label, a, c.log_y, legend_w);
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const Series& s = c.series[i];
    const Rgb col = series_color(i);
    const std::size_t n = std::min(s.x.size(), s.y.size());
    for (std::size_t k = 0; k + 1 < n; ++k) {
      const double ya = yv(s.y[k]), yb = yv(s.y[k + 1]);
      if (std::isfinite(ya) && std::isfinite(yb) && std::isfinite(s.x[k]) && std::isfinite(s.x[k + 1]))
        cv.line(a.px(s.x[k]), a.py(ya), a.px(s.x[k + 1]), a.py(yb), col, 2.0);
    }
    if (n <= 40)
      for (std::size_t k = 0; k < n; ++k)
        if (std::isfinite(yv(s.y[k])) && std::isfinite(s.x[k])) cv.disc(a.px(s.x[k]), a.py(yv(s.y[k])), 3.0, col);
  }
  // legend, right of the plot: a line sample and the name of each named series
  int y = a.f.y + 6;
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    if (c.series[i].name.empty()) continue;
    const int x = a.f.x + a.f.w + 16;
    cv.line(x, y + 0.5, x + 22, y + 0.5, series_color(i), 2.0);
    cv.text(x + 28, y + font::kSmall.ascent / 2, c.series[i].name, font::kSmall, kInk);
    y += kLine + 2;
  }
  return cv.take();
}

Image render_scatter(const Scatter& s) {
  Axes a{{0, 0, 520, 420}, INFINITY, -INFINITY, INFINITY, -INFINITY};
  for (const Point& p : s.points) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
    a.x0 = std::min(a.x0, p.x), a.x1 = std::max(a.x1, p.x), a.y0 = std::min(a.y0, p.y), a.y1 = std::max(a.y1, p.y);
  }
  if (!std::isfinite(a.x0)) a.x0 = 0, a.x1 = 1, a.y0 = 0, a.y1 = 1;
  widen(a.x0, a.x1, 0.1);
  widen(a.y0, a.y1, 0.1);
  Canvas cv = axes_canvas(s.title, s.subtitle, s.x_label, s.y_label, a, false, 0);
  const Rgb arrow_col{214, 39, 40}, point_col = series_color(0);
  for (const auto& [from, to] : s.arrows) {
    if (from >= s.points.size() || to >= s.points.size()) continue;
    const Point &p = s.points[from], &q = s.points[to];
    double x0 = a.px(p.x), y0 = a.py(p.y), x1 = a.px(q.x), y1 = a.py(q.y);
    const double len = std::hypot(x1 - x0, y1 - y0);
    if (len > 10) {  // stop short of the point discs
      x0 += (x1 - x0) * 5 / len, y0 += (y1 - y0) * 5 / len;
      x1 -= (x1 - x0) * 6 / len, y1 -= (y1 - y0) * 6 / len;
    }
    cv.arrow(x0, y0, x1, y1, arrow_col);
  }
  for (const Point& p : s.points) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
    cv.disc(a.px(p.x), a.py(p.y), 4.0, point_col);
    if (!p.label.empty())
      cv.text(static_cast<int>(a.px(p.x)) + 7, static_cast<int>(a.py(p.y)) - 4, p.label, font::kSmall, kBlack);
  }
  return cv.take();
}

}  // namespace tfx::draw
