// `tfx model patch`: activation patching (Meng et al. 2022, "causal tracing") — for every block l
// and position t, the corrupted prompt's run with the residual stream entering block l at t
// replaced by the clean prompt's; the metric logit(clean answer) − logit(corrupt answer) at the
// answer position. The (L, T) matrix as a table, a heatmap and npy.
#include <fmt/format.h>

#include <filesystem>
#include <optional>

#include "cli/commands/model/model.hpp"
#include "cli/commands/model/model_microscope.hpp"
#include "cli/common.hpp"
#include "cli/flags/shared_flags.hpp"
#include "cli/flags/validators.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct ModelPatchOptions {
  ModelInput in;
  std::string clean, corrupt, answers;
  OutputFlags out;
  FigureFlags fig;
};

void run_model_patch(const ModelPatchOptions& o) {
  ModelInput in = o.in;
  in.text = o.clean;
  const LoadedInput l = load_input(in);
  const ModelConfig& c = l.model.config;
  if (l.model.head == OutputHead::none)
    throw usage_error(fmt::format(N_("{}: the checkpoint has no output head (LM, MLM or classifier) to read a layer through"), o.in.dir));
  const HfEncoding e = l.tokenizer->encode(o.corrupt, !o.in.no_special);
  if (e.ids.size() != l.ids.size())
    throw usage_error(fmt::format(N_("--clean gives {} tokens and --corrupt {}: the two prompts must tokenize to the same length"),
                                  l.ids.size(), e.ids.size()));
  // one pass per layer and position, each over all T tokens: the work grows with T³ (1,000 tokens of
  // a 2-layer toy model ran for minutes); a heatmap of more positions is no longer read anyway
  constexpr std::size_t kMaxTokens = 256;
  if (l.ids.size() > kMaxTokens)
    throw usage_error(fmt::format(N_("--clean gives {} tokens: activation patching runs one pass per layer and position ({} × {} passes of {} "
                                     "tokens), so the prompts are limited to {} tokens; shorten them"),
                                  l.ids.size(), c.layers, l.ids.size(), l.ids.size(), kMaxTokens));
  const std::size_t t = answer_position(l), T = l.ids.size();
  const MicroscopeRun clean_pass = microscope_run(l), corrupt_pass = microscope_run(l, e.ids);
  const CleanRun clean = clean_run(clean_pass), corrupt = clean_run(corrupt_pass);
  const std::span<const float> cz = answer_row(clean.logits, t), kz = answer_row(corrupt.logits, t);
  std::size_t a = 0, b = 0;
  std::string chosen;
  if (!o.answers.empty()) {
    const std::vector<std::string> items = split_items(o.answers);
    if (items.size() != 2) throw usage_error(fmt::format(N_("--answers {}: expected two tokens A,B (the clean and the corrupt answer)"), o.answers));
    a = one_token(l, items[0], "--answers");
    b = one_token(l, items[1], "--answers");
    chosen = tr("given by --answers");
  } else {
    a = top_probabilities(cz, 1)[0].id;
    const auto kt = top_probabilities(kz, 2);
    b = kt[0].id == a ? kt[1].id : kt[0].id;
    chosen = kt[0].id == a ? tr("each run's top prediction; both runs predict the same, so the corrupt answer is its second")
                           : tr("each run's own top prediction");
  }
  const Tensor effect = patching_effects(corrupt_pass, clean, corrupt, a, b, t);
  std::vector<std::string> labels;
  for (std::size_t p = 0; p < T; ++p) {
    const std::string k = l.tokenizer->readable(e.ids[p]);
    labels.push_back(l.tokens[p] == k ? l.tokens[p] : l.tokens[p] + "/" + k);
  }
  Result r;
  r.command = "model patch";
  r.params = model_params(in, l);
  r.params["corrupt"] = o.corrupt;
  r.params["corrupt_ids"] = e.ids;
  r.params["answers"] = {token_name(l, a), token_name(l, b)};
  r.blocks.push_back(Text{trf("{}: the corrupted run with the residual stream entering block l at position t taken from the clean run; "
                              "metric logit({}) − logit({}) at position {} (answers: {}); clean run {:.6g}, corrupted run {:.6g}",
                              family_name(c), token_name(l, a), token_name(l, b), t, chosen, cz[a] - cz[b], kz[a] - kz[b])});
  Matrix m;
  m.name = N_("patching");
  m.values = effect;
  for (std::size_t i = 0; i < c.layers; ++i) m.row_labels.push_back(std::to_string(i));
  m.col_labels = labels;
  m.row_axis = N_("block");
  m.col_axis = N_("position");
  r.blocks.push_back(m);
  r.primary = "patching";
  r.summary[N_("clean metric")] = cz[a] - cz[b];
  r.summary[N_("corrupted metric")] = kz[a] - kz[b];
  note_random_weights(r, c);
  Figure fig;
  std::optional<Heatmap> view;
  if (figure_drawn(o.fig, o.out)) {
    std::filesystem::path p = std::filesystem::path(o.in.dir).lexically_normal();
    Heatmap h;
    h.values = effect;
    h.title = trf("{}: activation patching, logit({}) − logit({})", (p.filename().empty() ? p.parent_path() : p).filename().string(),
                  token_name(l, a), token_name(l, b));
    h.subtitle = trf("clean run {:.3g}, corrupted {:.3g}; a cell: the clean stream patched in at that block and position", cz[a] - cz[b],
                     kz[a] - kz[b]);
    h.x_label = tr("position (clean/corrupt)");
    h.y_label = tr("block");
    h.row_labels = m.row_labels;
    h.col_labels = labels;
    h.cmap = Colormap::diverging;
    h.symmetric = true;
    h.value_label = tr("logit difference");
    fig.panels.push_back(h);
    view = h;
    note_random_weights(fig, c);
  }
  present_all(r, o.out, o.fig, fig.panels.empty() ? nullptr : &fig, view ? &*view : nullptr, microscope_figure_name("patch", in, l));
}

}  // namespace

void register_model_patch(CLI::App& model) {
  auto [cmd, o] = add_command(model, "patch",
                              tr("Activation patching: the clean prompt's residual stream patched into the corrupted run, block by block and position by position"),
                              run_model_patch);
  add_model_input(cmd, o->in, false);
  cmd->add_option("--clean", o->clean, tr("The clean prompt, whose residual stream is patched in (at most 256 tokens)"))->required();
  cmd->add_option("--corrupt", o->corrupt, tr("The corrupted prompt (the same number of tokens), whose run is patched"))->required();
  cmd->add_option("--answers", o->answers, tr("The clean and the corrupt answer, A,B (one token each, ␣ for a leading space as the tables print it; default: each run's top prediction)"));
  add_no_special_flag(cmd, o->in.no_special);
  add_presentation_flags(cmd, o->out, o->fig);
  set_examples(cmd, {tr("tfx model patch gpt2/ --clean \"The Eiffel Tower is in\" --corrupt \"The Colosseum is in\" --png")});
}

}  // namespace tfx::cli
