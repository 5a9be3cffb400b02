// `tfx model logits`: the logits (T, vocabulary) of the LM or MLM head; an image model's classifier
// (1, labels) with its most probable labels from id2label.
#include <fmt/format.h>

#include <filesystem>

#include "cli/flags/shared_flags.hpp"
#include "cli/commands/model/model.hpp"
#include "cli/commands/model/model_input.hpp"
#include "cli/common.hpp"
#include "cli/flags/validators.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct ModelLogitsOptions {
  ModelInput in;
  std::size_t top = 5;
  OutputFlags out;
};

// ViT: the classifier's logits over id2label and the --top most probable labels.
void run_model_classifier(const ModelLogitsOptions& o, const LoadedInput& l, const ForwardPass& f) {
  const ModelConfig& c = l.model.config;
  Result r;
  r.command = "model logits";
  r.params = model_params(o.in, l);
  r.blocks.push_back(Text{trf("{}: the classifier on the [CLS] row after the final LayerNorm, {} labels (config.json's id2label); "
                              "probabilities by softmax; the labels are as good as the checkpoint's training",
                              family_name(c), c.labels.size())});
  Records rec;
  rec.name = N_("top");
  rec.columns = {N_("rank"), N_("label"), N_("id"), N_("probability"), N_("logit")};
  long long rank = 1;
  for (const TokenProbability& t : top_probabilities(f.logits.row(0), std::min(o.top, c.labels.size())))
    rec.rows.push_back({rank++, c.labels[t.id], static_cast<long long>(t.id), t.probability, static_cast<double>(t.logit)});
  r.blocks.push_back(std::move(rec));
  Matrix m;
  m.name = N_("logits");
  m.values = f.logits;
  m.row_labels = {"[CLS]"};
  m.col_labels = c.labels;
  m.row_axis = N_("token");
  m.col_axis = N_("label");
  r.blocks.push_back(std::move(m));
  r.primary = "top";
  note_random_weights(r, l.model.config);
  present(r, o.out);
}

void run_model_logits(const ModelLogitsOptions& o) {
  const LoadedInput l = load_input(o.in);
  const ForwardPass f = model_run(l, {.keep_attentions = false, .keep_hidden = false});
  if (l.picture) {
    if (f.logits.empty()) throw usage_error(fmt::format(N_("{}: this ViT checkpoint has no classifier (a ViTModel), so no logits"), o.in.dir));
    return run_model_classifier(o, l, f);
  }
  if (f.logits.empty()) throw usage_error(fmt::format(N_("{}: this BERT checkpoint has no MLM head (cls.predictions.*), so no logits"), o.in.dir));
  Result r;
  r.command = "model logits";
  r.params = model_params(o.in, l);
  r.blocks.push_back(Text{trf("logits ({}, {}): row t scores every token of the vocabulary {}", f.logits.rows(), f.logits.cols(),
                                      l.model.config.decoder() ? tr("as the token after position t") : tr("for position t (masked LM)"))});
  Matrix m;
  m.name = N_("logits"), m.values = f.logits, m.row_labels = l.tokens, m.row_axis = N_("token"), m.col_axis = N_("vocabulary id");
  r.blocks.push_back(m);
  r.primary = "logits";
  note_random_weights(r, l.model.config);
  present(r, o.out);
}

}  // namespace

void register_model_logits(CLI::App& model) {
  {
    auto [cmd, o] = add_command(model, "logits", tr("Logits (T, vocabulary) of the LM or MLM head"), run_model_logits);
    add_model_input(cmd, o->in, true, true);
    add_activations_flag(cmd, o->in.activations);
    add_top_flag(cmd, o->top, tr("with --image: the most probable labels; at least 1"), 1, 1 << 20, false);
    add_output_flags(cmd, o->out, false);
    set_examples(cmd, {tr("tfx model logits gpt2/ \"The cat sat\" --format npy -o logits.npy"),
                       tr("tfx model logits vit-base-patch16-224/ --image cat.jpg --top 5   # labels from id2label")});
  }
}

}  // namespace tfx::cli
