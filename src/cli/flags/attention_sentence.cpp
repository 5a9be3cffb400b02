// Sentence → X for `tfx attention`: word tokens, embedding lookup (OOV → <unk> or zero with a
// warning), plus sinusoidal PE. The only file of the command that knows about embeddings.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "cli/flags/attention_sentence.hpp"
#include "cli/flags/embedding_flags.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/embeddings/embeddings.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/positional/positional.hpp"
#include "tfx/text/tokenizer.hpp"
#include "tfx/text/unicode.hpp"

namespace tfx::cli {

struct SentenceSource {
  EmbeddingFlags flags;                     // --embeddings and the other shared embedding flags
  mutable std::optional<Embeddings> table;  // loaded once, on first use (--sentence and --cross share it)
  const Embeddings& embeddings() const {
    if (!table) table = load_embeddings(flags);
    return *table;
  }
};

std::vector<std::string> sentence_tokens(const std::string& sentence, const std::string& flag) {
  // the word tokenizer of `tfx tokenize --mode word`, lower-cased (accents and Hangul kept, as
  // the teaching embedding spells its words): punctuation is a token of its own
  std::size_t bad = 0;
  const std::string shown = unicode::escape_invalid_utf8(sentence, &bad);
  if (bad > 0)
    throw usage_error(bad == 1 ? fmt::format(N_("{} '{}' is not valid UTF-8 (1 invalid byte); expected UTF-8 text"), flag, shown)
                               : fmt::format(N_("{} '{}' is not valid UTF-8 ({} invalid bytes); expected UTF-8 text"), flag, shown, bad));
  try {
    return tokenize(sentence, TokenizerMode::word, builtin_vocab(), Casing::lower).tokens;
  } catch (const Error& e) {
    throw usage_error(fmt::format(N_("{} '{}' has no words; expected e.g. {} \"I love playing football.\""), flag, sentence, flag));
  }
}

std::shared_ptr<SentenceSource> add_sentence_source_flags(CLI::App* app) {
  auto s = std::make_shared<SentenceSource>();
  add_embedding_flags(app, s->flags);
  return s;
}

TokenSequence embed_sentence(const SentenceSource& source, const std::string& sentence, const std::string& flag, bool add_pe) {
  TokenSequence seq;
  seq.tokens = sentence_tokens(sentence, flag);
  seq.shown = tokenize(sentence, TokenizerMode::word, builtin_vocab(), Casing::keep).tokens;
  if (seq.shown.size() != seq.tokens.size()) seq.shown = seq.tokens;
  const Embeddings& e = source.embeddings();
  const std::size_t T = seq.tokens.size(), D = e.dim();
  if (D == 0) throw Error(fmt::format(N_("{}: {} has no vectors"), flag, e.name()));
  checked_element_count({T, D}, fmt::format("{} with {} words of dimension {}", flag, T, D));
  // 1. X = the embedding row of each token (lower-cased; a case-folded match for mixed-case
  //    tables); out of vocabulary: <unk> when the table has it, else zeros, with a warning
  const std::optional<std::size_t> unk = e.find("<unk>");
  std::vector<std::string> missing;
  bool case_hint = false;
  seq.x = Tensor({T, D});
  for (std::size_t t = 0; t < T; ++t) {
    std::optional<std::size_t> row = e.find(seq.tokens[t], source.flags.ignore_case);
    if (!row) {
      missing.push_back(seq.tokens[t]);
      case_hint = case_hint || e.find_ignore_case(seq.tokens[t]).has_value();
      row = unk;
    }
    if (row) {
      const auto v = e.row(*row);
      std::copy(v.begin(), v.end(), seq.x.row(t).begin());
    }
  }
  if (!missing.empty()) {
    std::string words;
    for (const auto& w : missing) words += (words.empty() ? "'" : ", '") + w + "'";
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n",
                 trf("tfx: warning: {}: {} not in {}; using {}{}", flag, words, e.name(),
                     unk ? tr("the <unk> vector") : tr("a zero vector"), case_hint ? tr(" (another case is there: try --ignore-case)") : "")
                     .c_str());
  }
  // 2. + PE(pos, i) for positions 0 … T−1
  if (add_pe) seq.x = add(seq.x, sinusoidal_encoding(T, D));
  return seq;
}

std::string sentence_source_description(const SentenceSource& source) {
  const Embeddings& e = source.embeddings();
  return fmt::format("{}, d_model = {}", e.name(), e.dim());
}

std::string sentence_source_choice(const SentenceSource& source) {
  const EmbeddingFlags& f = source.flags;
  if (!f.path.empty()) return tr("--embeddings given");
  if (f.translator) return "";
  const char* env = std::getenv("TFX_EMBEDDINGS");
  if (env && *env) return tr("$TFX_EMBEDDINGS set");
  if (f.ignore_case) return tr("--ignore-case given");
  if (f.limit) return tr("--limit given");
  return "";
}

std::string sentence_source_name(const SentenceSource& source) { return source.embeddings().name(); }

std::size_t sentence_source_words(const SentenceSource& source) { return source.embeddings().size(); }

}  // namespace tfx::cli
