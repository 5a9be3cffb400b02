// The subcommands of `tfx pe`: `pe sim` (PE·PEᵀ similarity and its offset profile) and
// `pe shift` (PE(p+k) = R(k)·PE(p)), `pe curves`, `pe add`, `pe linear` (the position itself as the code); register_pe calls these on its subcommand. PeShape
// (cli/flags/shape_flags.hpp): the --len, --dim and --base they share, with their defaults.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>

#include "cli/flags/shape_flags.hpp"

namespace tfx::cli {

void register_pe_sim(CLI::App* pe);
void register_pe_shift(CLI::App* pe);
void register_pe_curves(CLI::App* pe);
void register_pe_add(CLI::App* pe);
void register_pe_linear(CLI::App* pe);

}  // namespace tfx::cli
