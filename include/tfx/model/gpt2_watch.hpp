// `tfx train gpt --gif`: the model learning, frame by frame — at every --every step the greedy
// continuation of the fixed prompt and the attention of the last layer's head 0 over the prompt
// and that continuation (causal: the keys after each query masked). The first frames' samples
// are noise and their attention nearly uniform; the last frames' samples are words.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "tfx/figure/figure.hpp"
#include "tfx/model/gpt2_train.hpp"
#include "tfx/text/hf_tokenizer.hpp"

namespace tfx {

// The attention (T, T) of `head` in `layer` over `ids` (at most the context's last tokens) by the
// family's forward pass on the training weights.
Tensor gpt2_attention(const Gpt2TrainConfig& c, const TensorMap& params, const std::vector<std::size_t>& ids, std::size_t layer,
                      std::size_t head);

// One frame: step `step` (of `steps`), the loss of that step (NaN before the first), the prompt and
// its greedy continuation `sample` — its tokens on both axes, the sample's text in the subtitle.
Figure gpt2_watch_frame(const Gpt2TrainConfig& c, const TensorMap& params, const HfTokenizer& tok, const std::vector<std::size_t>& prompt,
                        const std::vector<std::size_t>& sample, std::size_t step, std::size_t steps, double loss);

// `train gpt --png`: the training loss of every step and the held-out loss (when there is a
// held-out part) against the step, titled with the corpus `name`.
Figure gpt2_training_figure(const Series& step_loss, const Series& held_out, std::size_t steps, const Gpt2TrainConfig& c, std::size_t batch,
                            const std::string& name);

// At most `frames` of `all`, spread evenly from the first to the last (both kept).
std::vector<Figure> pick_frames(std::vector<Figure> all, std::size_t frames);

}  // namespace tfx
