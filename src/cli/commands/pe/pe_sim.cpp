// `tfx pe sim`: the lecture's "dot product of position embeddings for all time-steps": the L×L
// matrix PE·PEᵀ (or cosine), and with --profile the similarity as a function of the offset
// k = j − i, checked against the closed form Σ cos(k·ω) and the spread along each diagonal.
#include <fmt/format.h>

#include <cmath>

#include "cli/commands/model/model_input.hpp"
#include "cli/common.hpp"
#include "cli/flags/flag_names.hpp"
#include "cli/commands/pe/pe_commands.hpp"
#include "cli/present/progress_bar.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/positional/pe_sim_text.hpp"
#include "tfx/positional/positional.hpp"
#include "cli/flags/shared_flags.hpp"
#include "tfx/core/i18n.hpp"

#include <filesystem>

namespace tfx::cli {

namespace {

struct PeSimOptions : PeShape {
  std::string metric = "dot";
  bool profile = false;
  std::string model;  // --model DIR: a checkpoint's learned position table
  CLI::Option* len_opt = nullptr;
  OutputFlags out;
  FigureFlags fig;
};

// The similarity heatmap's frame (title, axes, colorbar caption, colormap); callers add the values
// and a subtitle.
Heatmap similarity_heatmap(const PeSimOptions& o, PeMetric metric) {
  const MetricText t = metric_text(metric);
  Heatmap h;
  h.title = t.title;
  h.x_label = tr("position j");
  h.y_label = tr("position i");
  h.value_label = t.pe;
  h.cmap = o.fig.cmap.empty() ? Colormap::viridis : parse_colormap(o.fig.cmap);
  if (is_diverging(h.cmap)) h.symmetric = true;
  return h;
}

// A figure of an L×L similarity too large to form: block means from the closed form (even D).
void run_pe_sim_figure_only(const PeSimOptions& o, PeMetric metric) {
  const auto L = static_cast<std::size_t>(o.len), D = static_cast<std::size_t>(o.dim);
  if (D % 2 != 0)
    throw usage_error(fmt::format(N_("--len {} --dim {}: the {}×{} matrix exceeds the memory cap, and an odd D has no closed form to "
                                  "draw it from; use an even --dim or --len ≤ 32768"), o.len, o.dim, L, L));
  std::size_t b = 1;
  const MetricText t = metric_text(metric);
  Heatmap h = similarity_heatmap(o, metric);
  {
    ProgressBar bar(trf("pe sim: {}×{} block means", L, L), tr("block rows"));
    h.values = pe_similarity_block_means(L, D, o.base, metric, kMaxHeatmapCells, &b, bar.callback());
  }
  h.subtitle = trf("{} · L = {}, D = {} · means of {}×{} blocks from Σ cos((j−i)ω) (the L×L matrix is not formed)",
                           t.matrix, L, D, b, b);
  h.source_rows = h.source_cols = L;
  Result r;
  r.command = "pe sim";
  Figure figure;
  figure.panels.push_back(h);
  present_all(r, o.out, o.fig, &figure, &h, fmt::format("pe_sim_len{}_dim{}{}.png", L, D, t.suffix));
}

// --model DIR: the learned position table P of a GPT-2 (wpe) or BERT (position_embeddings)
// checkpoint, P·Pᵀ beside the sinusoidal PE·PEᵀ of the same size.
void run_pe_sim_model(const PeSimOptions& o) {
  if (o.profile) throw usage_error(N_("--profile goes with the sinusoidal PE (a learned table has no closed form); drop it with --model"));
  // the built-in translator adds the sinusoidal PE itself: it has no learned table
  if (o.model == "teaching")
    throw usage_error("--model teaching: the translator adds the sinusoidal PE itself; pe sim --model compares a checkpoint's "
                      "learned position table (GPT-2, BERT)");
  const Checkpoint m = load_checkpoint(o.model);
  const ModelConfig& c = m.config;
  if (c.uses_rope())
    throw usage_error(fmt::format(N_("--model {}: {} has no position table (it rotates Q and K by RoPE); see tfx rope freqs --config {}/config.json"),
                                  o.model, c.model_type, o.model));
  const std::string name = c.family->position_table_name;
  const StoredMatrix& table = *c.family->position_table(m);
  const std::size_t rows = table.rows, D = table.cols;
  const std::size_t L = o.len_opt && o.len_opt->count() ? static_cast<std::size_t>(o.len) : rows;
  if (L > rows) throw usage_error(fmt::format(N_("--len {}: {} has {} positions"), o.len, o.model, rows));
  checked_element_count({L, L}, fmt::format(N_("--len {} (the similarity matrix is L×L)"), L));
  const PeMetric metric = parse_pe_metric(o.metric);
  const MetricText t = metric_text(metric);
  Tensor p({L, D});
  for (std::size_t i = 0; i < L; ++i) widen_row(table, i, p.row(i));
  Tensor learned = pe_similarity(p, metric);
  const OffsetProfile prof = offset_profile(learned);
  const Tensor sinus = pe_similarity(sinusoidal_encoding(L, D, o.base), metric);
  const OffsetProfile sprof = offset_profile(sinus);
  Result r;
  r.command = "pe sim";
  r.params = {{"model", o.model}, {"tensor", name}, {"len", L}, {"dim", D}, {"metric", o.metric}};
  r.blocks.push_back(Text{trf("{} of {}'s learned position table {} ({} × {}) for positions i, j < {}", t.p,
                                      o.model, name, rows, D, L)});
  r.blocks.push_back(Text{trf("max spread along a diagonal (0 = depends only on j − i): learned {:.3g}, sinusoidal of the same size {:.3g}",
                                      prof.max_spread, sprof.max_spread)});
  r.summary[N_("max_diagonal_spread")] = prof.max_spread;
  r.summary[N_("sinusoidal_max_diagonal_spread")] = sprof.max_spread;
  Figure figure;
  Heatmap a = similarity_heatmap(o, metric), b = similarity_heatmap(o, metric);
  a.title = trf("Learned: {} {}", std::filesystem::path(o.model).filename().string(), name);
  a.subtitle = fmt::format("{} · L = {}, D = {}", t.p_matrix, L, D);
  b.title = tr("Sinusoidal PE of the same size");
  b.subtitle = trf("{} · depends only on j − i", t.matrix);
  a.values = learned;
  a.value_label = t.p;
  b.values = sinus;
  // a test checkpoint's table is random numbers, not learned positions: said in the title and notes
  note_random_weights(r, c);
  if (c.random_weights) a.title = trf("{} (random weights)", a.title);
  figure.panels = {a, b};
  figure.columns = 2;
  r.blocks.push_back(pe_sim_matrix(std::move(learned)));
  std::string dir_name = std::filesystem::path(o.model).filename().string();
  if (dir_name.empty()) dir_name = std::filesystem::path(o.model).parent_path().filename().string();
  present_all(r, o.out, o.fig, &figure, &a, fmt::format("pe_sim_{}_len{}{}.png", name_part({dir_name}), L, t.suffix));
}

void run_pe_sim(const PeSimOptions& o) {
  if (!o.model.empty()) return run_pe_sim_model(o);
  // 1. validate: the L×L result must fit under the memory cap (a figure alone need not)
  const PeMetric metric = parse_pe_metric(o.metric);
  const auto L = static_cast<std::size_t>(o.len), D = static_cast<std::size_t>(o.dim);
  checked_element_count({L, D}, fmt::format("--len {} --dim {}", o.len, o.dim));
  const bool figure_only = (o.fig.png_requested() || o.fig.view) && !o.out.format_given() && !o.profile;
  if (figure_only && L > kMaxElements / L) return run_pe_sim_figure_only(o, metric);
  checked_element_count({L, L}, fmt::format(N_("--len {} (the similarity matrix is L×L; a --png/--view alone can be drawn for any L)"), o.len));
  const bool cosine = metric == PeMetric::cosine, euclidean = metric == PeMetric::euclidean;
  const MetricText t = metric_text(metric);

  // 2. compute
  const Tensor pe = sinusoidal_encoding(L, D, o.base);
  Tensor sim = pe_similarity(pe, metric);
  const OffsetProfile prof = offset_profile(sim);
  const ClosedFormCheck check = pe_closed_form_check(prof, D, o.base, metric);
  auto closed = [&](std::int64_t k) { return check.closed_form[static_cast<std::size_t>(k + o.len - 1)]; };
  const double max_closed_err = check.max_error;

  // 3. the result
  Result r;
  r.command = "pe sim";
  r.params = {{"len", L}, {"dim", D}, {"base", o.base}, {"metric", o.metric}};
  const char* what = t.pe;
  r.blocks.push_back(Text{trf("{} for all positions i, j < {} (D = {}, base {:g}){}", what, L, D, o.base,
                                      cosine      ? tr("; ‖PE(p)‖² = D/2, so cosine = dot / (D/2)")
                                      : euclidean ? "; ‖PE(i) − PE(j)‖² = ‖PE(i)‖² + ‖PE(j)‖² − 2·PE(i)·PE(j) = D − 2·dot (‖PE(p)‖² = D/2)"
                                                  : "")});
  if (D % 2 == 0) {
    r.blocks.push_back(Text{euclidean ? trf("depends only on the offset k = j − i: {} = √({} − 2 Σ_m cos(k·ω_m)), ω_m = {:g}^(−2m/{}): "
                                                    "equal offsets, equal distances",
                                                    what, D, o.base, D)
                                      : trf("depends only on the offset k = j − i: {} = Σ_m cos(k·ω_m){}, ω_m = {:g}^(−2m/{})", what,
                                                    cosine ? fmt::format(" / {}", D / 2) : "", o.base, D)});
    r.blocks.push_back(Text{trf("checked: max spread along a diagonal {:.3g}, max |S − closed form| {:.3g}", prof.max_spread, max_closed_err)});
  } else {
    r.blocks.push_back(Text{trf("odd D: the lone sine column {} adds sin(iω)·sin(jω), which is not a function of j − i alone "
                                        "(max spread along a diagonal {:.3g})", D - 1, prof.max_spread)});
  }
  r.summary[N_("max_diagonal_spread")] = prof.max_spread;
  if (D % 2 == 0) r.summary[N_("max_closed_form_error")] = max_closed_err;
  if (o.profile) {
    Records rec;
    rec.name = N_("profile");
    rec.columns = {N_("k"), t.column, N_("closed_form"), N_("diagonal_spread")};
    for (std::size_t n = 0; n < prof.offset.size(); ++n)
      rec.rows.push_back({static_cast<long long>(prof.offset[n]), prof.mean[n], D % 2 == 0 ? Cell{closed(prof.offset[n])} : Cell{std::string("-")},
                          prof.max[n] - prof.min[n]});
    r.blocks.push_back(std::move(rec));
    r.primary = "profile";
  }
  // 4. figures: the heatmap (and the profile curve)
  Heatmap h = similarity_heatmap(o, metric);
  h.subtitle = fmt::format("{} · L = {}, D = {}{}", t.matrix, L, D, D % 2 == 0 ? tr(" · depends only on j − i") : "");
  Figure figure;
  if (o.profile) {
    LineChart chart;
    chart.title = trf("{} by offset k = j − i", t.chart);
    chart.subtitle = trf("max spread along a diagonal: {:.2g}", prof.max_spread);
    chart.x_label = tr("offset k = j − i");
    chart.y_label = what;
    Series s{tr("measured (diagonal mean)"), {}, {}};
    Series c{t.closed, {}, {}, true};  // the closed form: dashed, under "measured"
    for (std::size_t n = 0; n < prof.offset.size(); ++n) {
      s.x.push_back(static_cast<double>(prof.offset[n]));
      s.y.push_back(prof.mean[n]);
      if (D % 2 == 0) c.x.push_back(static_cast<double>(prof.offset[n])), c.y.push_back(closed(prof.offset[n]));
    }
    chart.series.push_back(std::move(s));
    if (D % 2 == 0) chart.series.push_back(std::move(c));
    figure.panels.push_back(std::move(chart));
  }
  const bool drawing = figure_drawn(o.fig, o.out);
  if (drawing) {
    h.values = o.profile ? std::move(sim) : sim;  // a copy only when the matrix is also output
    figure.panels.insert(figure.panels.begin(), std::move(h));
  }
  if (!o.profile) r.blocks.push_back(pe_sim_matrix(std::move(sim)));
  const Heatmap* view = drawing ? &std::get<Heatmap>(figure.panels.front()) : nullptr;
  const std::string name = fmt::format("pe_sim_len{}_dim{}{}{}.png", L, D, t.suffix, o.profile ? "_profile" : "");
  present_all(r, o.out, o.fig, &figure, view, name);
}

}  // namespace

void register_pe_sim(CLI::App* pe) {
  auto [cmd, o] = add_command(*pe, "sim", tr("PE·PEᵀ: dot product (or cosine, or Euclidean distance) of position encodings for all pairs; --profile by offset"),
                              run_pe_sim);
  o->len_opt = add_pe_shape_flags(cmd, *o, tr("the matrix is L×L; with --model: default all of the table")).len;
  cmd->add_option("--metric", o->metric, choice_list<PeMetric>(kPeMetricChoices, true))
      ->capture_default_str()
      ->check(one_of<PeMetric>(kPeMetricChoices));
  cmd->add_flag("--profile", o->profile, tr("Similarity by offset k = j − i (table and line chart), checked against Σ cos(k·ω)"));
  add_model_flag(cmd, o->model);
  add_presentation_flags(cmd, o->out, o->fig);
  set_examples(cmd, {tr("tfx pe sim --len 50 --dim 128 --png       # the lecture's dot-product figure"),
                     tr("tfx pe sim --len 50 --dim 128 --view"),
                     tr("tfx pe sim --len 100 --dim 64 --metric cosine --profile"),
                     tr("tfx pe sim --len 50 --dim 128 --metric euclidean --png   # equal offsets, equal distances"),
                     tr("tfx pe sim --len 4096 --dim 512 --format npy -o sim.npy"),
                     tr("tfx pe sim --model gpt2/ --png                # GPT-2's learned positions beside the sinusoid")});
}

}  // namespace tfx::cli
