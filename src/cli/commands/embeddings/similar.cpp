// `tfx similar WORD…`: nearest neighbours by cosine, as gensim's most_similar(WORD) (several
// words: the mean of their unit vectors, minus --negative words).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "cli/flags/shared_flags.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/flags/embedding_flags.hpp"
#include "cli/commands/embeddings/word_lists.hpp"

namespace tfx::cli {

namespace {

struct SimilarOptions {
  std::vector<std::string> words;
  std::vector<std::string> negative;
  std::int64_t k = 10;
  EmbeddingFlags emb;
  OutputFlags out;
  FigureFlags fig;
};

void run_similar(const SimilarOptions& o) {
  const auto negative_words = split_lists(o.negative);
  const Embeddings e = load_embeddings(o.emb);
  const auto pos = lookup_words(e, o.words, o.emb);
  const auto neg = lookup_words(e, negative_words, o.emb, "--negative");
  const auto best = most_similar(e, pos, neg, static_cast<std::size_t>(o.k));

  Result r;
  r.command = "similar";
  std::vector<std::string> shown_pos, shown_neg;
  for (auto i : pos) shown_pos.emplace_back(e.word(i));
  for (auto i : neg) shown_neg.emplace_back(e.word(i));
  r.params = {{"positive", shown_pos}, {"negative", shown_neg}, {"k", o.k}};
  embedding_params(r, e);
  std::string query = fmt::format("{}", fmt::join(shown_pos, " + "));
  if (!shown_neg.empty()) query += fmt::format(" − {}", fmt::join(shown_neg, " − "));
  r.blocks.push_back(Text{trf("nearest to {} by cosine ({} words × {} dims: {}); the query words are excluded",
                                      query, e.size(), e.dim(), e.name())});
  Records rec;
  rec.name = N_("similar");
  rec.columns = {N_("rank"), N_("word"), N_("cosine")};
  for (std::size_t i = 0; i < best.size(); ++i)
    rec.rows.push_back({static_cast<long long>(i + 1), std::string(e.word(best[i].index)), best[i].score});
  r.blocks.push_back(std::move(rec));
  subword_notes(r, e, pos);
  subword_notes(r, e, neg);
  builtin_note(r, e);
  r.primary = "similar";

  // the figure: one horizontal bar per neighbour, the nearest at the top, its cosine printed
  Bars b;
  b.title = trf("Nearest neighbours of {} by cosine", query);
  b.subtitle = trf("{} · {} words × {} dims", std::filesystem::path(e.name()).filename().string(), e.size(), e.dim());
  b.horizontal = true;
  b.annotate = true;
  b.value_label = tr("cosine similarity");
  b.category_label = tr("neighbour");
  for (const auto& n : best) {
    b.labels.emplace_back(e.word(n.index));
    b.values.push_back(n.score);
  }
  Figure figure;
  figure.panels.push_back(std::move(b));
  std::string name = "similar";
  for (std::size_t i = 0; i < std::min<std::size_t>(shown_pos.size(), 3); ++i) name += "_" + file_safe(shown_pos[i]);
  present_all(r, o.out, o.fig, &figure, nullptr, fmt::format("{}_k{}.png", name, o.k));
}

}  // namespace

void register_similar(CLI::App& app) {
  auto [cmd, o] = add_command(app, "similar", tr("Nearest neighbours of a word by cosine similarity (gensim most_similar)"),
                              run_similar, tr("Word embeddings"));
  cmd->add_option("words", o->words, tr("WORD (several: the mean of their unit vectors)"))->required()->check(non_empty_word());
  add_top_flag(cmd, o->k, tr("the nearest neighbours; 1…1000000 here"), 1, 1000000, true);
  cmd->add_option("--negative", o->negative, tr("Words to subtract (comma-separated; gensim's negative=[…])"))->check(comma_list(N_("vocabulary words"), "dog,cat,car"));
  add_embedding_flags(cmd, o->emb);
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig, false);
  set_examples(cmd, {tr("tfx similar king                              # built-in teaching embedding"),
                     tr("tfx similar king --png                        # bars of the neighbours' cosines"),
                     tr("tfx similar king -k 10 --embeddings glove.6B.100d.txt"),
                     tr("tfx similar king woman --negative man -k 3       # = tfx analogy king man woman"),
                     tr("tfx similar paris --format json")});
}

}  // namespace tfx::cli
