// The abstract canvas of the figure renderer (private): the few primitives every figure is
// drawn with (rectangles with an optional hover text, hatched masked cells, a colormap ramp, a
// nearest-neighbour picture, polylines with dashes, polygons, discs, rings, text), two backends
// — RasterCanvas (RGB pixels, figure_raster.cpp) and SvgCanvas (SVG 1.1, figure_svg.cpp) — and
// Scene, which records a panel once and replays it onto either at an offset. Coordinates are
// figure units (1 unit = 1 pixel at scale 1); the backends apply the scale.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tfx/figure/figure.hpp"

namespace tfx::draw {

inline constexpr Rgb kWhite{255, 255, 255}, kBlack{0, 0, 0}, kInk{40, 40, 40}, kGrey{90, 90, 90}, kGrid{228, 228, 228},
    kMaskBase{205, 205, 205}, kMaskHatch{150, 150, 150};

enum class Align { left, center, right };
enum class Dash { solid, dashed, dotted, dashdot };

struct Pt {
  double x = 0, y = 0;
};

// A text style: em size in units and weight. The defaults are sized for a 1080p projector at
// scale 1 (tick labels 15 px, axis labels 16 px, titles 21 px bold).
struct Type {
  double size = 15;
  bool bold = false;
};
inline constexpr Type kTickType{15, false}, kLabelType{16, false}, kTitleType{21, true}, kSubtitleType{15, false};

double text_width(std::string_view s, const Type& t);
// Offset from a line's vertical centre to the baseline that centres capital letters on it.
inline double center_baseline(const Type& t) { return t.size * 0.36; }
inline double line_height(const Type& t) { return t.size * 1.25; }

class Canvas {
 public:
  virtual ~Canvas() = default;
  // A filled rectangle; `tip` (when not empty) is shown on hover in the SVG (a <title>).
  virtual void rect(double x, double y, double w, double h, Rgb fill, const std::string& tip = {}) = 0;
  // A masked cell: grey with diagonal hatching.
  virtual void hatch(double x, double y, double w, double h, const std::string& tip = {}) = 0;
  // A colorbar: cmap from 1 at the top to 0 at the bottom.
  virtual void ramp(double x, double y, double w, double h, Colormap cmap) = 0;
  // `pixels` stretched over the rectangle without smoothing (large heatmaps).
  virtual void picture(double x, double y, double w, double h, const Image& pixels) = 0;
  virtual void path(const std::vector<Pt>& pts, Rgb c, double width, Dash dash = Dash::solid) = 0;
  virtual void polygon(const std::vector<Pt>& pts, Rgb fill) = 0;
  virtual void disc(double cx, double cy, double r, Rgb fill) = 0;
  virtual void ring(double cx, double cy, double r, Rgb c, double width) = 0;
  // Text with its baseline at y (x per `align`); `up`: turned 90° counter-clockwise, reading
  // bottom to top, the baseline at x and the text's start (per align) at y.
  virtual void text(double x, double y, std::string_view s, const Type& t, Rgb c, Align align = Align::left,
                    bool up = false) = 0;

  // Composed from the primitives:
  void frame(double x, double y, double w, double h, Rgb c, double width = 1);  // outline inside the box
  void line(double x0, double y0, double x1, double y1, Rgb c, double width = 1, Dash dash = Dash::solid);
  // A line with a filled head at (x1, y1).
  void arrow(double x0, double y0, double x1, double y1, Rgb c, double width = 1.8, double head = 10);
  // Series markers: 0 disc, 1 square, 2 triangle, 3 diamond, 4 down-triangle (cycled).
  void marker(int kind, double cx, double cy, double r, Rgb c);
  // Text rotated up, its capitals centred on the vertical line x, its middle at y.
  void text_up(double x, double y, std::string_view s, const Type& t, Rgb c) {
    text(x + center_baseline(t), y, s, t, c, Align::center, true);
  }
};

// Records drawing calls once; replay() repeats them on another canvas shifted by (dx, dy).
class Scene : public Canvas {
 public:
  Scene(double width, double height) : width(width), height(height) {}
  double width, height;
  void replay(Canvas& target, double dx, double dy) const;

