// Learning-rate schedules.
#include "tfx/attention/schedule.hpp"

#include <algorithm>
#include <cmath>

namespace tfx {

// lrate = d_model^(−0.5) · min(step^(−0.5), step · warmup^(−1.5))
double warmup_learning_rate(double step, double d_model, double warmup, double scale) {
  return scale * std::pow(d_model, -0.5) * std::min(std::pow(step, -0.5), step * std::pow(warmup, -1.5));
}

}  // namespace tfx
