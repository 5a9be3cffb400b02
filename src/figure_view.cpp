// The terminal heatmap behind --view. Color: 24-bit half blocks, "▀" with the foreground = the
// upper cell and the background = the lower cell, so one character row shows two cell rows and
// cells stay square. No color: a grayscale ASCII ramp, one character per cell column and two
// cell rows averaged per line. Both scale to the width by block means, and end with the scale.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tfx/figure.hpp"

namespace tfx {

namespace {

constexpr int kMaxLines = 60;  // at most this many character rows of cells
constexpr const char* kRamp = " .:-=+*#%@";
constexpr Rgb kMaskedCell{96, 96, 96};

struct Cell {
  double t = 0;  // position on the scale, 0..1
  bool masked = false;
};

// Characters a terminal shows for s: UTF-8 lead bytes outside escape sequences.
std::size_t visible_width(const std::string& s) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b') {
      while (i < s.size() && s[i] != 'm') ++i;
      continue;
    }
    n += (static_cast<unsigned char>(s[i]) & 0xc0) != 0x80;
  }
  return n;
}

// The long form when it fits in the width, else the short one.
std::string fit(const std::string& long_form, const std::string& short_form, std::size_t width) {
  return (visible_width(long_form) <= width ? long_form : short_form) + "\n";
}

// s cut to `width` visible characters, the last one "…" when cut (s has no escapes).
std::string clip(const std::string& s, std::size_t width) {
  if (visible_width(s) <= width) return s;
  std::string out;
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool lead = (static_cast<unsigned char>(s[i]) & 0xc0) != 0x80;
    if (lead && ++n > width - 1) break;
    out += s[i];
  }
  return out + "…";
}

std::string fg(Rgb c) { return fmt::format("\x1b[38;2;{};{};{}m", c.r, c.g, c.b); }
std::string bg(Rgb c) { return fmt::format("\x1b[48;2;{};{};{}m", c.r, c.g, c.b); }

}  // namespace

std::string render_view(const Heatmap& h, const ViewOptions& options) {
  if (options.width < kMinViewWidth)
    throw usage_error(fmt::format("width {}: a view needs a terminal at least {} columns wide", options.width, kMinViewWidth),
                      {"width"});
  const std::size_t M = h.values.rows(), N = h.values.cols();
  const auto W = static_cast<std::size_t>(options.width);
  if (M == 0 || N == 0) return "(empty matrix)\n";
  // 1. grid: at most W columns; cells repeated s× (up to 4) when the matrix is narrow; rows
  //    limited so the picture fits in kMaxLines lines (each line = 2 half-rows)
  const std::size_t s = N <= W ? std::clamp<std::size_t>(W / N, 1, 4) : 1;
  std::size_t max_rows = static_cast<std::size_t>(2 * kMaxLines) / s;
  const std::size_t col_block = (N + W - 1) / W;
  max_rows = std::min(max_rows, (M + col_block - 1) / col_block);  // same block height as width: square cells
  const Downsampled d = downsample_mean(h.values, h.masked, std::max<std::size_t>(max_rows, 1), W);
  const std::size_t R = d.values.rows(), C = d.values.cols();
  const auto [lo, hi] = heatmap_scale(h);
  // 2. half-rows of cells, each cell s columns wide and s half-rows tall
  std::vector<std::vector<Cell>> half;
  for (std::size_t r = 0; r < R; ++r) {
    std::vector<Cell> row;
    for (std::size_t c = 0; c < C; ++c) {
      Cell cell{std::clamp((d.values(r, c) - lo) / (hi - lo), 0.0, 1.0), !d.masked.empty() && d.masked[r * C + c]};
      if (std::isnan(d.values(r, c))) cell.masked = true;
      for (std::size_t k = 0; k < s; ++k) row.push_back(cell);
    }
    for (std::size_t k = 0; k < s; ++k) half.push_back(row);
  }
  std::string out;
  const std::string title = clip(h.title, W);
  if (!title.empty()) out += options.color ? fmt::format("\x1b[1m{}\x1b[0m\n", title) : title + "\n";
  // 3. two half-rows per line
  for (std::size_t y = 0; y < half.size(); y += 2) {
    const std::vector<Cell>& up = half[y];
    const std::vector<Cell>* down = y + 1 < half.size() ? &half[y + 1] : nullptr;
    if (options.color) {
      std::string last_fg, last_bg;
      for (std::size_t x = 0; x < up.size(); ++x) {
        const std::string f = fg(up[x].masked ? kMaskedCell : colormap_color(h.cmap, up[x].t));
        const std::string b = down ? bg((*down)[x].masked ? kMaskedCell : colormap_color(h.cmap, (*down)[x].t)) : "\x1b[49m";
        if (f != last_fg) out += f, last_fg = f;
        if (b != last_bg) out += b, last_bg = b;
        out += "▀";
      }
      out += "\x1b[0m\n";
    } else {
      for (std::size_t x = 0; x < up.size(); ++x) {
        const Cell* a = &up[x];
        const Cell* b = down ? &(*down)[x] : a;
        if (a->masked && b->masked) {
          out += '/';
          continue;
        }
        if (a->masked) a = b;
        if (b->masked) b = a;
        const double t = (a->t + b->t) / 2;
        out += kRamp[std::clamp(static_cast<int>(t * 10), 0, 9)];
      }
      out += '\n';
    }
  }
  // 4. what the picture shows, then the scale (short forms in narrow terminals)
  std::string axes;
  const std::size_t Ms = h.source_rows ? h.source_rows : M, Ns = h.source_cols ? h.source_cols : N;
  if (!h.y_label.empty() || !h.x_label.empty())
    axes = fmt::format("rows: {} ↓ ({})  columns: {} → ({})", h.y_label.empty() ? "row" : h.y_label, Ms,
                       h.x_label.empty() ? "column" : h.x_label, Ns);
  else
    axes = fmt::format("{} rows × {} columns", Ms, Ns);
  std::string short_axes = fmt::format("{}×{}", Ms, Ns);
  if (d.block_rows > 1 || d.block_cols > 1 || Ms != M || Ns != N) {
    axes += fmt::format(", shown as {}×{} means of {}×{} blocks", R, C, (Ms + R - 1) / R, (Ns + C - 1) / C);
    short_axes += fmt::format(" → {}×{} means", R, C);
  }
  out += fit(axes, short_axes, W);
  const std::string range = fmt::format("min {:.4g} … max {:.4g}", lo, hi);
  if (options.color) {
    std::string bar;
    for (int k = 0; k < 24; ++k) bar += bg(colormap_color(h.cmap, k / 23.0)) + " ";
    out += fit(fmt::format("scale: min {:.4g} {}\x1b[0m max {:.4g}  ({})", lo, bar, hi, colormap_name(h.cmap)), range, W);
  } else {
    out += fit(fmt::format("scale: min {:.4g} '{}' … '{}' max {:.4g}  (ramp \"{}\"{})", lo, kRamp[0], kRamp[9], hi, kRamp,
                           h.masked.empty() ? "" : ", '/' = masked"),
               range, W);
  }
  return out;
}

}  // namespace tfx