  void rect(double x, double y, double w, double h, Rgb fill, const std::string& tip = {}) override;
  void hatch(double x, double y, double w, double h, const std::string& tip = {}) override;
  void ramp(double x, double y, double w, double h, Colormap cmap) override;
  void picture(double x, double y, double w, double h, const Image& pixels) override;
  void path(const std::vector<Pt>& pts, Rgb c, double width, Dash dash = Dash::solid) override;
  void polygon(const std::vector<Pt>& pts, Rgb fill) override;
  void disc(double cx, double cy, double r, Rgb fill) override;
  void ring(double cx, double cy, double r, Rgb c, double width) override;
  void text(double x, double y, std::string_view s, const Type& t, Rgb c, Align align = Align::left, bool up = false) override;

 private:
  std::vector<std::function<void(Canvas&, double, double)>> ops_;
};

// Pixels: the figure's units times `scale`, rectangles snapped to whole pixels so cells abut.
class RasterCanvas : public Canvas {
 public:
  RasterCanvas(double width, double height, double scale);
  Image take() { return std::move(img_); }

  void rect(double x, double y, double w, double h, Rgb fill, const std::string& tip = {}) override;
  void hatch(double x, double y, double w, double h, const std::string& tip = {}) override;
  void ramp(double x, double y, double w, double h, Colormap cmap) override;
  void picture(double x, double y, double w, double h, const Image& pixels) override;
  void path(const std::vector<Pt>& pts, Rgb c, double width, Dash dash = Dash::solid) override;
  void polygon(const std::vector<Pt>& pts, Rgb fill) override;
  void disc(double cx, double cy, double r, Rgb fill) override;
  void ring(double cx, double cy, double r, Rgb c, double width) override;
  void text(double x, double y, std::string_view s, const Type& t, Rgb c, Align align = Align::left, bool up = false) override;

 private:
  void blend(int x, int y, Rgb c, double a);
  void segment(double x0, double y0, double x1, double y1, Rgb c, double width);  // pixel coordinates
  Image img_;
  double s_;
};

// SVG 1.1: a <rect> per cell (with a <title> to hover), <path>s, <text> in the same fonts.
class SvgCanvas : public Canvas {
 public:
  SvgCanvas(double width, double height, double scale);
  std::string finish();  // the whole document

  void rect(double x, double y, double w, double h, Rgb fill, const std::string& tip = {}) override;
  void hatch(double x, double y, double w, double h, const std::string& tip = {}) override;
  void ramp(double x, double y, double w, double h, Colormap cmap) override;
  void picture(double x, double y, double w, double h, const Image& pixels) override;
  void path(const std::vector<Pt>& pts, Rgb c, double width, Dash dash = Dash::solid) override;
  void polygon(const std::vector<Pt>& pts, Rgb fill) override;
  void disc(double cx, double cy, double r, Rgb fill) override;
  void ring(double cx, double cy, double r, Rgb c, double width) override;
  void text(double x, double y, std::string_view s, const Type& t, Rgb c, Align align = Align::left, bool up = false) override;

 private:
  std::string body_, defs_;
  double w_, h_, s_;
  int ramps_ = 0;
  bool hatch_defined_ = false;
};

// Ticks of a linear axis: "nice" values (1, 2, 5 × 10^k steps) inside [lo, hi], about `target` of them.
struct Ticks {
  std::vector<double> values;
  double step = 1;
};
Ticks nice_ticks(double lo, double hi, int target);
// A tick value printed with as many decimals as the step needs ("0.25", "1e-05", "4096").
std::string tick_label(double v, double step);

// The categorical palette of line charts and scatter plots (matplotlib's tab10 order).
Rgb series_color(std::size_t i);

// One panel each, drawn once into a Scene of its own size (figure.cpp places them in a grid).
Scene heatmap_scene(const Heatmap& h);
Scene line_chart_scene(const LineChart& c);
Scene scatter_scene(const Scatter& s);
Scene bars_scene(const Bars& b);
Scene diagram_scene(const Diagram& d);
Scene picture_scene(const Picture& p);

// Title (large) and subtitle centred at the top of a panel of width w; returns the height they
// take. title_height() says the same without drawing.
double title_height(const std::string& title, const std::string& subtitle);
void draw_titles(Canvas& cv, double width, const std::string& title, const std::string& subtitle);

}  // namespace tfx::draw
