// The subcommands of `tfx pe`: `pe sim` (PE·PEᵀ similarity and its offset profile) and
// `pe shift` (PE(p+k) = R(k)·PE(p)), `pe curves`, `pe add`, `pe linear` (the position itself as the code); register_pe calls these on its subcommand. PeShape
// (cli/flags/shape_flags.hpp): the --len, --dim and --base they share, with their defaults.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "cli/flags/shape_flags.hpp"

namespace tfx::cli {

void register_pe_sim(CLI::App* pe);
void register_pe_shift(CLI::App* pe);
void register_pe_curves(CLI::App* pe);
void register_pe_add(CLI::App* pe);
void register_pe_linear(CLI::App* pe);

// The flags two pe subcommands share, one definition each; `note` (translated) is the command's
// final parenthesis on the same meaning.
// --dims C[,C…]: columns of the PE matrix, 0 … 2^20 (pe curves, pe linear); each command checks
// the columns against --dim and its own count after parsing.
CLI::Option* add_pe_columns_flag(CLI::App* cmd, std::vector<std::string>& columns, const std::string& note);
// --offset K: the offset k of PE(p+k) in positions, |k| < 2^40 (pe shift, pe linear); a command
// that takes a narrower range (pe linear: 1 … 2^20) adds command_bound and says it in its note.
CLI::Option* add_offset_flag(CLI::App* cmd, std::int64_t& offset, const std::string& note);

}  // namespace tfx::cli
