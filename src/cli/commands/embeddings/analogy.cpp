// `tfx analogy A B C`: the words nearest to A − B + C (king man woman → queen), with gensim's
// most_similar (3CosAdd) or most_similar_cosmul (3CosMul) semantics; --queries answers many
// queries after one load.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.hpp"
#include "tfx/io/text_file.hpp"
#include "cli/common.hpp"
#include "cli/flags/embedding_flags.hpp"
#include "cli/flags/flag_names.hpp"
#include "cli/present/skipped.hpp"
#include "cli/commands/embeddings/word_lists.hpp"
#include "cli/flags/shared_flags.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct AnalogyOptions {
  std::vector<std::string> words;  // A B C
  std::int64_t k = 5;
  bool keep_inputs = false;
  std::string method = "add";
  std::string batch;
  bool strict = false;
  EmbeddingFlags emb;
  OutputFlags out;
};

const char* score_name(AnalogyMethod m) { return m == AnalogyMethod::add ? "cosine" : "3cosmul"; }

std::string method_text(AnalogyMethod m) {
  return m == AnalogyMethod::add ? tr("3CosAdd: cosine to unit(unit(A) − unit(B) + unit(C)), as gensim most_similar")
                                 : tr("3CosMul: (1+cos(w,A))/2 · (1+cos(w,C))/2 / ((1+cos(w,B))/2 + 1e-6), as gensim most_similar_cosmul");
}

struct Query {
  std::size_t a, b, c;
};

// Rows of the three words; when one is missing, the lookup throws naming it and `unknown` holds
// it (it is left empty for other errors).
Query resolve(const Embeddings& e, const std::vector<std::string>& w, const AnalogyOptions& o, std::string& unknown) {
  std::size_t rows[3];
  for (int i = 0; i < 3; ++i) {
    unknown = w[i];
    rows[i] = lookup_word(e, w[i], o.emb);
  }
  unknown.clear();
  if (rows[0] == rows[1] && rows[1] == rows[2])
    throw usage_error(fmt::format(N_("'{0} − {0} + {0}' is just '{0}': give three words, A − B + C (e.g. king man woman)"), w[0]));
  return {rows[0], rows[1], rows[2]};
}

struct BatchQuery {
  std::vector<std::string> words;  // A B C
  std::string file;                // "" for the command-line query
  std::size_t line = 0;
};

