// `tfx eval-analogies FILE`: accuracy on the Google analogy test set (questions-words.txt), per
// section, semantic/syntactic and total, exactly as gensim's evaluate_word_analogies.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>

#include "cli/flags/flag_names.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/flags/embedding_flags.hpp"
#include "cli/present/progress_bar.hpp"
#include "cli/present/skipped.hpp"
#include "tfx/embeddings/evaluation.hpp"
#include "cli/commands/embeddings/word_lists.hpp"
#include "cli/flags/shared_flags.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct EvalAnalogiesOptions {
  std::string file;
  std::int64_t restrict_vocab = 300000;
  std::string method = "add";
  bool case_sensitive = false;
  bool skip_invalid = false;
  bool dummy4unknown = false;
  bool no_progress = false;
  bool strict = false;
  std::int64_t errors = 0;
  EmbeddingFlags emb;
  OutputFlags out;
};

std::string percent(double fraction) { return std::isnan(fraction) ? tr("n/a") : fmt::format("{:.1f}%", 100 * fraction); }

std::vector<Cell> score_row(const std::string& name, const SectionScore& s) {
  // a section with no answered question has no accuracy: NaN, shown "n/a" (null in JSON)
  return {name, static_cast<long long>(s.correct), static_cast<long long>(s.answered()), s.accuracy(),
          static_cast<long long>(s.oov)};
}

void run_eval_analogies(const EvalAnalogiesOptions& o) {
  const AnalogySet set = read_analogy_set(o.file, o.skip_invalid);  // parse first: a bad file fails fast
  const Embeddings e = load_embeddings(o.emb);
  AnalogyEvalOptions opt;
  opt.restrict_vocab = static_cast<std::size_t>(o.restrict_vocab);
  opt.case_insensitive = !o.case_sensitive;
  opt.dummy4unknown = o.dummy4unknown;
  opt.method = parse_choice<AnalogyMethod>(kAnalogyMethodChoices, o.method, "method");
  ProgressBar bar(tr("analogies"), tr("questions"), !o.no_progress);
  opt.progress = bar.callback();
  const AnalogyEvaluation ev = evaluate_word_analogies(e, set, opt);
  bar.finish();
  // questions with a word outside the vocabulary are skipped, as in gensim: each is reported
  // (with --strict the first is an error); none answered is an error
  const std::string where = fmt::format("the first {} words{}", ev.restrict_vocab, opt.case_insensitive ? " (upper-cased)" : "");
  std::vector<SkippedQuery> skipped;
  for (const auto& s : ev.skipped) {
    const auto& q = s.question;
    skipped.push_back({o.file, q.line, fmt::format("{} {} {} {}", q.a, q.b, q.c, q.expected), s.word,
                       fmt::format("'{}' is not among {}", s.word, where)});
  }
  if (o.strict && !skipped.empty())
    throw Error(fmt::format(N_("{}:{}: {} (--strict)"), o.file, skipped[0].line, skipped[0].reason));
  if (!o.dummy4unknown) {
    if (ev.total.answered() == 0)  // one error line, naming the first problem
      throw Error(fmt::format(N_("{}: none of the {} questions could be answered (line {}: {})"), o.file, ev.questions,
                              skipped.at(0).line, skipped.at(0).reason));
    report_skipped(skipped);
  }

  Result r;
  r.command = "eval-analogies";
  r.params = {{"file", o.file}, {"restrict_vocab", o.restrict_vocab}, {"method", o.method},
              {"case_insensitive", opt.case_insensitive}, {"dummy4unknown", o.dummy4unknown}};
  embedding_params(r, e);
  r.blocks.push_back(Text{trf("{}: {} questions in {} sections{}", o.file, ev.questions, ev.sections.size(),
                                      set.skipped_lines ? trf(" ({} malformed lines skipped)", set.skipped_lines) : "")});
  r.blocks.push_back(Text{trf(
      "{} ({} words × {} dims), first {} words{}; {} by {}", e.name(), e.size(), e.dim(), ev.restrict_vocab,
      opt.case_insensitive ? tr(", upper-cased") : tr(", case-sensitive"),
      opt.method == AnalogyMethod::add ? "3CosAdd" : "3CosMul",
      opt.method == AnalogyMethod::add ? "gensim most_similar" : "gensim most_similar_cosmul")});
  r.blocks.push_back(Text{trf("{} (a word outside the first {} words): {} of {} questions = {:.1f}%",
                                      o.dummy4unknown ? tr("counted as wrong") : tr("skipped"), ev.restrict_vocab, ev.oov,
                                      ev.questions, ev.oov_ratio)});
  Records rec;
  rec.name = N_("sections");
  rec.columns = {N_("section"), N_("correct"), N_("answered"), N_("accuracy"), N_("oov_skipped")};
  for (const auto& s : ev.sections) rec.rows.push_back(score_row(s.name, s));
  rec.rows.push_back(score_row("semantic (first 5 sections)", ev.semantic));
  rec.rows.push_back(score_row("syntactic", ev.syntactic));
  rec.rows.push_back(score_row("total", ev.total));
  r.blocks.push_back(std::move(rec));
  r.blocks.push_back(Text{trf("Total accuracy: {} ({}/{}); semantic {}, syntactic {}", percent(ev.total.accuracy()),
                                      ev.total.correct, ev.total.answered(), percent(ev.semantic.accuracy()),
                                      percent(ev.syntactic.accuracy()))});
  if (o.errors > 0) {
    Records err;
    err.name = N_("errors");
    err.columns = {N_("section"), N_("line"), N_("question"), N_("expected"), N_("predicted")};
    const std::size_t n = std::min(ev.misses.size(), static_cast<std::size_t>(o.errors));
    for (std::size_t i = 0; i < n; ++i) {
      const auto& m = ev.misses[i];
      err.rows.push_back({ev.sections[m.section].name, static_cast<long long>(m.question.line),
                          fmt::format("{} : {} :: {} : ?", m.question.a, m.question.b, m.question.c), m.question.expected,
                          m.predicted.empty() ? std::string("(none)") : m.predicted});
    }
    r.blocks.push_back(Text{trf("first {} of {} wrong answers:", n, ev.misses.size())});
    r.blocks.push_back(std::move(err));
  }
  builtin_note(r, e);
  auto nan_null = [](double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); };
  r.summary = {{"accuracy", nan_null(ev.total.accuracy())},
               {"correct", ev.total.correct},
               {"answered", ev.total.answered()},
               {"semantic_accuracy", nan_null(ev.semantic.accuracy())},
               {"syntactic_accuracy", nan_null(ev.syntactic.accuracy())},
               {"questions", ev.questions},
               {"oov", ev.oov},
               {"oov_percent", ev.oov_ratio}};
  const Format f = o.out.format;
  if (f == Format::table || f == Format::md) r.summary = nlohmann::json::object();  // the text already says it
  if (f == Format::json && !o.dummy4unknown) r.blocks.push_back(skipped_records(skipped));
  r.primary = "sections";
  present(r, o.out);
}

}  // namespace

