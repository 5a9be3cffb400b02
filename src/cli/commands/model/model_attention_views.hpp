// The microscope's views of `tfx model attention` (model_attention_views.cpp): --sink (the share of
// attention on the first token, with and without it) and --neurons (BertViz's neuron view of one
// query of one head); the KV cache table `model info --cache` and `model generate --cache` share is
// kv_cache_records (tfx/model/attention_figures.hpp).
#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include "cli/commands/model/model_input.hpp"
#include "tfx/model/attention_figures.hpp"

namespace tfx::cli {

// --sink: every layer × head's mean weight on position 0, and again for the text without its first token
void run_model_sink(const ModelInput& in, const LoadedInput& l, const OutputFlags& out, const FigureFlags& fig);
// --neurons: q, k, q∘k, the scaled sum and the softmax of query `query` of head `head` in block `layer`
void run_model_neurons(const ModelInput& in, const LoadedInput& l, std::size_t layer, std::size_t head, const std::string& query,
                       const OutputFlags& out, const FigureFlags& fig);

}  // namespace tfx::cli
