// The words of `tfx pe sim`: how each metric is written, and the similarity as a data block.
#pragma once
#include "tfx/core/tensor.hpp"
#include "tfx/io/format.hpp"
#include "tfx/positional/positional.hpp"

namespace tfx {

// How each metric is written: figure title, the value of one pair (sinusoidal PE, learned P), the
// whole matrix, the profile's column, the file-name suffix, the closed form and the chart title.
struct MetricText {
  const char *title, *pe, *p, *matrix, *p_matrix, *column, *suffix, *closed, *chart;
};
MetricText metric_text(PeMetric m);

// The L×L similarity as the data block "sim": rows i, columns j.
Matrix pe_sim_matrix(Tensor sim);

}  // namespace tfx
