// What `tfx model lens`, `ablate` and `patch` share (the microscope, tfx/model/microscope.hpp, on
// the input model_input.hpp loads): the run over the tokens or the picture, the position the answer
// is read at, token names, --ablate-heads L.H lists and --target TOKEN.
#pragma once
#include <string>
#include <vector>

#include "cli/commands/model/model_input.hpp"
#include "tfx/model/microscope.hpp"

namespace tfx::cli {

// The forward pass over the input's tokens (or `ids`, the same model), or its picture.
MicroscopeRun microscope_run(const LoadedInput& l);
MicroscopeRun microscope_run(const LoadedInput& l, const std::vector<std::size_t>& ids);
// The position whose prediction the microscope reads: the last (a decoder's next token), the first
// [MASK] of an MLM model's input (else the last), ViT's [CLS] (0).
std::size_t answer_position(const LoadedInput& l);
// A vocabulary id (or ViT label id) as people read it: "␣cat", "tabbycat"
std::string token_name(const LoadedInput& l, std::size_t id);
// --ablate-heads "1.3,0.2" → the heads, each in range (flag errors name the value and the model's sizes)
std::vector<HeadAblation> parse_heads(const std::string& spec, const ModelConfig& c, HeadAblation::Mode mode);
// --target TOKEN (or --answers' A/B): exactly one token of the vocabulary, ␣ read as a space as
// the tables print it (ViT: a label of id2label); `flag` names the flag in errors
std::size_t one_token(const LoadedInput& l, const std::string& text, const char* flag);
// "model_lens_<folder>_<words>.png": the default figure name
std::string microscope_figure_name(const std::string& command, const ModelInput& in, const LoadedInput& l);

}  // namespace tfx::cli
