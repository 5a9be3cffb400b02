// Figures: heatmap, line chart, labelled scatter, bars and free diagrams, laid out once and drawn
// to RGB pixels (PNG through stb_image_write) or to SVG 1.1 (one renderer for every command);
// TrueType text from the system's fonts; colormaps; and the terminal heatmap behind --view.
// Pure: rendering returns pixels or text; emit() in format.hpp writes them.
#pragma once
#include "tfx/core/i18n.hpp"
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "tfx/core/choices.hpp"
#include "tfx/core/progress.hpp"
#include "tfx/core/tensor.hpp"

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

inline constexpr Choice<Colormap> kColormapChoices[] = {
    {Colormap::diverging, "diverging", N_("RdBu: red < 0 < blue, the lecture's PE colors")},
    {Colormap::diverging, "rdbu", "", Spelling::alias},
    {Colormap::bluered, "bluered", N_("blue < 0 < red")},
    {Colormap::bluered, "rdbu_r", "", Spelling::alias},
    {Colormap::viridis, "viridis"},
    {Colormap::gray, "gray"},
    {Colormap::gray, "grey", "", Spelling::alias},
};
// A name of kColormapChoices; anything else throws a usage error naming `cmap`.
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
  // Each cell's value printed in it (in black or white, whichever reads on the cell);
  // unset = automatic: on when the matrix has at most kMaxAnnotatedCells per axis.
  std::optional<bool> annotate;
  // Optional, rows × columns: a word printed in each cell instead of its value (the logit lens's
  // top tokens); the cells are widened to hold them.
  std::vector<std::string> cell_text;
  // When values are already block means of a larger matrix (too big to form): that matrix's
  // size, so the index ticks count its rows/columns. 0 = the size of values.
  std::size_t source_rows = 0, source_cols = 0;
  // Rows/columns come in groups of this many that belong together (a PE matrix's sin/cos column
  // pairs: 2); a terminal view too small for every column shows or skips whole groups.
  std::size_t row_group = 1, col_group = 1;
};

// h with rows and columns swapped (--transpose): values, labels, axis names, masked cells, source
// sizes and groups, so the PE matrix can be drawn with the position along x and the depth along y.
Heatmap transposed(const Heatmap& h);

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

// Series are told apart by color and marker; a `reference` series (a closed form, a theory
// curve) is drawn dashed and under the others, so the measured series on top stays visible.
struct Series {
  std::string name;
  std::vector<double> x, y;
  bool reference = false;
};

struct LineChart {
  std::string title, subtitle, x_label, y_label;
  std::vector<Series> series;  // with two or more series, the legend lists the named ones
  bool log_y = false;
  bool log_x = false;                 // a log10 step axis (points at x ≤ 0 are left out)
  std::optional<double> ymin, ymax;   // a fixed value axis (accuracy on 0–1); else the data's range
  double plot_height = 380;           // the plot area's height (its width is 620): 560 for a 16:9 pair
};

struct Point {
  double x = 0, y = 0;
  std::string label;
};

struct Scatter {
  std::string title, subtitle, x_label, y_label;
  std::vector<Point> points;
  // optional: hears (labels placed, labels) while the labels are placed — each is tried against
  // every label before it, so thousands of words take seconds
  Progress progress;
  std::vector<std::pair<std::size_t, std::size_t>> arrows;  // from point index → to point index
};

// A labelled reference line across a bar panel (a mean, ±σ, zero).
struct Rule {
  double value = 0;
  std::string label;
  bool dashed = true;
};

// One bar per category: vertical (categories along the bottom) or horizontal (categories down
// the left, the first at the top). Negative values go below/left of 0.
struct Bars {
  std::string title, subtitle, category_label, value_label;
  std::vector<std::string> labels;
  std::vector<double> values;
  bool horizontal = false;
  std::optional<double> vmin, vmax;  // the value axis (to put several panels on one scale)
  std::vector<Rule> rules;
  bool annotate = false;             // print each bar's value at its end
  int color = 0;                     // palette index (series_color order)
};

// A drawing in data coordinates, y up, the same scale on both axes: arrows, circles, arcs with
// an angle, boxes with a caption, free labels. Colors are palette indices; -1 = ink (dark grey).
struct Diagram {
  struct Arrow {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    int color = -1;
    std::string label;  // written just past the head
    bool dashed = false;
    int side = 0;       // the label: 0 straight past the head, +1 turned left of it, −1 right
    bool head = true;   // false: a plain segment (one leg of a bent connector)
  };
  struct Circle {
    double cx = 0, cy = 0, r = 1;
    bool dashed = true;
  };
  struct Arc {  // from angle a0 to a1 (radians, counter-clockwise from +x), with an arrow head at a1
    double cx = 0, cy = 0, r = 1, a0 = 0, a1 = 0;
    int color = -1;
    std::string label;  // written outside the middle of the arc
  };
  struct Box {
    double x = 0, y = 0, w = 1, h = 1;  // lower-left corner and size
    std::string label;
    int color = -1;  // fill: a light tint of the palette color; -1 = white
    std::string detail;  // optional second line under the label, smaller and grey (a block's sizes)
  };
  struct Label {
    double x = 0, y = 0;
    std::string text;
    int color = -1;
    int align = 0;  // 0: centred on x; −1: starts at x (left-aligned); +1: ends at x
    bool bold = false;
  };
  std::string title, subtitle;
  double x0 = -1, x1 = 1, y0 = -1, y1 = 1;  // the visible range
  double size = 360;                         // pixels along the longer side at scale 1
  bool axes = false;                         // thin x and y axes through 0
  std::vector<Circle> circles;
  std::vector<Arc> arcs;
  std::vector<Box> boxes;
  std::vector<Arrow> arrows;
  std::vector<Label> labels;
};

