#include "tfx/positional/pe_sim_text.hpp"

#include "tfx/core/i18n.hpp"

namespace tfx {

MetricText metric_text(PeMetric m) {
  switch (m) {
    case PeMetric::cosine:
      return {tr("Cosine similarity of position embeddings for all time-steps"), "cos(PE(i), PE(j))", "cos(P(i), P(j))", "cos(PE(i), PE(j))",
              "cos(P(i), P(j))", "cosine", "_cosine", "Σ cos(kω) / (D/2)", tr("Cosine similarity")};
    case PeMetric::euclidean:
      return {tr("Euclidean distance between position embeddings for all time-steps"), "‖PE(i) − PE(j)‖", "‖P(i) − P(j)‖",
              "‖PE(i) − PE(j)‖", "‖P(i) − P(j)‖", "distance", "_euclidean", "√(D − 2 Σ cos(kω))", tr("Euclidean distance")};
    case PeMetric::dot:
    default:
      return {tr("Dot product of position embeddings for all time-steps"), "PE(i)·PE(j)", "P(i)·P(j)", "PE·PEᵀ", "P·Pᵀ", "dot", "",
              "Σ cos(kω)", tr("Dot product")};
  }
}

Matrix pe_sim_matrix(Tensor sim) {
  Matrix m;
  m.name = N_("sim");
  m.row_axis = N_("i");
  m.col_axis = N_("j");
  m.values = std::move(sim);
  return m;
}

}  // namespace tfx
