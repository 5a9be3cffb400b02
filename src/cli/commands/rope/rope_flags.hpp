// Flags every `tfx rope …` command shares (--base, --layout, --scaling and the scaling
// parameters), added by one helper, and their translation into a tfx::RopeConfig (rope_flags.cpp).
// Also the register functions of the nested `rope` subcommands, called by register_rope
// (rope.cpp): rotate, relative, freqs and decay, each in rope_<sub>.cpp.
#pragma once
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/flags/shape_flags.hpp"
#include "tfx/positional/rope.hpp"

namespace tfx::cli {

struct RopeFlags {
  double base = 10000.0;
  std::string layout = "interleaved";
  std::string scaling = "none";  // one name, or a comma list where the command compares scalings
  std::optional<double> factor;
  std::optional<std::int64_t> original_max_pos;
  double beta_fast = 32.0, beta_slow = 1.0;
  double low_freq_factor = 1.0, high_freq_factor = 4.0;
  double xpos_gamma = 0.4, xpos_scale_base = 512.0;
  bool yarn_no_truncate = false;
};

// Adds --base, --layout, --scaling, --factor, --original-max-pos, --beta-fast, --beta-slow,
// --yarn-no-truncate, --low-freq-factor, --high-freq-factor, --xpos-gamma, --xpos-scale-base.
// `scaling_list`: --scaling takes a comma list (freqs, decay) instead of one name.
void add_rope_flags(CLI::App* app, RopeFlags& flags, bool scaling_list = false);

// The one scaling of --scaling (a list is a usage error here).
RopeScaling single_scaling(const RopeFlags& flags);
// The comma list of --scaling, "none" first and each scaling once, in the order given.
std::vector<RopeScaling> scaling_list(const RopeFlags& flags);

// The validated config for head dimension `dim` (seq_len: dynamic NTK's current length).
RopeConfig rope_config(const RopeFlags& flags, std::int64_t dim, RopeScaling scaling, std::size_t seq_len = 0);

// {"base", "layout", "scaling", and the parameters that scaling uses} for Result::params.
nlohmann::json rope_params(const RopeConfig& c);
// rope_params of every config (a comparison of scalings), with "scaling" the list of their names.
nlohmann::json scalings_params(const std::vector<RopeConfig>& configs);
// "" for the default base/layout/scaling, else e.g. "_half_yarn_f4" (PNG file names).
std::string rope_name_suffix(const RopeConfig& c);
// "_linear_yarn" for the scalings after the first of `list` (file names of rope freqs / decay).
std::string scalings_suffix(const std::vector<RopeScaling>& list);
// "base 10000, interleaved, yarn f=4 L₀=4096" (figure subtitles, notes).
std::string rope_description(const RopeConfig& c);

// "1,0,0,1" -> {1, 0, 0, 1} for a vector flag (--vector, --q, --k); errors name `flag`.
std::vector<float> parse_vector_flag(const std::string& text, const std::string& flag);

void register_rope_rotate(CLI::App* rope);
void register_rope_relative(CLI::App* rope);
void register_rope_freqs(CLI::App* rope);
void register_rope_decay(CLI::App* rope);

}  // namespace tfx::cli
