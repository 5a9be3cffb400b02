// Layout pieces the panels share (private): margins, tick lists and how they are drawn along
// the left and bottom edges of a plot, and the widest of a set of labels.
#pragma once
#include <string>
#include <vector>

#include "figure_canvas.hpp"

namespace tfx::draw {

inline constexpr double kPad = 12, kTick = 5, kLabelGap = 6;

// Where a plot sits inside its panel.
struct Frame {
  double x = 0, y = 0, w = 0, h = 0;
};

// Ticks with labels: pixel offsets along the axis and their texts.
struct AxisTicks {
  std::vector<double> pos;
  std::vector<std::string> labels;
};

double max_width(const std::vector<std::string>& labels, const Type& t = kTickType);
// Labels right-aligned left of the frame (y ticks), centred under it (x ticks).
void draw_left_ticks(Canvas& cv, const Frame& f, const AxisTicks& t);
void draw_bottom_ticks(Canvas& cv, const Frame& f, const AxisTicks& t);
// Nice value ticks over [lo, hi] mapped to [0, pixels] (flipped: lo at the bottom).
// `whole`: the values are whole numbers, so no tick falls between two (steps of 1 at the least).
AxisTicks value_ticks(double lo, double hi, double pixels, bool flip, int target, bool whole = false);
// A number for a cell or bar: 2 decimals below 10, 1 below 100, else none; typographic minus.
std::string value_text(double v, double magnitude);

}  // namespace tfx::draw
