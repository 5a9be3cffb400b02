// Figures: heatmap, line chart and labelled scatter rendered to RGB pixels (one renderer for
// every command), PNG encoding through stb_image_write, colormaps, and the terminal heatmap
// behind --view. Pure: rendering returns pixels or text; emit() in format.hpp writes them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "tfx/tensor.hpp"

namespace tfx {

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Rgb&) const = default;
};

// diverging: red (−) ↔ white (0) ↔ blue (+), ColorBrewer RdBu: the lecture's PE figure, where blue is +1
// bluered:   the same colors reversed, blue (−) ↔ white ↔ red (+) (matplotlib RdBu_r)
// viridis:   perceptually uniform sequential (similarities, attention weights)
// gray:      black → white
enum class Colormap { diverging, bluered, viridis, gray };
// diverging or bluered: signed data, drawn on a scale symmetric around 0.
inline bool is_diverging(Colormap c) { return c == Colormap::diverging || c == Colormap::bluered; }

// "diverging" (alias "rdbu"), "bluered" (alias "rdbu_r"), "viridis", "gray"; anything else throws a usage error naming --cmap.
Colormap parse_colormap(const std::string& name);
const char* colormap_name(Colormap c);
// Color at t ∈ [0, 1] (clamped): 0 = bottom of the scale, 1 = top.
Rgb colormap_color(Colormap c, double t);

struct Image {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  // width * height * 3, row-major, top row first
  Rgb at(int x, int y) const {
    const std::size_t k = (static_cast<std::size_t>(y) * width + x) * 3;
    return {rgb[k], rgb[k + 1], rgb[k + 2]};
  }
};

// values: (M, N); row i is drawn as the i-th row from the top, column j from the left.
struct Heatmap {
  Tensor values;
  std::string title, subtitle, x_label, y_label;
  std::vector<std::string> row_labels, col_labels;  // token labels on the axes; empty = numeric ticks
  Colormap cmap = Colormap::viridis;
  bool symmetric = false;                           // scale to [−max|v|, +max|v|] (diverging data)
  std::optional<double> vmin, vmax;                 // explicit scale, overrides the data range
  std::vector<unsigned char> masked;                // optional, per cell: drawn as masked (grey)
  std::string value_label;                          // caption of the colorbar, e.g. "PE value"
  // When values are already block means of a larger matrix (too big to form): that matrix's
  // size, so the index ticks count its rows/columns. 0 = the size of values.
  std::size_t source_rows = 0, source_cols = 0;
  // Rows/columns come in groups of this many that belong together (a PE matrix's sin/cos column
  // pairs: 2); a terminal view too small for every column shows or skips whole groups.
  std::size_t row_group = 1, col_group = 1;
};

// The scale [lo, hi] a heatmap's colors span: vmin/vmax when given, else the finite data range
// (symmetric: ±max|v|); hi > lo always (a constant matrix gets a unit-wide scale).
std::pair<double, double> heatmap_scale(const Heatmap& h);

// Block means of values (M, N) (rank 1 = one row) with at most max_rows × max_cols blocks:
// block size b = ceil(M / max_rows) (rows; same for columns), result (ceil(M/b_r), ceil(N/b_c)).
// Masked cells are left out of the means; a block with every cell masked stays masked.
struct Downsampled {
  Tensor values;
  std::vector<unsigned char> masked;  // empty when nothing is masked
  std::size_t block_rows = 1, block_cols = 1;
};
Downsampled downsample_mean(const Tensor& values, const std::vector<unsigned char>& masked, std::size_t max_rows,
                            std::size_t max_cols);

struct Series {
  std::string name;
  std::vector<double> x, y;
};

struct LineChart {
  std::string title, subtitle, x_label, y_label;
  std::vector<Series> series;  // legend shows every named series
  bool log_y = false;
};

struct Point {
  double x = 0, y = 0;
  std::string label;
};

struct Scatter {
  std::string title, subtitle, x_label, y_label;
  std::vector<Point> points;
  std::vector<std::pair<std::size_t, std::size_t>> arrows;  // from point index → to point index
};

using Panel = std::variant<Heatmap, LineChart, Scatter>;

// One or more panels laid out in a grid (e.g. one heatmap per attention head).
struct Figure {
  std::string title;           // over all panels (optional when there is one panel)
  std::vector<Panel> panels;
  int columns = 0;             // 0 = choose automatically
};

// Heatmaps larger than this many cells along an axis are downsampled by averaging blocks of
// cells (the subtitle says so); below it every cell gets at least one pixel. Cells are square,
// about 640 px across the longer axis (at most 64 px per cell, at least 1).
inline constexpr std::size_t kMaxHeatmapCells = 1024;

Image render(const Figure& figure);
std::string encode_png(const Image& image);
inline std::string encode_png(const Figure& figure) { return encode_png(render(figure)); }

// Terminal heatmaps for --view: every Heatmap panel of the figure, tiled to fit `width` columns
// and `height` lines (one line is left for the prompt). A matrix larger than its panel is
// sampled — whole rows and columns (whole col_group groups) at a fixed stride, never averaged —
// and a line under each panel says which are shown; row labels (tokens or indices) on the left,
// column labels or indices below, then the scale. color: 24-bit half blocks ("▀", two rows per
// line; one row per line when rows are labelled); else an ASCII ramp with no escape sequences.
// Width below a usable minimum throws a usage error naming --width/COLUMNS.
struct ViewOptions {
  int width = 80;
  bool color = true;
  int height = 24;
};
inline constexpr int kMinViewWidth = 16;
std::string render_view(const Figure& figure, const ViewOptions& options);
std::string render_view(const Heatmap& heatmap, const ViewOptions& options);

}  // namespace tfx
