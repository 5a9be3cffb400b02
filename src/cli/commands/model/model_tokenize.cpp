// `tfx model tokenize DIR TEXT` (or --file FILE, - for stdin): the checkpoint's own tokenizer
// (tokenizer.json, vocab.txt or vocab.json + merges.txt) with the ids Hugging Face gives, special
// tokens added as it adds them; the whole text one sequence (HF `encode`), or each line its own
// (--lines, HF `encode_batch`).
#include <fmt/format.h>

#include "cli/commands/model/model.hpp"
#include "cli/common.hpp"
#include "cli/progress_bar.hpp"
#include "cli/tokenize_input.hpp"
#include "cli/validators.hpp"
#include "tfx/text/hf_tokenizer.hpp"

namespace tfx::cli {

namespace {

struct ModelTokenizeOptions {
  std::string dir, text, file;
  bool no_special = false, lines = false;
  OutputFlags out;
  CLI::Option* text_opt = nullptr;
};

void run_model_tokenize(const ModelTokenizeOptions& o) {
  const HfTokenizer tok = HfTokenizer::load(o.dir);
  const std::string text = document_text(o.text, o.text_opt->count() > 0, o.file);
  const bool npy = output_options(o.out).format == Format::npy;
  // the sequences: the whole text, or each line
  std::vector<std::string_view> seqs;
  if (o.lines) seqs = document_lines(text);
  else seqs.push_back(text);
  std::vector<HfEncoding> encs;
  encs.reserve(seqs.size());
  {
    ProgressBar bar(o.file.empty() ? tr("tokenizing") : trf("tokenizing {}", o.file == "-" ? "<stdin>" : o.file), "B");
    std::size_t done = 0;
    for (std::string_view s : seqs) {
      const Progress p = bar.callback() ? Progress([&](std::size_t d, std::size_t) { bar.update(done + d, text.size()); }) : Progress{};
      encs.push_back(tok.encode(s, !o.no_special, !npy, p));
      done += s.size() + 1;
    }
  }
  Result r;
  r.command = "model tokenize";
  r.params = {{"model", o.dir}, {"special_tokens", !o.no_special}, {"lines", o.lines}};
  if (o.file.empty()) r.params["text"] = o.text;
  else r.params["file"] = o.file;
  std::size_t count = 0;
  for (const HfEncoding& e : encs) count += e.ids.size();
  const std::string how = o.lines ? trf("{} lines, each its own sequence as Hugging Face's encode_batch sees them", seqs.size())
                                  : tr("the whole text one sequence, as Hugging Face's encode sees it (--lines: each line its own)");
  r.blocks.push_back(Text{trf("{} tokens; {} tokenizer from {} (vocabulary {}){}; {}", count, tok.kind(), tok.source(), tok.vocab_size(),
                              o.no_special ? tr("; no special tokens (--no-special)") : "", how)});
  if (npy) {
    // the ids as float32 (exact below 2^24, above every vocabulary's size)
    Matrix m;
    m.name = "ids";
    m.values = Tensor({count});
    std::size_t k = 0;
    for (const HfEncoding& e : encs)
      for (std::size_t id : e.ids) m.values[k++] = static_cast<float>(id);
    r.blocks.push_back(std::move(m));
    r.primary = "ids";
    present(r, o.out);
    return;
  }
  Records rec;
  rec.name = N_("tokens");
  rec.columns = o.lines ? std::vector<std::string>{N_("line"), N_("position"), N_("token"), N_("readable"), N_("id")}
                        : std::vector<std::string>{N_("position"), N_("token"), N_("readable"), N_("id")};
  rec.rows.reserve(count);
  nlohmann::json ids = nlohmann::json::array(), tokens = nlohmann::json::array(), readable = nlohmann::json::array();
  for (std::size_t l = 0; l < encs.size(); ++l) {
    const HfEncoding& e = encs[l];
    nlohmann::json li = nlohmann::json::array();
    for (std::size_t i = 0; i < e.ids.size(); ++i) {
      if (o.lines)
        rec.rows.push_back({static_cast<long long>(l + 1), static_cast<long long>(i), e.tokens[i], e.readable[i], static_cast<long long>(e.ids[i])});
      else
        rec.rows.push_back({static_cast<long long>(i), e.tokens[i], e.readable[i], static_cast<long long>(e.ids[i])});
      li.push_back(e.ids[i]);
    }
    if (o.lines) {
      ids.push_back(std::move(li));
      tokens.push_back(e.tokens);
      readable.push_back(e.readable);
    } else {
      ids = std::move(li);
      tokens = e.tokens;
      readable = e.readable;
    }
  }
  r.blocks.push_back(std::move(rec));
  r.summary[N_("tokens")] = std::move(tokens);
  r.summary[N_("ids")] = std::move(ids);
  r.summary[N_("readable")] = std::move(readable);
  r.primary = "tokens";
  present(r, o.out);
}

}  // namespace

void register_model_tokenize(CLI::App& model) {
  auto [cmd, o] = add_command(model, "tokenize", tr("The checkpoint's own tokenizer: tokens and ids as Hugging Face gives them"), run_model_tokenize);
  cmd->add_option("DIR", o->dir, tr("Checkpoint folder with tokenizer.json (or vocab.txt, or vocab.json + merges.txt)"))->required();
  o->text_opt = cmd->add_option("TEXT", o->text, tr("The text to tokenize (or --file)"));
  cmd->add_option("--file", o->file,
                  tr("Tokenize this UTF-8 file (- = standard input) instead of TEXT: the whole document one sequence, as "
                     "Hugging Face's encode sees it"))
      ->type_name("FILE");
  cmd->add_flag("--lines", o->lines, tr("Each line its own sequence (as Hugging Face's encode_batch), special tokens around each"));
  cmd->add_flag("--no-special", o->no_special, tr("Leave out the tokens the post-processor adds ([CLS] … [SEP], <s>)"));
  add_output_flags(cmd, o->out, false);
  set_examples(cmd, {tr("tfx model tokenize gpt2/ \"Hello, my dog is cute\"          # 15496 11 616 3290 318 13779"),
                     tr("tfx model tokenize bert-base-uncased/ \"Hello, my dog is cute\" --format json"),
                     tr("tfx model tokenize gpt2/ --file book.txt --format npy -o ids.npy"),
                     tr("cat notes.txt | tfx model tokenize llama3/ --file - --lines --format json")});
}

}  // namespace tfx::cli
