// `tfx model`: the parent of the real-checkpoint subcommands (see model.hpp for who owns which).
#include "cli/commands.hpp"
#include "cli/commands/model/model.hpp"
#include "cli/common.hpp"

namespace tfx::cli {

void register_model(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "model", tr("A Hugging Face checkpoint folder (BERT, GPT-2, Llama family), offline: tokens, attention, hidden states, predictions"));
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
}

}  // namespace tfx::cli
