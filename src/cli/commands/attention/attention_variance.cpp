// `tfx attention variance`: the lecture's argument for the √d_k — measured Var(q·k) ≈ d_k,
// Var(q·k/√d_k) ≈ 1, and how peaked softmax gets with and without the scaling — as a table and
// an optional line chart.
#include <fmt/format.h>

#include <cmath>

#include "cli/flags/shared_flags.hpp"
#include "cli/flags/flag_names.hpp"
#include "cli/commands/attention/attention_command.hpp"
#include "cli/common.hpp"
#include "tfx/attention/attention.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct VarianceOptions {
  std::vector<std::string> dk_text{"1,8,64,512"};  // --dk as given, comma-separated
  std::vector<std::int64_t> dk;
  std::int64_t samples = 10000;
  std::int64_t keys = 16;
  std::string dist = "normal";
  std::uint64_t seed = 42;
  OutputFlags out;
  FigureFlags fig;
};

// The most multiply-adds one run may take (about a few seconds); more is refused, not hung.
constexpr double kMaxWork = 4e9;

void run_variance(const VarianceOptions& o) {
  std::vector<std::size_t> dks;
  double work = 0;
  for (auto d : o.dk) {
    if (d < 1) throw usage_error(fmt::format(N_("--dk {}: d_k must be at least 1"), d));
    dks.push_back(static_cast<std::size_t>(d));
    work += static_cast<double>(d) * static_cast<double>(o.samples) * static_cast<double>(o.keys + 1);
  }
  if (work > kMaxWork)
    throw usage_error(
        fmt::format(N_("--samples {} × --keys {} × Σ --dk draws {:.2g} random numbers, more than the {:.0g} tfx allows; "
                    "lower --samples or --dk"),
                    o.samples, o.keys, work, kMaxWork));
  checked_element_count({static_cast<std::size_t>(o.samples), static_cast<std::size_t>(o.keys)},
                        fmt::format("--samples {} --keys {}", o.samples, o.keys));
  const UnitDistribution dist = parse_choice<UnitDistribution>(kUnitDistributionChoices, o.dist, "dist");
  const auto stats =
      dot_product_variance(dks, static_cast<std::size_t>(o.samples), static_cast<std::size_t>(o.keys), o.seed, dist);

  Result r;
  r.command = "attention variance";
  r.params = {{"dk", dks}, {"samples", o.samples}, {"keys", o.keys}, {"dist", o.dist}, {"seed", o.seed}};
  r.blocks.push_back(Text{trf("q, k with independent {} entries (mean 0, variance 1): Var(q·k) = d_k, Var(q·k/√d_k) = 1.",
                                      dist == UnitDistribution::normal ? "N(0, 1)" : "U(−√3, √3)")});
  r.blocks.push_back(
      Text{trf("{} rows of one q and n = {} keys per d_k; max weight = mean over rows of the largest "
                       "softmax weight (1/n = {} is uniform, 1 is one-hot).",
                       o.samples, o.keys, format_number(1.0 / static_cast<double>(o.keys), 4))});
  Records t;
  t.name = N_("variance");
  t.columns = {N_("d_k"), N_("var(q·k)"), N_("var(q·k/√d_k)"), N_("max weight"), N_("max weight scaled")};
  for (const auto& s : stats)
    t.rows.push_back({static_cast<long long>(s.d_k), s.var_dot, s.var_scaled, s.max_weight, s.max_weight_scaled});
  r.blocks.push_back(std::move(t));

  LineChart var;
  var.title = tr("Variance of q·k grows like d_k; q·k/√d_k keeps variance 1");
  var.x_label = tr("log₂ d_k");
  var.y_label = tr("variance");
  var.log_y = true;
  LineChart peak;
  peak.title = trf("Largest softmax weight over n = {} keys", o.keys);
  peak.x_label = tr("log₂ d_k");
  peak.y_label = tr("mean max weight");
  Series measured{"var(q·k)", {}, {}}, theory{tr("d_k (theory)"), {}, {}, true}, scaled{"var(q·k/√d_k)", {}, {}};
  Series raw_w{"softmax(q·k)", {}, {}}, scaled_w{"softmax(q·k/√d_k)", {}, {}};
  for (const auto& s : stats) {
    const double x = std::log2(static_cast<double>(s.d_k));
    measured.x.push_back(x), measured.y.push_back(s.var_dot);
    theory.x.push_back(x), theory.y.push_back(static_cast<double>(s.d_k));
    scaled.x.push_back(x), scaled.y.push_back(s.var_scaled);
    raw_w.x.push_back(x), raw_w.y.push_back(s.max_weight);
    scaled_w.x.push_back(x), scaled_w.y.push_back(s.max_weight_scaled);
  }
  var.series = {measured, theory, scaled};  // theory dashed and under the measured variance
  peak.series = {raw_w, scaled_w};
  Figure figure;
  figure.title = trf("Why attention divides by √d_k ({} samples, seed {})", o.samples, o.seed);
  figure.panels = {var, peak};
  figure.columns = 2;
  std::string dk_name;
  for (auto d : dks) dk_name += (dk_name.empty() ? "" : "-") + std::to_string(d);
  present_all(r, o.out, o.fig, &figure, nullptr, fmt::format("attention_variance_dk{}_seed{}.png", dk_name, o.seed));
}

}  // namespace

void register_attention_variance(CLI::App* attention) {
  auto o = std::make_shared<VarianceOptions>();
  CLI::App* cmd =
      attention->add_subcommand("variance", tr("Why √d_k: measured Var(q·k) ≈ d_k and softmax peaking, with and without scaling"));
  add_dk_flag(cmd, o->dk_text, tr("the widths to measure"));
  cmd->add_option("--samples", o->samples, tr("Rows (one query, n keys) per d_k"))
      ->capture_default_str()
      ->check(whole_number(2, std::int64_t{1} << 30));
  cmd->add_option("--keys", o->keys, tr("Keys n per row (the softmax runs over n scores)"))
      ->capture_default_str()
      ->check(whole_number(1, std::int64_t{1} << 20));
  cmd->add_option("--dist", o->dist, trf("Distribution of the entries: {}", choice_list<UnitDistribution>(kUnitDistributionChoices, true)))
      ->capture_default_str()
      ->check(one_of<UnitDistribution>(kUnitDistributionChoices));
  add_seed_flag(cmd, o->seed);
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig, false);
  set_examples(cmd, {tr("tfx attention variance --dk 1,8,64,512 --samples 10000"),
                     tr("tfx attention variance --dk 1,2,4,8,16,32,64,128,256,512 --png"),
                     tr("tfx attention variance --dk 64 --keys 4 --dist uniform --format json")});
  cmd->callback([o] {
    o->dk = whole_number_items(o->dk_text);
    run_variance(*o);
  });
}

}  // namespace tfx::cli
