// What the `tfx model` subcommands that run a checkpoint share: DIR and TEXT (or --ids, or --image
// FILE for an image family), the checkpoint loaded with its tokenizer and the tokens (or the
// picture and its pixel values), the family's summary line, the forward pass.
#pragma once
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/common.hpp"
#include "tfx/figure/figure.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/model_notes.hpp"
#include "tfx/text/hf_tokenizer.hpp"

namespace tfx::cli {

// DIR TEXT and what they give: the checkpoint, its tokenizer, the tokens of TEXT.
struct ModelInput {
  std::string dir, text, ids;  // --ids: token ids instead of TEXT
  std::string image;           // --image FILE: the picture an image family (ViT) reads
  bool no_special = false;
  std::string activations = "f32";  // --activations (model next, logits): applied by load_input
  const CLI::Option* text_opt = nullptr;  // TEXT given, even as "" (an empty text is said as such)
};

struct LoadedInput {
  Checkpoint model;
  std::optional<HfTokenizer> tokenizer;
  std::vector<std::size_t> ids;
  std::vector<std::string> tokens;  // readable; an image family: "[CLS]", then the patches "1" … "N"
  // an image family: the picture as the model sees it (resized) and its pixel values (C, H, W)
  std::optional<Image> picture;
  Tensor pixels;
  std::size_t positions() const { return tokens.size(); }  // T: tokens, or [CLS] + patches
};

// DIR, and TEXT, --ids and --no-special when `text`, and --image FILE when `image`.
void add_model_input(CLI::App* cmd, ModelInput& in, bool text = true, bool image = false);
// The checkpoint, its tokenizer and the ids (warnings for RoPE past the trained positions and for
// words teaching-gpt never read go to stderr).
LoadedInput load_input(const ModelInput& in);
// For the built-in teaching-gpt (DIR as the user wrote it): a warning on stderr naming the words of
// TEXT its training sentences never had, so that what it says about them is not taken for knowledge.
void warn_unseen_words(const std::string& dir, const std::string& text);
// The checkpoint's forward pass over the input: the tokens, or the picture's pixel values.
// One forward pass over the input (tokens or pixels) under `o`: each command keeps what it shows —
// the attention tables are layers × heads × T² floats (2.6 GB for 8,000 tokens of a small model),
// so only `model attention` keeps them.
ForwardPass model_run(const LoadedInput& l, const ForwardOptions& o);
// The Result's params every model subcommand shares.
nlohmann::json model_params(const ModelInput& in, const LoadedInput& l);
// The k most probable tokens of one position as a table: rank, token, id, probability, logit.
Records top_records(const LoadedInput& l, std::span<const float> logits, std::size_t k, const std::string& name);

}  // namespace tfx::cli
