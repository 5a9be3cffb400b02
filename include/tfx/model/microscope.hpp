// The microscope on any family's forward pass (family.hpp's taps, head ablations, residual patches
// and resumed passes): the logit lens, head ablation (one head, several, or every head one by one)
// and activation patching. The input (tokens, or a ViT's picture) is the caller's: each function
// runs the model through a MicroscopeRun. Interventions rerun only the blocks after them, from the
// clean run's residual stream (ForwardOptions::resume).
//
// Letters: L layers, H heads, T positions, D d_model, V the head's outputs (vocabulary or labels).
#pragma once
#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "tfx/core/tensor.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/family.hpp"

namespace tfx {

// One forward pass of a checkpoint over its input under the given options (model_forward over the
// tokens, or model_forward_image over the pixels).
using MicroscopeRun = std::function<ForwardPass(const ForwardOptions&)>;

// A run without intervention: the residual stream entering each block, L + 1 of (T, D) ([L]: after
// the last block, before the final norm), and its logits (the rows `rows` asks for).
struct CleanRun {
  std::vector<Tensor> residuals;
  Tensor logits;
};
CleanRun clean_run(const MicroscopeRun& run, LogitRows rows = LogitRows::all);

// The logits' row that answers at position t: row t, or the only row (LogitRows::last, ViT's [CLS]).
std::span<const float> answer_row(const Tensor& logits, std::size_t t);
// log softmax(row)[id], in double with the row max subtracted
double log_probability(std::span<const float> row, std::size_t id);

// The logit lens: for l = 0 … L, softmax(final_norm_and_head(residuals[l])) → (L + 1, T, V)
// probabilities (layer L: the model's own prediction).
Tensor logit_lens(const Checkpoint& m, const CleanRun& clean);

// The logits (all rows, (T, V)) with `heads` ablated; the pass resumes at the lowest ablated layer
// from the clean run's stream.
Tensor ablated_logits(const MicroscopeRun& run, const CleanRun& clean, const std::vector<HeadAblation>& heads);

// Every head ablated alone (zero or mean): (L, H) of log p(target) after − before at position t, one
// pass per head resumed at its layer.
Tensor all_heads_effect(const Checkpoint& m, const MicroscopeRun& run, const CleanRun& clean, HeadAblation::Mode mode, std::size_t target,
                        std::size_t t);

// Activation patching: for every block l < L and position p, the corrupted run with the stream
// entering block l at p replaced by the clean run's; the metric logit(clean_answer) −
// logit(corrupt_answer) at position t → (L, T). Resumes the corrupted run at block l.
Tensor patching_effects(const MicroscopeRun& corrupt_run, const CleanRun& clean, const CleanRun& corrupt, std::size_t clean_answer,
                        std::size_t corrupt_answer, std::size_t t);

}  // namespace tfx
