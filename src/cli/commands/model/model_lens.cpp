// `tfx model lens`: the logit lens (nostalgebraist 2020) — the residual stream entering every block
// and after the last one, read through the model's final norm and output head: each layer's top
// token and its probability at every position, as a table, the layers × positions grid of top
// tokens coloured by probability, and (--format npy) the (L + 1, T, V) probabilities.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "cli/commands/model/model.hpp"
#include "cli/commands/model/model_microscope.hpp"
#include "cli/common.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/core/memory.hpp"

namespace tfx::cli {

namespace {

struct ModelLensOptions {
  ModelInput in;
  OutputFlags out;
  FigureFlags fig;
};

void run_model_lens(const ModelLensOptions& o) {
  const LoadedInput l = load_input(o.in);
  const ModelConfig& c = l.model.config;
  if (l.model.head == OutputHead::none)
    throw usage_error(fmt::format(N_("{}: the checkpoint has no output head (LM, MLM or classifier) to read a layer through"), o.in.dir));
  const std::size_t T = l.positions(), L1 = c.layers + 1, V = c.vocab;
  check_memory(4.0 * static_cast<double>(L1 * T) * static_cast<double>(V),
               fmt::format("the logit lens's {} layers × {} positions × {} probabilities", L1, T, V));
  const CleanRun clean = clean_run(microscope_run(l), LogitRows::none);
  const Tensor probs = logit_lens(l.model, clean);
  const std::size_t W = probs.dim(2);
  // per (layer, position): the top token, its probability, the probability of the last layer's top token
  Tensor top_p({L1, T}), final_p({L1, T});
  std::vector<std::size_t> top(L1 * T), final(T);
  for (std::size_t l1 = 0; l1 < L1; ++l1)
    for (std::size_t t = 0; t < T; ++t) {
      const float* row = probs.data() + (l1 * T + t) * W;
      top[l1 * T + t] = static_cast<std::size_t>(std::max_element(row, row + W) - row);
      top_p(l1, t) = row[top[l1 * T + t]];
    }
  for (std::size_t t = 0; t < T; ++t) final[t] = top[(L1 - 1) * T + t];
  for (std::size_t l1 = 0; l1 < L1; ++l1)
    for (std::size_t t = 0; t < T; ++t) final_p(l1, t) = probs.data()[(l1 * T + t) * W + final[t]];
  std::vector<std::string> layer_names;
  for (std::size_t l1 = 0; l1 < L1; ++l1) layer_names.push_back(l1 == 0 ? tr("0 embeddings") : std::to_string(l1));

  Result r;
  r.command = "model lens";
  r.params = model_params(o.in, l);
  r.blocks.push_back(Text{trf("{}: the logit lens — layer 0 is the embeddings, layer l the output of block l − 1 (from 0); each passed "
                              "through the final norm and the output head, softmax over the {} outputs; layer {} is the model's own "
                              "prediction",
                              family_name(c), W, L1 - 1)});
  Records rec;
  rec.name = N_("lens");
  rec.columns = {N_("layer"), N_("position"), N_("token"), N_("top token"), N_("probability"), N_("final token"), N_("p(final)")};
  for (std::size_t l1 = 0; l1 < L1; ++l1)
    for (std::size_t t = 0; t < T; ++t)
      rec.rows.push_back({static_cast<long long>(l1), static_cast<long long>(t), l.tokens[t], token_name(l, top[l1 * T + t]),
                          static_cast<double>(top_p(l1, t)), token_name(l, final[t]), static_cast<double>(final_p(l1, t))});
  r.blocks.push_back(std::move(rec));
  r.primary = "lens";
  const bool npy = o.out.format == Format::npy || (o.out.output.size() > 4 && o.out.output.ends_with(".npy"));
  const bool json = o.out.format == Format::json || (o.out.output.size() > 5 && o.out.output.ends_with(".json"));
  if (npy || json) {  // the whole (L + 1, T, V) for npy and JSON (a table of it would be V columns wide)
    r.params["layer"] = "all";  // its first axis: every layer
    Matrix m;
    m.name = N_("probabilities");
    m.values = probs;
    m.row_labels = l.tokens;
    m.row_axis = N_("position");
    m.col_axis = N_("vocabulary id");
    m.slice_axis = N_("layer");
    r.blocks.push_back(std::move(m));
    r.primary = "probabilities";
  }
  r.summary[N_("shape")] = std::vector<std::size_t>{L1, T, W};
  note_random_weights(r, c);
  Figure fig;
  std::optional<Heatmap> view;
  if (figure_drawn(o.fig, o.out)) {
    Heatmap h;
    h.values = top_p;
    h.title = trf("Logit lens of {}: the top token at each layer and position", std::filesystem::path(o.in.dir).lexically_normal().filename().string());
    h.subtitle = trf("colour: its probability; the bottom row is the model's prediction");
    h.x_label = tr("position");
    h.y_label = tr("layer");
    h.row_labels = layer_names;
    h.col_labels = l.tokens;
    h.vmin = 0;
    h.vmax = 1;
    h.value_label = tr("probability");
    for (std::size_t k = 0; k < L1 * T; ++k) h.cell_text.push_back(token_name(l, top[k]));
    fig.panels.push_back(h);
    view = h;
    note_random_weights(fig, c);
  }
  present_all(r, o.out, o.fig, fig.panels.empty() ? nullptr : &fig, view ? &*view : nullptr, microscope_figure_name("lens", o.in, l));
}

}  // namespace

void register_model_lens(CLI::App& model) {
  auto [cmd, o] = add_command(model, "lens", tr("The logit lens: every layer's residual stream read through the final norm and the head"),
                              run_model_lens);
  add_model_input(cmd, o->in, true, true);
  add_presentation_flags(cmd, o->out, o->fig);
  set_examples(cmd, {tr("tfx model lens gpt2/ \"The capital of France is\" --png"),
                     tr("tfx model lens gpt2/ \"The cat sat\" --format npy -o lens.npy   # (layers + 1, T, vocabulary) probabilities")});
}

}  // namespace tfx::cli
