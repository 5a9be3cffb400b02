// `tfx train --gif / --watch`: watching one sentence while the model trains — its decoder
// cross-attention and the word embeddings' 2-D PCA, captured at evenly spaced steps, then drawn
// as the frames of an animation and listed as the `watch` table.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "tfx/figure/figure.hpp"
#include "tfx/io/format.hpp"
#include "tfx/model/train.hpp"

namespace tfx::cli {

// What is watched: the sentence (words and ids), its reference translation when the data has the
// sentence as a pair (then the attention rows are the reference, teacher-forced, else the model's
// own greedy translation at each step), the words whose embeddings the PCA panel shows, and the
// steps at which frames are captured.
struct WatchPlan {
  std::vector<std::string> words;
  std::vector<std::size_t> ids;
  bool has_reference = false;
  std::vector<std::string> reference;
  std::vector<std::size_t> reference_ids;
  std::vector<int> alignment;  // of the reference (may be empty: no gold alignment)
  std::vector<std::string> pca_words;
  std::vector<std::size_t> pca_ids;
  std::vector<std::size_t> steps;  // 0 = the initial weights, …, the last step
};

// `watch` = --watch (null when not given: "그녀는 커피를 마셨다" on the built-in corpus, else the first held-out
// pair's source). Words outside the vocabulary are a usage error naming them. F = min(frames,
// steps + 1) capture steps s_k = round(steps · (k / (F − 1))²), k = 0 … F − 1 (strictly
// increasing; s_0 = 0 the initial weights, s_{F−1} = steps), denser early where attention forms.
WatchPlan plan_watch(const std::string* watch, const std::vector<TextPair>& pairs, const std::vector<std::string>& vocab,
                     bool builtin, std::size_t steps, std::size_t frames);

// One captured step.
struct WatchFrame {
  std::size_t step = 0, loss_from = 0;  // the loss is the mean training loss of steps loss_from … step
  double loss = 0;
  std::vector<std::string> rows;  // the target words of the attention rows, then <eos>
  std::vector<std::string> said;  // the model's greedy translation at this step
  Tensor attention;               // (rows, S) cross-attention, decoder layer `layer`, mean of heads
  AttentionSharpness sharpness;   // over the word rows (not <eos>), gold mass with the reference's alignment
  Tensor embedding;               // (pca words, D): their rows of the embedding table
};

// Captures frame data with the weights `params` as they are after `step` updates.
WatchFrame capture_watch(const WatchPlan& plan, const TrainConfig& c, const TensorMap& params, const std::vector<std::string>& vocab,
                         std::size_t layer, std::size_t step);

// The frames as figures (attention heatmap | embedding scatter: every frame's rows projected on
// the first two principal components of the last frame's rows, so that the axes stay fixed and
// the points move only as far as training moved them); the `watch` table (step, loss, translation, attention_entropy[, gold_attention]).
std::vector<Figure> watch_figures(const WatchPlan& plan, const std::vector<WatchFrame>& frames, const TrainConfig& c, std::size_t layer,
                                  std::size_t total_steps);
Records watch_table(const WatchPlan& plan, const std::vector<WatchFrame>& frames);

}  // namespace tfx::cli
