// `tfx lr`: the Transformer's warm-up learning-rate schedule (the lecture's formula), as a
// table, one value with its formula, or a line chart of several warm-up lengths.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <optional>

#include "cli/flags/model_size_flags.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "tfx/attention/schedule.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct LrOptions {
  double d_model = 512;
  std::vector<std::string> warmup_text{"4000"};  // --warmup as given, comma-separated
  std::vector<std::int64_t> warmup;
  std::int64_t steps = 20000;
  std::optional<std::int64_t> step;
  std::int64_t rows = 21;
  double factor = 1.0;  // --lr-factor: the schedule's multiplier (--scale is the figure's, as everywhere)
  OutputFlags out;
  FigureFlags fig;
};

void run_lr(const LrOptions& o) {
  Result r;
  r.command = "lr";
  r.params = {{"d_model", o.d_model}, {"warmup", o.warmup}, {"factor", o.factor}};
  // --scale sizes the figure on every command; here a user may mean the schedule's multiplier
  if (o.fig.scale != 1.0 && !o.fig.png_requested() && !o.out.figure_format())
    throw usage_error(N_("--scale sizes the figure (with --png, --svg or --format png/svg); the schedule's multiplier is --lr-factor"));
  // the schedule peaks at step = warmup: factor·d_model^(-0.5)·warmup^(-0.5); past float32 the table shows inf
  for (auto w : o.warmup) {
    const double peak = warmup_learning_rate(static_cast<double>(w), o.d_model, static_cast<double>(w), o.factor);
    if (!(peak <= std::numeric_limits<float>::max()))
      throw usage_error(fmt::format(N_("--lr-factor {:g} --d-model {:g}: the peak learning rate ({:g}, at step {}) overflows float32; "
                                    "use a smaller --lr-factor or a larger --d-model"),
                                    o.factor, o.d_model, peak, w));
  }
  if (o.step) {
    const double s = static_cast<double>(*o.step);
    r.params["step"] = *o.step;
    const std::string factor_text = o.factor == 1.0 ? "" : fmt::format("{:g} · ", o.factor);
    for (auto w : o.warmup) {
      const double lr = warmup_learning_rate(s, o.d_model, static_cast<double>(w), o.factor);
      const bool rising = s < static_cast<double>(w);
      r.blocks.push_back(Text{trf(
          "lrate = {}{:g}^(-0.5) · min({}^(-0.5), {} · {}^(-1.5)) = {}{:g} · min({:.6g}, {:.6g}) = {:.8g}   ({})",
          factor_text, o.d_model, *o.step, *o.step, w, factor_text, std::pow(o.d_model, -0.5), std::pow(s, -0.5), s * std::pow(w, -1.5), lr,
          rising ? tr("step < warmup: rising linearly") : tr("step ≥ warmup: decaying as 1/√step"))});
      r.summary[fmt::format("lr_warmup{}", w)] = lr;
    }
    present(r, o.out);
    return;
  }
  // 1. the sampled steps: `rows` evenly spaced over [1, steps], plus each warm-up peak
  std::vector<std::int64_t> steps;
  for (std::int64_t k = 0; k < o.rows; ++k)
    steps.push_back(std::max<std::int64_t>(1, o.rows == 1 ? o.steps : k * o.steps / (o.rows - 1)));
  for (auto w : o.warmup)
    if (w <= o.steps) steps.push_back(w);
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  // 2. the table: one column per warm-up length
  Matrix m;
  m.name = N_("lr");
  m.values = Tensor({steps.size(), o.warmup.size()});
  m.row_axis = N_("step");
  m.col_axis = "";
  for (std::size_t i = 0; i < steps.size(); ++i) {
    m.row_labels.push_back(std::to_string(steps[i]));
    for (std::size_t j = 0; j < o.warmup.size(); ++j)
      m.values(i, j) = static_cast<float>(warmup_learning_rate(static_cast<double>(steps[i]), o.d_model,
                                                               static_cast<double>(o.warmup[j]), o.factor));
  }
  for (auto w : o.warmup) m.col_labels.push_back(fmt::format("warmup={}", w));
  r.blocks.push_back(Text{trf("lrate = d_model^(-0.5) · min(step^(-0.5), step · warmup^(-1.5)),  d_model = {:g}", o.d_model)});
  r.blocks.push_back(std::move(m));
  for (auto w : o.warmup) {
    r.summary[fmt::format("peak_step_warmup{}", w)] = w;
    r.summary[fmt::format("peak_lr_warmup{}", w)] = warmup_learning_rate(static_cast<double>(w), o.d_model, static_cast<double>(w), o.factor);
  }
  r.primary = "lr";
  // 3. the figure: the full curve, ~1000 points per warm-up length
  LineChart chart;
  chart.title = trf("Transformer warm-up learning rate, d_model = {:g}", o.d_model);
  chart.subtitle = trf("lrate = {}d_model^−0.5 · min(step^−0.5, step · warmup^−1.5)", o.factor == 1.0 ? "" : fmt::format("{:g} · ", o.factor));
  chart.x_label = tr("training step");
  chart.y_label = tr("learning rate");
  const std::int64_t points = std::min<std::int64_t>(o.steps, 1000);
  for (auto w : o.warmup) {
    Series s;
    s.name = trf("warmup = {}", w);
    for (std::int64_t k = 1; k <= points; ++k) {
      const double step = std::max(1.0, std::round(static_cast<double>(k) * static_cast<double>(o.steps) / static_cast<double>(points)));
      s.x.push_back(step);
      s.y.push_back(warmup_learning_rate(step, o.d_model, static_cast<double>(w), o.factor));
    }
    chart.series.push_back(std::move(s));
  }
  Figure figure;
  figure.panels.push_back(chart);
  present_all(r, o.out, o.fig, &figure, nullptr,
              fmt::format("lr_d{:g}_warmup{}_steps{}.png", o.d_model, fmt::join(o.warmup, "-"), o.steps));
}

}  // namespace

void register_lr(CLI::App& app) {
  auto o = std::make_shared<LrOptions>();
  CLI::App* cmd = app.add_subcommand("lr", tr("Warm-up learning-rate schedule of the Transformer paper (table, value or figure)"));
  cmd->group(tr("Training"));
  add_d_model_flag(cmd, o->d_model, "");
  add_warmup_flag(cmd, o->warmup_text, tr("one column and one curve each"));
  add_steps_flag(cmd, o->steps, tr("the table's and the curve's last step"));
  cmd->add_option("--rows", o->rows, tr("Evenly spaced steps in the table (warm-up peaks are added)"))
      ->capture_default_str()
      ->check(whole_number(1, 100000));
  cmd->add_option("--step", o->step, tr("One step: print its learning rate with the formula spelled out"))
      ->check(whole_number(1, std::int64_t{1} << 40));
  cmd->add_option("--lr-factor", o->factor,
                  tr("Multiply the schedule (the Annotated Transformer's factor, e.g. 2); --scale sizes the figure, as on every command"))
      ->capture_default_str()
      ->check(positive_number());
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig, false);
  set_examples(cmd, {tr("tfx lr                                    # d_model 512, warm-up 4000: peak 0.000699 at step 4000"),
                     tr("tfx lr --step 1000                        # one value, formula spelled out"),
                     tr("tfx lr --warmup 4000,8000 --steps 40000 --png")});
  cmd->callback([o] {
    o->warmup = whole_number_items(o->warmup_text);
    run_lr(*o);
  });
}

}  // namespace tfx::cli