void run_analogy(const AnalogyOptions& o) {
  const AnalogyMethod method = parse_choice<AnalogyMethod>(kAnalogyMethodChoices, o.method, "method");
  if (o.batch.empty() && o.words.size() != 3)
    throw usage_error(fmt::format(N_("expected three words A B C (A − B + C, e.g. tfx analogy king man woman), got {}"), o.words.size()));
  if (!o.batch.empty() && !o.words.empty())
    throw usage_error(N_("give either three words or --queries FILE, not both"));
  const std::size_t k = static_cast<std::size_t>(o.k);
  // 1. the queries (before loading, so a bad --queries file fails fast)
  std::vector<BatchQuery> queries;
  if (o.batch.empty()) {
    queries.push_back({o.words, "", 0});
  } else {
    const std::string name = o.batch == "-" ? "<stdin>" : o.batch;
    if (o.batch != "-") {
      std::error_code ec;
      if (std::filesystem::is_directory(o.batch, ec))
        throw Error(fmt::format(N_("--queries {}: is a directory; expected a file of 'A B C' lines"), o.batch));
      // a missing or unreadable file is a data error (exit 1), like every input file
      // (access, not an open: opening a named pipe would wait for its writer, and it is read below)
      if (::access(o.batch.c_str(), R_OK) != 0)
        throw Error(fmt::format(N_("--queries {}: cannot open the file: {}"), o.batch,
                                std::filesystem::exists(o.batch, ec) ? "permission denied" : "no such file"));
    }
    // read whole (bounded: /dev/zero is refused, not read until memory runs out), BOM removed
    std::istringstream text(read_text_input(o.batch, "--queries"));
    std::istream* in = &text;
    std::string line;
    for (std::size_t ln = 1; std::getline(*in, line); ++ln) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      std::istringstream ss(line);
      std::vector<std::string> w;
      for (std::string t; ss >> t;) w.push_back(t);
      // blank lines, "#" comments and questions-words' ": section" lines (":" alone is a word in
      // some vocabularies, so only ": NAME" is a section line)
      if (w.empty() || w[0][0] == '#' || (w[0] == ":" && w.size() == 2)) continue;
      if (w.size() != 3 && w.size() != 4)
        throw Error(fmt::format(N_("{}:{}: expected 'A B C' (or 'A B C D' as in questions-words.txt), found {} words"), name, ln, w.size()));
      w.resize(3);
      queries.push_back({w, name, ln});
    }
    if (queries.empty()) throw Error(fmt::format(N_("{}: no queries (expected lines 'A B C')"), name));
  }
  // 2. one load, then every query
  const Embeddings e = load_embeddings(o.emb);
  Result r;
  r.command = "analogy";
  r.params = {{"k", k}, {"method", o.method}, {"keep_inputs", o.keep_inputs}, {"embeddings", e.name()},
              {"words", e.size()}, {"dim", e.dim()}};
  Records rec;
  rec.name = N_("analogy");
  const bool batch = !o.batch.empty();
  if (batch) rec.columns = {N_("a"), N_("b"), N_("c"), N_("rank"), N_("word"), score_name(method)};
  else rec.columns = {N_("rank"), N_("word"), score_name(method)};
  // a batch answers every query it can and skips the others (each reported on stderr and in
  // tables.skipped), unless --strict; a single query's problem is an error
  std::vector<SkippedQuery> skipped;
  std::vector<std::size_t> asked;  // every answered query's rows, for the subword notes
  for (const auto& [w, file, line] : queries) {
    Query q{0, 0, 0};
    std::vector<Neighbour> best;
    std::string unknown;
    try {
      q = resolve(e, w, o, unknown);
      best = analogy(e, q.a, q.b, q.c, k, method, !o.keep_inputs);
      if (best.empty())  // an empty table with exit 0 looked like an answer
        throw Error(fmt::format(N_("{} has no word besides {}, {}, {} to answer with ({} words); use a larger vocabulary or "
                                "--keep-inputs"),
                                e.name(), e.word(q.a), e.word(q.b), e.word(q.c), e.size()));
      asked.insert(asked.end(), {q.a, q.b, q.c});
    } catch (const Error& err) {
      if (!batch) throw;
      if (o.strict) throw Error(fmt::format(N_("{}:{}: {} (--strict)"), file, line, message_with_flags(err)), err.kind());
      skipped.push_back({file, line, fmt::format("{} {} {}", w[0], w[1], w[2]), unknown, message_with_flags(err)});
      continue;
    }
    for (std::size_t i = 0; i < best.size(); ++i) {
      const auto rank = static_cast<long long>(i + 1);
      std::string word(e.word(best[i].index));
      if (batch)
        rec.rows.push_back({std::string(e.word(q.a)), std::string(e.word(q.b)), std::string(e.word(q.c)), rank, std::move(word), best[i].score});
      else
        rec.rows.push_back({rank, std::move(word), best[i].score});
    }
    if (!batch) {
      r.params["a"] = std::string(e.word(q.a));
      r.params["b"] = std::string(e.word(q.b));
      r.params["c"] = std::string(e.word(q.c));
      r.blocks.push_back(Text{trf("{} − {} + {} ≈ ?   ({} words × {} dims: {})", e.word(q.a), e.word(q.b),
                                          e.word(q.c), e.size(), e.dim(), e.name())});
      if (!best.empty()) {
        r.summary[N_("best")] = std::string(e.word(best[0].index));
        r.summary[N_("score")] = best[0].score;
      }
    }
  }
  if (batch) {
    const std::size_t answered = queries.size() - skipped.size();
    if (answered == 0)  // one error line, naming the first problem
      throw Error(fmt::format(N_("{}: none of the {} queries could be answered (line {}: {})"), skipped[0].file,
                              queries.size(), skipped[0].line, skipped[0].reason));
    report_skipped(skipped);
    r.blocks.push_back(Text{trf("{} queries A − B + C over {} ({} words × {} dims){}", queries.size(), e.name(), e.size(), e.dim(),
                                        skipped.empty() ? "" : trf("; {} answered, {} skipped", answered, skipped.size()))});
    r.summary[N_("queries")] = queries.size();
    r.summary[N_("answered")] = answered;
    r.summary[N_("skipped")] = skipped.size();
  }
  subword_notes(r, e, asked);
  r.blocks.push_back(Text{method_text(method) + (o.keep_inputs ? tr("; inputs kept (--keep-inputs)") : tr("; A, B, C excluded"))});
  if (e.info().format == EmbeddingFormat::builtin)
    r.blocks.push_back(Text{tr("the built-in embedding is constructed for teaching; use real vectors with --embeddings FILE (see tfx embeddings info)")});
  r.blocks.push_back(std::move(rec));
  if (batch && o.out.format == Format::json) r.blocks.push_back(skipped_records(skipped));
  r.primary = "analogy";
  present(r, o.out);
}

}  // namespace

void register_analogy(CLI::App& app) {
  auto [cmd, o] = add_command(app, "analogy", tr("Word analogy A − B + C: the words nearest to king − man + woman (≈ queen)"),
                              run_analogy, tr("Word embeddings"));
  cmd->add_option("words", o->words, tr("A B C: computes A − B + C (king man woman), fastText's `analogies` order; the same query as gensim's "
                     "most_similar(positive=[A, C], negative=[B]) (--method mul: most_similar_cosmul)"))
      ->expected(3)
      ->type_name("WORD")
      ->check(non_empty_word());
  add_top_flag(cmd, o->k, tr("the best answers; 1…100000 here"), 1, 100000, true);
  cmd->add_option("--method", o->method, trf("Analogy method: {}", choice_list<AnalogyMethod>(kAnalogyMethodChoices, true)))
      ->capture_default_str()
      ->check(one_of<AnalogyMethod>(kAnalogyMethodChoices));
  cmd->add_flag("--keep-inputs", o->keep_inputs, tr("Do not exclude A, B, C from the results (shows what would win without the exclusion)"));
  cmd->add_option("--queries", o->batch, tr("Answer one query 'A B C' per line of FILE (- = stdin) after a single load; "
                                          "'A B C D' lines and ': section' lines of questions-words.txt are accepted; a query with "
                                          "an unknown word is skipped and reported on stderr (exit 1 only when none is answered)"))
      ->check(non_empty_path(N_("- reads stdin")));
  add_strict_flag(cmd, o->strict);
  add_embedding_flags(cmd, o->emb);
  add_output_flags(cmd, o->out, false);
  set_examples(cmd, {tr("tfx analogy king man woman                  # built-in teaching embedding: queen"),
                     tr("tfx analogy paris france germany -k 3"),
                     tr("tfx analogy king man woman --embeddings glove.6B.100d.txt --method mul"),
                     tr("tfx analogy king man woman --keep-inputs    # king itself is usually nearest"),
                     tr("printf 'king man woman\\nwalked walk go\\n' | tfx analogy --queries - --format json")});
}

}  // namespace tfx::cli
