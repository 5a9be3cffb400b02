// The terminal heatmap (the CLI's --view). It never averages neighbouring rows or columns (a PE
// matrix's columns alternate sin and cos: a mean of the two is neither): a matrix larger than
// the terminal is shown by sampling whole rows and columns at a fixed stride — whole groups of
// columns when they belong together (sin/cos pairs) — and says which ones are shown. Color:
// 24-bit half blocks, "▀" with the foreground = the upper row and the background = the lower,
// or one row per line when rows carry labels (tokens); no color: an ASCII ramp, one row per
// line. Every heatmap panel of a figure is drawn, tiled to fit the terminal's width and height.
#include <fmt/format.h>

#include "tfx/core/i18n.hpp"

#include <algorithm>
#include <cmath>

#include "tfx/figure/figure.hpp"
#include "tfx/core/text_width.hpp"

namespace tfx {

namespace {

constexpr const char* kRamp = " .:-=+*#%@";
constexpr Rgb kMaskedCell{96, 96, 96};
constexpr std::size_t kMaxLabelWidth = 12;

std::string fg(Rgb c) { return fmt::format("\x1b[38;2;{};{};{}m", c.r, c.g, c.b); }
std::string bg(Rgb c) { return fmt::format("\x1b[48;2;{};{};{}m", c.r, c.g, c.b); }

std::string ordinal(std::size_t n) {
  const char* suffix = (n % 100 >= 11 && n % 100 <= 13) ? "th" : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
  return fmt::format("{}{}", n, suffix);
}

// Which of n rows (or columns) to show in `capacity` cells: all of them, else whole groups of
// `group` consecutive ones (group 2: sin/cos pairs stay together), starting at the first: every
// s-th group when that fills at least 90 % of the capacity, else as many groups as fit, evenly
// spaced from the first to the last (so a 128-column PE in 117 columns shows 58 of its 64 pairs,
// not every other pair).
struct AxisSample {
  std::vector<std::size_t> index;
  std::size_t stride = 1;  // the largest step between shown groups
  std::string words;       // "all 50", "64 of 128: every other pair", "116 of 128: 58 of 64 pairs, evenly spaced"
};

AxisSample sample_axis(std::size_t n, std::size_t capacity, std::size_t group) {
  AxisSample a;
  group = std::max<std::size_t>(group, 1);
  capacity = std::max<std::size_t>(capacity, 1);
  if (n <= capacity) {
    for (std::size_t i = 0; i < n; ++i) a.index.push_back(i);
    a.words = trf("all {}", n);
    return a;
  }
  if (group > capacity) group = 1;
  const std::size_t groups = (n + group - 1) / group, fit = std::max<std::size_t>(capacity / group, 1);
  const std::size_t stride = (groups + fit - 1) / fit;
  const int unit = group == 2 ? 1 : group > 2 ? 2 : 0;  // pairs, groups, single rows/columns
  auto add_group = [&](std::size_t g) {
    for (std::size_t k = 0; k < group && g * group + k < n; ++k) a.index.push_back(g * group + k);
  };
  if (10 * ((groups + stride - 1) / stride) >= 9 * std::min(fit, groups)) {
    a.stride = stride;
    for (std::size_t g = 0; g < groups; g += stride) add_group(g);
    // the ordinal ("every 3rd") in English; other languages count with the number
    const std::size_t k = a.index.size();
    const std::string nth = language() == Language::en ? ordinal(stride) : std::to_string(stride);
    if (stride == 2)
      a.words = unit == 1 ? trf("{} of {}: every other pair", k, n) : unit == 2 ? trf("{} of {}: every other group", k, n)
                                                                      : trf("{} of {}: every other", k, n);
    else
      a.words = unit == 1   ? trf("{} of {}: every {} pair", k, n, nth)
                : unit == 2 ? trf("{} of {}: every {} group", k, n, nth)
                            : trf("{} of {}: every {}", k, n, nth);
    return a;
  }
  // group k of the fit shown is group round(k·(groups − 1)/(fit − 1)): the first and the last are
  // shown, and the steps between shown groups differ by at most one
  if (fit == 1) add_group(0);
  for (std::size_t k = 0; k < fit && fit > 1; ++k) add_group((2 * k * (groups - 1) + (fit - 1)) / (2 * (fit - 1)));
  a.stride = (groups + fit - 1) / fit;
  a.words = unit == 1   ? trf("{} of {}: {} of {} pairs, evenly spaced", a.index.size(), n, fit, groups)
            : unit == 2 ? trf("{} of {}: {} of {} groups, evenly spaced", a.index.size(), n, fit, groups)
                        : trf("{} of {}, evenly spaced", a.index.size(), n);
  return a;
}

struct Cell {
  double t = 0;  // position on the scale, 0..1
  bool masked = false;
};

// A panel as lines of at most `pw` columns (escapes when color) in at most `ph` lines.
std::vector<std::string> render_panel(const Heatmap& h, std::size_t pw, std::size_t ph, bool color) {
  std::vector<std::string> out;
  const Tensor& v = h.values;
  const std::size_t M = v.rank() <= 1 ? 1 : v.rows(), N = v.rank() <= 1 ? v.size() : v.cols();
  if (!h.title.empty()) out.push_back(clip_to_width(h.title, pw));
  if (M == 0 || N == 0) {
    out.push_back(tr("(empty matrix)"));
    return out;
  }
  const auto lo_hi = heatmap_scale(h);  // (not a structured binding: clang 14 cannot capture those in lambdas)
  const double lo = lo_hi.first, hi = lo_hi.second;
  auto cell = [&](std::size_t r, std::size_t c) {
    const std::size_t k = r * N + c;
    const double x = v[k];
    return Cell{std::clamp((x - lo) / (hi - lo), 0.0, 1.0), std::isnan(x) || (!h.masked.empty() && h.masked[k])};
  };
  auto label_of = [](const std::vector<std::string>& labels, std::size_t i) {
    return i < labels.size() ? labels[i] : std::to_string(i);
  };
  // 1. layout: gutter for row labels, cell width, rows per line
  const bool one_row_per_line = !color || !h.row_labels.empty();
  std::size_t lw = std::to_string(M - 1).size();
  for (const auto& l : h.row_labels) lw = std::max(lw, std::min(display_width(l), kMaxLabelWidth));
  const std::size_t gutter = lw + 1;
  const std::size_t aw = pw > gutter + 4 ? pw - gutter : 4;
  std::size_t max_cw = 4;
  for (const auto& l : h.col_labels) max_cw = std::max(max_cw, std::min<std::size_t>(display_width(l) + 1, 8));
  AxisSample cols = sample_axis(N, aw, h.col_group);
  // footer: what is shown, then the scale
  const std::size_t Ms = h.source_rows ? h.source_rows : M, Ns = h.source_cols ? h.source_cols : N;
  const std::string blocks = Ms != M || Ns != N ? trf("; each cell the mean of a {}×{} block of the {}×{} matrix",
                                                               (Ms + M - 1) / M, (Ns + N - 1) / N, Ms, Ns) : "";
  const std::size_t title_lines = out.size();
  const std::size_t footer = 3;  // ruler, axes, scale
  const std::size_t grid_lines = ph > title_lines + footer + 1 ? ph - title_lines - footer : 1;
  const std::size_t row_capacity = one_row_per_line ? grid_lines : 2 * grid_lines;
  const AxisSample rows = sample_axis(M, row_capacity, h.row_group);
  // a square matrix of one kind of index (positions × positions) shows the same indices on both
  // axes, so its diagonal stays a diagonal
  if (M == N && h.row_group == h.col_group && rows.index.size() < cols.index.size()) cols = rows;
  const std::size_t C = cols.index.size();
  const std::size_t R = rows.index.size();
  // square cells, so a diagonal stays at 45°: a character is about half as wide as a line is tall,
  // so a cell one line tall is two characters wide; a half-block cell k characters wide is k half
  // blocks tall (columns narrowed when the rows cannot be as tall)
  // blocks tall (columns narrowed when the rows cannot be as tall). Columns named by tokens keep
  // the width their names need instead: a token view is read by its labels, not its slopes.
  std::size_t cw = std::clamp<std::size_t>(aw / C, 1, max_cw);
  const bool square = h.col_labels.empty();
  if (square && one_row_per_line) cw = std::min<std::size_t>(cw, 2);
  if (square && !one_row_per_line) cw = std::clamp<std::size_t>(std::min(cw, row_capacity / std::max<std::size_t>(R, 1)), 1, 4);
  const std::size_t rr = one_row_per_line ? 1 : std::clamp<std::size_t>(std::min(cw, row_capacity / std::max<std::size_t>(R, 1)), 1, 4);
  // 2. the grid
  std::vector<const std::size_t*> half;  // source row of each half-row (or line)
  for (const std::size_t& r : rows.index)
    for (std::size_t k = 0; k < rr; ++k) half.push_back(&r);
  const std::size_t step = one_row_per_line ? 1 : 2;
  for (std::size_t y = 0; y < half.size(); y += step) {
    const std::size_t r = *half[y];
    const bool first_copy = y == 0 || half[y - 1] != half[y];
    const bool last_line = y + step >= half.size();
    std::string gut;
    if (!h.row_labels.empty() || !color) gut = first_copy ? clip_to_width(label_of(h.row_labels, r), lw) : "";
    else if (first_copy && ((y / step) % 4 == 0 || last_line)) gut = std::to_string(r);
    std::string line = pad_left(gut, lw) + " ";
    const std::size_t* lower = !one_row_per_line && y + 1 < half.size() ? half[y + 1] : nullptr;
    std::string last_f, last_b;
    for (std::size_t c : cols.index) {
      const Cell up = cell(r, c);
      if (!color) {
        const char ch = up.masked ? '/' : kRamp[std::clamp(static_cast<int>(up.t * 10), 0, 9)];
        line += std::string(cw, ch);
        continue;
      }
      const Rgb cu = up.masked ? kMaskedCell : colormap_color(h.cmap, up.t);
      if (one_row_per_line) {
        const std::string b = bg(cu);
        if (b != last_b) line += b, last_b = b;
        line += std::string(cw, ' ');
        continue;
      }
      const std::string f = fg(cu);
      std::string b = "\x1b[49m";
      if (lower) {
        const Cell dn = cell(*lower, c);
        b = bg(dn.masked ? kMaskedCell : colormap_color(h.cmap, dn.t));
      }
      if (f != last_f) line += f, last_f = f;
      if (b != last_b) line += b, last_b = b;
      for (std::size_t k = 0; k < cw; ++k) line += "▀";
    }
    if (color) line += "\x1b[0m";
    out.push_back(line);
  }
  // 3. column ruler: labels (tokens) or indices under the columns they name, where they fit
  std::string ruler(gutter, ' ');
  std::size_t x = 0, free_from = 0;
  for (std::size_t j = 0; j < C; ++j, x += cw) {
    const std::size_t c = cols.index[j];
    std::string text = label_of(h.col_labels, c);
    if (!h.col_labels.empty() && cw >= 2) text = clip_to_width(text, cw - 1);
    const std::size_t tw = display_width(text);
    if (x < free_from || gutter + x + tw > pw) continue;
    ruler += std::string(x - (display_width(ruler) - gutter), ' ') + text;
    free_from = x + tw + (h.col_labels.empty() ? 2 : 1);
  }
  out.push_back(ruler);
  // 4. what is shown, then the scale
  const std::string ry = h.y_label.empty() ? std::string(tr("rows")) : h.y_label,
                    cx = h.x_label.empty() ? std::string(tr("columns")) : h.x_label;
  const std::string axes = fmt::format("↓ {}: {} · → {}: {}{}", ry, rows.words, cx, cols.words, blocks);
  const std::string short_axes = blocks.empty() ? fmt::format("↓ {} · → {}", rows.words, cols.words)
                                                : trf("{}×{} block means of {}×{}", (Ms + M - 1) / M, (Ns + N - 1) / N, Ms, Ns);
  out.push_back(display_width(axes) <= pw ? axes : clip_to_width(short_axes, pw));
  const std::string range = fmt::format("min {:.4g} … max {:.4g}", lo, hi);
  std::string scale;
  if (color) {
    std::string bar;
    const int n = static_cast<int>(std::clamp<std::size_t>(pw > 40 ? pw - 40 : 8, 8, 24));
    for (int k = 0; k < n; ++k) bar += bg(colormap_color(h.cmap, k / static_cast<double>(n - 1))) + " ";
    scale = fmt::format("min {:.4g} {}\x1b[0m max {:.4g}  ({})", lo, bar, hi, colormap_name(h.cmap));
  } else {
    scale = trf("scale \"{}\": min {:.4g} … max {:.4g}{}", kRamp, lo, hi, h.masked.empty() ? "" : tr(", / = masked"));
  }
  out.push_back(display_width(scale) <= pw ? scale : clip_to_width(range, pw));
  return out;
}

}  // namespace

std::string render_view(const Figure& f, const ViewOptions& options) {
  if (options.width < kMinViewWidth)
    throw usage_error(fmt::format(N_("width {}: a view needs a terminal at least {} columns wide"), options.width, kMinViewWidth),
                      {"width"});
  const auto W = static_cast<std::size_t>(options.width);
  // one line is left for the shell prompt that follows
  std::size_t budget = static_cast<std::size_t>(std::max(options.height, 8)) - 1;
  std::vector<const Heatmap*> maps;
  std::size_t others = 0;
  for (const Panel& p : f.panels) {
    if (const auto* h = std::get_if<Heatmap>(&p)) maps.push_back(h);
    else ++others;
  }
  std::string out;
  auto add_line = [&](const std::string& s) {
    out += s + "\n";
    --budget;
  };
  if (!f.title.empty()) add_line(options.color ? "\x1b[1m" + clip_to_width(f.title, W) + "\x1b[0m" : clip_to_width(f.title, W));
  if (maps.empty()) {
    add_line(clip_to_width(trf("(no heatmap to draw in the terminal; use {} for this figure)", options.whole_figure), W));
    return out;
  }
  const std::string other_note =
      others ? clip_to_width((others > 1 ? trf("(+{} chart panels not drawn in the terminal: see {})", others, options.whole_figure)
                                 : trf("(+{} chart panel not drawn in the terminal: see {})", others, options.whole_figure)), W) : "";
  if (others) --budget;
  // 2. tiling: the number of side-by-side columns that shows each panel with the most cells
  //    (estimated from the first panel: grid lines = height − title, ruler, axes, scale)
  const std::size_t P = maps.size(), gap = 2;
  const Tensor& v0 = maps[0]->values;
  const std::size_t M0 = v0.rank() <= 1 ? 1 : v0.rows(), N0 = v0.rank() <= 1 ? v0.size() : v0.cols();
  const std::size_t per_line = options.color && maps[0]->row_labels.empty() ? 2 : 1;
  std::size_t k = 1, per_row_h = budget;
  double best = -1;
  for (std::size_t cand = 1; cand <= P; ++cand) {
    if (W < gap * (cand - 1) + kMinViewWidth * cand) break;
    const std::size_t prow = (P + cand - 1) / cand;
    const std::size_t pw = (W - gap * (cand - 1)) / cand, ph = budget / prow;
    if (ph < 5) continue;
    const double rows = static_cast<double>(std::min(M0, (ph - 4) * per_line));
    const double cols = static_cast<double>(std::min(N0, pw > 6 ? pw - 6 : 1));
    const double score = M0 == N0 ? std::pow(std::min(rows, cols), 2) : rows * cols;
    if (score > best) best = score, k = cand, per_row_h = ph;
  }
  if (best < 0) k = std::max<std::size_t>(1, std::min(P, W / (kMinViewWidth + gap))), per_row_h = budget;
  const std::size_t pw = (W - gap * (k - 1)) / k;
  std::size_t shown = P;
  if (per_row_h < 5) {  // too short even side by side: draw the panels that fit
    per_row_h = std::min<std::size_t>(budget, 5);
    shown = std::min(P, std::max<std::size_t>(budget / per_row_h, 1) * k);
  }
  for (std::size_t start = 0; start < shown; start += k) {
    std::vector<std::vector<std::string>> tiles;
    std::size_t lines = 0;
    for (std::size_t p = start; p < std::min(shown, start + k); ++p) {
      tiles.push_back(render_panel(*maps[p], pw, per_row_h, options.color));
      lines = std::max(lines, tiles.back().size());
    }
    for (std::size_t y = 0; y < lines && budget > 0; ++y) {
      std::string line;
      for (std::size_t t = 0; t < tiles.size(); ++t) {
        const std::string cell = y < tiles[t].size() ? tiles[t][y] : "";
        if (t + 1 < tiles.size()) line += pad_right(cell, pw) + std::string(gap, ' ');
        else line += cell;
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      add_line(line);
    }
  }
  if (shown < P && budget > 0)
    add_line(clip_to_width((P - shown > 1 ? trf("({} more panels not drawn: the terminal is too short; use {})", P - shown, options.whole_figure)
                                           : trf("({} more panel not drawn: the terminal is too short; use {})", P - shown, options.whole_figure)), W));
  if (others && budget > 0) add_line(other_note);
  return out;
}

std::string render_view(const Heatmap& h, const ViewOptions& options) {
  Figure f;
  f.panels.push_back(h);
  return render_view(f, options);
}

}  // namespace tfx
