// The number of attention heads for a --weights file, shared by attention, encoder and decoder.
// PyTorch's tensors do not record it (in_proj_weight is [3·d_model, d_model] for any nhead), so
// it comes from --heads when given, else from the file's __metadata__ nhead (what --save-weights
// writes, or save_file(sd, path, metadata={"nhead": "8"})), else the user is asked for --heads.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstddef>
#include <optional>
#include <string>

#include "tfx/model/safetensors.hpp"

namespace tfx::cli {

struct WeightsHeads {
  std::size_t heads = 0;
  std::string source;  // "--heads" or "nhead in the file's __metadata__"
};

// `flag` is --heads' value when it was on the command line. --heads and the metadata disagreeing
// or neither being there are usage errors; a metadata nhead that does not divide d_model is a data
// error naming the file. (--heads not dividing d_model is the caller's check, as without --weights.)
WeightsHeads weights_heads(std::optional<std::size_t> flag, const TensorMetadata& metadata, const std::string& weights,
                           std::size_t d_model);

// --heads N, the same flag on attention, encoder and decoder: H column blocks of Q, K and V; with
// --weights read from the file's __metadata__ when it has one (weights_heads above).
CLI::Option* add_heads_flag(CLI::App* cmd, std::int64_t& heads, const std::string& group);

}  // namespace tfx::cli
