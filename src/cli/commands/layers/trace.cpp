// `tfx trace TEXT`: one walk through the whole Transformer on the built-in teaching translator, in
// the lecture's order, every step with its shape: tokens → ids → embedding rows → PE rows → e + p →
// Q, K, V per head → scores → softmax → Z → Concat·W_O → add & norm → FFN → add & norm (each
// encoder layer) → the decoder's masked self-attention, cross-attention over the memory and FFN →
// logits → the next token. The table lists the steps (--show prints chosen matrices), JSON carries
// every matrix with its labels, --png draws one poster with the steps as panels.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/flags/shared_flags.hpp"
#include "cli/present/translator_domain_notes.hpp"
#include "cli/flags/validators.hpp"
#include "cli/commands/train/model_flag.hpp"
#include "tfx/model/translator_trace.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct TraceOptions {
  std::string text;
  std::string target;
  bool target_given = false;
  std::string show;
  std::string head = "0";
  CLI::Option* slides_opt = nullptr;
  std::string slides;                 // --slides DIR: one 16:9 figure per step, plus the poster
  std::string slides_format = "png";  // --slides-format png|svg
  OutputFlags out;
  FigureFlags fig;
  CLI::Option* target_opt = nullptr;
};

void run_trace(const TraceOptions& o) {
  const Translator& m = cli_translator();
  const std::size_t H = m.heads, D = m.d_model, d_k = D / H;
  // the poster draws one head: --head all has no picture here
  if (o.head == "all") throw usage_error(fmt::format(N_("--head all: trace draws one head; give one from 0 … {}"), H - 1));
  const std::size_t head = *pick_head(o.head, H);

  // the source through the encoder; the target prefix: --target, else the model's own
  // translation without its last word (so the trace ends by predicting that word)
  const Translation full = translate(m, o.text, 20, "TEXT");
  const DomainCheck domain = check_domain(model_domain(m), full.source.tokens);
  warn_outside_domain(domain);
  TokenIds target;
  if (o.target_opt->count()) {
    if (!o.target.empty()) target = translator_tokens(m, o.target, "--target");
  } else {
    target.tokens = full.output;
    if (!target.tokens.empty()) target.tokens.pop_back();
    for (const std::string& w : target.tokens) target.ids.push_back(*m.vocab.find(w));
  }
  const TranslatorTrace tc = trace_translator(m, full, target);
  const std::vector<std::string>& src = full.source.tokens;
  const std::vector<std::string>& tgt = tc.target;
  const std::string& next = tc.next;
  const std::size_t last = tgt.size() - 1;

  Result r;
  r.command = "trace";
  r.params = {{"text", o.text}, {"target", tgt}, {"model", m.name}, {"head", head}, {"vocab", cli_vocab_name()},
              {"vocab_size", m.vocab.size()}};
  if (m.properties.lecture())
    r.blocks.push_back(Text{trf("The Transformer step by step on {} (d_model {}, {} heads of d_k {}, {} + {} layers, "
                                        "post-LN): source “{}”, decoder input “{}” → next token “{}”",
                                        tr_runtime(m.name), D, H, d_k, m.encoder.size(), m.decoder.size(), o.text,
                                        fmt::format("{}", fmt::join(tgt, " ")), next)});
  else
    r.blocks.push_back(Text{trf("The Transformer step by step on {} (d_model {}, {} heads of d_k {}, {} + {} layers, "
                                "{}; trained with {}): source “{}”, decoder input “{}” → next token “{}”",
                                tr_runtime(m.name), D, H, d_k, m.encoder.size(), m.decoder.size(), m.properties.layout(),
                                m.properties.flags(), o.text, fmt::format("{}", fmt::join(tgt, " ")), next)});
  if (!m.properties.lecture()) r.params["trained_with"] = m.properties.flags();
  r.blocks.push_back(Text{trf("ids index {} (tfx tokenize prints them; tfx lookup --ids shows their embedding rows)", cli_vocab_label())});
  r.blocks.push_back(Text{domain_line(domain)});
  if (!full.finished)
    r.blocks.push_back(Text{tr("the model's own translation stopped at the limit of 20 tokens without <eos>")});
  r.blocks.push_back(tc.steps);
  Records top;
  top.name = N_("next");
  top.columns = {N_("rank"), N_("token"), N_("probability")};
  for (std::size_t i = 0; i < 5; ++i)
    top.rows.push_back({static_cast<long long>(i + 1), m.vocab.tokens[tc.top[i]], double(tc.top_probability[i])});
  r.blocks.push_back(top);
  // matrices: JSON and npy carry every one; tables print the ones --show names
  const bool machine = o.out.format == Format::json;
  std::vector<std::string> shown;
  if (!o.show.empty()) {
    std::stringstream ss(o.show);
    for (std::string item; std::getline(ss, item, ',');) {
      const bool known = item == "all" || std::any_of(tc.matrices.begin(), tc.matrices.end(), [&](const Matrix& x) { return x.name == item; });
      if (!known) throw usage_error(fmt::format(N_("--show: no matrix '{}'; the steps table's name column lists them (or all)"), item));
      shown.push_back(item);
    }
  }
  for (const Matrix& x : tc.matrices)
    if (machine || std::find(shown.begin(), shown.end(), "all") != shown.end() ||
        std::find(shown.begin(), shown.end(), x.name) != shown.end())
      r.blocks.push_back(x);
  if (!machine && shown.empty())
    r.blocks.push_back(Text{tr("--show NAME[,NAME…] prints a step's matrix (names in the last column; all for every one); "
                               "--format json carries them all with their labels; --png draws the poster")});
  r.primary = "steps";
  r.summary[N_("next_token")] = next;
  r.summary[N_("next_probability")] = tc.top_probability[0];
  r.summary[N_("translation")] = fmt::format("{}", fmt::join(full.output, " "));
  r.summary[N_("steps")] = tc.number;
  add_domain_summary(r, domain);

  // the steps drawn: each a panel of the poster and a slide of its own (--slides), in order
  std::vector<TraceStepFigure> drawn;
  const bool slides = o.slides_opt->count() > 0;
  Figure figure;
  if (slides || figure_drawn(o.fig, o.out)) {
    drawn = trace_step_figures(m, full, tc, head);
    for (const TraceStepFigure& d : drawn) figure.panels.push_back(d.panel);
    figure.columns = 4;
    figure.title = trf("Inside the Transformer: {} → … {} → {}", o.text, tgt[last], next) + " (" + translator_weights_label() + ")" + domain_title_suffix(domain);
    if (!domain.in_domain)
      if (auto* first = std::get_if<Diagram>(&figure.panels.front())) first->subtitle = domain.reasons.front();
  }
  if (slides) {
    // 00-poster, then 01-tokens … one 16:9 page per step, under the poster's title
    std::vector<Slide> pages;
    pages.push_back({"00-poster", figure});
    // the poster again in parts of four steps, each a 16:9 page legible on a projector (the whole
    // poster is 3328 pixels wide): 00a-poster … 00e-poster
    for (std::size_t first = 0, part = 0; first < drawn.size(); first += 4, ++part) {
      Figure f;
      f.title = trf("{} ({}/{})", figure.title, part + 1, (drawn.size() + 3) / 4);
      for (std::size_t i = first; i < std::min(drawn.size(), first + 4); ++i) f.panels.push_back(drawn[i].panel);
      f.columns = 2;
      f.page_width = kSlideWidth;
      f.page_height = kSlideHeight;
      pages.push_back({fmt::format("00{}-poster", static_cast<char>('a' + part)), std::move(f)});
    }
    const std::size_t S = src.size(), T = tgt.size(), F = m.ffn, V = m.vocab.size();
    for (std::size_t i = 0; i < drawn.size(); ++i) {
      Figure f;
      f.title = figure.title;
      // each step's formula with the shapes it multiplies, under the step's title; a wide matrix
      // in stacked slices so it fills the page
      Panel step = drawn[i].panel;
      const std::string formula = trace_slide_formula(drawn[i].name, S, T, D, d_k, F, V, head);
      std::visit([&](auto& p) { p.subtitle = domain.in_domain ? formula : domain.reasons.front() + " — " + formula; }, step);
      f.panels = trace_slide_panels(step);
      if (f.panels.size() > 1) f.columns = 1;
      f.page_width = kSlideWidth;
      f.page_height = kSlideHeight;
      pages.push_back({fmt::format("{:02}-{}", i + 1, drawn[i].name), std::move(f)});
    }
    write_slides(pages, o.slides, parse_format(o.slides_format), o.out, o.fig);
    // only the slides asked for: no table (as with --png)
    if (!o.out.format_given() && !o.fig.png_requested() && !o.fig.view) return;
  }
  present_all(r, o.out, o.fig, &figure, nullptr, default_figure_name("trace", o.text));
}

}  // namespace

