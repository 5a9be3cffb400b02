// One rotating pair as a Diagram panel (tfx/figure/pair_panel.hpp).
#include "tfx/figure/pair_panel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tfx/core/i18n.hpp"

namespace tfx {

Diagram pair_panel(const PairArrows& p) {
  const double reach = std::max({1.0, std::hypot(p.bx, p.by)}) * 1.32;
  Diagram d;
  d.title = p.title;
  d.subtitle = p.subtitle;
  d.x0 = d.y0 = -reach;
  d.x1 = d.y1 = reach;
  d.size = 250;
  d.axes = true;
  d.circles.push_back({0, 0, 1, true});
  if (p.zero) {
    d.labels.push_back({0, 0.5, tr("zero pair: nothing to rotate"), -1});
    return d;
  }
  const double start = std::atan2(p.ay, p.ax);
  // a small angle's label would sit on the arrows: the subtitle gives it then
  d.arcs.push_back({0, 0, 0.38, start, start + p.sweep, -1, std::abs(p.sweep) >= 0.6 ? fmt::format("θ = {:.2f}", p.sweep) : ""});
  // a's label on its clockwise side, b's on its counter-clockwise side: apart even when close
  d.arrows.push_back({0, 0, p.ax, p.ay, 0, p.a_label, false, -1});
  d.arrows.push_back({0, 0, p.bx, p.by, 3, p.b_label, false, +1});
  return d;
}

}  // namespace tfx
