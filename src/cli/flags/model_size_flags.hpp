// The sizes of a Transformer and of its training, one flag each wherever a command takes them
// (encoder, decoder, attention, patches, lr, train, train gpt, train vit): --d-model, --heads,
// --layers, --ffn, --batch and --steps. Each has one help, one range (the widest any command
// needs) and one type; a command with a tighter bound passes it (`bound`, checked with
// command_bound(): one line naming the flag) and says it in its note. The default is the
// command's (the variable's value when the flag is added).
#pragma once
#include <CLI/CLI.hpp>

#include "cli/flags/validators.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tfx::cli {

using SizeBound = std::optional<std::pair<std::int64_t, std::int64_t>>;

// --d-model N "Model width d_model" (1 … 2^24). lr keeps d_model as a double (its formulas); the
// flag is still a whole number.
CLI::Option* add_d_model_flag(CLI::App* cmd, std::int64_t& d_model, const std::string& note, SizeBound bound = std::nullopt);
CLI::Option* add_d_model_flag(CLI::App* cmd, double& d_model, const std::string& note);
// --heads N "Attention heads H" (1 … 4096; H must divide d_model).
CLI::Option* add_heads_size_flag(CLI::App* cmd, std::int64_t& heads, const std::string& note, SizeBound bound = std::nullopt);
// --layers N "Layers in the stack" (1 … 64).
CLI::Option* add_layers_flag(CLI::App* cmd, std::int64_t& layers, const std::string& note, SizeBound bound = std::nullopt);
// --ffn N "Feed-forward width" (1 … 65536); no default shown when the command computes it.
CLI::Option* add_ffn_flag(CLI::App* cmd, std::int64_t& ffn, const std::string& note, SizeBound bound = std::nullopt, bool show_default = true);
// --batch N "Batch size B: examples processed together" (1 … 2^24).
CLI::Option* add_batch_flag(CLI::App* cmd, std::int64_t& batch, const std::string& note, SizeBound bound = std::nullopt);
// --steps N "Training steps" (≥ 1).
CLI::Option* add_steps_flag(CLI::App* cmd, std::int64_t& steps, const std::string& note, SizeBound bound = std::nullopt);

// --vocab-size V "Tokens in the vocabulary V" (≥ 1); no default shown (a command that has one
// calls capture_default_str()).
std::string vocab_size_help(const std::string& note);
template <class T>
CLI::Option* add_vocab_size_flag(CLI::App* cmd, T& vocab_size, const std::string& note, SizeBound bound = std::nullopt) {
  CLI::Option* o = cmd->add_option("--vocab-size", vocab_size, vocab_size_help(note))->type_name("INT")->check(whole_number(1, std::int64_t{1} << 40));
  if (bound) o->check(command_bound(bound->first, bound->second));
  return o;
}

// --warmup W[,W…] "Warm-up steps of the learning-rate schedule" (whole numbers ≥ 1, comma-separated
// where a command draws several: lr). A command that trains with one schedule takes the double
// overload: the same flag, and a list is refused in one line naming the flag.
CLI::Option* add_warmup_flag(CLI::App* cmd, std::vector<std::string>& warmups, const std::string& note);
CLI::Option* add_warmup_flag(CLI::App* cmd, double& warmup, const std::string& note);

}  // namespace tfx::cli
