// `tfx tokenize train FILE --vocab-size N -o tokenizer.json`: learn a byte-level BPE tokenizer
// from a UTF-8 text as GPT-2's was learned (tfx/text/bpe_train.hpp) and write it as Hugging
// Face's tokenizer.json, which `tfx model tokenize`, the model commands and HF's own engine read.
// --lesson is the tokenizer lesson: the first merges with what they hold (English letters, Hangul
// syllables, pieces of a character) and a figure of how the vocabulary grows, merge by merge.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>

#include "cli/flags/model_size_flags.hpp"
#include "cli/commands/embeddings/embeddings_commands.hpp"
#include "cli/common.hpp"
#include "cli/flags/shared_flags.hpp"
#include "cli/present/progress_bar.hpp"
#include "tfx/core/memory.hpp"
#include "tfx/io/text_file.hpp"
#include "tfx/text/bpe_train.hpp"
#include "tfx/text/hf_tokenizer.hpp"

namespace tfx::cli {

namespace {

struct TokenizeTrainOptions {
  std::string file;
  std::size_t vocab_size = 0;
  std::string tokenizer;  // -o FILE: where tokenizer.json goes ("" = not written)
  bool show = false;
  CLI::Option* show_opt = nullptr;
  std::size_t merges = 24;  // --merges: rows of the --lesson table
  bool no_progress = false;
  OutputFlags out;
  FigureFlags fig;
};

// Bytes of memory training takes per byte of text (the words, their symbols, pair counts and the queue).
constexpr double kTrainBytesPerByte = 64;

const char* kind_label(TokenKind k) {
  switch (k) {
    case TokenKind::latin: return N_("English letters");
    case TokenKind::hangul: return N_("Hangul syllables");
    case TokenKind::partial: return N_("part of a character");
    case TokenKind::other: return N_("other");
  }
  return "";
}

void run_tokenize_train(const TokenizeTrainOptions& o) {
  // -o is the tokenizer, never a table or figure (those go to stdout, --png, --svg)
  for (const char* ext : {".png", ".svg", ".csv", ".npy", ".md", ".gif", ".html"})
    if (o.tokenizer.size() > std::string_view(ext).size() && o.tokenizer.ends_with(ext))
      throw usage_error(fmt::format(N_("-o {}: -o is where the tokenizer.json goes; the figure goes to --png/--svg FILE, the "
                                       "summary to standard output (--format)"),
                                    o.tokenizer));
  const std::string text = read_text_input(o.file, "FILE");
  const std::string name = o.file == "-" ? "<stdin>" : o.file;
  if (text.empty()) throw Error(fmt::format(N_("FILE {}: empty file; expected UTF-8 text to learn merges from"), name));
  check_memory(static_cast<double>(text.size()) * kTrainBytesPerByte, fmt::format("tokenize train {}", o.file));
  BpeTraining t;
  const auto start = std::chrono::steady_clock::now();
  {
    ProgressBar bar(tr("learning merges"), tr("merges"), !o.no_progress);
    try {
      t = train_byte_level_bpe(text, o.vocab_size, bar.callback());
    } catch (const Error& e) {
      const std::string what = e.what();
      if (what.rfind("vocab_size ", 0) == 0) throw usage_error("--vocab-size " + what.substr(11));
      if (what.rfind("text: ", 0) == 0) throw Error(fmt::format("FILE {}: {}", name, what.substr(6)));
      throw;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string json = byte_level_bpe_json(t);
  if (!o.tokenizer.empty()) emit(json, o.tokenizer, false, "-o");
  // the readable forms (␣ for a space, a piece of a character as its bytes) from the file as HF would read it
  const HfTokenizer tok = HfTokenizer::from_json(json, o.tokenizer.empty() ? "tokenizer.json" : o.tokenizer);

  Result r;
  r.command = "tokenize train";
  r.params = {{"file", o.file}, {"vocab_size", o.vocab_size}, {"output", o.tokenizer}};
  r.blocks.push_back(Text{trf("{} lines, {} words ({} distinct, GPT-2's split), {} characters → {} tokens: 256 bytes + {} merges, "
                              "learned in {:.3f} s",
                              t.lines, t.words, t.distinct_words, t.characters, t.vocab.size(), t.steps.size(), seconds)});
  r.blocks.push_back(Text{o.tokenizer.empty()
                              ? tr("no -o FILE: nothing written (tokenize train FILE --vocab-size N -o tokenizer.json)")
                              : trf("wrote {} (Hugging Face's tokenizer.json, byte-level BPE as GPT-2's): Tokenizer.from_file reads it; "
                                    "as DIR/tokenizer.json, tfx model tokenize DIR TEXT does",
                                    o.tokenizer)});
  std::array<std::size_t, kTokenKinds> per_kind{};
  std::vector<TokenKind> kinds;
  for (const BpeMergeStep& s : t.steps) {
    kinds.push_back(token_kind(t.bytes[s.id]));
    ++per_kind[static_cast<std::size_t>(kinds.back())];
  }
  Records kinds_rec;
  kinds_rec.name = N_("kinds");
  kinds_rec.columns = {N_("kind"), N_("merges"), N_("first merge")};
  for (std::size_t k = 0; k < kTokenKinds; ++k) {
    long long first = -1;
    for (std::size_t s = 0; s < kinds.size() && first < 0; ++s)
      if (static_cast<std::size_t>(kinds[s]) == k) first = static_cast<long long>(s + 1);
    kinds_rec.rows.push_back({tr_runtime(kind_label(static_cast<TokenKind>(k))), static_cast<long long>(per_kind[k]),
                              first < 0 ? std::string("-") : std::to_string(first)});
  }
  if (o.show) {
    Records rec;
    rec.name = N_("merges");
    rec.columns = {N_("step"), N_("left"), N_("right"), N_("token"), N_("id"), N_("count"), N_("kind")};
    for (std::size_t s = 0; s < t.steps.size() && s < o.merges; ++s) {
      const BpeMergeStep& m = t.steps[s];
      rec.rows.push_back({static_cast<long long>(s + 1), tok.readable(m.left), tok.readable(m.right), tok.readable(m.id),
                          static_cast<long long>(m.id), static_cast<long long>(m.count), tr_runtime(kind_label(kinds[s]))});
    }
    r.blocks.push_back(Text{tr("The first merges: the most frequent adjacent pair of tokens becomes a token (␣ = a space; "
                               "<0xEB> = one byte of a character's UTF-8, such as one of a Hangul syllable's three)")});
    r.blocks.push_back(std::move(rec));
  }
  r.blocks.push_back(std::move(kinds_rec));
  r.summary[N_("vocab_size")] = t.vocab.size();
  r.summary[N_("merges")] = t.steps.size();
  r.summary[N_("words")] = t.words;
  r.summary[N_("distinct_words")] = t.distinct_words;
  r.summary[N_("seconds")] = seconds;
  r.primary = o.show ? "merges" : "kinds";

  Figure figure;
  const bool draw = figure_drawn(o.fig, o.out) || o.show;
  if (draw) {
    LineChart chart;
    chart.title = trf("How the vocabulary grows: {} merges", t.steps.size());
    chart.subtitle = trf("{}: what each new token holds", o.file == "-" ? std::string("<stdin>") : std::filesystem::path(o.file).filename().string());
    chart.x_label = tr("merge step");
    chart.y_label = tr("tokens made so far");
    std::array<Series, kTokenKinds> series;
    std::array<double, kTokenKinds> so_far{};
    for (std::size_t k = 0; k < kTokenKinds; ++k) {
      series[k].name = tr_runtime(kind_label(static_cast<TokenKind>(k)));
      series[k].x.push_back(0);
      series[k].y.push_back(0);
    }
    for (std::size_t s = 0; s < kinds.size(); ++s) {
      ++so_far[static_cast<std::size_t>(kinds[s])];
      for (std::size_t k = 0; k < kTokenKinds; ++k) {
        series[k].x.push_back(static_cast<double>(s + 1));
        series[k].y.push_back(so_far[k]);
      }
    }
    for (auto& s : series) chart.series.push_back(std::move(s));
    figure.panels.push_back(std::move(chart));
  }
  const std::string png_name = fmt::format("tokenize_train_vocab{}.png", t.vocab.size());
  if (o.show && !figure_drawn(o.fig, o.out)) {
    // --lesson without --png/--svg/--view: the table, and the figure in its default file as a bare
    // --png writes it ("wrote FILE" on stderr when stdout carries data for a program)
    present(r, o.out);
    FigureFlags fig = o.fig;
    fig.png_opt = o.show_opt;
    present_png(figure, fig, png_name, o.out.format == Format::table && o.out.output == "-" ? stdout : stderr);
    return;
  }
  present_all(r, o.out, o.fig, draw ? &figure : nullptr, nullptr, png_name);
}

}  // namespace

void register_tokenize_train(CLI::App* tokenize) {
  auto [cmd, o] = add_command(*tokenize, "train",
                              tr("Learn a byte-level BPE tokenizer (GPT-2's) from a UTF-8 text and write it as Hugging Face's "
                                 "tokenizer.json"),
                              run_tokenize_train);
  cmd->add_option("FILE", o->file, tr("The UTF-8 text to learn from (- = standard input): Korean, English, one line or a whole book"))
      ->required()
      ->check(non_empty_path("give a text file or - for standard input"));
  add_vocab_size_flag(cmd, o->vocab_size, tr("the 256 byte tokens, then one per merge: 256…16777216 here, at most what the text allows"),
                      SizeBound{{256, std::int64_t{1} << 24}})
      ->required();
  o->show_opt = cmd->add_flag("--lesson", o->show,
                tr("The tokenizer lesson: the first merges (--merges rows) with what each new token holds, and a figure of "
                   "how the vocabulary grows (written to tokenize_train_vocabN.png unless --png/--svg/--view say where)"));
  cmd->add_option("--merges", o->merges, tr("Rows of the --lesson table of merges"))->capture_default_str()->check(whole_number(1, 100000));
  add_no_progress_flag(cmd, o->no_progress);
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig);
  o->out.output_opt->description(tr("Write the tokenizer here (tokenizer.json: written to a temporary beside it, then renamed); "
                                    "the summary goes to standard output"));
  // -o FILE is the tokenizer.json (the summary then goes to stdout in --format's format), as
  // tfx train -o FILE.safetensors writes the model
  o->out.output_opt->transform(CLI::Validator(
      [opts = o](std::string& path) {
        if (path != "-") {
          opts->tokenizer = path;
          path = "-";
        }
        return std::string();
      },
      ""));
  set_examples(cmd, {tr("tfx tokenize train corpus.txt --vocab-size 1000 -o tokenizer.json"),
                     tr("tfx tokenize train corpus.txt --vocab-size 600 --lesson        # the first merges and how the vocabulary grows"),
                     tr("cat book.txt | tfx tokenize train - --vocab-size 8000 -o tokenizer.json")});
}

}  // namespace tfx::cli
