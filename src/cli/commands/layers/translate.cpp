// `tfx translate TEXT`: the built-in teaching translator (model/translator.hpp) turns a Korean
// sentence of the lecture's domain into English by greedy decoding: each step's token, its
// probability and the next best three, and the cross-attention (generated tokens × source
// tokens) as a table and a figure. --list-vocab lists the words the model knows.
#include <fmt/format.h>

#include "tfx/attention/attention_page.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "tfx/model/translator_trace.hpp"
#include "cli/present/translator_domain_notes.hpp"
#include "cli/flags/validators.hpp"
#include "cli/commands/train/model_flag.hpp"
#include "tfx/model/translator.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct TranslateOptions {
  std::string text;
  bool list_vocab = false;
  int max_tokens = 20;
  int layer = 0;  // 1-based decoder layer of the cross-attention shown; 0 = the last
  bool per_head = false;
  std::string html;                    // --html FILE: the offline head view / model view page
  std::string html_attention = "cross";  // which attention the page shows: cross, encoder or decoder
  OutputFlags out;
  FigureFlags fig;
};

// Greedy decoding that ran into --max-tokens: says so, and names the token it kept repeating.
std::string length_limit_note(const std::vector<std::string>& output, int max_tokens) {
  std::size_t run = 0;
  while (run < output.size() && output[output.size() - 1 - run] == output.back()) ++run;
  if (run >= 3)
    return trf("greedy decoding stopped at the limit (--max-tokens {}) without <eos>: it repeated '{}' {} times at the end",
               max_tokens, output.back(), run);
  return trf("greedy decoding stopped at the limit (--max-tokens {}) without <eos>", max_tokens);
}

bool hangul(const std::string& w) { return !w.empty() && static_cast<unsigned char>(w[0]) >= 0xEA; }

void run_list_vocab(const TranslateOptions& o) {
  const Translator& m = cli_translator();
  Result r;
  r.command = "translate";
  r.params = {{"list_vocab", true}};
  Records rec;
  rec.name = N_("vocabulary");
  rec.columns = {N_("id"), N_("token"), N_("language")};
  for (std::size_t i = 0; i < m.vocab.size(); ++i) {
    const std::string& w = m.vocab.tokens[i];
    rec.rows.push_back({static_cast<long long>(i), w, std::string(i < 4 ? "special" : hangul(w) ? "Korean" : "English")});
  }
  r.blocks.push_back(Text{trf("{} tokens: 4 special, then the Korean and the English words (id = embedding row); "
                                      "a sentence is split at spaces, a Korean word keeps its particle (커피를)",
                                      m.vocab.size())});
  r.blocks.push_back(std::move(rec));
  r.summary[N_("tokens")] = m.vocab.tokens;
  present(r, o.out);
}

