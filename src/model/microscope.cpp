// The microscope (microscope.hpp): logit lens, head ablation and activation patching, composed from
// the forward pass's taps, ablations, patches and resumed passes.
#include "tfx/model/microscope.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "tfx/core/error.hpp"
#include "tfx/core/stats.hpp"

namespace tfx {

namespace {

// The options of a microscope pass: no kept attentions or hidden states, the logits' rows asked.
ForwardOptions quiet(LogitRows rows) {
  ForwardOptions o;
  o.logits = rows;
  o.keep_attentions = false;
  o.keep_hidden = false;
  return o;
}

// Only the row at t when it is the last one (one row of the head's matmul), else all.
LogitRows rows_for(std::size_t t, std::size_t T) { return t + 1 == T ? LogitRows::last : LogitRows::all; }

}  // namespace

CleanRun clean_run(const MicroscopeRun& run, LogitRows rows) {
  CleanRun c;
  ForwardOptions o = quiet(rows);
  o.tap = [&c](const char* name, std::size_t layer, const Tensor& value) {
    if (std::string_view(name) != "resid_pre") return;
    if (c.residuals.size() <= layer) c.residuals.resize(layer + 1);
    c.residuals[layer] = value;
  };
  c.logits = run(o).logits;
  return c;
}

std::span<const float> answer_row(const Tensor& logits, std::size_t t) {
  if (logits.empty()) throw Error("the checkpoint has no output head to read an answer from");
  return logits.row(logits.rows() == 1 ? 0 : t);
}

// log p(id) = z_id − log Σ exp(z)
double log_probability(std::span<const float> row, std::size_t id) { return static_cast<double>(row[id]) - log_sum_exp(row); }

Tensor logit_lens(const Checkpoint& m, const CleanRun& clean) {
  const std::size_t layers = clean.residuals.size();
  Tensor probs;
  for (std::size_t l = 0; l < layers; ++l) {
    const Tensor z = final_norm_and_head(m, clean.residuals[l]);
    check_finite_rows(m, z, fmt::format(N_("the logit lens of block {}'s input"), l), 0);
    const std::size_t T = z.rows(), V = z.cols();
    if (l == 0) probs = Tensor({layers, T, V});
    // softmax per row in double: p = exp(z − log Σ exp(z))
    for (std::size_t t = 0; t < T; ++t) {
      const std::span<const float> row = z.row(t);
      const double lse = log_sum_exp(row);
      float* out = probs.data() + (l * T + t) * V;
      for (std::size_t j = 0; j < V; ++j) out[j] = static_cast<float>(std::exp(static_cast<double>(row[j]) - lse));
    }
  }
  return probs;
}

Tensor ablated_logits(const MicroscopeRun& run, const CleanRun& clean, const std::vector<HeadAblation>& heads) {
  std::size_t first = clean.residuals.size() - 1;
  for (const HeadAblation& h : heads) first = std::min(first, h.layer);
  ResumeAt from{first, clean.residuals.at(first)};
  ForwardOptions o = quiet(LogitRows::all);
  o.ablate = heads;
  o.resume = &from;
  return run(o).logits;
}

Tensor all_heads_effect(const Checkpoint& m, const MicroscopeRun& run, const CleanRun& clean, HeadAblation::Mode mode, std::size_t target,
                        std::size_t t) {
  const std::size_t L = m.config.layers, H = m.config.heads, T = clean.residuals.at(0).rows();
  const double before = log_probability(answer_row(clean.logits, t), target);
  Tensor effect({L, H});
  for (std::size_t l = 0; l < L; ++l) {
    ResumeAt from{l, clean.residuals.at(l)};
    for (std::size_t h = 0; h < H; ++h) {
      ForwardOptions o = quiet(rows_for(t, T));
      o.ablate = {HeadAblation{l, h, mode}};
      o.resume = &from;
      effect(l, h) = static_cast<float>(log_probability(answer_row(run(o).logits, t), target) - before);
    }
  }
  return effect;
}

Tensor patching_effects(const MicroscopeRun& corrupt_run, const CleanRun& clean, const CleanRun& corrupt, std::size_t clean_answer,
                        std::size_t corrupt_answer, std::size_t t) {
  const std::size_t L = clean.residuals.size() - 1, T = clean.residuals.at(0).rows(), D = clean.residuals.at(0).cols();
  if (corrupt.residuals.size() != L + 1 || corrupt.residuals.at(0).rows() != T)
    throw Error(fmt::format("activation patching: the clean run has {} positions, the corrupted {}", T, corrupt.residuals.at(0).rows()));
  Tensor effect({L, T});
  for (std::size_t l = 0; l < L; ++l) {
    ResumeAt from{l, corrupt.residuals[l]};
    for (std::size_t p = 0; p < T; ++p) {
      ForwardOptions o = quiet(rows_for(t, T));
      const float* src = clean.residuals[l].data() + p * D;
      o.patch = {ResidualPatch{l, p, std::vector<float>(src, src + D)}};
      o.resume = &from;
      const Tensor z = corrupt_run(o).logits;
      const std::span<const float> row = answer_row(z, t);
      effect(l, p) = row[clean_answer] - row[corrupt_answer];
    }
  }
  return effect;
}

}  // namespace tfx
