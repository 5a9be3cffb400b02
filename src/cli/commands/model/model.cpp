// `tfx model`: the parent of the real-checkpoint subcommands (see model.hpp for who owns which).
#include "cli/commands.hpp"
#include "cli/commands/model/model.hpp"
#include "cli/common.hpp"
#include "tfx/model/family.hpp"

namespace tfx::cli {

namespace {

// Which families each subcommand serves, read from the family table (model_type names).
struct Serves {
  const char* subcommand;
  bool (*serves)(const Family&);
};
constexpr Serves kServes[] = {
    {"info", [](const Family&) { return true; }},
    {"attention", [](const Family&) { return true; }},
    {"hidden", [](const Family&) { return true; }},
    {"logits", [](const Family&) { return true; }},
    {"next", [](const Family& f) { return f.decoder; }},
    {"generate", [](const Family& f) { return f.decoder; }},
    {"fill", [](const Family& f) { return f.masked_lm; }},
    {"tokenize", [](const Family& f) { return !f.image(); }},
    {"lens", [](const Family&) { return true; }},
    {"ablate", [](const Family&) { return true; }},
    {"patch", [](const Family& f) { return !f.image(); }},
};

}  // namespace

void register_model(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "model", trf("A Hugging Face checkpoint folder ({}), offline: tokens, attention, hidden states, predictions", supported_model_types()));
  cmd->group(tr("Models"));
  cmd->require_subcommand(1);
  set_examples(cmd, {tr("tfx model info gpt2/                          # a folder as `git clone https://huggingface.co/gpt2` leaves it"),
                     tr("tfx model tokenize bert-base-uncased/ \"The cat sat on the mat.\"")});
  register_model_info(*cmd);
  register_model_attention(*cmd);
  register_model_hidden(*cmd);
  register_model_logits(*cmd);
  register_model_next(*cmd);
  register_model_fill(*cmd);
  register_model_tokenize(*cmd);
  register_model_generate(*cmd);
  register_model_lens(*cmd);
  register_model_ablate(*cmd);
  register_model_patch(*cmd);
  register_model_quantize(*cmd);
  // each subcommand's help names the families it serves (model_type as config.json spells it)
  for (CLI::App* sub : cmd->get_subcommands({}))
    for (const Serves& s : kServes)
      if (sub->get_name() == s.subcommand)
        sub->description(sub->get_description() + " " + trf("[families: {}]", model_types_where(s.serves)));
}

}  // namespace tfx::cli