// A photograph (tfx patches --image): drawn `width` units wide, cut by a grid of square cells of
// `cell` image pixels numbered in reading order from 0 (ViT's patches; token k + 1); or, with `sequence`,
// the same cells lifted out and laid in one row in that order — the sequence of tokens the
// transformer reads — the first `shown` of them, "…", and the last. `caption` goes under it.
struct Picture {
  Image image;
  std::string title, subtitle, caption;
  int cell = 0;  // grid cell side in image pixels; 0 = no grid
  bool sequence = false;
  int shown = 10;
  double width = 448;
  // a heat overlay on the grid (a ViT's [CLS] attention over its patches): (rows, columns) of the
  // cells, values from 0 to heat_max in viridis blended over the picture, a colorbar captioned
  // heat_label beside it; empty: none
  Tensor heat;
  double heat_max = 1;
  std::string heat_label;
};

using Panel = std::variant<Heatmap, LineChart, Scatter, Bars, Diagram, Picture>;

// One or more panels laid out in a grid (e.g. one heatmap per attention head).
struct Figure {
  std::string title;           // over all panels (optional when there is one panel)
  std::vector<Panel> panels;
  int columns = 0;             // 0 = choose automatically
  // A slide: when both are set, the laid-out figure is zoomed uniformly (text, lines and cells
  // alike) to fit page_width × page_height units and centred on white, so the image is exactly
  // that size times the scale (1920 × 1080 for a 16:9 slide). 0 = the figure's own size.
  double page_width = 0, page_height = 0;
};

// The zoom a page applies to `figure` (page_width/page_height set): the laid-out size fitted into
// the page, min(page_width / width, page_height / height); 1 without a page. A slide's 15 px tick
// labels are 15 × zoom pixels at scale 1.
double page_zoom(const Figure& figure);

// Heatmaps larger than this many cells along an axis are downsampled by averaging blocks of
// cells (the subtitle says so); below it every cell gets at least one pixel. Cells are square,
// about 640 px across the longer axis (at most 72 px per cell, at least 1).
inline constexpr std::size_t kMaxHeatmapCells = 1024;
// Automatic annotation prints values in heatmaps up to this many cells along each axis.
inline constexpr std::size_t kMaxAnnotatedCells = 12;

// `scale` multiplies everything (text, lines, margins, cells): 2 for a projector. 1 = the
// default size, text 15–21 px. Scale must be in [kMinScale, kMaxScale].
inline constexpr double kMinScale = 0.25, kMaxScale = 8;
// A figure of more pixels than this (at its scale) is refused before any pixel is drawn.
inline constexpr double kMaxFigurePixels = 1.5e8;
// The figure's width and height in pixels at `scale`, as render and encode_svg lay it out (no
// pixel drawn): lets a command refuse a figure too large before it builds the rest of it.
std::pair<double, double> figure_pixels(const Figure& figure, double scale = 1.0);
Image render(const Figure& figure, double scale = 1.0);
std::string encode_png(const Image& image);
// An animated GIF of `frames` (rendered figures, padded to the largest on white), `delay_cs`
// hundredths of a second each, looping forever; one 256-colour palette for all frames. At most
// kMaxGifPixels pixels over all frames, else tfx::Error.
inline constexpr std::size_t kMaxGifPixels = std::size_t{128} << 20;
std::string encode_gif(const std::vector<Image>& frames, int delay_cs);
inline std::string encode_png(const Figure& figure, double scale = 1.0) { return encode_png(render(figure, scale)); }
// The same figure as a standalone SVG 1.1 document: text as <text>, heatmap cells as <rect>s
// with a <title> (row, column, value) shown on hover; no script, no external resources.
std::string encode_svg(const Figure& figure, double scale = 1.0);

// Figure fonts. Text is set per character from the first face that has it: `files` in order
// (e.g. a user's --font), then DejaVu Sans and NanumGothic (found through fontconfig, else at
// Debian's paths) when `system`, then any installed font fontconfig finds for that character.
// With no face at all, the built-in bitmap font draws (Latin and a few symbols only).
struct FontChoice {
  std::vector<std::string> files;
  bool system = true;
};
// Throws Error naming the file when one cannot be read or is not a TrueType/OpenType font.
void set_figure_fonts(const FontChoice& choice);
struct FontStatus {
  std::vector<std::string> files;  // the font files loaded so far
  bool builtin = false;            // no font file found: text uses the built-in bitmap font
};
FontStatus figure_font_status();

// Terminal heatmaps for --view: every Heatmap panel of the figure, tiled to fit `width` columns
// and `height` lines (one line is left for the prompt). A matrix larger than its panel is
// sampled — whole rows and columns (whole col_group groups), every s-th when that fills the
// room, else evenly spaced from the first to the last; never averaged — and a line under each
// panel says which are shown; row labels (tokens or indices) on the left,
// column labels or indices below, then the scale. color: 24-bit half blocks ("▀", two rows per
// line; one row per line when rows are labelled); else an ASCII ramp with no escape sequences.
// Width below a usable minimum throws a usage error naming `width`.
// Notes name `whole_figure` where the view leaves panels out; the command layer puts its flag
// there ("--png").
struct ViewOptions {
  int width = 80;
  bool color = true;
  int height = 24;
  std::string whole_figure = "encode_png";
};
inline constexpr int kMinViewWidth = 16;
std::string render_view(const Figure& figure, const ViewOptions& options);
std::string render_view(const Heatmap& heatmap, const ViewOptions& options);

}  // namespace tfx
