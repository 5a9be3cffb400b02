// `tfx model tokenize DIR TEXT`: the checkpoint's own tokenizer (tokenizer.json, vocab.txt or
// vocab.json + merges.txt) with the ids Hugging Face gives, special tokens added as it adds them.
#include <fmt/format.h>

#include "cli/commands/model/model.hpp"
#include "cli/common.hpp"
#include "cli/validators.hpp"
#include "tfx/text/hf_tokenizer.hpp"

namespace tfx::cli {

namespace {

struct ModelTokenizeOptions {
  std::string dir, text;
  bool no_special = false;
  OutputFlags out;
};

void run_model_tokenize(const ModelTokenizeOptions& o) {
  const HfTokenizer tok = HfTokenizer::load(o.dir);
  const HfEncoding e = tok.encode(o.text, !o.no_special);
  Result r;
  r.command = "model tokenize";
  r.params = {{"model", o.dir}, {"text", o.text}, {"special_tokens", !o.no_special}};
  Records rec;
  rec.name = N_("tokens");
  rec.columns = {N_("position"), N_("token"), N_("readable"), N_("id")};
  std::vector<long long> ids;
  for (std::size_t i = 0; i < e.ids.size(); ++i) {
    rec.rows.push_back({static_cast<long long>(i), e.tokens[i], e.readable[i], static_cast<long long>(e.ids[i])});
    ids.push_back(static_cast<long long>(e.ids[i]));
  }
  r.blocks.push_back(Text{trf("{} tokens; {} tokenizer from {} (vocabulary {}){}", e.ids.size(), tok.kind(), tok.source(),
                                      tok.vocab_size(), o.no_special ? tr("; no special tokens (--no-special)") : "")});
  r.blocks.push_back(std::move(rec));
  r.summary[N_("tokens")] = e.tokens;
  r.summary[N_("ids")] = ids;
  r.summary[N_("readable")] = e.readable;
  r.primary = "tokens";
  present(r, o.out);
}

}  // namespace

void register_model_tokenize(CLI::App& model) {
  auto [cmd, o] = add_command(model, "tokenize", tr("The checkpoint's own tokenizer: tokens and ids as Hugging Face gives them"), run_model_tokenize);
  cmd->add_option("DIR", o->dir, tr("Checkpoint folder with tokenizer.json (or vocab.txt, or vocab.json + merges.txt)"))->required();
  cmd->add_option("TEXT", o->text, tr("The text to tokenize"))->required();
  cmd->add_flag("--no-special", o->no_special, tr("Leave out the tokens the post-processor adds ([CLS] … [SEP], <s>)"));
  add_output_flags(cmd, o->out, false);
  set_examples(cmd, {tr("tfx model tokenize gpt2/ \"Hello, my dog is cute\"          # 15496 11 616 3290 318 13779"),
                     tr("tfx model tokenize bert-base-uncased/ \"Hello, my dog is cute\" --format json")});
}

}  // namespace tfx::cli
