// `tfx model tokenize DIR TEXT` (or --file FILE, - for stdin): the checkpoint's own tokenizer
// (tokenizer.json, vocab.txt or vocab.json + merges.txt) with the ids Hugging Face gives, special
// tokens added as it adds them; the whole text one sequence (HF `encode`), or each line its own
// (--lines, HF `encode_batch`).
#include <fmt/format.h>

#include "tfx/model/gguf_model.hpp"
#include "cli/commands/model/model.hpp"
#include "cli/common.hpp"
#include "cli/present/progress_bar.hpp"
#include "tfx/text/token_stats.hpp"
#include "tfx/text/tokenize_input.hpp"
#include "tfx/core/memory.hpp"
#include "cli/flags/validators.hpp"
#include "tfx/text/hf_tokenizer.hpp"
#include "tfx/text/token_listing.hpp"
#include "cli/flags/shared_flags.hpp"
#include "tfx/core/i18n.hpp"

#include <cctype>
#include <algorithm>
#include <filesystem>

namespace tfx::cli {

namespace {

struct ModelTokenizeOptions {
  std::string dir, text, file;
  std::vector<std::string> compare;  // --compare DIR DIR…
  std::vector<std::string> files;    // --file, given more than once only with --compare
  bool no_special = false, lines = false, stats = false;
  OutputFlags out;
  FigureFlags fig;
  CLI::Option* text_opt = nullptr;
  CLI::Option* dir_opt = nullptr;
  CLI::Option* compare_opt = nullptr;
};

void run_model_tokenize(const ModelTokenizeOptions& given) {
  ModelTokenizeOptions o = given;
  if (!o.files.empty()) o.file = o.files.front();
  if (o.compare_opt->count() > 0) {
    // with --compare every folder is --compare's; a lone positional is the TEXT
    if (o.dir_opt->count() > 0 && o.text_opt->count() > 0)
      throw usage_error(fmt::format(N_("--compare: give the folders after --compare and the text as TEXT or --file; got DIR {} too"), o.dir));
    if (o.dir_opt->count() > 0) o.text.swap(o.dir);
    if (o.stats) throw usage_error(N_("--stats and --compare: --compare shows the counts of each tokenizer; give one of them"));
    std::vector<std::string> texts;
    if (o.files.size() > 1) {
      if (given.dir_opt->count() > 0) throw usage_error(tr("give the text once: TEXT or --file FILE, not both"));
      for (const std::string& f : o.files) texts.push_back(read_document(f));
    } else {
      texts.push_back(document_text(o.text, given.dir_opt->count() > 0, o.file));
    }
    return run_model_tokenize_compare(o.compare, o.files, o.text, texts, o.lines, o.out, o.fig);
  }
  if (o.files.size() > 1)
    throw usage_error(fmt::format(N_("--file given {} times; expected one document (several only with --compare DIR DIR…)"), o.files.size()));
  if (o.dir_opt->count() == 0) throw usage_error(N_("DIR is required: the checkpoint folder with the tokenizer (or --compare DIR DIR…)"));
  if (o.fig.png_requested() || o.out.figure_format())
    throw usage_error(N_("--png/--svg/--format png: model tokenize draws a figure only with --compare DIR DIR…"));
  const std::string text = document_text(o.text, o.text_opt->count() > 0, o.file);  // a usage error first
  const HfTokenizer tok = load_model_tokenizer(o.dir);
  const Format format = output_options(o.out).format;
  // what the result holds per byte of the document, by format, before it is built: measured peak
  // memory (/usr/bin/time) for 1 MB of Korean through a byte-level BPE, about a token per byte —
  // the worst case — at 100 (npy), 680 (table), 520 (csv), 2600 (json) bytes per byte, with
  // room to spare
  // csv and json carry each token's offsets into its sequence, in characters and in bytes
  const bool offsets = format == Format::csv || format == Format::json;
  // csv and json (without --stats) are written as their rows are made: what is held is the text
  // and its encodings, ~150 bytes a token at most; the table (and --stats) holds the rows too.
  // Measured peak memory (/usr/bin/time) for 1 MB of Korean through a byte-level BPE, about a token
  // per byte — the worst case: 100 (npy), 680 (table), 130 (csv), 140 (json), 2600 (json with
  // --stats) bytes per byte; the estimate leaves room to spare
  const bool streamed = offsets && !o.stats;
  const double per_byte = format == Format::npy ? 112 : streamed ? 240 : format == Format::json ? 3000 : 800;
  check_memory(double(text.size()) * per_byte,
               fmt::format("{} ({} bytes) tokenized as {} (a row per token)", o.file.empty() ? std::string("TEXT") : "--file " + o.file,
                           text.size(), format_name(format)));
  const bool npy = format == Format::npy;
  const std::vector<HfEncoding> encs = encode_document(tok, text, o.lines, !o.no_special, !npy || o.stats, o.file, offsets);
  const std::size_t sequences = encs.size();
  Result r;
  r.command = "model tokenize";
  r.params = {{"model", o.dir}, {"special_tokens", !o.no_special}, {"lines", o.lines}};
  if (o.file.empty()) r.params["text"] = o.text;
  else r.params["file"] = o.file;
  std::size_t count = 0;
  for (const HfEncoding& e : encs) count += e.ids.size();
  const std::string how = o.lines ? trf("{} lines, each its own sequence as Hugging Face's encode_batch sees them", sequences)
                                  : tr("the whole text one sequence, as Hugging Face's encode sees it (--lines: each line its own)");
  const std::string note = trf("{} tokens; {} tokenizer from {} (vocabulary {}){}; {}", count, tok.kind(), tok.source(), tok.vocab_size(),
                               o.no_special ? tr("; no special tokens (--no-special)") : "", how);
  const TokenListing listing{o.lines ? document_lines(text) : std::vector<std::string_view>{text}, &encs, o.lines, offsets};
  if (streamed) {
    const OutputOptions oo = output_options(o.out);
    if (format == Format::csv) return emit_streamed([&](const Sink& sink) { write_token_csv(listing, sink); }, oo.path, false, "-o");
    const nlohmann::json head = {{"command", r.command}, {"params", r.params}, {"notes", {note}}};
    return emit_streamed([&](const Sink& sink) { write_token_json(listing, head, sink); }, oo.path, false, "-o");
  }
  r.blocks.push_back(Text{note});
  if (o.stats) add_token_stats(r, text, tally_tokens(encs, tok));
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
  rec.columns = token_listing_columns(o.lines, offsets);
  rec.rows.reserve(count);
  for_each_token_row(listing, [&](std::vector<Cell>&& row) { rec.rows.push_back(std::move(row)); });
  r.blocks.push_back(std::move(rec));
  r.summary.update(token_summary(listing));  // the arrays, for json with --stats and the table
  r.primary = "tokens";
  present(r, o.out);
}

}  // namespace

void register_model_tokenize(CLI::App& model) {
  auto [cmd, o] = add_command(model, "tokenize", tr("The checkpoint's own tokenizer: tokens and ids as Hugging Face gives them"), run_model_tokenize);
  o->dir_opt = cmd->add_option("DIR", o->dir, tr("Checkpoint folder with tokenizer.json (or vocab.txt, or vocab.json + merges.txt), or a GGUF file (its tokenizer.ggml.*)"));
  o->text_opt = cmd->add_option("TEXT", o->text, tr("The text to tokenize (or --file)"));
  cmd->add_option("--file", o->files, file_flag_help(tr("the whole document one sequence, as Hugging Face's encode sees it")))
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->type_name("FILE");
  cmd->add_flag("--lines", o->lines, tr("Each line its own sequence (as Hugging Face's encode_batch), special tokens around each"));
  add_stats_flag(cmd, o->stats);
  o->compare_opt = add_compare_flag(cmd, o->compare,
                                    tr("Tokenize the text with each of these tokenizer folders (two or more) and compare them: tokens, "
                                       "tokens per word and per character, bytes per token, [UNK] / byte-fallback tokens, vocabulary; "
                                       "--png draws the bars (give the text as --file, or before --compare; several documents: --file A --file B)"));
  add_no_special_flag(cmd, o->no_special);
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig, false);
  set_examples(cmd, {tr("tfx model tokenize gpt2/ \"Hello, my dog is cute\"          # 15496 11 616 3290 318 13779"),
                     tr("tfx model tokenize bert-base-uncased/ \"Hello, my dog is cute\" --format json"),
                     tr("tfx model tokenize gpt2/ --file book.txt --format npy -o ids.npy"),
                     tr("cat notes.txt | tfx model tokenize llama3/ --file - --lines --format json"),
                     tr("tfx model tokenize --file notes_ko.txt --compare gpt2/ bert/ llama3/ --png   # what each costs"),
                     tr("tfx model tokenize --file en.txt --file ko.txt --compare gpt2/ llama3/ --png   # two languages, one scale")});
}

}  // namespace tfx::cli
