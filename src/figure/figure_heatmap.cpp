// The heatmap panel: cells (block means above kMaxHeatmapCells per axis), masked cells hatched,
// token or index ticks on both axes, values printed in small matrices, a colorbar with its
// scale and caption. Each cell carries a hover text (row, column, value) for the SVG backend;
// matrices of more than kMaxRectCells cells are drawn as one picture instead.
#include <fmt/format.h>

#include "tfx/core/i18n.hpp"

#include <algorithm>
#include <cmath>

#include "figure_layout.hpp"
#include "figure_text.hpp"

namespace tfx::draw {

namespace {

// Above this many cells a heatmap is one nearest-neighbour picture (an SVG of a million <rect>s
// would be hundreds of MB); below it every cell is a rectangle with its hover text.
constexpr std::size_t kMaxRectCells = 128 * 128;

// Index ticks for `n` cells of `cell` units (nice steps of whole indices, at cell centres).
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

// Token labels at cell centres; every k-th when cells are smaller than a label needs.
AxisTicks token_ticks(const std::vector<std::string>& labels, double cell, double min_gap) {
  AxisTicks t;
  const auto every = static_cast<std::size_t>(std::max(1.0, std::ceil(min_gap / cell)));
  for (std::size_t k = 0; k < labels.size(); k += every) {
    t.pos.push_back((static_cast<double>(k) + 0.5) * cell);
    t.labels.push_back(labels[k]);
  }
  return t;
}

// Black or white, whichever reads better on c (relative luminance).
Rgb ink_on(Rgb c) { return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b > 140 ? kBlack : kWhite; }

std::string cell_name(const std::vector<std::string>& labels, std::size_t i, std::size_t block, bool tokens) {
  if (tokens) return fmt::format("{} “{}”", i, labels[i]);
  if (block > 1) return fmt::format("{}–{}", i * block, (i + 1) * block - 1);
  return fmt::format("{}", i);
}

}  // namespace

Scene heatmap_scene(const Heatmap& h) {
  const std::size_t M = h.values.rows(), N = h.values.cols();
  if (M == 0 || N == 0 || h.values.empty()) {
    Scene cv(std::max(260.0, text_width(h.title, kTitleType) + 2 * kPad), title_height(h.title, h.subtitle) + 44);
    draw_titles(cv, cv.width, h.title, h.subtitle);
    cv.text(cv.width / 2, cv.height - 18, tr("(empty matrix)"), kTickType, kInk, Align::center);
    return cv;
  }
  const Downsampled d = downsample_mean(h.values, h.masked, kMaxHeatmapCells, kMaxHeatmapCells);
  const std::size_t R = d.values.rows(), C = d.values.cols();
  std::string subtitle = h.subtitle;
  if (d.block_rows > 1 || d.block_cols > 1)
    subtitle += trf("{}downsampled {}×{} → {}×{} (means of {}×{} blocks)", subtitle.empty() ? "" : "  ·  ", M, N, R, C,
                            d.block_rows, d.block_cols);
  // 1. cell size: square, the longer axis about 640 units, 1..72 per cell; thin strips widened
  const double cell = static_cast<double>(std::clamp<std::size_t>(640 / std::max<std::size_t>({R, C, 1}), 1, 72));
  double cw = std::max(cell, std::ceil(28.0 / static_cast<double>(C))), ch = std::max(cell, std::ceil(28.0 / static_cast<double>(R)));
  // a strip of a few labelled tokens beside a long axis (3 tokens × 64 dims): each token's cell
  // at least one text line wide, so no token's label is dropped for lack of room
  const double min_token_cell = line_height(kTickType) + 2;
  if (h.row_labels.size() == M && d.block_rows == 1 && R <= 8 && C > 8) ch = std::max(ch, min_token_cell);
  if (h.col_labels.size() == N && d.block_cols == 1 && C <= 8 && R > 8) cw = std::max(cw, min_token_cell);
  // words in the cells: each cell as wide as the widest word (at most 120 units), a line tall
  const bool words = h.cell_text.size() == M * N && d.block_rows == 1 && d.block_cols == 1;
  if (words) {
    cw = std::max(cw, std::min(120.0, max_width(h.cell_text) + 8));
    ch = std::max(ch, line_height(kTickType) + 8);
  }
  const double pw = static_cast<double>(C) * cw, ph = static_cast<double>(R) * ch;
  const auto scale = heatmap_scale(h);  // (not a structured binding: clang 14 cannot capture those in lambdas)
  const double lo = scale.first, hi = scale.second;

  // 2. axis ticks: tokens when given (and not downsampled), else indices (of the source matrix)
  const std::size_t My = h.source_rows ? h.source_rows : M, Nx = h.source_cols ? h.source_cols : N;
  const bool row_tokens = h.row_labels.size() == M && d.block_rows == 1;
  const bool col_tokens = h.col_labels.size() == N && d.block_cols == 1;
  const double tick_line = line_height(kTickType);
  AxisTicks yt = row_tokens ? token_ticks(h.row_labels, ch, tick_line)
                            : index_ticks(My, ph / static_cast<double>(My), std::max(2, static_cast<int>(ph / 70)));
  bool col_vertical = false;
  AxisTicks xt;
  if (col_tokens) {
    col_vertical = max_width(h.col_labels) + 6 > cw;
    xt = token_ticks(h.col_labels, cw, col_vertical ? tick_line : max_width(h.col_labels) + 6);
  } else {
    xt = index_ticks(Nx, pw / static_cast<double>(Nx), std::max(2, static_cast<int>(pw / 90)));
  }
  const double xtick_h = col_vertical ? max_width(xt.labels) + 4 : tick_line;

  // 3. colorbar ticks and the margins around the plot; every colorbar has a caption
  const std::string caption = h.value_label.empty() ? std::string(tr("value")) : h.value_label;
  const double bar_h = std::max(ph, 160.0), bar_w = 18, bar_gap = 20;
  AxisTicks ct = value_ticks(lo, hi, bar_h, true, std::max(3, static_cast<int>(bar_h / 90)));
  const double label_line = line_height(kLabelType);
  const double left = kPad + (h.y_label.empty() ? 0 : label_line + kLabelGap) + max_width(yt.labels) + kTick + 4;
  const double right = bar_gap + bar_w + kTick + 4 + max_width(ct.labels) + kLabelGap + label_line + kPad;
  const double top = title_height(h.title, subtitle);
  const double bottom = kTick + 3 + xtick_h + (h.x_label.empty() ? 0 : kLabelGap + label_line) + kPad;
  const double width = std::max({left + pw + right, text_width(h.title, kTitleType) + 2 * kPad, text_width(subtitle, kSubtitleType) + 2 * kPad});
  Scene cv(width, top + std::max(ph, bar_h) + bottom);
  draw_titles(cv, width, h.title, subtitle);
  const Frame f{left + (width - left - pw - right) / 2, top, pw, ph};

  // 4. cells (masked ones hatched), each with its hover text; a picture when there are many
  const bool annotate = h.annotate.value_or(R <= kMaxAnnotatedCells && C <= kMaxAnnotatedCells) && cw >= 22 && ch >= 14;
  const Type value_type{std::clamp(std::min(cw / 3.6, ch / 1.8), 9.0, 15.0), false};
  double magnitude = 0;
  for (std::size_t k = 0; k < d.values.size(); ++k)
    if (std::isfinite(d.values[k])) magnitude = std::max(magnitude, std::abs(static_cast<double>(d.values[k])));
  auto color_of = [&](std::size_t r, std::size_t c) { return colormap_color(h.cmap, (d.values(r, c) - lo) / (hi - lo)); };
  auto is_masked = [&](std::size_t r, std::size_t c) { return !d.masked.empty() && d.masked[r * C + c]; };
  if (R * C > kMaxRectCells) {
    Image pic;
    pic.width = static_cast<int>(C), pic.height = static_cast<int>(R);
    pic.rgb.resize(R * C * 3);
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t c = 0; c < C; ++c) {
        const Rgb col = is_masked(r, c) ? kMaskBase : color_of(r, c);
        pic.rgb[(r * C + c) * 3] = col.r, pic.rgb[(r * C + c) * 3 + 1] = col.g, pic.rgb[(r * C + c) * 3 + 2] = col.b;
      }
    cv.picture(f.x, f.y, pw, ph, pic);
  } else {
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t c = 0; c < C; ++c) {
        const double x0 = f.x + static_cast<double>(c) * cw, y0 = f.y + static_cast<double>(r) * ch;
        const std::string where = trf("row {} · column {}", cell_name(h.row_labels, r, d.block_rows, row_tokens),
                                              cell_name(h.col_labels, c, d.block_cols, col_tokens));
        if (is_masked(r, c)) {
          cv.hatch(x0, y0, cw, ch, where + tr(" · masked"));
          continue;
        }
        const double v = d.values(r, c);
        const Rgb col = color_of(r, c);
        cv.rect(x0, y0, cw, ch, col, fmt::format("{} · {}{}", where, d.block_rows * d.block_cols > 1 ? tr("mean ") : "", fmt::format("{:.6g}", v)));
        if (words && h.annotate.value_or(true))
          cv.text(x0 + cw / 2, y0 + ch / 2 + center_baseline(kTickType), h.cell_text[r * C + c], kTickType, ink_on(col), Align::center);
        else if (annotate)
          cv.text(x0 + cw / 2, y0 + ch / 2 + center_baseline(value_type), value_text(v, magnitude), value_type, ink_on(col), Align::center);
      }
  }
  cv.frame(f.x - 1, f.y - 1, pw + 2, ph + 2, kInk);
  draw_left_ticks(cv, f, yt);
  if (col_vertical) {
    for (std::size_t k = 0; k < xt.pos.size(); ++k) {
      const double x = f.x + xt.pos[k];
      cv.rect(x - 0.5, f.y + ph, 1, kTick, kInk);
      cv.text(x + center_baseline(kTickType), f.y + ph + kTick + 3, xt.labels[k], kTickType, kInk, Align::right, true);
    }
  } else {
    draw_bottom_ticks(cv, f, xt);
  }
  // the y label hugs the ticks (the frame is centred when the title is wider than the panel)
  if (!h.y_label.empty()) cv.text_up(f.x - (left - kPad) + label_line / 2, f.y + ph / 2, h.y_label, kLabelType, kInk);
  if (!h.x_label.empty())
    cv.text(f.x + pw / 2, f.y + ph + kTick + 3 + xtick_h + kLabelGap + kLabelType.size * text::kAscent, h.x_label, kLabelType, kInk, Align::center);

  // 5. colorbar: top = hi, bottom = lo; ticks, then the caption rotated on the right
  const Frame bar{f.x + pw + bar_gap, f.y, bar_w, bar_h};
  cv.ramp(bar.x, bar.y, bar_w, bar_h, h.cmap);
  cv.frame(bar.x - 1, bar.y - 1, bar_w + 2, bar_h + 2, kInk);
  for (std::size_t k = 0; k < ct.pos.size(); ++k) {
    const double y = bar.y + ct.pos[k];
    cv.rect(bar.x + bar_w, y - 0.5, kTick, 1, kInk);
    cv.text(bar.x + bar_w + kTick + 3, y + center_baseline(kTickType), ct.labels[k], kTickType, kInk);
  }
  cv.text_up(bar.x + bar_w + kTick + 4 + max_width(ct.labels) + kLabelGap + label_line / 2, bar.y + bar_h / 2, caption, kLabelType, kInk);
  return cv;
}

}  // namespace tfx::draw
