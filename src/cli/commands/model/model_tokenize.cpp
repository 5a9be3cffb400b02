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

// Byte offset → character (code point) offset in one sequence, as Hugging Face's Python and Node
// bindings give offsets: counted from the last question, forward or back (tokens that share a
// character, as byte-level pieces of one Hangul syllable do, ask for an earlier byte again), or
// from the start when that is nearer (the post-processor's [0, 0) after the text). Each question
// costs the distance from the last one, so a whole document's offsets take linear time.
class CharIndex {
 public:
  explicit CharIndex(std::string_view s) : s_(s) {}
  std::size_t at(std::size_t byte) {
    byte = std::min(byte, s_.size());
    if (byte < byte_ && byte < byte_ - byte) byte_ = chars_ = 0;
    for (; byte_ > byte; --byte_)
      if (lead(byte_ - 1)) --chars_;
    for (; byte_ < byte; ++byte_)
      if (lead(byte_)) ++chars_;
    return chars_;
  }

 private:
  bool lead(std::size_t i) const { return (static_cast<unsigned char>(s_[i]) & 0xC0) != 0x80; }
  std::string_view s_;
  std::size_t byte_ = 0, chars_ = 0;
};

// The sequences of `text` (the whole text, or each line with --lines) encoded by `tok`, a progress
// bar over the bytes at a terminal.
std::vector<HfEncoding> encode_document(const HfTokenizer& tok, std::string_view text, const ModelTokenizeOptions& o, bool readable,
                                        const std::string& label, bool offsets = false) {
  std::vector<std::string_view> seqs;
  if (o.lines) seqs = document_lines(text);
  else seqs.push_back(text);
  std::vector<HfEncoding> encs;
  encs.reserve(seqs.size());
  ProgressBar bar(label, "B");
  std::size_t done = 0;
  for (std::string_view s : seqs) {
    const Progress p = bar.callback() ? Progress([&](std::size_t d, std::size_t) { bar.update(done + d, text.size()); }) : Progress{};
    encs.push_back(tok.encode(s, !o.no_special, readable, p, offsets));
    done += s.size() + 1;
  }
  return encs;
}

std::string tokenize_progress_label(const ModelTokenizeOptions& o) {
  return o.file.empty() ? tr("tokenizing") : trf("tokenizing {}", o.file == "-" ? "<stdin>" : o.file);
}

// A folder's name for labels: its last component ("../data/gpt2/" → gpt2).
std::string tokenizer_label(const std::string& dir) {
  std::filesystem::path p(dir);
  while (!p.empty() && p.filename().empty()) p = p.parent_path();
  std::string s = p.filename().string();
  return s.empty() || s == "." || s == ".." ? dir : s;
}

// A document's name for labels: the file's name, <stdin>, or TEXT.
std::string document_label(const std::string& file) {
  if (file.empty()) return "TEXT";
  if (file == "-") return "<stdin>";
  return std::filesystem::path(file).filename().string();
}

