// `tfx train vit`: registered under `tfx train` (train.cpp calls it).
#pragma once
#include <CLI/CLI.hpp>

namespace tfx::cli {

// Adds the subcommand `vit` to `train` and returns it.
CLI::App* register_train_vit(CLI::App* train);

}  // namespace tfx::cli
