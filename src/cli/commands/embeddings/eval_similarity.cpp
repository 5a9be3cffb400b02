// `tfx eval-similarity FILE`: Pearson and Spearman correlation of the model's cosines with human
// similarity scores (WordSim353, SimLex-999), and the out-of-vocabulary ratio, as gensim's
// evaluate_word_pairs.
#include <fmt/format.h>

#include <cmath>
#include <filesystem>

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

struct EvalSimilarityOptions {
  std::string file;
  std::int64_t restrict_vocab = 300000;
  bool case_sensitive = false;
  bool skip_invalid = false;
  bool dummy4unknown = false;
  bool list = false;
  bool strict = false;
  bool no_progress = false;
  EmbeddingFlags emb;
  OutputFlags out;
  FigureFlags fig;
};

void run_eval_similarity(const EvalSimilarityOptions& o) {
  const WordPairSet set = read_word_pairs(o.file, o.skip_invalid);
  const Embeddings e = load_embeddings(o.emb);
  PairEvalOptions opt;
  opt.restrict_vocab = static_cast<std::size_t>(o.restrict_vocab);
  opt.case_insensitive = !o.case_sensitive;
  opt.dummy4unknown = o.dummy4unknown;
  // the bar counts the vocabulary words keyed (upper-cased), then the pairs scored
  ProgressBar bar("eval-similarity", tr("words+pairs"), !o.no_progress);
  opt.progress = bar.callback();
  const WordPairEvaluation ev = evaluate_word_pairs(e, set, opt);  // throws when no pair is in the vocabulary
  bar.finish();
  // pairs with a word outside the vocabulary are skipped, as in gensim: each is reported (with
  // --strict the first is an error)
  std::vector<SkippedQuery> skipped;
  for (const auto& m : ev.missing)
    skipped.push_back({o.file, m.pair.line, m.pair.a + " " + m.pair.b, m.word,
                       fmt::format("'{}' is not among the first {} words{}", m.word, std::min<std::size_t>(opt.restrict_vocab, e.size()),
                                   opt.case_insensitive ? " (upper-cased)" : "")});
  if (o.strict && !skipped.empty())
    throw Error(fmt::format(N_("{}:{}: {} (--strict)"), o.file, skipped[0].line, skipped[0].reason));
  if (!o.dummy4unknown) report_skipped(skipped);

  Result r;
  r.command = "eval-similarity";
  r.params = {{"file", o.file}, {"restrict_vocab", o.restrict_vocab}, {"case_insensitive", opt.case_insensitive}, {"dummy4unknown", o.dummy4unknown}};
  embedding_params(r, e);
  r.blocks.push_back(Text{trf("{}: {} pairs{}; {} ({} words × {} dims), first {} words{}", o.file, ev.pairs,
                                      set.skipped_lines ? trf(" ({} malformed lines skipped)", set.skipped_lines) : "",
                                      e.name(), e.size(), e.dim(), std::min<std::size_t>(opt.restrict_vocab, e.size()),
                                      opt.case_insensitive ? tr(", upper-cased") : tr(", case-sensitive"))});
  Records rec;
  rec.name = N_("correlation");
  rec.columns = {N_("pearson"), N_("pearson_p"), N_("spearman"), N_("spearman_p"), N_("pairs"), N_("used"), N_("oov"), N_("oov_percent")};
  const std::size_t used = ev.scored.size() + (o.dummy4unknown ? ev.oov : 0);
  rec.rows = {{ev.pearson, ev.pearson_p, ev.spearman, ev.spearman_p, static_cast<long long>(ev.pairs),
               static_cast<long long>(used), static_cast<long long>(ev.oov), ev.oov_ratio}};
  r.blocks.push_back(std::move(rec));
  r.blocks.push_back(Text{trf("Pearson r = {:.4f} (p = {:.3g}), Spearman ρ = {:.4f} (p = {:.3g}) over {} pairs", ev.pearson,
                                      ev.pearson_p, ev.spearman, ev.spearman_p, used)});
  r.blocks.push_back(Text{trf("{} {} of {} pairs with a word outside the vocabulary: {:.1f}%",
                                      o.dummy4unknown ? tr("scored 0 for") : tr("skipped"), ev.oov, ev.pairs, ev.oov_ratio)});
  if (o.list) {
    Records pairs;
    pairs.name = N_("pairs");
    pairs.columns = {N_("line"), N_("word1"), N_("word2"), N_("human"), N_("cosine")};
    for (const auto& p : ev.scored)
      pairs.rows.push_back({static_cast<long long>(p.pair.line), p.pair.a, p.pair.b, p.pair.score, p.model});
    for (const auto& m : ev.missing)
      pairs.rows.push_back({static_cast<long long>(m.pair.line), m.pair.a, m.pair.b, m.pair.score, std::nan("")});
    std::stable_sort(pairs.rows.begin(), pairs.rows.end(),
                     [](const auto& x, const auto& y) { return std::get<long long>(x[0]) < std::get<long long>(y[0]); });
    r.blocks.push_back(std::move(pairs));
  }
  builtin_note(r, e);
  r.summary = {{"pearson", ev.pearson}, {"pearson_p", ev.pearson_p}, {"spearman", ev.spearman},
               {"spearman_p", ev.spearman_p}, {"pairs", ev.pairs}, {"used", used},
               {"oov", ev.oov}, {"oov_percent", ev.oov_ratio}};
  const Format f = o.out.figure_format() ? Format::table : o.out.format;
  if (f == Format::table || f == Format::md) r.summary = nlohmann::json::object();
  if (f == Format::json && !o.dummy4unknown) r.blocks.push_back(skipped_records(skipped));
  r.primary = o.list ? "pairs" : "correlation";

  Figure figure;
  const bool drawing = figure_drawn(o.fig, o.out);
  if (drawing) {
    Scatter s;
    s.title = trf("{}: human score vs cosine", std::filesystem::path(o.file).filename().string());
    s.subtitle = trf("Pearson {:.3f}, Spearman {:.3f}, {} pairs ({:.1f}% OOV skipped)", ev.pearson, ev.spearman,
                             ev.scored.size(), ev.oov_ratio);
    s.x_label = tr("human similarity");
    s.y_label = tr("cosine");
    for (const auto& p : ev.scored) s.points.push_back({p.pair.score, p.model, ev.scored.size() <= 40 ? p.pair.a + "/" + p.pair.b : ""});
    figure.panels.push_back(std::move(s));
  }
  present_all(r, o.out, o.fig, drawing ? &figure : nullptr, nullptr, "eval_similarity.png");
}

}  // namespace

