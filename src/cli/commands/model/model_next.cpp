// `tfx model next`: the next token's top-k with probabilities (decoders), at --temperature T
// (softmax(logits / T), as `model generate` samples; default 1) and as bars with --png.
#include <fmt/format.h>

#include <filesystem>
#include <optional>

#include "cli/commands/model/model.hpp"
#include "cli/commands/model/model_input.hpp"
#include "cli/common.hpp"
#include "cli/flags/shared_flags.hpp"
#include "cli/flags/validators.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct ModelNextOptions {
  ModelInput in;
  std::int64_t k = 10;
  double temperature = 1.0;
  OutputFlags out;
  FigureFlags fig;
};

void run_model_next(const ModelNextOptions& o) {
  const LoadedInput l = load_input(o.in);
  if (!l.model.config.decoder())
    throw usage_error(fmt::format(N_("{} is an encoder ({}): it does not predict a next token; tfx model fill predicts [MASK]"), o.in.dir,
                                  l.model.config.model_type));
  const ForwardPass f = model_forward(l.model, l.ids, {.logits = LogitRows::last, .keep_attentions = false, .keep_hidden = false});
  Result r;
  r.command = "model next";
  r.params = model_params(o.in, l);
  r.params["k"] = o.k;
  r.params["temperature"] = o.temperature;
  const auto last = f.logits.row(f.logits.rows() - 1);
  // softmax(logits / T): the distribution `model generate -T` samples from (T = 1: the model's own)
  std::vector<float> scaled(last.begin(), last.end());
  for (float& v : scaled) v = static_cast<float>(v / o.temperature);
  if (o.temperature == 1.0)
    r.blocks.push_back(Text{trf("the next token after \"{}\": softmax of the last position's logits (greedy picks rank 1)",
                                fmt::join(l.tokens, " "))});
  else
    r.blocks.push_back(Text{trf("the next token after \"{}\": softmax(logits / T) at temperature T = {:g} (greedy still picks rank 1)",
                                fmt::join(l.tokens, " "), o.temperature)});
  Records top = top_records(l, scaled, static_cast<std::size_t>(o.k), "next");
  for (auto& row : top.rows) row[4] = static_cast<double>(last[static_cast<std::size_t>(std::get<long long>(row[2]))]);  // the raw logit
  r.blocks.push_back(top);
  r.primary = "next";
  note_random_weights(r, l.model.config);
  std::optional<Figure> figure;
  if (figure_drawn(o.fig, o.out)) {
    Bars b;
    b.title = trf("the next token after \"{}\" (T = {:g})", fmt::join(l.tokens, " "), o.temperature);
    b.category_label = tr("token");
    b.value_label = tr("probability");
    b.horizontal = true;
    b.vmin = 0;
    for (const auto& row : top.rows) {
      b.labels.push_back(std::get<std::string>(row[1]));
      b.values.push_back(std::get<double>(row[3]));
    }
    figure.emplace();
    figure->panels.push_back(std::move(b));
    note_random_weights(*figure, l.model.config);
  }
  present_all(r, o.out, o.fig, figure ? &*figure : nullptr, nullptr, "model_next.png");
}

}  // namespace

void register_model_next(CLI::App& model) {
  {
    auto [cmd, o] = add_command(model, "next", tr("The next token's top-k with probabilities"), run_model_next);
    add_model_input(cmd, o->in);
    add_activations_flag(cmd, o->in.activations);
    add_top_flag(cmd, o->k, tr("the most likely next tokens; 1…1000 here"), 1, 1000, true);
    add_temperature_flag(cmd, o->temperature);
    add_presentation_flags(cmd, o->out, o->fig);
    set_examples(cmd, {tr("tfx model next gpt2/ \"The capital of France is\" -k 5"),
                       tr("tfx model next gpt2/ \"The capital of France is\" -k 10 -T 2 --png   # flatter at T = 2, as bars")});
  }
}

}  // namespace tfx::cli