// --compare DIR DIR…: one document (or several: --file A --file B), several tokenizers — a row
// each (tokens, tokens per word and per character, bytes per token, [UNK] and byte-fallback
// tokens, vocabulary, file) and a bar figure: for one document its tokens and tokens per word, for
// several a panel of tokens per document on one scale (the same paragraph in two languages shows
// what each language costs). Special tokens are left out of every count.
void run_model_tokenize_compare(const ModelTokenizeOptions& o, const std::vector<std::string>& texts) {
  if (o.compare.size() < 2)
    throw usage_error(fmt::format(N_("--compare: got one folder ({}); expected two or more tokenizer folders (--compare gpt2/ bert/ …)"),
                                  o.compare.front()));
  // every folder is loaded before any is run: a bad one fails fast
  std::vector<HfTokenizer> toks;
  for (const std::string& d : o.compare) toks.push_back(load_model_tokenizer(d));
  const bool several = texts.size() > 1;
  std::vector<std::string> docs;
  for (std::size_t d = 0; d < texts.size(); ++d) docs.push_back(document_label(o.files.empty() ? std::string() : o.files[d]));
  Result r;
  r.command = "model tokenize";
  r.params = {{"compare", o.compare}, {"special_tokens", false}, {"lines", o.lines}};
  if (o.files.empty()) r.params["text"] = o.text;
  else if (several) r.params["files"] = o.files;
  else r.params["file"] = o.files[0];
  Records rec;
  rec.name = N_("compare");
  rec.columns = {N_("tokenizer"), N_("kind"), N_("tokens"), N_("tokens per word"), N_("tokens per character"), N_("bytes per token"),
                 N_("unknown"), N_("byte fallback"), N_("part of a character"), N_("vocabulary"), N_("file")};
  if (several) rec.columns.insert(rec.columns.begin(), N_("document"));
  Figure figure;
  std::vector<Bars> token_panels;
  Bars word_bars;
  double most = 0;
  nlohmann::json documents = nlohmann::json::array();
  for (std::size_t d = 0; d < texts.size(); ++d) {
    const std::string& text = texts[d];
    const ScriptCounts scripts = count_scripts(text);
    r.blocks.push_back(Text{trf("{}: {} words, {} characters, {} bytes ({} Hangul, {} Latin, {} Han characters) in {} tokenizers; special "
                                "tokens left out of the counts",
                                docs[d], scripts.all_words(), scripts.all_characters(), text.size(), scripts.characters[0],
                                scripts.characters[1], scripts.characters[2], toks.size())});
    documents.push_back({{"document", docs[d]}, {"words", scripts.all_words()}, {"characters", scripts.all_characters()}, {"bytes", text.size()}});
    Bars tokens_bars;
    tokens_bars.title = several ? docs[d] : tr("tokens");
    tokens_bars.subtitle = trf("{} words, {} characters, {} bytes; special tokens left out", scripts.all_words(), scripts.all_characters(),
                               text.size());
    tokens_bars.value_label = tr("tokens");
    tokens_bars.category_label = tr("tokenizer");
    tokens_bars.horizontal = tokens_bars.annotate = true;
    tokens_bars.color = static_cast<int>(d);
    ModelTokenizeOptions one = o;
    one.file = o.files.empty() ? std::string() : o.files[d];
    for (std::size_t k = 0; k < toks.size(); ++k) {
      const HfTokenizer& tok = toks[k];
      const std::vector<HfEncoding> encs = encode_document(tok, text, o, true, tokenize_progress_label(one));
      const TokenTally t = tally_tokens(encs, tok);
      const TokenRatios q = token_ratios(t, scripts);
      const std::string label = tokenizer_label(o.compare[k]);
      std::vector<Cell> row;
      if (several) row.push_back(docs[d]);
      row.insert(row.end(), {label, tok.kind(), static_cast<long long>(t.tokens), q.per_word, q.per_character, q.bytes_per_token,
                             static_cast<long long>(t.unknown), static_cast<long long>(t.byte_fallback), static_cast<long long>(t.partial),
                             static_cast<long long>(tok.vocab_size()), tok.source()});
      rec.rows.push_back(std::move(row));
      tokens_bars.labels.push_back(label);
      tokens_bars.values.push_back(static_cast<double>(t.tokens));
      most = std::max(most, static_cast<double>(t.tokens));
      word_bars.labels.push_back(label);
      word_bars.values.push_back(q.per_word);
    }
    token_panels.push_back(std::move(tokens_bars));
  }
  r.blocks.push_back(std::move(rec));
  if (several) {
    r.summary["documents"] = std::move(documents);
  } else {
    r.summary["words"] = documents[0]["words"];
    r.summary["characters"] = documents[0]["characters"];
    r.summary["bytes"] = documents[0]["bytes"];
  }
  r.primary = "compare";

  if (several) {
    // one scale for all documents, so the bars of one tokenizer compare across them
    figure.title = trf("Tokens of {} in {} tokenizers", fmt::join(docs, tr(" and ")), toks.size());
    for (Bars& b : token_panels) {
      b.vmin = 0;
      b.vmax = most * 1.12;  // room for the longest bar's value
      figure.panels.push_back(std::move(b));
    }
  } else {
    figure.title = trf("“{}” in {} tokenizers", docs[0], toks.size());
    word_bars.title = tr("tokens per word");
    word_bars.subtitle = tr("words: runs between white space");
    word_bars.value_label = tr("tokens per word");
    word_bars.category_label = tr("tokenizer");
    word_bars.horizontal = word_bars.annotate = true;
    word_bars.color = 1;
    figure.panels.push_back(std::move(token_panels[0]));
    figure.panels.push_back(std::move(word_bars));
  }
  figure.columns = 1;
  std::string stem;
  for (const std::string& d : docs) {
    if (!stem.empty()) stem += "_";
    for (char c : d) stem += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  }
  present_all(r, o.out, o.fig, &figure, nullptr, fmt::format("tokenize_compare_{}.png", stem));
}

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
    return run_model_tokenize_compare(o, texts);
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
  const double per_byte = format == Format::npy ? 112 : format == Format::csv ? 600 : format == Format::json ? 3000 : 800;
  check_memory(double(text.size()) * per_byte,
               fmt::format("{} ({} bytes) tokenized as {} (a row per token)", o.file.empty() ? std::string("TEXT") : "--file " + o.file,
                           text.size(), format_name(format)));
  const bool npy = format == Format::npy;
  // csv and json carry each token's offsets into its sequence, in characters and in bytes
  const bool offsets = format == Format::csv || format == Format::json;
  const std::vector<HfEncoding> encs = encode_document(tok, text, o, !npy || o.stats, tokenize_progress_label(o), offsets);
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
  r.blocks.push_back(Text{trf("{} tokens; {} tokenizer from {} (vocabulary {}){}; {}", count, tok.kind(), tok.source(), tok.vocab_size(),
                              o.no_special ? tr("; no special tokens (--no-special)") : "", how)});
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
  rec.columns = o.lines ? std::vector<std::string>{N_("line"), N_("position"), N_("token"), N_("readable"), N_("id")}
                        : std::vector<std::string>{N_("position"), N_("token"), N_("readable"), N_("id")};
  if (offsets) rec.columns.insert(rec.columns.end(), {N_("start"), N_("end"), N_("byte start"), N_("byte end")});
  rec.rows.reserve(count);
  // the summary's arrays (ids, tokens, offsets) are for json and the table; csv writes the rows
  // alone, so it does not hold every token a second and third time
  const bool summary_arrays = format != Format::csv;
  nlohmann::json ids = nlohmann::json::array(), tokens = nlohmann::json::array(), readable = nlohmann::json::array();
  nlohmann::json char_offsets = nlohmann::json::array(), byte_offsets = nlohmann::json::array();
  const std::vector<std::string_view> seqs = o.lines ? document_lines(text) : std::vector<std::string_view>{text};
  for (std::size_t l = 0; l < encs.size(); ++l) {
    const HfEncoding& e = encs[l];
    nlohmann::json li = nlohmann::json::array(), lc = nlohmann::json::array(), lb = nlohmann::json::array();
    CharIndex chars(seqs[l]);
    for (std::size_t i = 0; i < e.ids.size(); ++i) {
      std::vector<Cell> row;
      if (o.lines) row.push_back(static_cast<long long>(l + 1));
      row.insert(row.end(), {static_cast<long long>(i), e.tokens[i], e.readable[i], static_cast<long long>(e.ids[i])});
      if (offsets) {
        const auto [b0, b1] = e.offsets[i];
        const std::size_t c0 = chars.at(b0), c1 = chars.at(b1);
        row.insert(row.end(), {static_cast<long long>(c0), static_cast<long long>(c1), static_cast<long long>(b0), static_cast<long long>(b1)});
        if (summary_arrays) {
          lc.push_back({c0, c1});
          lb.push_back({b0, b1});
        }
      }
      rec.rows.push_back(std::move(row));
      if (summary_arrays) li.push_back(e.ids[i]);
    }
    if (!summary_arrays) {
    } else if (o.lines) {
      ids.push_back(std::move(li));
      tokens.push_back(e.tokens);
      readable.push_back(e.readable);
      char_offsets.push_back(std::move(lc));
      byte_offsets.push_back(std::move(lb));
    } else {
      ids = std::move(li);
      tokens = e.tokens;
      readable = e.readable;
      char_offsets = std::move(lc);
      byte_offsets = std::move(lb);
    }
  }
  if (offsets && summary_arrays) {
    r.summary["offsets"] = std::move(char_offsets);
    r.summary["byte_offsets"] = std::move(byte_offsets);
  }
  r.blocks.push_back(std::move(rec));
  if (summary_arrays) {
    r.summary[N_("tokens")] = std::move(tokens);
    r.summary[N_("ids")] = std::move(ids);
    r.summary[N_("readable")] = std::move(readable);
  }
  r.primary = "tokens";
  present(r, o.out);
}

}  // namespace

void register_model_tokenize(CLI::App& model) {
  auto [cmd, o] = add_command(model, "tokenize", tr("The checkpoint's own tokenizer: tokens and ids as Hugging Face gives them"), run_model_tokenize);
  o->dir_opt = cmd->add_option("DIR", o->dir, tr("Checkpoint folder with tokenizer.json (or vocab.txt, or vocab.json + merges.txt), or a GGUF file (its tokenizer.ggml.*)"));
  o->text_opt = cmd->add_option("TEXT", o->text, tr("The text to tokenize (or --file)"));
  cmd->add_option("--file", o->files,
                  tr("Tokenize this UTF-8 file (- = standard input) instead of TEXT: the whole document one sequence, as "
                     "Hugging Face's encode sees it"))
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
