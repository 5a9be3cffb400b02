// The panel of one rotating pair (private to the CLI): two arrows on the unit circle — a pair
// of coordinates before and after a rotation, or at two positions — and the arc of the angle
// between them. `rope rotate` draws one per pair; `rope rotate --gif` and `pe shift --gif` draw
// one per pair in every frame.
#pragma once
#include <string>

#include "tfx/figure/figure.hpp"

namespace tfx {

struct PairArrows {
  std::string title, subtitle;
  double ax = 0, ay = 0, bx = 0, by = 0;  // the two arrows, in units of the first one's length
  double sweep = 0;                       // the arc from arrow a (radians, counter-clockwise > 0)
  std::string a_label = "x", b_label = "R x";
  bool zero = false;                      // the pair is (0, 0): nothing to rotate
};

Diagram pair_panel(const PairArrows& p);

}  // namespace tfx
