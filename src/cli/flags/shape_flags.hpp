// The size flags with one meaning across the positional commands, each defined once here with one
// limit and one help text: --len (positions), the sinusoidal PE's --dim and --base
// (add_pe_shape_flags: pe, pe sim, shift, curves, linear) and RoPE's head dimension --dim
// (add_rope_dim_flag: rope and its subcommands). tests/cli/shape_flags_test.cpp walks every command
// and checks that each of these flags has the same range and help wherever it appears.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace tfx::cli {

// The one upper limit of a size flag (--len, --dim, --vocab-size …): 2^40, which --help shows as
// "≥ 1". It is not a memory limit: it keeps a product of two sizes inside 64 bits (2^40 · 2^23 <
// 2^63) before the command checks what it really allocates (checked_element_count: tfx's element
// cap; check_memory: the memory budget), with a message that names the sizes and the cap or budget.
inline constexpr std::int64_t kMaxSizeFlag = std::int64_t{1} << 40;

// The sinusoidal PE a command works on: L positions × D dimensions and the base of the
// wavelengths, by default the lecture's 50 × 128 with base 10000.
struct PeShape {
  std::int64_t len = 50;
  std::int64_t dim = 128;
  double base = 10000.0;
};

// The options add_pe_shape_flags added (a command asks --len's count(), for instance).
struct PeShapeOptions {
  CLI::Option* len = nullptr;
  CLI::Option* dim = nullptr;
  CLI::Option* base = nullptr;
};

// --len "Number of positions L", --dim "Vector dimension D (d_model)" (1 … kMaxSizeFlag) and --base
// "Base of the wavelengths" (a finite number > 0), with their defaults from `shape`. A note, when
// given (already translated), says what the size means for this command: "Number of positions L
// (NOTE)".
PeShapeOptions add_pe_shape_flags(CLI::App* app, PeShape& shape, const std::string& len_note = "", const std::string& dim_note = "");

// --len "Number of positions L" (1 … kMaxSizeFlag); a std::optional has no default to show.
CLI::Option* add_len_flag(CLI::App* app, std::int64_t& len, const std::string& note = "");
CLI::Option* add_len_flag(CLI::App* app, std::optional<std::int64_t>& len, const std::string& note = "");

// --dim "Vector dimension D (NOTE)" (1 … kMaxSizeFlag): every --dim is this one flag; the note says
// what the vectors are (pe: d_model; rope: the head dimension; lookup: the random table's rows).
std::string dim_help(const std::string& note);
// (no default shown: the command says what a missing --dim means)
CLI::Option* add_dim_flag(CLI::App* app, std::int64_t& dim, const std::string& note);
// --base "Base of the wavelengths (NOTE)" (> 0): the sinusoidal PE's and RoPE's base, one flag.
CLI::Option* add_base_flag(CLI::App* app, double& base, const std::string& note = "");

// RoPE's --dim "Vector dimension D (the head dimension; even; NOTE)" (1 … kMaxSizeFlag; the evenness is checked by
// rope_config, which names the flag).
CLI::Option* add_rope_dim_flag(CLI::App* app, std::int64_t& dim, const std::string& note = "");
CLI::Option* add_rope_dim_flag(CLI::App* app, std::optional<std::int64_t>& dim, const std::string& note = "");

}  // namespace tfx::cli
