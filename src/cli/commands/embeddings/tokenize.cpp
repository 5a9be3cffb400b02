// `tfx tokenize TEXT`: the lecture's first step, text → tokens → ids. By default the teaching
// translator's vocabulary, whose ids are the rows `tfx lookup`, `trace` and `attention --sentence`
// use; --vocab wordpiece (or --mode/--lower) the built-in WordPiece vocabulary at word, character
// or subword level; --vocab FILE a BERT vocab.txt. `tfx tokenize train` (tokenize_train.cpp) learns
// a byte-level BPE tokenizer.
#include <fmt/format.h>

#include "cli/flags/flag_names.hpp"
#include "cli/commands.hpp"
#include "cli/commands/embeddings/embeddings_commands.hpp"
#include "cli/common.hpp"
#include "tfx/text/token_stats.hpp"
#include "tfx/text/tokenize_input.hpp"
#include "cli/flags/validators.hpp"
#include "cli/commands/train/model_flag.hpp"
#include "tfx/model/translator.hpp"
#include "tfx/text/tokenizer.hpp"
#include "cli/flags/shared_flags.hpp"
#include "tfx/core/i18n.hpp"

#include <sstream>

namespace tfx::cli {

namespace {

// Whether s has a Hangul syllable (가 U+AC00 … 힣 U+D7A3; UTF-8 keeps code point order).
bool has_hangul_syllable(const std::string& s) {
  for (const std::string& c : utf8_characters(s))
    if (c >= "가" && c <= "힣") return true;
  return false;
}

struct TokenizeOptions {
  std::string text, file;
  CLI::Option* text_opt = nullptr;
  std::string mode;   // "" = the vocabulary's own (translator: split at spaces; WordPiece: subword)
  std::string vocab;  // "" / "translator", "wordpiece", or a BERT vocab.txt
  bool lower = false;
  bool translator = false;
  bool stats = false;
  OutputFlags out;
  CLI::App* train = nullptr;  // the `train` subcommand
};

// --translator: the teaching translator's tokenizer (split at spaces) and vocabulary, whose ids
// are the rows of its embedding (tfx lookup --translator --ids …).
void run_tokenize_translator(const TokenizeOptions& o) {
  const Translator& m = cli_translator();
  Result r;
  r.command = "tokenize";
  r.params = {{"text", o.file.empty() ? o.text : std::string()}, {"file", o.file}, {"vocab", cli_vocab_name()},
              {"vocab_size", m.vocab.size()}};
  Records rec;
  rec.name = N_("tokens");
  rec.columns = {N_("position"), N_("token"), N_("id")};
  std::vector<std::string> tokens, unknown;
  std::vector<long long> ids;
  std::istringstream in(o.text);
  for (std::string w; in >> w;) {
    const auto id = m.vocab.find(w);
    const long long v = id && *id >= 4 ? static_cast<long long>(*id) : static_cast<long long>(m.unk);
    if (v == static_cast<long long>(m.unk)) unknown.push_back(w);
    rec.rows.push_back({static_cast<long long>(tokens.size()), w, v});
    tokens.push_back(w);
    ids.push_back(v);
  }
  r.blocks.push_back(Text{trf("{} tokens (the teaching translator's word level: split at spaces, a Korean word keeps its "
                                      "particle); vocabulary: {}; id = the row of its embedding (tfx lookup --ids)",
                                      tokens.size(), cli_vocab_label())});
  r.blocks.push_back(std::move(rec));
  if (!unknown.empty())
    r.blocks.push_back(Text{trf("{}: not in {}, so their id is <unk>'s; tfx translate --list-vocab lists it; --vocab "
                                "wordpiece tokenizes with the built-in WordPiece vocabulary ({} tokens)",
                                fmt::join(unknown, ", "), cli_vocab_label(), builtin_vocab().size())});
  if (!unknown.empty()) r.summary[N_("unknown")] = unknown;
  r.summary[N_("tokens")] = tokens;
  r.summary[N_("ids")] = ids;
  r.summary[N_("count")] = tokens.size();
  if (o.stats) add_token_stats(r, o.text, tally_tokens(tokens, ids, unknown.size()));
  r.primary = "tokens";
  present(r, o.out);
}

void run_tokenize(const TokenizeOptions& given) {
  if (given.train && given.train->parsed()) return;  // `tfx tokenize train …` ran instead
  TokenizeOptions o = given;
  o.text = document_text(given.text, given.text_opt->count() > 0, given.file);
  // which vocabulary: --vocab NAME|FILE; without it the translator's, unless a WordPiece option
  // (--mode, --lower) asks for the built-in WordPiece vocabulary
  const bool wordpiece_options = !o.mode.empty() || o.lower;
  if (o.translator) {
    if (!o.vocab.empty() && o.vocab != "translator")
      throw usage_error(N_("give one vocabulary: --translator or --vocab FILE (not both)"));
    o.vocab = "translator";
  }
  if (o.vocab.empty()) o.vocab = wordpiece_options ? "wordpiece" : "translator";
  if (o.vocab == "translator") {
    if (wordpiece_options)
      throw usage_error(fmt::format(N_("{} goes with a WordPiece vocabulary (--vocab wordpiece or --vocab FILE); the teaching "
                                    "translator's vocabulary splits at spaces"),
                                    !o.mode.empty() ? "--mode" : "--lower"));
    return run_tokenize_translator(o);
  }
  if (o.mode.empty()) o.mode = "subword";
  const TokenizerMode mode = parse_choice<TokenizerMode>(kTokenizerModeChoices, o.mode, "mode");
  Vocabulary file_vocab;
  if (o.vocab != "wordpiece") file_vocab = read_vocab(o.vocab);
  const Vocabulary& vocab = o.vocab == "wordpiece" ? builtin_vocab() : file_vocab;
  Tokenized t;
  try {
    t = tokenize(o.text, mode, vocab, o.lower ? Casing::bert_uncased : Casing::keep, true);
  } catch (const Error& e) {
    throw usage_error(fmt::format(N_("TEXT: {}"), e.what()));
  }
  Result r;
  r.command = "tokenize";
  r.params = {{"text", o.file.empty() ? o.text : std::string()}, {"file", o.file}, {"mode", o.mode}, {"vocab", vocab.name}, {"vocab_size", vocab.size()}, {"lower", o.lower}};
  const char* how = mode == TokenizerMode::word        ? tr("word level: split at spaces, punctuation as its own token")
                    : mode == TokenizerMode::character ? tr("character level: one token per Unicode code point; id = code point")
                                                       : tr("WordPiece subwords: greedy longest match, ## marks a continuation");
  r.blocks.push_back(Text{trf("{} tokens ({}); vocabulary: {} ({} tokens){}", t.tokens.size(), how, tr_runtime(vocab.name),
                                      vocab.size(), o.lower ? tr(", lower-cased") : "")});
  Records rec;
  rec.name = N_("tokens");
  rec.columns = {N_("position"), N_("token"), N_("id")};
  std::size_t unknown = 0;
  for (std::size_t i = 0; i < t.tokens.size(); ++i) {
    rec.rows.push_back({static_cast<long long>(i), t.tokens[i], t.ids[i]});
    if (mode != TokenizerMode::character && (t.tokens[i] == "[UNK]" || !vocab.find(t.tokens[i]))) ++unknown;
  }
  r.blocks.push_back(std::move(rec));
  if (o.lower && has_hangul_syllable(o.text))
    r.blocks.push_back(Text{tr("--lower decomposed the Hangul syllables into jamo (NFD), as BERT uncased does; a Korean vocabulary "
                               "needs the text as typed: drop --lower")});
  if (mode == TokenizerMode::word && unknown)
    r.blocks.push_back(Text{trf("{} of {} words are not in the vocabulary (id of [UNK]); --mode subword splits them into pieces",
                                        unknown, t.tokens.size())});
  r.summary[N_("tokens")] = t.tokens;
  r.summary[N_("ids")] = t.ids;
  r.summary[N_("count")] = t.tokens.size();
  if (o.stats) add_token_stats(r, o.text, tally_tokens(t.tokens, t.ids, mode == TokenizerMode::character ? 0 : unknown));
  r.primary = "tokens";
  present(r, o.out);
}

}  // namespace

void register_tokenize(CLI::App& app) {
  auto [cmd, o] = add_command(app, "tokenize", tr("Text → tokens → ids: word, character or WordPiece subword tokenization"),
                              run_tokenize, tr("Word embeddings"));
  o->text_opt = cmd->add_option("TEXT", o->text, tr("The text to tokenize (quote it), or --file"));
  cmd->add_option("--file", o->file, file_flag_help(""))->type_name("FILE");
  cmd->add_option("--mode", o->mode,
                  trf("Tokenization with a WordPiece vocabulary: {} (default subword; given without --vocab: the built-in "
                      "WordPiece vocabulary)",
                      choice_list<TokenizerMode>(kTokenizerModeChoices, true)))
      ->check(one_of<TokenizerMode>(kTokenizerModeChoices));
  cmd->add_option("--vocab", o->vocab,
                  tr("translator (default: the teaching translator's 112 words, split at spaces; ids = rows of tfx lookup), "
                     "wordpiece (the built-in 113-token WordPiece vocabulary), or a BERT vocab.txt (one token per line, "
                     "id = line number − 1; a file named like a choice: ./wordpiece)"))
      ->check(non_empty_path("give translator, wordpiece or a BERT vocab.txt"))
      ->type_name("NAME|FILE");
  add_lower_flag(cmd, o->lower,
                 tr("as BERT uncased, do_lower_case: every script, then strip accents by NFD, combining marks dropped: "
                    "Héllo → hello, ΑΒΓ → αβγ; Hangul syllables become jamo"));
  add_translator_flag(cmd, o->translator, tr("its vocabulary: the same as --vocab translator, the default"));
  add_stats_flag(cmd, o->stats);
  add_output_flags(cmd, o->out, false);
  register_tokenize_train(cmd);
  o->train = cmd->get_subcommand("train");
  cmd->require_subcommand(0, 1);
  set_examples(cmd, {tr("tfx tokenize \"나는 학생 이다\"                          # ids = rows of tfx lookup --ids"),
                     tr("tfx tokenize \"I love playing football.\" --vocab wordpiece   # I love play ##ing foot ##ball ."),
                     tr("tfx tokenize \"I love playing football.\" --mode word"),
                     tr("tfx tokenize \"나는 학생 이다\" --mode char"),
                     tr("tfx tokenize \"Transformers are great\" --vocab bert-base-uncased/vocab.txt --lower")});
}

}  // namespace tfx::cli