void run_translate(const TranslateOptions& o) {
  if (o.list_vocab) return run_list_vocab(o);
  if (o.text.empty()) throw usage_error(N_("give the Korean sentence: tfx translate \"나는 학생 이다\" (or --list-vocab)"));
  const Translator& m = cli_translator();
  const std::size_t layers = m.decoder.size();
  if (o.layer > static_cast<int>(layers))
    throw usage_error(fmt::format(N_("--decoder-layer {}: the model has {} decoder layers (1 … {})"), o.layer, layers, layers));
  const std::size_t layer = o.layer == 0 ? layers - 1 : static_cast<std::size_t>(o.layer - 1);
  const bool html_only = !o.html.empty() && check_html_target(o.html, o.out, o.fig);
  const Translation t = translate(m, o.text, static_cast<std::size_t>(o.max_tokens), "TEXT");
  // outside what the model was trained on it still translates (watching it fail is a lesson),
  // and says so everywhere the answer shows
  const DomainCheck domain = check_domain(model_domain(m), t.source.tokens);
  warn_outside_domain(domain);
  const std::string limit_note = t.finished ? std::string() : length_limit_note(t.output, o.max_tokens);
  if (!limit_note.empty()) std::fprintf(stderr, "%s\n", trf("tfx: warning: {}", limit_note).c_str());

  std::string english;
  for (const auto& w : t.output) english += (english.empty() ? "" : " ") + w;
  Result r;
  r.command = "translate";
  r.params = {{"text", o.text}, {"max_tokens", o.max_tokens}, {"layer", layer + 1}, {"model", m.name}};
  r.blocks.push_back(Text{fmt::format("{}  →  {}", o.text, english.empty() ? std::string(tr("(nothing)")) : english)});
  if (m.properties.lecture())
    r.blocks.push_back(Text{trf("{}: d_model {}, {} heads, {} encoder + {} decoder layers (post-LN), {} tokens; greedy "
                                        "decoding from <bos>: each step takes the most probable next token",
                                        tr_runtime(m.name), m.d_model, m.heads, m.encoder.size(), m.decoder.size(), m.vocab.size())});
  else
    r.blocks.push_back(Text{trf("{}: d_model {}, {} heads, {} encoder + {} decoder layers ({}; trained with {}), {} tokens; "
                                "greedy decoding from <bos>: each step takes the most probable next token",
                                tr_runtime(m.name), m.d_model, m.heads, m.encoder.size(), m.decoder.size(), m.properties.layout(),
                                m.properties.flags(), m.vocab.size())});
  if (!m.properties.lecture()) r.params["trained_with"] = m.properties.flags();
  r.blocks.insert(r.blocks.begin() + 1, Text{domain_line(domain)});
  if (!limit_note.empty()) r.blocks.push_back(Text{limit_note});

  Records steps;
  steps.name = N_("steps");
  steps.columns = {N_("step"), N_("token"), N_("probability"), N_("2nd"), N_("p(2nd)"), N_("3rd"), N_("p(3rd)"), N_("4th"), N_("p(4th)")};
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    const TranslationStep& s = t.steps[i];
    std::vector<Cell> row{static_cast<long long>(i + 1), s.token, s.probability};
    for (const auto& [tok, p] : s.alternatives) {
      row.emplace_back(tok);
      row.emplace_back(p);
    }
    steps.rows.push_back(std::move(row));
  }
  r.blocks.push_back(std::move(steps));

  // cross-attention of the chosen layer: row t = what the decoder looked at when it chose
  // output token t (the query is the token before it)
  std::vector<std::string> rows = t.output;
  if (t.finished) rows.push_back("<eos>");
  const Tensor mean = mean_cross_attention(t.decoder, layer);
  Matrix cross;
  cross.name = N_("cross_attention");
  cross.values = Tensor({rows.size(), t.source.tokens.size()});
  for (std::size_t i = 0; i < rows.size(); ++i)
    std::copy(mean.row(i).begin(), mean.row(i).end(), cross.values.row(i).begin());
  cross.row_labels = rows;
  cross.col_labels = t.source.tokens;
  cross.row_axis = N_("generated");
  cross.col_axis = N_("source");
  if (m.builtin_corpus)
    r.blocks.push_back(Text{trf("cross-attention of decoder layer {} (mean over its {} heads): each row is the step that "
                                        "chose that English word, each column a Korean source word",
                                        layer + 1, m.heads)});
  else
    r.blocks.push_back(Text{trf("cross-attention of decoder layer {} (mean over its {} heads): each row is the step that "
                                "chose that target word, each column a source word",
                                layer + 1, m.heads)});
  r.blocks.push_back(cross);
  r.primary = "steps";
  r.summary[N_("translation")] = english;
  r.summary[N_("tokens")] = t.output;
  r.summary[N_("source_tokens")] = t.source.tokens;
  r.summary[N_("source_ids")] = t.source.ids;
  r.summary[N_("finished")] = t.finished;
  add_domain_summary(r, domain);

  Figure figure;
  if (figure_drawn(o.fig, o.out)) {
    figure = translation_cross_figure(m, t, layer, o.per_head, domain.in_domain ? std::string() : domain.reasons.front());
    figure.title = trf("Cross-attention: {} → {}", o.text, english) + " (" + translator_weights_label() + ")" + domain_title_suffix(domain);
  }
  std::string page;
  if (!o.html.empty()) {
    page = attention_html(translation_page(t, o.html_attention, o.text, english));
    if (html_only) {
      write_html(page, o.html, o.out, o.fig);
      return;
    }
  }
  present_all(r, o.out, o.fig, &figure, nullptr, default_figure_name("translate", o.text));
  if (!page.empty()) write_html(page, o.html, o.out, o.fig);
}

}  // namespace

void register_translate(CLI::App& app) {
  auto [cmd, o] = add_command(app, "translate", tr("Korean → English with the built-in teaching translator: greedy steps and cross-attention"),
                              run_translate, tr("Attention"));
  cmd->add_option("TEXT", o->text, tr("A Korean sentence of the lecture's domain, words split at spaces (\"나는 학생 이다\")"));
  cmd->add_flag("--list-vocab", o->list_vocab, tr("List the tokens the model knows (id = embedding row) and exit"));
  cmd->add_option("--max-tokens", o->max_tokens, tr("Stop after this many output tokens if <eos> has not come"))
      ->capture_default_str()
      ->check(whole_number(1, 64));
  cmd->add_option("--decoder-layer", o->layer, tr("Decoder layer whose cross-attention is shown (1-based; default: the last)"))
      ->check(whole_number(1, 64));
  cmd->add_flag("--per-head", o->per_head, tr("Figure: one panel per head instead of their mean"));
  add_model_flag(cmd);
  add_presentation_flags(cmd, o->out, o->fig);
  add_html_flag(cmd, o->html, o->out);
  cmd->add_option("--html-attention", o->html_attention,
                  tr("Which attention the --html page shows, every layer and head: cross, encoder or decoder"))
      ->capture_default_str()
      ->check(CLI::IsMember({"cross", "encoder", "decoder"}))
      ->group(tr("Figures"));
  set_examples(cmd, {tr("tfx translate \"나는 학생 이다\"                # I am a student"),
                     tr("tfx translate \"그녀는 커피를 마셨다\" --png     # the verb looks back past the object"),
                     tr("tfx translate \"우리는 의사 이었다\" --format json"),
                     tr("tfx translate --list-vocab"),
                     tr("tfx translate \"나는 학생 이다\" --html cross.html --html-attention cross   # head view + model view, offline")});
}

}  // namespace tfx::cli