void register_eval_analogies(CLI::App& app) {
  auto [cmd, o] = add_command(app, "eval-analogies", tr("Analogy-set accuracy per section and total (questions-words.txt), as gensim\'s evaluate_word_analogies"),
                              run_eval_analogies, tr("Word embeddings"));
  cmd->add_option("file", o->file, tr("Analogy file: ': section' lines, then 'a b c d' questions (a:b :: c:d)"))
      ->required()
      ->check(non_empty_path(N_("give an analogy file such as questions-words.txt")));
  add_restrict_vocab_flag(cmd, o->restrict_vocab);
  cmd->add_option("--method", o->method, trf("Analogy method: {}", choice_list<AnalogyMethod>(kAnalogyMethodChoices, true)))
      ->capture_default_str()
      ->check(one_of<AnalogyMethod>(kAnalogyMethodChoices));
  add_case_sensitive_flag(cmd, o->case_sensitive);
  add_dummy4unknown_flag(cmd, o->dummy4unknown);
  add_skip_invalid_flag(cmd, o->skip_invalid);
  cmd->add_option("--errors", o->errors, tr("Also list the first N wrong answers"))
      ->capture_default_str()
      ->check(whole_number(0, std::int64_t{1} << 40));
  add_strict_flag(cmd, o->strict);
  add_no_progress_flag(cmd, o->no_progress);
  add_embedding_flags(cmd, o->emb);
  cmd->remove_option(cmd->get_option("--ignore-case"));  // case folding is --case-sensitive's job here
  add_output_flags(cmd, o->out, false);
  set_examples(cmd, {tr("tfx eval-analogies questions-words.txt --embeddings glove.6B.100d.txt"),
                     tr("tfx eval-analogies questions-words.txt --embeddings vectors.bin --restrict-vocab 30000 --errors 20"),
                     tr("tfx eval-analogies questions-words.txt --method mul --format json")});
}

}  // namespace tfx::cli
