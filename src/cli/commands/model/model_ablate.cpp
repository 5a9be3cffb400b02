// `tfx model ablate`: head ablation — a head's attention output (its slice before the output
// projection) set to zero, or (--mean) to its mean over the positions; the next-token distribution
// before and after, the target's log-probability change; --all-heads: that change for every head
// alone as a layers × heads heatmap. --format npy: the ablated logits (T, V), or the (L, H) matrix.
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

struct ModelAblateOptions {
  ModelInput in;
  std::string head, target;
  bool mean = false, all_heads = false;
  std::size_t top = 5;
  OutputFlags out;
  FigureFlags fig;
};

std::string folder(const std::string& dir) {
  std::filesystem::path p = std::filesystem::path(dir).lexically_normal();
  return (p.filename().empty() ? p.parent_path() : p).filename().string();
}

void run_model_ablate(const ModelAblateOptions& o) {
  if (o.all_heads == !o.head.empty()) throw usage_error(N_("give --ablate-heads L.H[,L.H…] or --all-heads (one of them)"));
  const LoadedInput l = load_input(o.in);
  const ModelConfig& c = l.model.config;
  if (l.model.head == OutputHead::none)
    throw usage_error(fmt::format(N_("{}: the checkpoint has no output head (LM, MLM or classifier) to read a layer through"), o.in.dir));
  const HeadAblation::Mode mode = o.mean ? HeadAblation::Mode::mean : HeadAblation::Mode::zero;
  const std::vector<HeadAblation> heads = o.all_heads ? std::vector<HeadAblation>{} : parse_heads(o.head, c, mode);
  const std::size_t t = answer_position(l);
  const MicroscopeRun run = microscope_run(l);
  const CleanRun clean = clean_run(run);
  const std::span<const float> before = answer_row(clean.logits, t);
  const std::size_t target = o.target.empty() ? top_probabilities(before, 1)[0].id : one_token(l, o.target, "--target");
  const double lp_before = log_probability(before, target);
  const std::string how = o.mean ? tr("set to its mean over the positions") : tr("set to zero");
  Result r;
  r.command = "model ablate";
  r.params = model_params(o.in, l);
  r.params["mode"] = o.mean ? "mean" : "zero";
  r.params["target"] = token_name(l, target);
  r.params["position"] = t;
  Figure fig;
  std::optional<Heatmap> view;
  const std::string where = trf("the prediction at position {} ({})", t, l.tokens[t]);
  if (o.all_heads) {
    const Tensor effect = all_heads_effect(l.model, run, clean, mode, target, t);
    r.blocks.push_back(Text{trf("{}: every head alone, its attention output {} (one pass per head, rerun from its "
                                              "layer); Δ log p({}) of {}, which was {:.6g} unablated",
                                              family_name(c), how, token_name(l, target), where, lp_before)});
    Matrix m;
    m.name = N_("change");
    m.values = effect;
    for (std::size_t i = 0; i < c.layers; ++i) m.row_labels.push_back(std::to_string(i));
    for (std::size_t h = 0; h < c.heads; ++h) m.col_labels.push_back(std::to_string(h));
    m.row_axis = N_("layer");
    m.col_axis = N_("head");
    r.blocks.push_back(m);
    r.primary = "change";
    if (figure_drawn(o.fig, o.out)) {
      Heatmap h;
      h.values = effect;
      h.title = trf("{}: Δ log p({}) with each head ablated", folder(o.in.dir), token_name(l, target));
      h.subtitle = trf("{}, {}; blue: the head helped the target", where, how);
      h.x_label = tr("head");
      h.y_label = tr("layer");
      h.row_labels = m.row_labels;
      h.col_labels = m.col_labels;
      h.cmap = Colormap::diverging;
      h.symmetric = true;
      h.value_label = tr("Δ log probability");
      fig.panels.push_back(h);
      view = h;
    }
  } else {
    const Tensor ablated = ablated_logits(run, clean, heads);
    const std::span<const float> after = answer_row(ablated, t);
    const double lp_after = log_probability(after, target);
    std::vector<std::string> names;
    for (const HeadAblation& h : heads) names.push_back(fmt::format("{}.{}", h.layer, h.head));
    r.blocks.push_back(Text{trf("{}: head {} (layer.head, from 0), its attention output {}; {}", family_name(c), fmt::join(names, ", "), how, where)});
    Records rec;
    rec.name = N_("top");
    rec.columns = {N_("rank"), N_("before"), N_("p before"), N_("after"), N_("p after")};
    const auto tb = top_probabilities(before, o.top), ta = top_probabilities(after, o.top);
    for (std::size_t k = 0; k < tb.size(); ++k)
      rec.rows.push_back({static_cast<long long>(k + 1), token_name(l, tb[k].id), tb[k].probability, token_name(l, ta[k].id), ta[k].probability});
    r.blocks.push_back(rec);
    r.blocks.push_back(Text{trf("target {}: log p {:.6g} → {:.6g} (change {:+.6g})", token_name(l, target), lp_before, lp_after, lp_after - lp_before)});
    r.summary[N_("log p before")] = lp_before;
    r.summary[N_("log p after")] = lp_after;
    Matrix m;
    m.name = N_("logits");
    m.values = ablated;
    m.row_labels = ablated.rows() == l.tokens.size() ? l.tokens : std::vector<std::string>{"[CLS]"};
    m.row_axis = N_("position");
    m.col_axis = N_("vocabulary id");
    const bool npy = o.out.format == Format::npy || (o.out.output.size() > 4 && o.out.output.ends_with(".npy"));
    if (npy) r.blocks.push_back(m);  // (T, V): too wide for a table
    r.primary = npy ? "logits" : "top";
    if (figure_drawn(o.fig, o.out)) {
      for (int side = 0; side < 2; ++side) {
        Bars b;
        b.title = side == 0 ? tr("before") : trf("after ablating {}", fmt::join(names, ", "));
        b.category_label = tr("token");
        b.value_label = tr("probability");
        b.horizontal = true;
        b.vmin = 0;
        b.vmax = 1;
        b.color = side;
        for (const auto& p : side == 0 ? tb : ta) {
          b.labels.push_back(token_name(l, p.id));
          b.values.push_back(p.probability);
        }
        fig.panels.push_back(std::move(b));
      }
      fig.columns = 2;
      fig.title = trf("{}: {}", folder(o.in.dir), where);
    }
  }
  note_random_weights(r, c);
  note_random_weights(fig, c);
  present_all(r, o.out, o.fig, fig.panels.empty() ? nullptr : &fig, view ? &*view : nullptr,
              microscope_figure_name(o.all_heads ? "ablate_all" : "ablate", o.in, l));
}

}  // namespace

