// `tfx similarity W1 W2`: cosine, dot product and Euclidean distance of two word vectors, with
// their norms and the angle between them.
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/flags/embedding_flags.hpp"
#include "tfx/embeddings/explore.hpp"
#include "cli/commands/embeddings/word_lists.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct SimilarityOptions {
  std::vector<std::string> words;
  EmbeddingFlags emb;
  OutputFlags out;
};

void run_similarity(const SimilarityOptions& o) {
  if (o.words.size() != 2) throw usage_error(fmt::format(N_("expected two words W1 W2 (e.g. tfx similarity king queen), got {}"), o.words.size()));
  const Embeddings e = load_embeddings(o.emb);
  const auto rows = lookup_words(e, o.words, o.emb);
  const std::string a(e.word(rows[0])), b(e.word(rows[1]));
  const VectorComparison c = compare_vectors(e.row(rows[0]), e.row(rows[1]));
  Result r;
  r.command = "similarity";
  r.params = {{"word1", a}, {"word2", b}};
  embedding_params(r, e);
  r.blocks.push_back(Text{trf("{} vs {} ({} dims: {})", a, b, e.dim(), e.name())});
  Records rec;
  rec.name = N_("similarity");
  rec.columns = {N_("measure"), N_("value"), N_("formula")};
  rec.rows = {{std::string("cosine"), c.cosine, std::string("a·b / (‖a‖‖b‖)")},
              {std::string("dot"), c.dot, std::string("Σ aᵢbᵢ")},
              {std::string("euclidean"), c.euclidean, std::string("‖a − b‖")},
              {std::string("angle_degrees"), c.angle_degrees, std::string("acos(cosine)")},
              {std::string("norm1"), c.norm_a, fmt::format("‖{}‖", a)},
              {std::string("norm2"), c.norm_b, fmt::format("‖{}‖", b)}};
  r.blocks.push_back(std::move(rec));
  subword_notes(r, e, rows);
  builtin_note(r, e);
  r.summary = {{"cosine", c.cosine}, {"dot", c.dot}, {"euclidean", c.euclidean}, {"angle_degrees", c.angle_degrees},
               {"norm1", c.norm_a}, {"norm2", c.norm_b}};
  r.primary = "similarity";
  if (o.out.format == Format::table || o.out.format == Format::md) r.summary = nlohmann::json::object();
  present(r, o.out);
}

}  // namespace

void register_similarity(CLI::App& app) {
  auto [cmd, o] = add_command(app, "similarity", tr("Cosine, dot product and Euclidean distance of two words' vectors, with their norms"),
                              run_similarity, tr("Word embeddings"));
  cmd->add_option("words", o->words, tr("W1 W2"))->required()->expected(2)->check(non_empty_word());
  add_embedding_flags(cmd, o->emb);
  add_output_flags(cmd, o->out, false);
  set_examples(cmd, {tr("tfx similarity king queen"),
                     tr("tfx similarity cat dog --embeddings glove.6B.100d.txt --format json")});
}

}  // namespace tfx::cli
