// `tfx rope decay`: the RoFormer long-term decay curve (1/(D/2))·Σ|S_j| against relative
// distance, one curve per scaling.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "cli/common.hpp"
#include "tfx/core/memory.hpp"
#include "cli/commands/rope/rope_flags.hpp"

namespace tfx::cli {

namespace {

struct RopeDecayOptions {
  std::int64_t dim = 128;
  std::int64_t len = 4096;
  RopeFlags rope;
  OutputFlags out;
  FigureFlags fig;
};

void run_rope_decay(const RopeDecayOptions& o) {
  const std::vector<RopeScaling> list = scaling_list(o.rope);
  const auto L = static_cast<std::size_t>(o.len);
  std::vector<RopeConfig> configs;
  for (RopeScaling s : list) configs.push_back(rope_config(o.rope, o.dim, s, L));
  const std::size_t n = configs.size();
  // the curve's work is L×(D/2) (checked again in rope_decay_curve); check before the L×n table is allocated
  checked_element_count({L, std::max(n, configs[0].dim / 2)}, fmt::format("--len {} --dim {} (decay work)", o.len, configs[0].dim));
  // the frequencies and partial sums per pair: a few doubles a dimension
  check_memory(32.0 * static_cast<double>(configs[0].dim), fmt::format("--dim {} (the frequencies per pair)", configs[0].dim));

  Matrix m;
  m.name = N_("decay");
  m.values = Tensor({L, n});
  m.row_axis = N_("distance");
  m.col_axis = N_("scaling");
  LineChart chart;
  chart.title = trf("RoPE long-term decay, D = {}", configs[0].dim);
  chart.subtitle = fmt::format("(2/D) Σ_j |S_j|, S_j = Σ_(k<j) e^(i m θ_k); {}", rope_description(configs.back()));
  chart.x_label = tr("relative distance m");
  chart.y_label = tr("relative upper bound");
  Result r;
  r.command = "rope decay";
  r.params = scalings_params(configs);
  r.params["len"] = L;
  for (std::size_t s = 0; s < n; ++s) {
    const std::vector<double> curve = rope_decay_curve(L, configs[s]);
    const std::string name = rope_scaling_name(configs[s].scaling);
    m.col_labels.push_back(name);
    Series ser{n > 1 ? name : "", {}, {}};
    for (std::size_t i = 0; i < L; ++i) {
      m.values(i, s) = static_cast<float>(curve[i]);
      ser.x.push_back(static_cast<double>(i));
      ser.y.push_back(curve[i]);
    }
    chart.series.push_back(std::move(ser));
    r.summary[name + "_at_0"] = curve.front();
    r.summary[name + "_at_" + std::to_string(L - 1)] = curve.back();
  }
  r.blocks.push_back(Text{trf("RoFormer 3.4.3 long-term decay: (1/(D/2)) * sum_(j=1..D/2) |S_j|, S_j = sum_(k<j) e^(i m theta_k), "
                                      "m = 0..{}; D = {}; {}",
                                      L - 1, configs[0].dim, rope_description(configs.back()))});
  r.blocks.push_back(std::move(m));
  r.primary = "decay";
  Figure figure;
  figure.panels = {chart};
  present_all(r, o.out, o.fig, &figure, nullptr,
              fmt::format("rope_decay_len{}_dim{}{}{}.png", L, configs[0].dim, scalings_suffix(list), rope_name_suffix(configs[0])));
}

}  // namespace

void register_rope_decay(CLI::App* rope) {
  auto [sub, opts] = add_command(*rope, "decay", tr("RoFormer long-term decay curve against relative distance, per scaling"),
                                 run_rope_decay, tr("Subcommands"));
  add_rope_dim_flag(sub, opts->dim);
  add_len_flag(sub, opts->len, tr("relative distances 0 … L−1"));
  add_rope_flags(sub, opts->rope, true);
  add_output_flags(sub, opts->out);
  add_figure_flags(sub, opts->fig, false);
  set_examples(sub, {tr("tfx rope decay --dim 128 --len 4096 --png          # the RoFormer paper's figure"),
                     tr("tfx rope decay --dim 128 --len 4096 --scaling linear,xpos --factor 4 --png"),
                     tr("tfx rope decay --dim 64 --len 512 --format csv -o decay.csv")});
}

}  // namespace tfx::cli
