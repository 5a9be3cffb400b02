// The microscope's views of `tfx model attention` (model_attention_views.cpp): --sink (the share of
// attention on the first token, with and without it) and --neurons (BertViz's neuron view of one
// query of one head), and the KV cache table `model info --cache` and `model generate --cache` share.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include "cli/commands/model/model_input.hpp"

namespace tfx::cli {

// --sink: every layer × head's mean weight on position 0, and again for the text without its first token
void run_model_sink(const ModelInput& in, const LoadedInput& l, const OutputFlags& out, const FigureFlags& fig);
// --neurons: q, k, q∘k, the scaled sum and the softmax of query `query` of head `head` in block `layer`
void run_model_neurons(const ModelInput& in, const LoadedInput& l, std::size_t layer, std::size_t head, const std::string& query,
                       const OutputFlags& out, const FigureFlags& fig);
// The KV cache's size for a checkpoint's config: per token per layer and over every layer, F32 and
// BF16, the model's grouping and MHA, at its context length and at `len` (when given: --len, or the
// positions of this run when `this_run`). `dir` names it.
Records kv_cache_records(const ModelConfig& c, std::optional<std::size_t> len, const std::string& dir, bool this_run = false);
// bytes as "12.0 KiB", "3.00 MiB", "1.50 GiB" (whole bytes below 1 KiB)
std::string kv_bytes_text(double bytes);

}  // namespace tfx::cli

#include "tfx/figure/attention_html.hpp"
#include "tfx/model/generate.hpp"

namespace tfx::cli {

// model generate --html: the head view and model view over prompt + generated tokens, the weights
// as the cached passes computed them (g.attentions); `tokens` the N readable tokens.
AttentionPage generated_attention_page(const std::string& dir, const ModelConfig& c, const std::vector<std::string>& tokens,
                                       const Generation& g);
// model generate --png with --html: the model view (every layer × head) of the same weights.
Figure generated_attention_figure(const std::string& dir, const ModelConfig& c, const std::vector<std::string>& tokens, const Generation& g);
// model generate --cache: the cache held at the end of the run, measured, beside the formula.
Text kv_cache_held_text(const ModelConfig& c, const Generation& g);

}  // namespace tfx::cli
