// Outputs a command takes off its flags before the shared check of outputs against inputs
// (common.cpp) sees them — train's -o FILE.safetensors, the model, which its transform turns into
// "-" for the table: registered here, they are checked against every input as -o is.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

namespace tfx::cli {

// `app`'s output `path`, given with `flag` ("-o"); set_hidden_outputs replaces the list.
void set_hidden_outputs(const CLI::App* app, std::vector<std::pair<std::string, std::string>> outputs);
const std::vector<std::pair<std::string, std::string>>& hidden_outputs(const CLI::App* app);

}  // namespace tfx::cli
