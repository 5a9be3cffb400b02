// The built-in teaching embedding: a table over the vectors generated at build time from
// samples/teaching_embedding.tsv (cmake/builtin_embedding.cmake). The vectors are used in
// place (static data); only the word table and the norms are built, once, on first use.
#include <string>

#include "tfx/core/i18n.hpp"
#include "embeddings_store.hpp"

namespace tfx::detail {
extern const std::size_t kBuiltinRows;
extern const std::size_t kBuiltinDim;
extern const std::size_t kBuiltinNamedAxes;
extern const char* const kBuiltinWords[];
extern const char* const kBuiltinAxes[];
extern const char* const kBuiltinAxisHelp[];
extern const float kBuiltinVectors[];
}  // namespace tfx::detail

namespace tfx {

std::shared_ptr<const Embeddings::Store> builtin_store() {
  static const std::shared_ptr<const Embeddings::Store> store = [] {
    auto s = std::make_shared<Embeddings::Store>();
    WordList words;
    for (std::size_t i = 0; i < detail::kBuiltinRows; ++i) words.push(detail::kBuiltinWords[i]);
    std::vector<unsigned char> keep;
    build_word_table(*s, words, keep);  // the generator refuses duplicates, so all are kept
    s->d = detail::kBuiltinDim;
    s->vectors = detail::kBuiltinVectors;
    compute_norms(*s);
    s->name = tr("the built-in teaching embedding");  // a display name: in the output language
    s->info.format = EmbeddingFormat::builtin;
    s->info.cache_state = "none (compiled into tfx)";
    s->info.file_rows = detail::kBuiltinRows;
    for (std::size_t k = 0; k < detail::kBuiltinDim; ++k) s->axes.emplace_back(detail::kBuiltinAxes[k]);
    return std::shared_ptr<const Embeddings::Store>(std::move(s));
  }();
  return store;
}

const Embeddings& builtin_embedding() {
  static const Embeddings e(builtin_store(), builtin_store()->n);
  return e;
}

std::vector<std::pair<std::string, std::string>> builtin_axes() {
  std::vector<std::pair<std::string, std::string>> out;
  for (std::size_t k = 0; k < detail::kBuiltinNamedAxes; ++k) out.emplace_back(detail::kBuiltinAxes[k], detail::kBuiltinAxisHelp[k]);
  return out;
}

}  // namespace tfx
