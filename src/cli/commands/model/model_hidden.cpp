// `tfx model hidden`: the hidden states (layers + 1, T, d) as HF's output_hidden_states, and their norms.
#include <fmt/format.h>

#include <filesystem>

#include "cli/commands/model/model.hpp"
#include "cli/commands/model/model_input.hpp"
#include "cli/common.hpp"
#include "cli/flags/validators.hpp"
#include "tfx/core/ops.hpp"

namespace tfx::cli {

namespace {

struct ModelHiddenOptions {
  ModelInput in;
  OutputFlags out;
};

void run_model_hidden(const ModelHiddenOptions& o) {
  const LoadedInput l = load_input(o.in);
  const ModelConfig& c = l.model.config;
  const ForwardPass f = model_run(l, {.logits = LogitRows::none, .keep_attentions = false});
  const std::size_t L = f.hidden.size(), T = l.positions(), D = c.d_model;
  Tensor h({L, T, D});
  for (std::size_t i = 0; i < L; ++i) std::copy(f.hidden[i].values().begin(), f.hidden[i].values().end(), h.data() + i * T * D);
  Result r;
  r.command = "model hidden";
  r.params = model_params(o.in, l);
  r.blocks.push_back(Text{trf("hidden states ({}, {}, {}) as Hugging Face's output_hidden_states: [0] the embedding output, then "
                                      "each layer's output{}",
                                      L, T, D, c.family->final_norm ? tr(" (the last after the final norm)") : "")});
  // ‖h‖ per layer and token: how the residual stream grows
  Tensor norms({L, T});
  for (std::size_t i = 0; i < L; ++i)
    for (std::size_t t = 0; t < T; ++t) norms(i, t) = static_cast<float>(norm(f.hidden[i].row(t)));
  std::vector<std::string> layer_labels;
  for (std::size_t i = 0; i < L; ++i) layer_labels.push_back(i == 0 ? "embeddings" : fmt::format("layer {}", i - 1));
  Matrix n;
  n.name = N_("norms"), n.values = norms, n.row_labels = layer_labels, n.col_labels = l.tokens, n.row_axis = N_("state"), n.col_axis = N_("token");
  r.blocks.push_back(n);
  Matrix m;
  m.name = N_("hidden_states"), m.values = h, m.row_labels = l.tokens, m.row_axis = N_("token"), m.col_axis = N_("dim");
  m.slice_axis = N_("state");
  r.blocks.push_back(m);
  r.primary = "hidden_states";
  r.summary[N_("shape")] = {L, T, D};
  note_random_weights(r, l.model.config);
  present(r, o.out);
}

}  // namespace

void register_model_hidden(CLI::App& model) {
  {
    auto [cmd, o] = add_command(model, "hidden", tr("Hidden states (layers + 1, T, d) as HF's output_hidden_states, and their norms"), run_model_hidden);
    add_model_input(cmd, o->in, true, true);
    add_output_flags(cmd, o->out, false);
    set_examples(cmd, {tr("tfx model hidden gpt2/ \"The cat sat\" --format npy -o hidden.npy"),
                       tr("tfx model hidden vit-base-patch16-224/ --image cat.jpg   # [CLS] and the 196 patches")});
  }
}

}  // namespace tfx::cli
