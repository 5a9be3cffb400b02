// `tfx model next`: the next token's top-k with probabilities (decoders).
#include <fmt/format.h>

#include <filesystem>

#include "cli/commands/model/model.hpp"
#include "cli/commands/model/model_input.hpp"
#include "cli/common.hpp"
#include "cli/validators.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct ModelNextOptions {
  ModelInput in;
  std::int64_t k = 10;
  OutputFlags out;
};

void run_model_next(const ModelNextOptions& o) {
  const LoadedInput l = load_input(o.in);
  if (!l.model.config.decoder())
    throw usage_error(fmt::format(N_("{} is an encoder ({}): it does not predict a next token; tfx model fill predicts [MASK]"), o.in.dir,
                                  l.model.config.model_type));
  const ForwardPass f = model_forward(l.model, l.ids, true);
  Result r;
  r.command = "model next";
  r.params = model_params(o.in, l);
  r.params["k"] = o.k;
  r.blocks.push_back(Text{trf("the next token after \"{}\": softmax of the last position's logits (greedy picks rank 1)",
                                      fmt::join(l.tokens, " "))});
  r.blocks.push_back(top_records(l, f.logits.row(f.logits.rows() - 1), static_cast<std::size_t>(o.k), "next"));
  r.primary = "next";
  note_random_weights(r, l.model.config);
  present(r, o.out);
}

}  // namespace

void register_model_next(CLI::App& model) {
  {
    auto [cmd, o] = add_command(model, "next", tr("The next token's top-k with probabilities (GPT-2, Llama family)"), run_model_next);
    add_model_input(cmd, o->in);
    cmd->add_option("-k,--top", o->k, tr("How many tokens"))->capture_default_str()->check(whole_number(1, 1000));
    add_output_flags(cmd, o->out, false);
    set_examples(cmd, {tr("tfx model next gpt2/ \"The capital of France is\" -k 5")});
  }
}

}  // namespace tfx::cli
