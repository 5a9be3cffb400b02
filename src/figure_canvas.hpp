// Drawing primitives of the figure renderer (private): an RGB canvas with filled rectangles,
// anti-aliased lines and discs, arrows, and text in the built-in font (horizontal or rotated 90°
// to read bottom-to-top), plus the tick helpers every panel uses.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "figure_font.hpp"
#include "tfx/figure.hpp"

namespace tfx::draw {

inline constexpr Rgb kWhite{255, 255, 255}, kBlack{0, 0, 0}, kInk{40, 40, 40}, kGrid{232, 232, 232},
    kMaskBase{205, 205, 205}, kMaskHatch{150, 150, 150};

enum class Align { left, center, right };

class Canvas {
 public:
  Canvas(int width, int height, Rgb background = kWhite);
  int width() const { return img_.width; }
  int height() const { return img_.height; }
  Image& image() { return img_; }
  Image take() { return std::move(img_); }

  void set(int x, int y, Rgb c);
  // Mixes c into pixel (x, y) with opacity a ∈ [0, 1]; out-of-canvas pixels are ignored.
  void blend(int x, int y, Rgb c, double a);
  void fill(int x, int y, int w, int h, Rgb c);
  void frame(int x, int y, int w, int h, Rgb c);  // 1-pixel outline
  // Anti-aliased segment of the given thickness (coverage from the distance to the segment).
  void line(double x0, double y0, double x1, double y1, Rgb c, double thickness = 1.0);
  void disc(double cx, double cy, double r, Rgb c);
  // Line from (x0,y0) to (x1,y1) with a filled head at (x1,y1).
  void arrow(double x0, double y0, double x1, double y1, Rgb c);
  void blit(const Image& src, int x, int y);

  // Text with its baseline at y; returns the width drawn.
  int text(int x, int y, std::string_view s, const font::Font& f, Rgb c, Align align = Align::left);
  // Text rotated 90° counter-clockwise (reads bottom to top), centred on (cx, cy) unless
  // align says otherwise: Align::right puts the end of the text at cy (text ends at the top).
  void text_up(int cx, int cy, std::string_view s, const font::Font& f, Rgb c, Align align = Align::center);

 private:
  Image img_;
};

int text_width(std::string_view s, const font::Font& f);

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

}  // namespace tfx::draw

namespace tfx::draw {

// One panel each, rendered on its own canvas (figure.cpp lays panels out in a grid).
Image render_heatmap(const Heatmap& h);
Image render_line_chart(const LineChart& c);
Image render_scatter(const Scatter& s);

// Title (large) and subtitle (small) centred at the top of a canvas of width w; returns the
// height they take. title_height() says the same without drawing.
int title_height(const std::string& title, const std::string& subtitle);
void draw_titles(Canvas& cv, const std::string& title, const std::string& subtitle);

}  // namespace tfx::draw
