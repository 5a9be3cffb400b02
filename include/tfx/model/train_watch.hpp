// `tfx train --gif / --watch`: watching one sentence while the model trains — its decoder
// cross-attention and the word embeddings' 2-D PCA, captured at evenly spaced steps, then drawn
// as the frames of an animation and listed as the `watch` table.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "tfx/figure/figure.hpp"
#include "tfx/io/format.hpp"
#include "tfx/model/train.hpp"

namespace tfx {

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
  std::vector<std::size_t> steps;  // capture steps: 0 = the initial weights, …, the last step
  std::size_t frames = 0;          // the frames kept of them: where the model changes most (select_frames_by_change)
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

// Keeps `count` of the captured frames (the first and the last among them), spaced by how much the
// watched sentence changes rather than by step: frame k is the capture where the cumulative change
// first reaches k/(count − 1) of the whole. The change between two captures is the cross-attention's
// mean L1 distance per row (1 when the rows differ: the translation changed) plus the embedding
// rows' Frobenius distance over the last frame's norm. A dropped capture's steps join the next kept
// frame's loss (their mean, weighted by steps).
void select_frames_by_change(std::vector<WatchFrame>& frames, std::size_t count);

// Captures frame data with the weights `params` as they are after `step` updates.
WatchFrame capture_watch(const WatchPlan& plan, const TrainConfig& c, const TensorMap& params, const std::vector<std::string>& vocab,
                         std::size_t layer, std::size_t step);

// The frames as figures (attention heatmap | embedding scatter: every frame's rows projected on
// the first two principal components of the last frame's rows, so that the axes stay fixed and
// the points move only as far as training moved them); the `watch` table (step, loss, translation, attention_entropy[, gold_attention]).
std::vector<Figure> watch_figures(const WatchPlan& plan, const std::vector<WatchFrame>& frames, const TrainConfig& c, std::size_t layer,
                                  std::size_t total_steps);
Records watch_table(const WatchPlan& plan, const std::vector<WatchFrame>& frames);

// --gif's size, checked before training, not after it: `frames` frames of at least about 1500 × 640
// pixels at --scale `scale` must stay under kMaxGifPixels (write_gif checks the frames as drawn).
void check_watch_gif_size(double frames, double scale);

// `tfx train`'s record of one run: every step's loss, the held-out score at the --every checkpoints
// (held_out_checkpoint) as the `curve` table and the figure's series, the last score and the step it
// was taken after, the tokens trained on, and — watching a sentence (plan) — its frames.
struct TrainRecord {
  Records curve;
  Series step_loss, exact, alignment;
  HeldOutScore last_score;
  std::size_t last_scored = 0;  // the step last_score was taken after (the last step's is the final score)
  std::size_t tokens = 0;
  std::vector<WatchFrame> frames;
};
// What a step tells the caller (a progress bar, a line on stderr): the step's report, and at a
// checkpoint its score and the mean loss since the last one (else nullptr and NaN).
using TrainProgress = std::function<void(const TrainStepReport&, const HeldOutScore*, double mean_loss)>;
// Trains (train_model) and records; `alignment`: the data has gold alignments (a column and a
// series); `plan`: the watched sentence (frame 0 is captured before the first step). Returns the
// steps done.
std::size_t train_recorded(const TrainConfig& c, TensorMap& params, const IdPairs& data, const TrainOptions& to, std::size_t every,
                           std::size_t align_layer, bool alignment, const WatchPlan* plan, const std::vector<std::string>& vocab,
                           TrainRecord& rec, const TrainProgress& progress);

}  // namespace tfx
