// `tfx train gpt`: registered under `tfx train` (train.cpp calls it).
#pragma once
#include <CLI/CLI.hpp>

namespace tfx::cli {

// Adds the subcommand `gpt` to `train` and returns it.
CLI::App* register_train_gpt(CLI::App* train);
}  // namespace tfx::cli
