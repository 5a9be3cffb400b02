// `tfx softmax 1,1,0.8,0.7 [--temperature 1,10]`: the lecture's softmax by hand (note 003): each
// score x, x/T, the exponentials e^(x/T − m) (m = the largest x/T, so nothing overflows), their sum
// and the probabilities, for each temperature; a bar figure with one panel per temperature on one
// 0–1 scale. `--temperature 10` on 0,-11,7 is the note's √d_k = 10 rescue of a peaked softmax.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "tfx/core/ops.hpp"
#include "cli/flags/shared_flags.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct SoftmaxOptions {
  std::string values;
  std::vector<std::string> temperatures{"1"};
  std::string labels;  // --labels: names of the entries (default 1, 2, …)
  OutputFlags out;
  FigureFlags fig;
};

std::vector<double> number_list(const std::string& text, const std::string& flag, bool positive) {
  std::vector<double> out;
  for (const std::string& item : split_items(text)) {
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || end != item.c_str() + item.size() || !std::isfinite(v) || std::abs(v) > 1e30)
      throw usage_error(fmt::format(N_("{}: '{}' is not a finite number; expected e.g. {}"), flag, item,
                                    positive ? "--temperature 1,10" : "tfx softmax 1,1,0.8,0.7"));
    if (positive && !(v > 0)) throw usage_error(fmt::format(N_("{}: {} must be above 0 (x/T with T ≤ 0 is not a softmax temperature)"), flag, item));
    out.push_back(v);
  }
  if (out.empty()) throw usage_error(fmt::format(N_("{}: expected comma-separated numbers, got none"), flag));
  return out;
}

void run_softmax(const SoftmaxOptions& o) {
  const std::vector<double> x = number_list(o.values, "VALUES", false);
  if (x.size() > 100000) throw usage_error(fmt::format(N_("VALUES: {} numbers; at most 100000"), x.size()));
  const std::vector<double> temps = number_list(fmt::format("{}", fmt::join(o.temperatures, ",")), "--temperature", true);
  if (temps.size() > 16) throw usage_error(fmt::format(N_("--temperature: {} temperatures; at most 16"), temps.size()));
  std::vector<std::string> labels = o.labels.empty() ? std::vector<std::string>{} : split_items(o.labels);
  if (labels.empty())
    for (std::size_t i = 0; i < x.size(); ++i) labels.push_back(std::to_string(i + 1));
  if (labels.size() != x.size())
    throw usage_error(fmt::format(N_("--labels: {} names for {} values"), labels.size(), x.size()));

  Result r;
  r.command = "softmax";
  r.params = {{"values", x}, {"temperature", temps}, {"labels", labels}};
  r.blocks.push_back(Text{tr("softmax(x/T)ᵢ = e^(xᵢ/T) / Σⱼ e^(xⱼ/T), computed as e^(xᵢ/T − m) / Σⱼ e^(xⱼ/T − m) with m = maxⱼ xⱼ/T "
                             "(the same numbers, and nothing overflows)")});
  Figure fig;
  fig.columns = static_cast<int>(std::min<std::size_t>(temps.size(), 3));
  Tensor all({temps.size(), x.size()});
  for (std::size_t t = 0; t < temps.size(); ++t) {
    const double T = temps[t];
    // the probabilities through the tensor core's softmax (float32), the columns before it in double
    Tensor scaled({1, x.size()});
    std::vector<double> xs(x.size()), ex(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) xs[i] = x[i] / T, scaled(0, i) = static_cast<float>(xs[i]);
    const double m = *std::max_element(xs.begin(), xs.end());
    double sum = 0;
    for (std::size_t i = 0; i < x.size(); ++i) sum += ex[i] = std::exp(xs[i] - m);
    const Tensor p = softmax_rows(scaled);
    Records rec;
    rec.name = temps.size() == 1 ? N_("softmax") : fmt::format("softmax_T{:g}", T);
    rec.columns = {N_("i"), N_("x"), N_("x/T"), N_("e^(x/T − m)"), N_("softmax")};
    for (std::size_t i = 0; i < x.size(); ++i) {
      rec.rows.push_back({labels[i], x[i], xs[i], ex[i], static_cast<double>(p(0, i))});
      all(t, i) = p(0, i);
    }
    double entropy = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (p(0, i) > 0) entropy -= static_cast<double>(p(0, i)) * std::log(static_cast<double>(p(0, i)));
    const auto top = std::max_element(p.values().begin(), p.values().end()) - p.values().begin();
    r.blocks.push_back(Text{trf("T = {:g}: m = {:.6g}, Σ e^(x/T − m) = {:.6g}; largest weight {:.4f} on {}; entropy {:.3f} nats "
                                        "(uniform: {:.3f})",
                                        T, m, sum, p(0, static_cast<std::size_t>(top)), labels[static_cast<std::size_t>(top)], entropy,
                                        std::log(static_cast<double>(x.size())))});
    r.blocks.push_back(std::move(rec));
    Bars b;
    b.title = trf("softmax(x / {:g})", T);
    b.subtitle = fmt::format("x = {}", o.values);
    b.labels = labels;
    for (std::size_t i = 0; i < x.size(); ++i) b.values.push_back(p(0, i));
    b.vmin = 0;
    b.vmax = 1;
    b.annotate = x.size() <= 16;
    b.color = static_cast<int>(t);
    b.category_label = tr("entry");
    b.value_label = tr("probability");
    fig.panels.push_back(std::move(b));
  }
  if (temps.size() > 1) {
    fig.title = trf("softmax of {} at temperatures {}", o.values, fmt::format("{}", fmt::join(temps, ", ")));
    Matrix m;
    m.name = N_("probabilities");
    m.values = all;
    for (double T : temps) m.row_labels.push_back(fmt::format("T={:g}", T));
    m.col_labels = labels;
    m.row_axis = N_("temperature");
    m.col_axis = N_("entry");
    r.blocks.push_back(std::move(m));
    r.primary = "probabilities";
  } else {
    r.primary = "softmax";
  }
  std::string name = "softmax_" + name_part(split_items(o.values));
  for (double T : temps) name += fmt::format("_t{:g}", T);
  present_all(r, o.out, o.fig, &fig, nullptr, name + ".png");
}

}  // namespace

void register_softmax(CLI::App& app) {
  auto [cmd, o] = add_command(app, "softmax", tr("Softmax by hand: x, x/T, the exponentials, their sum and the probabilities, at one or more temperatures"),
                              run_softmax, tr("Attention"));
  cmd->add_option("VALUES", o->values, tr("Scores, comma-separated (e.g. the lecture's 1,1,0.8,0.7)"))->required();
  add_temperature_flag(cmd, o->temperatures)->default_str("1");
  cmd->add_option("--labels", o->labels, tr("Names of the entries, comma-separated (default 1, 2, …)"));
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig, false);
  set_examples(cmd, {tr("tfx softmax 1,1,0.8,0.7                      # the lecture's scores: 0.281 0.281 0.230 0.208"),
                     tr("tfx softmax 0,-11,7 --temperature 1,10 --png  # standard deviation 10: peaked, and divided by √d_k = 10"),
                     tr("tfx softmax 2,1,0.1 --labels cat,dog,car --format json")});
}

}  // namespace tfx::cli
