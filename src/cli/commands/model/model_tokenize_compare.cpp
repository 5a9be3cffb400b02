// `tfx model tokenize --compare DIR DIR…` (model_tokenize.cpp registers it): one document or
// several, several tokenizers — a row each and a bar figure — and encode_document, which both use.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "cli/commands/model/model.hpp"
#include "tfx/model/gguf_model.hpp"
#include "cli/common.hpp"
#include "cli/present/progress_bar.hpp"
#include "tfx/text/token_stats.hpp"
#include "tfx/text/tokenize_input.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/text/script_stats.hpp"

namespace tfx::cli {

namespace {

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
}  // namespace

std::vector<HfEncoding> encode_document(const HfTokenizer& tok, std::string_view text, bool lines, bool special, bool readable,
                                        const std::string& file, bool offsets) {
  std::vector<std::string_view> seqs;
  if (lines) seqs = document_lines(text);
  else seqs.push_back(text);
  std::vector<HfEncoding> encs;
  encs.reserve(seqs.size());
  ProgressBar bar(file.empty() ? tr("tokenizing") : trf("tokenizing {}", file == "-" ? "<stdin>" : file), "B");
  std::size_t done = 0;
  for (std::string_view s : seqs) {
    const Progress p = bar.callback() ? Progress([&](std::size_t d, std::size_t) { bar.update(done + d, text.size()); }) : Progress{};
    encs.push_back(tok.encode(s, special, readable, p, offsets));
    done += s.size() + 1;
  }
  return encs;
}

// --compare DIR DIR…: one document (or several: --file A --file B), several tokenizers — a row
// each (tokens, tokens per word and per character, bytes per token, [UNK] and byte-fallback
// tokens, vocabulary, file) and a bar figure: for one document its tokens and tokens per word, for
// several a panel of tokens per document on one scale (the same paragraph in two languages shows
// what each language costs). Special tokens are left out of every count.
void run_model_tokenize_compare(const std::vector<std::string>& dirs, const std::vector<std::string>& files,
                                const std::string& given_text, const std::vector<std::string>& texts, bool lines, const OutputFlags& out,
                                const FigureFlags& fig) {
  if (dirs.size() < 2)
    throw usage_error(fmt::format(N_("--compare: got one folder ({}); expected two or more tokenizer folders (--compare gpt2/ bert/ …)"),
                                  dirs.front()));
  // every folder is loaded before any is run: a bad one fails fast
  std::vector<HfTokenizer> toks;
  for (const std::string& d : dirs) toks.push_back(load_model_tokenizer(d));
  const bool several = texts.size() > 1;
  std::vector<std::string> docs;
  for (std::size_t d = 0; d < texts.size(); ++d) docs.push_back(document_label(files.empty() ? std::string() : files[d]));
  Result r;
  r.command = "model tokenize";
  r.params = {{"compare", dirs}, {"special_tokens", false}, {"lines", lines}};
  if (files.empty()) r.params["text"] = given_text;
  else if (several) r.params["files"] = files;
  else r.params["file"] = files[0];
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
    for (std::size_t k = 0; k < toks.size(); ++k) {
      const HfTokenizer& tok = toks[k];
      const std::vector<HfEncoding> encs = encode_document(tok, text, lines, false, true, files.empty() ? std::string() : files[d]);
      const TokenTally t = tally_tokens(encs, tok);
      const TokenRatios q = token_ratios(t, scripts);
      const std::string label = tokenizer_label(dirs[k]);
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
  present_all(r, out, fig, &figure, nullptr, fmt::format("tokenize_compare_{}.png", stem));
}

}  // namespace tfx::cli
