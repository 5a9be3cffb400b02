// `tfx complexity`: the notes' table comparing self-attention with recurrent, convolutional and
// restricted self-attention layers (per-layer cost, sequential operations, maximum path length),
// as formulas and numbers; --png plots the per-layer cost against n for fixed d and marks n = d,
// where self-attention (n²·d) becomes dearer than recurrence (n·d²).
#include "tfx/attention/complexity.hpp"

#include <fmt/format.h>

#include <cmath>

#include "cli/commands.hpp"
#include "cli/common.hpp"

namespace tfx::cli {

namespace {

struct ComplexityOptions {
  std::int64_t n = 512, d = 768, k = 3, r = 32;
  OutputFlags out;
  FigureFlags fig;
};

// A count as a whole number while it is exact in a double (below 2^53), else as a double.
Cell count(double v) {
  if (v < 9007199254740992.0 && v == std::floor(v)) return static_cast<long long>(v);
  return v;
}

void run_complexity(const ComplexityOptions& o) {
  const double n = static_cast<double>(o.n), d = static_cast<double>(o.d), k = static_cast<double>(o.k), r = static_cast<double>(o.r);
  Result res;
  res.command = "complexity";
  res.params = {{"n", o.n}, {"d", o.d}, {"k", o.k}, {"r", o.r}};
  res.blocks.push_back(Text{trf("Cost per layer at sequence length n = {}, width d = {} (kernel k = {}, neighbourhood r = {})",
                                        o.n, o.d, o.k, o.r)});
  Records t;
  t.name = N_("complexity");
  t.columns = {N_("layer"), N_("per layer"), N_("operations"), N_("sequential"), N_("seq. ops"), N_("max path"), N_("path")};
  for (const LayerCost& c : layer_costs(n, d, k, r))
    t.rows.push_back({tr_runtime(c.layer), "O(" + c.per_layer + ")", count(c.per_layer_ops), "O(" + c.sequential + ")", count(c.sequential_ops),
                      "O(" + c.path_length + ")", count(c.path)});
  res.blocks.push_back(std::move(t));
  const double ratio = n / d;  // (n²·d) / (n·d²)
  res.blocks.push_back(Text{trf(
      "self-attention / recurrent = n²·d / (n·d²) = n / d = {:.4g}: self-attention is {} here; they cost the same at n = d = {}", ratio,
      n < d ? tr("cheaper") : n > d ? tr("dearer") : tr("equal"), o.d)});
  res.summary[N_("attention_over_recurrent")] = ratio;
  res.summary[N_("crossover_n")] = o.d;
  res.primary = "complexity";

  // the figure: cost against n (1 … max(2n, 2d)) at this d, log scale, the n = d line
  LineChart chart;
  chart.title = trf("Operations per layer against sequence length n (d = {})", o.d);
  chart.subtitle = trf("self-attention n²·d passes recurrence n·d² at n = d = {}; k = {}, r = {}", o.d, o.k, o.r);
  chart.x_label = tr("sequence length n");
  chart.y_label = tr("operations per layer");
  chart.log_y = true;
  const double n_max = std::max(2 * n, 2 * d);
  const int points = 200;
  const char* names[] = {tr("self-attention n²·d"), tr("recurrent n·d²"), tr("convolutional k·n·d²"), tr("restricted r·n·d")};
  double lo = 1e300, hi = 0;
  for (int s = 0; s < 4; ++s) {
    Series series{names[s], {}, {}};
    for (int i = 1; i <= points; ++i) {
      const double x = n_max * i / points;
      const double y = layer_costs(x, d, k, r)[static_cast<std::size_t>(s)].per_layer_ops;
      series.x.push_back(x);
      series.y.push_back(y);
      lo = std::min(lo, y);
      hi = std::max(hi, y);
    }
    chart.series.push_back(std::move(series));
  }
  chart.series.push_back({fmt::format("n = d = {}", o.d), {d, d}, {lo, hi}, true});  // a marker line: dashed, no markers
  Figure figure;
  figure.panels.push_back(chart);
  present_all(res, o.out, o.fig, &figure, nullptr, fmt::format("complexity_d{}.png", o.d));
}

}  // namespace

void register_complexity(CLI::App& app) {
  auto [cmd, o] = add_command(app, "complexity", tr("Self-attention vs recurrent vs convolutional layers: cost, sequential steps, path length"),
                              run_complexity, tr("Attention"));
  const auto big = std::int64_t{1} << 30;
  cmd->add_option("--n", o->n, tr("Sequence length n"))->capture_default_str()->check(whole_number(1, big));
  cmd->add_option("--d", o->d, tr("Representation width d"))->capture_default_str()->check(whole_number(1, big));
  cmd->add_option("--kernel", o->k, tr("Convolution kernel width k"))->capture_default_str()->check(whole_number(2, big));
  cmd->add_option("--r", o->r, tr("Neighbourhood size r of restricted self-attention"))->capture_default_str()->check(whole_number(1, big));
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig, false);
  set_examples(cmd, {tr("tfx complexity                      # n = 512, d = 768: self-attention is cheaper (n < d)"),
                     tr("tfx complexity --n 4096 --d 512   # long sequences: n²·d dominates"), tr("tfx complexity --png")});
}

}  // namespace tfx::cli