void register_model_ablate(CLI::App& model) {
  auto [cmd, o] = add_command(model, "ablate", tr("Head ablation: a head's attention output zeroed (or its mean) and what the prediction loses"),
                              run_model_ablate);
  add_model_input(cmd, o->in, true, true);
  cmd->add_option("--ablate-heads", o->head, tr("The heads to ablate as LAYER.HEAD from 0, comma-separated (1.3 or 0.1,1.3)"))->type_name("L.H[,L.H…]");
  cmd->add_flag("--all-heads", o->all_heads, tr("Every head alone: the layers × heads map of the target's log-probability change"));
  cmd->add_flag("--mean", o->mean, tr("Replace the head's output by its mean over the positions instead of zero"));
  add_target_flag(cmd, o->target, tr("one token, whose log-probability change is reported; default: the unablated top token"));
  add_top_flag(cmd, o->top, tr("the most probable tokens, before and after; 1…1000 here"), 1, 1000, false);
  add_presentation_flags(cmd, o->out, o->fig);
  set_examples(cmd, {tr("tfx model ablate gpt2/ \"The capital of France is\" --ablate-heads 9.8"),
                     tr("tfx model ablate gpt2/ \"The capital of France is\" --all-heads --target \" Paris\" --png")});
}

}  // namespace tfx::cli
