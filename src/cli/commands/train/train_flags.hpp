// The flags `tfx train`, `tfx train gpt` and `tfx train vit` share, each defined once here (one help, one range):
// --steps, --d-model, --heads, --threads, --warmup, --every and --lr. A command's own note on the same
// meaning is a final parenthesis of the help (tests/cli/flag_table_test.cpp allows it).
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "tfx/model/translator.hpp"

namespace tfx::cli {

CLI::Option* add_train_steps_flag(CLI::App* cmd, std::int64_t& steps);
CLI::Option* add_train_d_model_flag(CLI::App* cmd, std::int64_t& d_model);
CLI::Option* add_train_heads_flag(CLI::App* cmd, std::int64_t& heads);
// --threads N (0 = every core, at most 8)
CLI::Option* add_train_threads_flag(CLI::App* cmd, std::int64_t& threads);
// The worker threads --threads N asks for: N, or for 0 every core (at most 8)
unsigned train_threads(std::int64_t threads);
// --warmup STEPS; `note` (translated, may be empty) says what the schedule is
CLI::Option* add_train_warmup_flag(CLI::App* cmd, double& warmup, const std::string& note);
// --every N; `note` (translated, may be empty) says what else happens every N steps
CLI::Option* add_train_every_flag(CLI::App* cmd, std::int64_t& every, const std::string& note);
// --lr X: the peak learning rate of Adam (train gpt, train vit)
CLI::Option* add_train_lr_flag(CLI::App* cmd, double& lr);

// `tfx train`'s experiments and data, in this order: --pre-ln, --no-warmup, --compare LIST, --corpus
// ko-en|en-ko|lengths, --pairs FILE (not with --corpus), --test-fraction X
void add_train_experiment_flags(CLI::App* cmd, bool& pre_ln, bool& no_warmup, std::vector<std::string>& compare, std::string& corpus,
                                std::string& pairs, double& test_fraction);
// The extrapolation experiment's two: --pe sinusoidal|learned|rope|none (kPositionalEncodingChoices)
// and --train-max-len N (train on the sentences of at most N words; accuracy by length)
CLI::Option* add_train_pe_flag(CLI::App* cmd, std::string& pe);
CLI::Option* add_train_max_len_flag(CLI::App* cmd, std::int64_t& max_len);
// --pe NAME and --no-pe as one property (--no-pe is --pe none; --no-pe with --pe learned or rope
// is a usage error), checked against the width: RoPE (the run's, or a --compare item's) rotates
// pairs of a head's columns, so --d-model / --heads must be even.
PositionalEncoding train_positional_encoding(const std::string& pe, const CLI::Option* pe_opt, bool no_pe, std::int64_t d_model,
                                             std::int64_t heads, const std::vector<std::string>& compare);

}  // namespace tfx::cli
