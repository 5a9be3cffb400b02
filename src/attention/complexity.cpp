// The per-layer cost table (self-attention, recurrent, convolutional, restricted self-attention).
#include "tfx/attention/complexity.hpp"
#include "tfx/core/i18n.hpp"

#include <cmath>

namespace tfx {

std::vector<LayerCost> layer_costs(double n, double d, double k, double r) {
  // ⌈log_k n⌉ without floating error at exact powers (log(8)/log(2) = 2.9999…)
  double log_k_n = 0;
  for (double p = 1; p < n; p *= k) ++log_k_n;
  return {
      {N_("self-attention"), "n²·d", "1", "1", n * n * d, 1, 1},
      {N_("recurrent"), "n·d²", "n", "n", n * d * d, n, n},
      {N_("convolutional"), "k·n·d²", "1", "log_k(n)", k * n * d * d, 1, log_k_n},
      {N_("self-attention (restricted)"), "r·n·d", "1", "n/r", r * n * d, 1, std::ceil(n / r)},
  };
}

}  // namespace tfx
