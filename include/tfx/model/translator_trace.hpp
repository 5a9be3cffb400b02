// One walk through the whole teaching translator in the lecture's order (`tfx trace`): tokens → ids
// → embedding rows → PE rows → e + p → Q, K, V per head → scores → softmax → Z → Concat·W_O → add &
// norm → FFN → add & norm (each encoder layer) → the decoder's masked self-attention,
// cross-attention over the memory and FFN → logits → the next token. Every step is a row of a
// table (number, part, step, shape, matrix name) and every matrix is kept with its labels; the
// steps' figures are panels of a poster or 16:9 slides, each with the formula and shapes it
// multiplies. The labels follow the model: pre-LN or post-LN, PE or none, 1/√d_k or none.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "tfx/attention/attention_page.hpp"
#include "tfx/figure/figure.hpp"
#include "tfx/io/format.hpp"
#include "tfx/model/translator.hpp"

namespace tfx {

struct TranslatorTrace {
  TranslatorProperties model;
  Records steps;                  // "steps": #, part, step, shape, name
  std::vector<Matrix> matrices;   // in step order; Matrix::name is the steps' name column
  int number = 0;                 // steps so far
  std::vector<std::string> target;  // the decoder's input tokens (<bos> first)
  DecoderPass decoder;              // the decoder's pass over `target`
  std::vector<std::size_t> top;     // the 5 likeliest next tokens (vocabulary ids), likeliest first
  std::vector<float> top_probability;
  std::string next;                 // the likeliest next token

  void step(const std::string& part, const std::string& what, const std::string& shape, const std::string& key);
  void matrix(const std::string& key, const Tensor& t, const std::vector<std::string>& rows, const std::vector<std::string>& cols,
              const std::string& row_axis, const std::string& col_axis, const std::string& slice_axis = "");
  // what a sublayer reads: x itself (post-LN), or LayerNorm(x) (pre-LN)
  std::string normed(const std::string& x) const { return model.pre_ln ? "LayerNorm(" + x + ")" : x; }
  // the matrix of that name (it exists: the names are the steps' own)
  const Matrix& find(const std::string& name) const;
};

// The trace of `full` (the source's translation: its encoder pass) and the decoder's input
// `target` (<bos> is put first here).
TranslatorTrace trace_translator(const Translator& m, const Translation& full, TokenIds target);

// A step's figure: its slide's file name (after the number: "tokens", "embedding", … "next-token")
// and its panel, titled "N. …"; `head` is the head the per-head steps draw.
struct TraceStepFigure {
  std::string name;
  Panel panel;
};
std::vector<TraceStepFigure> trace_step_figures(const Translator& m, const Translation& full, const TranslatorTrace& tc,
                                                std::size_t head);

// A slide's formula with the shapes it multiplies ("Q = X·W_Q, (3×64)·(64×16) → (3×16), head 0"):
// S source and T target tokens, D = d_model, d_k per head, F = the FFN width, V the vocabulary.
std::string trace_slide_formula(const std::string& step, std::size_t S, std::size_t T, std::size_t D, std::size_t d_k, std::size_t F,
                                std::size_t V, std::size_t head);

// A heatmap much wider than the 16:9 page (the PE slide's 3×64) laid out as stacked slices of
// its columns on one colour scale, so the matrix fills the page instead of a thin strip: about
// √(aspect / (16/9)) slices (at most 3), each titled with its columns. Any other panel: itself.
std::vector<Panel> trace_slide_panels(const Panel& p);

// The rows of a decoder's cross-attention figure, labelled the same way in `translate` and
// `trace`: "input → predicted", the token the decoder read at that position and the word it
// predicted there, for every position both have; and the axis title that says so.
std::vector<std::string> decoder_row_labels(const std::vector<std::string>& inputs, const std::vector<std::string>& predicted);
std::string decoder_rows_axis();


// `tfx translate`'s figure: the cross-attention of decoder layer `layer` (the mean of its heads, or
// each head with per_head), each row the token the decoder read → the word it chose there, each
// column a source word; `subtitle` on every panel.
Figure translation_cross_figure(const Translator& m, const Translation& t, std::size_t layer, bool per_head, const std::string& subtitle);
// `tfx translate --html`: every layer × head of one of the three attentions (`which`: encoder,
// decoder or cross) as one page.
AttentionPage translation_page(const Translation& t, const std::string& which, const std::string& text, const std::string& english);

}  // namespace tfx
