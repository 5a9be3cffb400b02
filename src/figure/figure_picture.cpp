// The picture panel (tfx patches --image, tfx model attention --image): a photograph with its patch
// grid numbered in reading order, optionally a heat overlay on the cells with its colorbar, or the
// same patches laid out as the sequence of tokens a ViT reads.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "figure_canvas.hpp"
#include "figure_layout.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::draw {

namespace {

inline constexpr Rgb kGridLine{255, 255, 255};

// The cell (r, c) of `image` (side `cell` pixels) as an image of its own.
Image crop(const Image& image, int r, int c, int cell) {
  Image out;
  out.width = out.height = cell;
  out.rgb.resize(static_cast<std::size_t>(cell) * cell * 3);
  for (int y = 0; y < cell; ++y)
    std::copy_n(image.rgb.begin() + ((static_cast<std::size_t>(r) * cell + y) * image.width + static_cast<std::size_t>(c) * cell) * 3,
                static_cast<std::size_t>(cell) * 3, out.rgb.begin() + static_cast<std::size_t>(y) * cell * 3);
  return out;
}

// A small number on a white tag with its top-left corner at (x, y).
void tag(Canvas& cv, double x, double y, const std::string& s, const Type& t) {
  const double w = text_width(s, t) + 4, h = t.size + 2;
  cv.rect(x, y, w, h, kWhite);
  cv.text(x + 2, y + h / 2 + center_baseline(t), s, t, kInk);
}

double caption_height(const std::string& caption) { return caption.empty() ? 0 : line_height(kLabelType) + kLabelGap; }

// The picture with each cell's heat blended over it: 35 % picture, 65 % the colormap's colour.
Image heat_blend(const Picture& p) {
  Image out = p.image;
  const std::size_t rows = p.heat.rank() == 2 ? p.heat.rows() : 0, cols = p.heat.cols();
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) {
      const std::size_t r = static_cast<std::size_t>(y / p.cell), c = static_cast<std::size_t>(x / p.cell);
      if (r >= rows || c >= cols) continue;
      const double t = p.heat_max > 0 ? std::clamp(static_cast<double>(p.heat(r, c)) / p.heat_max, 0.0, 1.0) : 0.0;
      const Rgb h = colormap_color(Colormap::viridis, t);
      std::uint8_t* px = out.rgb.data() + (static_cast<std::size_t>(y) * out.width + x) * 3;
      px[0] = static_cast<std::uint8_t>(std::lround(0.35 * px[0] + 0.65 * h.r));
      px[1] = static_cast<std::uint8_t>(std::lround(0.35 * px[1] + 0.65 * h.g));
      px[2] = static_cast<std::uint8_t>(std::lround(0.35 * px[2] + 0.65 * h.b));
    }
  return out;
}

