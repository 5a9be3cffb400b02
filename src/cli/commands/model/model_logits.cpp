// `tfx model logits`: the logits (T, vocabulary) of the LM or MLM head.
#include <fmt/format.h>

#include <filesystem>

#include "cli/commands/model/model.hpp"
#include "cli/commands/model/model_input.hpp"
#include "cli/common.hpp"
#include "cli/validators.hpp"

namespace tfx::cli {

namespace {

struct ModelLogitsOptions {
  ModelInput in;
  OutputFlags out;
};

void run_model_logits(const ModelLogitsOptions& o) {
  const LoadedInput l = load_input(o.in);
  const ForwardPass f = model_forward(l.model, l.ids, true);
  if (f.logits.empty()) throw usage_error(fmt::format("{}: this BERT checkpoint has no MLM head (cls.predictions.*), so no logits", o.in.dir));
  Result r;
  r.command = "model logits";
  r.params = model_params(o.in, l);
  r.blocks.push_back(Text{trf("logits ({}, {}): row t scores every token of the vocabulary {}", f.logits.rows(), f.logits.cols(),
                                      l.model.config.decoder() ? tr("as the token after position t") : tr("for position t (masked LM)"))});
  Matrix m;
  m.name = N_("logits"), m.values = f.logits, m.row_labels = l.tokens, m.row_axis = N_("token"), m.col_axis = N_("vocabulary id");
  r.blocks.push_back(m);
  r.primary = "logits";
  present(r, o.out);
}

}  // namespace

void register_model_logits(CLI::App& model) {
  {
    auto [cmd, o] = add_command(model, "logits", tr("Logits (T, vocabulary) of the LM or MLM head"), run_model_logits);
    add_model_input(cmd, o->in);
    add_output_flags(cmd, o->out, false);
    set_examples(cmd, {tr("tfx model logits gpt2/ \"The cat sat\" --format npy -o logits.npy")});
  }
}

}  // namespace tfx::cli
