// `tfx train gpt`: registered under `tfx train` (train.cpp calls it).
#pragma once
#include <CLI/CLI.hpp>

#include <string>
#include <utility>
#include <vector>

namespace tfx::cli {

// Adds the subcommand `gpt` to `train` and returns it.
CLI::App* register_train_gpt(CLI::App* train);

// -o DIR of a training command must be a folder tfx may fill or replace: absent, empty, or one
// `tfx train gpt` / `tfx train vit` wrote (config.json's key tfx_trained). Else a tfx::Error naming
// `command` ("train gpt") and the `files` it writes.
void check_model_folder_target(const std::string& dir, const std::string& command, const std::string& files);
// Writes `files` (name, bytes) into a temporary folder beside `dir`, then renames it onto `dir` (an
// old model there is moved aside first and removed after): readers see the old folder or the new one.
void write_model_folder(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace tfx::cli
