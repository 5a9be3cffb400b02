// The subcommands of `tfx pe`: `pe sim` (PE·PEᵀ similarity and its offset profile) and
// `pe shift` (PE(p+k) = R(k)·PE(p)); register_pe calls these on its subcommand.
#pragma once
#include <CLI/CLI.hpp>

namespace tfx::cli {

void register_pe_sim(CLI::App* pe);
void register_pe_shift(CLI::App* pe);
void register_pe_curves(CLI::App* pe);
void register_pe_add(CLI::App* pe);

}  // namespace tfx::cli
