// `tfx model fill`: the masked LM's top-k for each [MASK] (BERT with its MLM head).
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

struct ModelFillOptions {
  ModelInput in;
  std::int64_t k = 10;
  OutputFlags out;
};

void run_model_fill(const ModelFillOptions& o) {
  const LoadedInput l = load_input(o.in);
  if (!l.model.config.family->masked_lm)
    throw usage_error(fmt::format(N_("{} is a {} decoder: fill predicts BERT's [MASK]; use tfx model next"), o.in.dir, l.model.config.model_type));
  if (!l.model.has_lm_head) throw usage_error(fmt::format(N_("{}: this BERT checkpoint has no MLM head (cls.predictions.*), so fill cannot predict"), o.in.dir));
  const std::optional<std::size_t> mask = l.tokenizer ? l.tokenizer->mask_id() : std::nullopt;
  if (l.tokenizer && !mask)
    throw usage_error(fmt::format(N_("{}: the tokenizer's vocabulary has no mask token ([MASK]), so fill has nothing to predict at"), o.in.dir));
  std::vector<std::size_t> positions;
  for (std::size_t t = 0; t < l.ids.size(); ++t)
    if (mask && l.ids[t] == *mask) positions.push_back(t);
  if (positions.empty())
    throw usage_error(fmt::format(N_("TEXT has no mask token{}; write it where the word is missing: \"the {} sat on the mat.\""),
                                  mask ? " " + l.tokenizer->mask_token() : "", mask ? l.tokenizer->mask_token() : "[MASK]"));
  const ForwardPass f = model_forward(l.model, l.ids, {.keep_attentions = false, .keep_hidden = false});
  Result r;
  r.command = "model fill";
  r.params = model_params(o.in, l);
  r.params["k"] = o.k;
  Records all;
  all.name = N_("fill");
  all.columns = {N_("position"), N_("rank"), N_("token"), N_("id"), N_("probability"), N_("logit")};
  for (std::size_t p : positions) {
    const Records rec = top_records(l, f.logits.row(p), static_cast<std::size_t>(o.k), "fill");
    for (const auto& row : rec.rows) {
      std::vector<Cell> c = {static_cast<long long>(p)};
      c.insert(c.end(), row.begin(), row.end());
      all.rows.push_back(c);
    }
  }
  r.blocks.push_back(Text{trnf("the masked position {}: softmax of the MLM head's logits", "the masked positions {}: softmax of the MLM head's logits",
                                       positions.size(), fmt::join(positions, ", "))});
  r.blocks.push_back(std::move(all));
  r.primary = "fill";
  note_random_weights(r, l.model.config);
  present(r, o.out);
}

}  // namespace

void register_model_fill(CLI::App& model) {
  {
    auto [cmd, o] = add_command(model, "fill", tr("Masked-LM top-k for each [MASK] (BERT with its MLM head)"), run_model_fill);
    add_model_input(cmd, o->in);
    add_top_flag(cmd, o->k, tr("the most likely tokens per mask; 1…1000 here"), 1, 1000, true);
    add_output_flags(cmd, o->out, false);
    set_examples(cmd, {tr("tfx model fill bert-base-uncased/ \"the [MASK] sat on the mat.\" -k 10")});
  }
}

}  // namespace tfx::cli
