// The flags every `tfx rope …` command shares (--base, --layout, --scaling and the scaling
// parameters) and their translation into a tfx::RopeConfig, its params and its descriptions.
#include "cli/commands/rope/rope_flags.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "cli/common.hpp"
#include "cli/flags/flag_names.hpp"
#include "cli/flags/shape_flags.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

void add_rope_flags(CLI::App* app, RopeFlags& f, bool list) {
  const char* g = tr("RoPE");
  add_base_flag(app, f.base, tr("of the frequencies: inv_freq_j = base^(-2j/D); HF rope_theta"))->group(g);
  app->add_option("--layout", f.layout, tr("Pairing: interleaved (x_2j, x_2j+1) as in the lecture/LLaMA, half (x_j, x_j+D/2) as in GPT-NeoX/HF rotate_half"))
      ->capture_default_str()
      ->check(one_of<RopeLayout>(kRopeLayoutChoices))
      ->group(g);
  const std::string scaling_help = trf("Scaling of the frequencies: {}; where a command compares several, comma-separated",
                                       choice_list<RopeScaling>(kRopeScalingChoices));
  app->add_option("--scaling", f.scaling, list ? fmt::format("{} ({})", scaling_help, tr("none is always shown")) : scaling_help)
      ->capture_default_str()
      ->group(g);
  app->add_option("--factor", f.factor, tr("Context extension factor f (linear, ntk, dynamic, yarn, llama3)"))->group(g);
  app->add_option("--original-max-pos", f.original_max_pos, tr("Pre-training context length L0 (dynamic, yarn, llama3)"))
      ->check(whole_number(1, std::int64_t{1} << 40))
      ->group(g);
  app->add_option("--beta-fast", f.beta_fast, tr("YaRN: rotations above which a pair is kept (beta)"))->capture_default_str()->group(g);
  app->add_option("--beta-slow", f.beta_slow, tr("YaRN: rotations below which a pair is interpolated (alpha)"))->capture_default_str()->group(g);
  app->add_flag("--yarn-no-truncate", f.yarn_no_truncate, tr("YaRN: do not floor/ceil the correction range (HF truncate=false)"))->group(g);
  app->add_option("--low-freq-factor", f.low_freq_factor, tr("Llama 3: wavelengths above L0/low are divided by f"))->capture_default_str()->group(g);
  app->add_option("--high-freq-factor", f.high_freq_factor, tr("Llama 3: wavelengths below L0/high are kept"))->capture_default_str()->group(g);
  app->add_option("--xpos-gamma", f.xpos_gamma, tr("XPos: gamma in zeta_j = (2j + gamma*D)/((1 + gamma)*D)"))->capture_default_str()->group(g);
  app->add_option("--xpos-scale-base", f.xpos_scale_base, tr("XPos: B in q*zeta^(n/B), k*zeta^(-n/B)"))->capture_default_str()->group(g);
}

namespace {
// --factor or --original-max-pos without a --scaling would be silently ignored (and named in PNG file names)
void unused_scaling_flags(const RopeFlags& f) {
  if (f.factor || f.original_max_pos)
    throw usage_error(fmt::format(N_("{} does nothing without --scaling (linear, ntk, dynamic, yarn or llama3), e.g. --scaling linear --factor 4"),
                                  f.factor ? "--factor" : "--original-max-pos"));
}
}  // namespace

RopeScaling single_scaling(const RopeFlags& f) {
  if (f.scaling.find(',') != std::string::npos)
    throw usage_error(fmt::format(N_("--scaling takes one name here, got '{}' (lists are for `rope freqs` and `rope decay`)"), f.scaling));
  const RopeScaling s = parse_rope_scaling(f.scaling);
  if (s == RopeScaling::none) unused_scaling_flags(f);
  return s;
}

std::vector<RopeScaling> scaling_list(const RopeFlags& f) {
  std::vector<RopeScaling> out{RopeScaling::none};
  // getline drops a trailing empty item ("linear,"): refuse it like an inner one
  if (!f.scaling.empty() && f.scaling.back() == ',')
    throw usage_error(fmt::format(N_("--scaling '{}' has an empty item; expected e.g. linear,ntk,yarn"), f.scaling));
  std::stringstream ss(f.scaling);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) throw usage_error(fmt::format(N_("--scaling '{}' has an empty item; expected e.g. linear,ntk,yarn"), f.scaling));
    const RopeScaling s = parse_rope_scaling(item);
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  if (out.size() == 1) unused_scaling_flags(f);
  return out;
}

