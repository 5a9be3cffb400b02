// The subcommands of `tfx pe`: `pe sim` (PE·PEᵀ similarity and its offset profile) and
// `pe shift` (PE(p+k) = R(k)·PE(p)), `pe curves`, `pe add`, `pe linear` (the position itself as the code); register_pe calls these on its subcommand. PeShape: the
// --len, --dim and --base that `pe`, `pe sim` and `pe shift` share, with their defaults.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>

namespace tfx::cli {

// The sinusoidal PE a command works on: L positions × D dimensions and the base of the
// wavelengths, by default the lecture's 50 × 128 with base 10000.
struct PeShape {
  std::int64_t len = 50;
  std::int64_t dim = 128;
  double base = 10000.0;
};

void register_pe_sim(CLI::App* pe);
void register_pe_shift(CLI::App* pe);
void register_pe_curves(CLI::App* pe);
void register_pe_add(CLI::App* pe);
void register_pe_linear(CLI::App* pe);

}  // namespace tfx::cli
