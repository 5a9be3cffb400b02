// `tfx translate TEXT`: the built-in teaching translator (model/translator.hpp) turns a Korean
// sentence of the lecture's domain into English by greedy decoding: each step's token, its
// probability and the next best three, and the cross-attention (generated tokens × source
// tokens) as a table and a figure. --list-vocab lists the words the model knows.
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/validators.hpp"
#include "tfx/model/translator.hpp"

namespace tfx::cli {

namespace {

struct TranslateOptions {
  std::string text;
  bool list_vocab = false;
  int max_tokens = 20;
  int layer = 0;  // 1-based decoder layer of the cross-attention shown; 0 = the last
  bool per_head = false;
  OutputFlags out;
  FigureFlags fig;
};

bool hangul(const std::string& w) { return !w.empty() && static_cast<unsigned char>(w[0]) >= 0xEA; }

void run_list_vocab(const TranslateOptions& o) {
  const Translator& m = teaching_translator();
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
  if (o.text.empty()) throw usage_error("give the Korean sentence: tfx translate \"나는 학생 이다\" (or --list-vocab)");
  const Translator& m = teaching_translator();
  const std::size_t layers = m.decoder.size();
  if (o.layer > static_cast<int>(layers))
    throw usage_error(fmt::format("--layer {}: the model has {} decoder layers (1 … {})", o.layer, layers, layers));
  const std::size_t layer = o.layer == 0 ? layers - 1 : static_cast<std::size_t>(o.layer - 1);
  const Translation t = translate(m, o.text, static_cast<std::size_t>(o.max_tokens), "TEXT");

  std::string english;
  for (const auto& w : t.output) english += (english.empty() ? "" : " ") + w;
  Result r;
  r.command = "translate";
  r.params = {{"text", o.text}, {"max_tokens", o.max_tokens}, {"layer", layer + 1}, {"model", m.name}};
  r.blocks.push_back(Text{fmt::format("{}  →  {}", o.text, english.empty() ? std::string(tr("(nothing)")) : english)});
  r.blocks.push_back(Text{trf("{}: d_model {}, {} heads, {} encoder + {} decoder layers (post-LN), {} tokens; greedy "
                                      "decoding from <bos>: each step takes the most probable next token",
                                      tr_runtime(m.name), m.d_model, m.heads, m.encoder.size(), m.decoder.size(), m.vocab.size())});
  if (!t.finished)
    r.blocks.push_back(Text{trf("stopped after --max-tokens {} without <eos>", o.max_tokens)});

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
  r.blocks.push_back(Text{trf("cross-attention of decoder layer {} (mean over its {} heads): each row is the step that "
                                      "chose that English word, each column a Korean source word",
                                      layer + 1, m.heads)});
  r.blocks.push_back(cross);
  r.primary = "steps";
  r.summary[N_("translation")] = english;
  r.summary[N_("tokens")] = t.output;
  r.summary[N_("source_tokens")] = t.source.tokens;
  r.summary[N_("source_ids")] = t.source.ids;
  r.summary[N_("finished")] = t.finished;

  Figure figure;
  auto panel = [&](const Tensor& w, const std::string& title) {
    Heatmap h;
    h.values = Tensor({rows.size(), t.source.tokens.size()});
    for (std::size_t i = 0; i < rows.size(); ++i) std::copy(w.row(i).begin(), w.row(i).end(), h.values.row(i).begin());
    h.title = title;
    h.x_label = tr("source (Korean)");
    h.y_label = tr("generated (English)");
    h.row_labels = rows;
    h.col_labels = t.source.tokens;
    h.vmin = 0.0;
    h.vmax = 1.0;
    h.value_label = tr("weight");
    figure.panels.push_back(std::move(h));
  };
  if (figure_drawn(o.fig, o.out)) {
    if (o.per_head) {
      const MultiHeadAttention& a = t.decoder.layers[layer].cross_attention;
      for (std::size_t h = 0; h < a.heads.size(); ++h) panel(a.heads[h].weights, trf("head {}", h));
      figure.columns = static_cast<int>(a.heads.size());
    } else {
      panel(mean, trf("decoder layer {}, mean of {} heads", layer + 1, m.heads));
    }
    figure.title = trf("Cross-attention: {} → {}", o.text, english);
  }
  present_all(r, o.out, o.fig, &figure, nullptr, default_figure_name("translate", o.text));
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
  cmd->add_option("--layer", o->layer, tr("Decoder layer whose cross-attention is shown (1-based; default: the last)"))
      ->check(whole_number(1, 64));
  cmd->add_flag("--per-head", o->per_head, tr("Figure: one panel per head instead of their mean"));
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig);
  set_examples(cmd, {tr("tfx translate \"나는 학생 이다\"                # I am a student"),
                     tr("tfx translate \"그녀는 커피를 마셨다\" --png     # the verb looks back past the object"),
                     tr("tfx translate \"우리는 의사 이었다\" --format json"),
                     tr("tfx translate --list-vocab")});
}

}  // namespace tfx::cli