Scene grid_scene(const Picture& p) {
  const int iw = p.image.width, ih = p.image.height;
  const double W = p.width, H = W * ih / std::max(1, iw), unit = W / std::max(1, iw);
  const double top = title_height(p.title, p.subtitle);
  // the heat's colorbar right of the picture: bar, ticks "0" and the maximum, the caption turned up
  const bool heat = !p.heat.empty() && p.cell > 0;
  const std::string hi = fmt::format("{:.2g}", p.heat_max);
  const double bar_gap = 12, bar_w = 14, bar_extra = heat ? bar_gap + bar_w + 4 + std::max(text_width(hi, kTickType), text_width("0", kTickType)) +
                                                            kLabelGap + line_height(kLabelType)
                                                      : 0;
  const double content_w = std::max({W + 2 * bar_extra, text_width(p.caption, kLabelType), text_width(p.title, kTitleType),
                                     text_width(p.subtitle, kSubtitleType)});
  const double width = content_w + 2 * kPad, x0 = (width - W) / 2;
  Scene cv(width, top + H + caption_height(p.caption) + kPad);
  draw_titles(cv, width, p.title, p.subtitle);
  cv.picture(x0, top, W, H, heat ? heat_blend(p) : p.image);
  if (heat) {
    const double bx = x0 + W + bar_gap;
    cv.ramp(bx, top, bar_w, H, Colormap::viridis);
    cv.frame(bx - 1, top - 1, bar_w + 2, H + 2, kInk);
    cv.text(bx + bar_w + 4, top + center_baseline(kTickType) + kTickType.size / 2, hi, kTickType, kInk);
    cv.text(bx + bar_w + 4, top + H + center_baseline(kTickType) - kTickType.size / 2, "0", kTickType, kInk);
    const double label_x = bx + bar_w + 4 + std::max(text_width(hi, kTickType), text_width("0", kTickType)) + kLabelGap + line_height(kLabelType) / 2;
    cv.text_up(label_x, top + H / 2, p.heat_label, kLabelType, kInk);
  }
  if (p.cell > 0) {
    const int cols = iw / p.cell, rows = ih / p.cell;
    const double c = p.cell * unit;
    // pixels past the last whole patch: Conv2d never sees them
    if (cols * p.cell < iw) cv.hatch(x0 + cols * c, top, W - cols * c, H);
    if (rows * p.cell < ih) cv.hatch(x0, top + rows * c, cols * c, H - rows * c);
    const double lw = std::clamp(c / 24, 1.0, 2.0);
    for (int k = 0; k <= cols; ++k) cv.line(x0 + k * c, top, x0 + k * c, top + rows * c, kGridLine, lw);
    for (int k = 0; k <= rows; ++k) cv.line(x0, top + k * c, x0 + cols * c, top + k * c, kGridLine, lw);
    const Type t{std::clamp(c * 0.34, 9.0, 13.0), false};
    const bool all = text_width(std::to_string(rows * cols - 1), t) + 6 <= c && t.size + 4 <= c;
    for (int r = 0; r < rows; ++r)
      for (int q = 0; q < cols; ++q) {
        const bool corner = (r == 0 || r == rows - 1) && (q == 0 || q == cols - 1);
        if (all || corner) tag(cv, x0 + q * c + lw, top + r * c + lw, std::to_string(r * cols + q), t);
      }
  }
  if (!p.caption.empty()) cv.text(width / 2, top + H + kLabelGap + kLabelType.size * 0.9, p.caption, kLabelType, kInk, Align::center);
  return cv;
}

Scene sequence_scene(const Picture& p) {
  const int cell = std::max(1, p.cell), cols = p.image.width / cell, rows = p.image.height / cell, n = rows * cols;
  const int shown = std::max(1, p.shown);
  const bool cut = n > shown + 1;  // first `shown`, "…", the last
  std::vector<int> order;
  for (int k = 0; k < (cut ? shown : n); ++k) order.push_back(k);
  if (cut) order.push_back(n - 1);
  const double tile = 40, gap = 8, dots = 30;
  const Type num{13, false};
  const double seq_w = order.size() * tile + (order.size() - 1) * gap + (cut ? dots : 0);
  const double top = title_height(p.title, p.subtitle);
  const double content_w = std::max({seq_w, text_width(p.caption, kLabelType), text_width(p.title, kTitleType), text_width(p.subtitle, kSubtitleType)});
  const double width = content_w + 2 * kPad;
  const double height = top + tile + kLabelGap + line_height(num) + caption_height(p.caption) + kPad;
  Scene cv(width, height);
  draw_titles(cv, width, p.title, p.subtitle);
  double x = (width - seq_w) / 2;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (cut && i + 1 == order.size()) {
      cv.text(x + dots / 2 - gap / 2, top + tile / 2 + center_baseline(kLabelType), "…", kLabelType, kInk, Align::center);
      x += dots;
    }
    const int k = order[i];
    cv.picture(x, top, tile, tile, crop(p.image, k / cols, k % cols, cell));
    cv.frame(x, top, tile, tile, kGrey, 1);
    cv.text(x + tile / 2, top + tile + kLabelGap + num.size * 0.9, std::to_string(k), num, kInk, Align::center);
    x += tile + gap;
  }
  if (!p.caption.empty())
    cv.text(width / 2, top + tile + kLabelGap + line_height(num) + kLabelGap + kLabelType.size * 0.9, p.caption, kLabelType, kInk, Align::center);
  return cv;
}

}  // namespace

Scene picture_scene(const Picture& p) {
  if (p.image.width <= 0 || p.image.height <= 0 || p.image.rgb.size() != static_cast<std::size_t>(p.image.width) * p.image.height * 3)
    throw Error(N_("picture: the image has no pixels"));
  if (p.sequence && (p.cell <= 0 || p.cell > std::min(p.image.width, p.image.height)))
    throw Error(N_("picture: a sequence of patches needs a patch side from 1 to the image's smaller side"));
  return p.sequence ? sequence_scene(p) : grid_scene(p);
}

}  // namespace tfx::draw
