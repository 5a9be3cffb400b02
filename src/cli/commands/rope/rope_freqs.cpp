// `tfx rope freqs`: per pair j its inverse frequency and wavelength 2π/inv_freq_j under each
// requested scaling side by side (table + log-y line charts), so one sees which pairs PI, NTK,
// YaRN and Llama 3 stretch.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string_view>
#include <utility>

#include <cmath>
#include <numbers>

#include "cli/common.hpp"
#include "tfx/core/memory.hpp"
#include "cli/commands/rope/rope_flags.hpp"
#include "tfx/io/text_file.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/core/i18n.hpp"

#include <filesystem>

namespace tfx::cli {

namespace {

struct RopeFreqsOptions {
  std::int64_t dim = 128;
  std::optional<std::int64_t> len;
  std::string config;  // --config: a checkpoint's config.json sets dim, base and scaling
  RopeFlags rope;
  OutputFlags out;
  FigureFlags fig;
};

void run_rope_freqs(const RopeFreqsOptions& given);

// A RoPE error of config.json's values (the library names its parameters: dim, base, factor …)
// as the file's: its keys (head_dim, rope_theta, rope_scaling.factor …), exit 1, no flag named.
[[noreturn]] void rope_config_error(const Error& e, const std::string& path) {
    static const std::pair<const char*, const char*> kKeys[] = {
        {"dim", "head_dim"}, {"base", "rope_theta"}, {"factor", "rope_scaling.factor"},
        {"original_max_pos", "rope_scaling.original_max_position_embeddings"}, {"beta_fast", "rope_scaling.beta_fast"},
        {"beta_slow", "rope_scaling.beta_slow"}, {"low_freq_factor", "rope_scaling.low_freq_factor"},
        {"high_freq_factor", "rope_scaling.high_freq_factor"}, {"scaling", "rope_scaling.rope_type"}};
    std::string m = e.what();
    for (const auto& [param, key] : kKeys) {
      const std::string p = param;
      for (std::size_t at = m.find(p); at != std::string::npos; at = m.find(p, at + 1)) {
        const bool starts = at == 0 || !(std::isalnum(static_cast<unsigned char>(m[at - 1])) || m[at - 1] == '_' || m[at - 1] == '.');
        const bool ends = at + p.size() == m.size() || !(std::isalnum(static_cast<unsigned char>(m[at + p.size()])) || m[at + p.size()] == '_');
        if (starts && ends) {
          m.replace(at, p.size(), key);
          at += std::string_view(key).size() - 1;
        }
      }
    }
  throw Error(fmt::format(N_("--config {}: {}"), path, m));
}

// --config FILE: the model's own RoPE (head_dim, rope_theta, rope_scaling), drawn beside the
// unscaled frequencies of the same base.
RopeFreqsOptions from_config(const RopeFreqsOptions& o) {
  std::error_code ec;
  std::string path = o.config;
  if (std::filesystem::is_directory(path, ec)) path = (std::filesystem::path(path) / "config.json").string();
  ModelConfig c;
  try {
    c = parse_model_config(read_text_input(path, "--config"), path);
  } catch (const Error& e) {
    if (e.kind() != Error::Kind::usage) throw;  // the file's own errors already name it
    rope_config_error(e, path);
  }
  if (!c.uses_rope())
    throw usage_error(fmt::format(N_("--config {}: {} uses learned positions, not RoPE; see tfx pe sim --model DIR"), path, c.model_type));
  RopeFreqsOptions r = o;
  r.dim = static_cast<std::int64_t>(c.head_dim);
  r.rope.base = c.rope.base;
  r.rope.layout = "half";
  r.rope.scaling = c.rope.scaling == RopeScaling::none ? "none" : std::string("none,") + rope_scaling_name(c.rope.scaling);
  r.rope.factor = c.rope.factor;
  if (c.rope.original_max_pos) r.rope.original_max_pos = static_cast<std::int64_t>(*c.rope.original_max_pos);
  r.rope.beta_fast = c.rope.beta_fast;
  r.rope.beta_slow = c.rope.beta_slow;
  r.rope.low_freq_factor = c.rope.low_freq_factor;
  r.rope.high_freq_factor = c.rope.high_freq_factor;
  r.config.clear();
  // checked here, so a bad value is the file's (its key, exit 1), not a flag never given
  try {
    std::size_t len = 0;
    if (r.rope.factor && r.rope.original_max_pos && *r.rope.factor > 0)
      len = static_cast<std::size_t>(std::llround(*r.rope.factor * static_cast<double>(*r.rope.original_max_pos)));
    for (RopeScaling s : scaling_list(r.rope)) (void)rope_config(r.rope, r.dim, s, std::max<std::size_t>(len, 1));
  } catch (const Error& e) {
    if (e.kind() != Error::Kind::usage) throw;
    rope_config_error(e, path);
  }
  return r;
}

void run_rope_freqs(const RopeFreqsOptions& given) {
  const RopeFreqsOptions o = given.config.empty() ? given : from_config(given);
  const std::vector<RopeScaling> list = scaling_list(o.rope);
  // dynamic NTK needs the current length: --len, else the extended context f·L₀
  std::size_t seq_len = 0;
  if (o.len) seq_len = static_cast<std::size_t>(*o.len);
  else if (o.rope.factor && o.rope.original_max_pos && *o.rope.factor > 0)
    seq_len = static_cast<std::size_t>(std::llround(*o.rope.factor * static_cast<double>(*o.rope.original_max_pos)));

  std::vector<RopeConfig> configs;
  for (RopeScaling s : list) configs.push_back(rope_config(o.rope, o.dim, s, seq_len));
  const std::size_t P = configs[0].dim / 2, n = configs.size();
  // a row per pair with each scaling's frequency and wavelength: about 50 bytes a dimension and scaling
  check_memory(64.0 * static_cast<double>(configs[0].dim) * static_cast<double>(n),
               n == 1 ? fmt::format(N_("--dim {} (a row per pair, {} scaling)"), configs[0].dim, n)
                      : fmt::format(N_("--dim {} (a row per pair, {} scalings)"), configs[0].dim, n));

  Matrix m;
  m.name = N_("freqs");
  m.values = Tensor({P, 2 * n});
  m.row_axis = N_("j");
  m.col_axis = N_("scaling");
  LineChart inv_chart, wave_chart;
  inv_chart.title = tr("Inverse frequency ω_j per pair");
  inv_chart.x_label = tr("pair j");
  inv_chart.y_label = tr("ω_j (radians per position)");
  inv_chart.log_y = true;
  wave_chart.title = tr("Wavelength 2π/ω_j per pair");
  wave_chart.x_label = tr("pair j");
  wave_chart.y_label = tr("wavelength (positions)");
  wave_chart.log_y = true;

  Result r;
  r.command = "rope freqs";
  r.params = scalings_params(configs);
  r.params["dim"] = configs[0].dim;

  for (std::size_t s = 0; s < n; ++s) {
    const RopeConfig& c = configs[s];
    const std::vector<double> inv = rope_inv_freq(c);
    const std::string name = rope_scaling_name(c.scaling);
    m.col_labels.push_back(name + "_inv_freq");
    m.col_labels.push_back(name + "_wavelength");
    // one scaling: no legend for it (only the L₀ line, when drawn, is named)
    const std::string shown = n > 1 ? name : "";
    Series si{shown, {}, {}}, sw{shown, {}, {}};
    for (std::size_t j = 0; j < P; ++j) {
      const double wave = 2.0 * std::numbers::pi / inv[j];
      m.values(j, 2 * s) = static_cast<float>(inv[j]);
      m.values(j, 2 * s + 1) = static_cast<float>(wave);
      si.x.push_back(static_cast<double>(j));
      si.y.push_back(inv[j]);
      sw.x.push_back(static_cast<double>(j));
      sw.y.push_back(wave);
    }
    inv_chart.series.push_back(std::move(si));
    wave_chart.series.push_back(std::move(sw));
    switch (c.scaling) {
      case RopeScaling::ntk:
      case RopeScaling::dynamic: r.summary[name + "_base"] = rope_effective_base(c); break;
      case RopeScaling::yarn: {
        const auto [low, high] = yarn_correction_range(c);
        r.summary[N_("yarn_low")] = low;
        r.summary[N_("yarn_high")] = high;
        r.summary[N_("yarn_attention_factor")] = rope_attention_factor(c);
        break;
      }
      case RopeScaling::llama3:
        r.summary[N_("llama3_high_freq_wavelen")] = static_cast<double>(*c.original_max_pos) / c.high_freq_factor;
        r.summary[N_("llama3_low_freq_wavelen")] = static_cast<double>(*c.original_max_pos) / c.low_freq_factor;
        break;
      default: break;
    }
  }
  if (o.rope.original_max_pos) {
    const double l0 = static_cast<double>(*o.rope.original_max_pos);
    wave_chart.series.push_back(Series{tr("L₀ (original context)"), {0.0, static_cast<double>(P - 1)}, {l0, l0}, true});
  }
  // several scalings share base, layout, factor and L₀: say so, rather than describe the last one
  std::string described = rope_description(configs.back());
  if (n > 1) {
    std::vector<std::string> names;
    for (const RopeConfig& c : configs) names.push_back(rope_scaling_name(c.scaling));
    const RopeConfig& c = configs.back();
    described = trf("base {:g}, {} layout; {}{}{}", c.base, rope_layout_name(c.layout), fmt::join(names, ", "),
                            c.factor ? fmt::format(", f={:g}", *c.factor) : "",
                            c.original_max_pos ? fmt::format(" L0={}", *c.original_max_pos) : "");
  }
  inv_chart.subtitle = wave_chart.subtitle = described;
  r.blocks.push_back(Text{trf("Per pair j: inv_freq_j and wavelength 2*pi/inv_freq_j (positions per full turn), D = {}; {}",
                                      configs[0].dim, described)});
  r.blocks.push_back(std::move(m));
  r.primary = "freqs";

  Figure figure;
  figure.title = trf("RoPE frequencies per pair, D = {}", configs[0].dim);
  figure.panels = {inv_chart, wave_chart};
  figure.columns = 2;
  present_all(r, o.out, o.fig, &figure, nullptr,
              fmt::format("rope_freqs_dim{}{}{}.png", configs[0].dim, scalings_suffix(list), rope_name_suffix(configs[0])));
}

}  // namespace

void register_rope_freqs(CLI::App* rope) {
  auto [sub, opts] = add_command(*rope, "freqs", tr("Per-pair inverse frequency and wavelength under each scaling, side by side"),
                                 run_rope_freqs, tr("Subcommands"));
  add_rope_dim_flag(sub, opts->dim);
  add_len_flag(sub, opts->len, tr("dynamic NTK's current sequence length; default: factor * original-max-pos"));
  add_rope_flags(sub, opts->rope, true);
  sub->add_option("--config", opts->config,
                  tr("A Hugging Face config.json (or its folder): the model's own head_dim, rope_theta and rope_scaling, drawn beside "
                     "the unscaled frequencies (replaces --dim, --base and the scaling flags)"))
      ->type_name("FILE");
  add_output_flags(sub, opts->out);
  add_figure_flags(sub, opts->fig, false);
  set_examples(sub, {tr("tfx rope freqs --config Llama-3.2-1B/config.json --png      # the model's own RoPE and its llama3 scaling"),
                     tr("tfx rope freqs --dim 128 --scaling linear,ntk,yarn,llama3 --factor 8 --original-max-pos 8192 --png"),
                     tr("tfx rope freqs --dim 128 --base 500000 --scaling llama3 --factor 8 --original-max-pos 8192"),
                     tr("tfx rope freqs --dim 64 --scaling yarn --factor 4 --original-max-pos 4096 --format csv -o yarn.csv"),
                     tr("tfx rope freqs --dim 16")});
}

}  // namespace tfx::cli