void register_trace(CLI::App& app) {
  auto [cmd, o] = add_command(app, "trace", tr("The whole Transformer step by step on the teaching translator: tokens → … → the next token, every shape"),
                              run_trace, tr("Attention"));
  cmd->add_option("TEXT", o->text, tr("A Korean sentence of the translator's domain (\"나는 학생 이다\")"))->required();
  o->target_opt = add_target_flag(cmd, o->target,
                                  tr("the decoder's input after <bos>, English words; \"\" = <bos> alone; default: the model's "
                                     "translation without its last word, so the trace ends by predicting it"));
  add_head_flag(cmd, o->head, tr("the one head the poster draws, so not all here"));
  add_show_flag(cmd, o->show, tr("in the table output"));
  o->slides_opt = cmd->add_option("--slides", o->slides,
                  tr("Write every step drawn as a 16:9 slide of its own (1920×1080 at --scale 1), with its formula and shapes, into "
                     "folder DIR, created if missing: 00-poster (the whole poster), 00a-poster … 00e-poster (the poster in 16:9 "
                     "parts), 01-tokens, 02-embedding, … 20-next-token"))
      ->type_name("DIR")
      ->group(tr("Figures"));
  cmd->add_option("--slides-format", o->slides_format, tr("The --slides files: png or svg"))
      ->capture_default_str()
      ->check(CLI::IsMember(format_names_of(kind_bit(FormatKind::figure))))
      ->group(tr("Figures"));
  add_model_flag(cmd);
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig, false);
  set_examples(cmd, {tr("tfx trace \"나는 학생 이다\"                          # … <bos> I am a → student"),
                     tr("tfx trace \"나는 학생 이다\" --show enc1.self.weights"),
                     tr("tfx trace \"나는 학생 이다\" --target \"I am\"            # → a"),
                     tr("tfx trace \"나는 학생 이다\" --png --scale 2           # the poster, for a projector"),
                     tr("tfx trace \"나는 학생 이다\" --slides slides/           # one 1920×1080 slide per step"),
                     tr("tfx trace \"그녀는 커피를 마셨다\" --format json")});
}

}  // namespace tfx::cli