void register_eval_similarity(CLI::App& app) {
  auto [cmd, o] = add_command(app, "eval-similarity", tr("Pearson/Spearman vs human word-pair scores (WordSim353, SimLex-999), as gensim\'s evaluate_word_pairs"),
                              run_eval_similarity, tr("Word embeddings"));
  cmd->add_option("file", o->file, tr("Pairs file: 'word1<TAB>word2<TAB>score' lines, '#' comments"))
      ->required()
      ->check(non_empty_path(N_("give a word-pair file such as wordsim353.tsv")));
  add_restrict_vocab_flag(cmd, o->restrict_vocab);
  add_case_sensitive_flag(cmd, o->case_sensitive);
  add_dummy4unknown_flag(cmd, o->dummy4unknown);
  add_skip_invalid_flag(cmd, o->skip_invalid);
  add_strict_flag(cmd, o->strict);
  cmd->add_flag("--list", o->list, tr("List every pair with the human score and the model's cosine"));
  add_no_progress_flag(cmd, o->no_progress);
  add_embedding_flags(cmd, o->emb);
  cmd->remove_option(cmd->get_option("--ignore-case"));
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig, false);
  set_examples(cmd, {tr("tfx eval-similarity wordsim353.tsv --embeddings glove.6B.100d.txt"),
                     tr("tfx eval-similarity simlex999.txt --embeddings glove.6B.100d.txt --list --format csv"),
                     tr("tfx eval-similarity wordsim353.tsv --embeddings glove.6B.100d.txt --png")});
}

}  // namespace tfx::cli