RopeConfig rope_config(const RopeFlags& f, std::int64_t dim, RopeScaling scaling, std::size_t seq_len) {
  RopeConfig c;
  c.dim = static_cast<std::size_t>(dim);
  c.base = f.base;
  c.layout = parse_rope_layout(f.layout);
  c.scaling = scaling;
  c.factor = f.factor;
  if (f.original_max_pos) c.original_max_pos = static_cast<std::size_t>(*f.original_max_pos);
  c.seq_len = seq_len;
  c.beta_fast = f.beta_fast;
  c.beta_slow = f.beta_slow;
  c.yarn_truncate = !f.yarn_no_truncate;
  c.low_freq_factor = f.low_freq_factor;
  c.high_freq_factor = f.high_freq_factor;
  c.xpos_gamma = f.xpos_gamma;
  c.xpos_scale_base = f.xpos_scale_base;
  validate_rope_config(c);
  return c;
}

nlohmann::json rope_params(const RopeConfig& c) {
  nlohmann::json j = {{"dim", c.dim}, {"base", c.base}, {"layout", rope_layout_name(c.layout)}, {"scaling", rope_scaling_name(c.scaling)}};
  switch (c.scaling) {
    case RopeScaling::none: break;
    case RopeScaling::linear:
    case RopeScaling::ntk: j["factor"] = *c.factor; break;
    case RopeScaling::dynamic:
      j["factor"] = *c.factor;
      j["original_max_pos"] = *c.original_max_pos;
      j["seq_len"] = c.seq_len;
      break;
    case RopeScaling::yarn:
      j["factor"] = *c.factor;
      j["original_max_pos"] = *c.original_max_pos;
      j["beta_fast"] = c.beta_fast;
      j["beta_slow"] = c.beta_slow;
      j["truncate"] = c.yarn_truncate;
      break;
    case RopeScaling::llama3:
      j["factor"] = *c.factor;
      j["original_max_pos"] = *c.original_max_pos;
      j["low_freq_factor"] = c.low_freq_factor;
      j["high_freq_factor"] = c.high_freq_factor;
      break;
    case RopeScaling::xpos:
      j["xpos_gamma"] = c.xpos_gamma;
      j["xpos_scale_base"] = c.xpos_scale_base;
      break;
  }
  return j;
}

nlohmann::json scalings_params(const std::vector<RopeConfig>& configs) {
  nlohmann::json params = nlohmann::json::object();
  nlohmann::json names = nlohmann::json::array();
  for (const RopeConfig& c : configs) {
    params.update(rope_params(c));  // every scaling's parameters
    names.push_back(rope_scaling_name(c.scaling));
  }
  params["scaling"] = names;
  return params;
}

std::string rope_name_suffix(const RopeConfig& c) {
  std::string s;
  if (c.base != 10000.0) s += fmt::format("_base{:g}", c.base);
  if (c.layout == RopeLayout::half) s += "_half";
  if (c.scaling != RopeScaling::none) {
    s += std::string("_") + rope_scaling_name(c.scaling);
    if (c.factor && c.scaling != RopeScaling::xpos) s += fmt::format("_f{:g}", *c.factor);
  }
  return s;
}

std::string rope_description(const RopeConfig& c) {
  std::string s = trf("base {:g}, {} layout", c.base, rope_layout_name(c.layout));
  switch (c.scaling) {
    case RopeScaling::none: break;
    case RopeScaling::linear:
    case RopeScaling::ntk: s += fmt::format(", {} f={:g}", rope_scaling_name(c.scaling), *c.factor); break;
    case RopeScaling::dynamic:
    case RopeScaling::yarn:
    case RopeScaling::llama3:
      s += fmt::format(", {} f={:g} L0={}", rope_scaling_name(c.scaling), *c.factor, *c.original_max_pos);
      break;
    case RopeScaling::xpos: s += fmt::format(", xpos gamma={:g} B={:g}", c.xpos_gamma, c.xpos_scale_base); break;
  }
  return s;
}

std::string scalings_suffix(const std::vector<RopeScaling>& list) {
  std::string s;
  for (std::size_t i = 1; i < list.size(); ++i) s += std::string("_") + rope_scaling_name(list[i]);
  return s;
}

}  // namespace tfx::cli
