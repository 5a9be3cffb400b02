// `tfx direction --from dog,cat,car --to dogs,cats,cars`: the lecture's "plural direction", the
// mean difference vector of word pairs, and its dot product with words (plur·E(dog) <
// plur·E(dogs)); --top N lists the vocabulary words scoring highest and lowest.
#include <fmt/format.h>

#include <cstdio>
#include <optional>

#include "cli/flags/shared_flags.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/flags/embedding_flags.hpp"
#include "tfx/embeddings/explore.hpp"
#include "tfx/core/ops.hpp"
#include "cli/commands/embeddings/word_lists.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct DirectionOptions {
  std::vector<std::string> from, to, words;
  std::int64_t top = 0;
  bool cosine = false;
  EmbeddingFlags emb;
  OutputFlags out;
};

void run_direction(const DirectionOptions& o) {
  const auto from_w = split_lists(o.from), to_w = split_lists(o.to);
  auto words = split_lists(o.words);
  if (from_w.empty() || from_w.size() != to_w.size())
    throw usage_error(fmt::format(N_("--from and --to need the same number of words (pairs from→to), got {} and {}"),
                                  from_w.size(), to_w.size()));
  const Embeddings e = load_embeddings(o.emb);
  const auto from = lookup_words(e, from_w, o.emb, "--from");
  const auto to = lookup_words(e, to_w, o.emb, "--to");
  if (words.empty() && o.top == 0)  // default: how the pairs themselves score
    for (std::size_t p = 0; p < from_w.size(); ++p) {
      words.push_back(from_w[p]);
      words.push_back(to_w[p]);
    }
  // --words: a word the vectors do not have is skipped with a note (as batch analogies skip a
  // question); only when none is known is it an error
  std::vector<std::size_t> rows;
  std::vector<std::string> skipped;
  std::optional<Error> first_error;
  for (const std::string& w : words) {
    try {
      rows.push_back(lookup_words(e, {w}, o.emb, "--words").at(0));
    } catch (const Error& err) {
      if (!first_error) first_error = err;
      skipped.push_back(w);
    }
  }
  if (rows.empty() && first_error) throw *first_error;

  // d = mean(E(to) − E(from)); score(w) = d·E(w) (or the cosine with --cosine)
  const std::vector<float> d = mean_difference(e, from, to);
  const std::vector<double> scores = direction_scores(e, d, o.cosine);
  const char* score_name = o.cosine ? "cosine" : "dot";

  Result r;
  r.command = "direction";
  std::vector<std::string> pairs;
  for (std::size_t p = 0; p < from.size(); ++p) pairs.push_back(fmt::format("{}→{}", e.word(from[p]), e.word(to[p])));
  r.params = {{"from", from_w}, {"to", to_w}, {"top", o.top}, {"score", score_name}};
  embedding_params(r, e);
  r.blocks.push_back(Text{pairs.size() == 1 ? trf("direction d = mean of E(to) − E(from) over {} pair: {}", pairs.size(), fmt::join(pairs, ", "))
                                            : trf("direction d = mean of E(to) − E(from) over {} pairs: {}", pairs.size(), fmt::join(pairs, ", "))});
  r.blocks.push_back(Text{trf("score = {} ({} words × {} dims: {})", o.cosine ? "cos(d, E(w))" : "d·E(w)", e.size(),
                                      e.dim(), e.name())});
  Records rec;
  rec.name = N_("direction");
  rec.columns = {N_("word"), score_name};
  for (std::size_t i = 0; i < rows.size(); ++i) rec.rows.push_back({std::string(e.word(rows[i])), direction_score(e, rows[i], d, o.cosine)});
  if (!rec.rows.empty()) r.blocks.push_back(rec);
  if (o.top > 0) {
    Records top;
    top.name = N_("top");
    top.columns = {N_("end"), N_("rank"), N_("word"), score_name};
    for (bool highest : {true, false}) {
      const auto best = extreme_rows(scores, static_cast<std::size_t>(o.top), highest);
      for (std::size_t i = 0; i < best.size(); ++i)
        top.rows.push_back({std::string(highest ? "highest" : "lowest"), static_cast<long long>(i + 1),
                            std::string(e.word(best[i].first)), best[i].second});
    }
    r.blocks.push_back(std::move(top));
  }
  const std::vector<std::size_t>& known = rows;
  for (const auto* list : {&from, &to, &known}) subword_notes(r, e, *list);
  if (!skipped.empty()) {
    std::string list;
    for (const std::string& w : skipped) list += (list.empty() ? "'" : ", '") + w + "'";
    r.blocks.push_back(Text{trf("--words: skipped {} (not in the vocabulary of {})", list, e.name())});
  }
  builtin_note(r, e);
  r.summary[N_("direction_norm")] = norm(d);
  r.primary = rec.rows.empty() ? "top" : "direction";
  present(r, o.out);
}

}  // namespace

void register_direction(CLI::App& app) {
  auto [cmd, o] = add_command(app, "direction", tr("A semantic direction (e.g. plural) as the mean difference of word pairs, and its dot product with words"),
                              run_direction, tr("Word embeddings"));
  cmd->add_option("--from", o->from, tr("Words the pairs start from, comma-separated (dog,cat,car)"))->required()->check(comma_list(N_("vocabulary words"), "dog,cat,car"));
  cmd->add_option("--to", o->to, tr("Words the pairs go to, in the same order (dogs,cats,cars)"))->required()->check(comma_list(N_("vocabulary words"), "dog,cat,car"));
  add_words_flag(cmd, o->words, tr("the words to score; default: the pairs' words"));
  add_top_flag(cmd, o->top, tr("the vocabulary words scoring highest and lowest; 0 = none; 0…100000 here"), 0, 100000, false);
  cmd->add_flag("--cosine", o->cosine, tr("Score by cos(d, E(w)) instead of the dot product d·E(w)"));
  add_embedding_flags(cmd, o->emb);
  add_output_flags(cmd, o->out, false);
  set_examples(cmd, {tr("tfx direction --from dog,cat,car --to dogs,cats,cars --words dog,dogs,apple,apples"),
                     tr("tfx direction --from man,boy --to woman,girl --top 10"),
                     tr("tfx direction --from dog,cat --to dogs,cats --format json")});
}

}  // namespace tfx::cli
