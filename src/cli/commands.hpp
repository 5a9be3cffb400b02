// The register function of every command, in the order `tfx --help` lists them.
#pragma once
#include <CLI/CLI.hpp>

namespace tfx::cli {

void register_pe(CLI::App& app);
void register_rope(CLI::App& app);

}  // namespace tfx::cli
