// Word-vector tables: loading (GloVe text, word2vec text/binary, fastText .vec, any of them
// gzip-compressed, and tfx's own memory-mappable cache), the built-in teaching embedding,
// lookup (case-sensitive, or ASCII case-folded), nearest neighbours and analogies with gensim's
// semantics (most_similar = 3CosAdd, most_similar_cosmul = 3CosMul), and close-spelling
// suggestions for out-of-vocabulary words.
//
// Shapes: N = words in the table, D = dimension of every vector.
// Rows are float32 in file order (row 0 = the file's first word = usually the most frequent).
#pragma once
#include "tfx/core/i18n.hpp"
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tfx/core/choices.hpp"
#include "tfx/core/progress.hpp"
#include "tfx/core/tensor.hpp"

namespace tfx {

// ---- sources and formats -----------------------------------------------------------------

enum class EmbeddingFormat {
  detect,        // look at the bytes: gzip magic, tfx cache magic, "N D" header, text vs binary
  glove,         // text, no header: `word v1 … vD` per line (the word may contain spaces)
  word2vec,      // text, first line `N D`, then `word v1 … vD`
  word2vec_bin,  // first line `N D`, then `word ` + D little-endian float32 (+ optional '\n')
  fasttext,      // .vec: word2vec text with a trailing space on every line
  fasttext_bin,  // fastText's binary model (.bin): vocabulary, input matrix of words + subword buckets
  tfx_cache,     // tfx's binary table (written by the cache and `tfx embeddings convert`)
  builtin,       // the teaching embedding compiled into tfx
  memory,        // rows given in memory (from_rows: a model's token embedding)
};

inline constexpr Choice<EmbeddingFormat> kEmbeddingFormatChoices[] = {
    {EmbeddingFormat::detect, "auto"},
    {EmbeddingFormat::detect, "", "", Spelling::hidden},
    {EmbeddingFormat::glove, "glove"},
    {EmbeddingFormat::word2vec, "word2vec"},
    {EmbeddingFormat::word2vec, "word2vec-text", "", Spelling::hidden},
    {EmbeddingFormat::word2vec_bin, "word2vec-bin"},
    {EmbeddingFormat::word2vec_bin, "word2vec-binary", "", Spelling::hidden},
    {EmbeddingFormat::word2vec_bin, "bin", "", Spelling::hidden},
    {EmbeddingFormat::fasttext, "fasttext", N_(".vec")},
    {EmbeddingFormat::fasttext, "vec", "", Spelling::hidden},
    {EmbeddingFormat::fasttext_bin, "fasttext-bin"},
    {EmbeddingFormat::tfx_cache, "tfx"},
    {EmbeddingFormat::builtin, "built-in", "", Spelling::shown},
    {EmbeddingFormat::memory, "model table", "", Spelling::shown},
};
// The formats `tfx embeddings convert --to` writes (a subset: detection and fastText's binary
// model are read-only).
inline constexpr Choice<EmbeddingFormat> kEmbeddingWriteChoices[] = {
    {EmbeddingFormat::tfx_cache, "tfx", N_("binary table, loads in milliseconds")},
    {EmbeddingFormat::glove, "glove", N_("text, no header")},
    {EmbeddingFormat::word2vec, "word2vec", N_("text with an N D header")},
    {EmbeddingFormat::word2vec_bin, "word2vec-bin", N_("binary float32 rows")},
    {EmbeddingFormat::fasttext, "fasttext", N_(".vec text")},
};

// A spelling of kEmbeddingFormatChoices -> format; else a usage error naming `param` (the
// parameter or field the name came from).
EmbeddingFormat parse_embedding_format(const std::string& name, const char* param = "format");
// The inverse ("auto" for detect, "built-in" for builtin).
const char* embedding_format_name(EmbeddingFormat f);

struct EmbeddingSource {
  std::string path;                               // empty = the built-in teaching embedding
  EmbeddingFormat format = EmbeddingFormat::detect;
  std::size_t limit = 0;                          // read only the first `limit` words; 0 = all
  bool use_cache = true;                          // read/write the binary cache for text files
  std::string cache_dir;                          // empty = fallback_cache_dir()
  // Called from the calling thread while a text file or a fastText .bin is parsed, with (bytes
  // done, bytes in all); unset = no reports.
  Progress progress;
  // The same for the pass before a text file is parsed, which reads it once to count its rows
  // (seconds for a big file that is not in the page cache yet).
  Progress count_progress;
};

// What happened while loading (for `tfx embeddings info` and warnings).
struct LoadInfo {
  std::string path;                  // as given ("" for the built-in)
  EmbeddingFormat format = EmbeddingFormat::builtin;  // format of the source file
  bool gzip = false;                 // the source was gzip-compressed
  std::string cache_path;            // cache file used or written ("" when none)
  std::string cache_state;           // "hit", "written", "rebuilt (stale: …)", "rebuilt (corrupt: …)",
                                     // "disabled (use_cache = false)", "not written (limit …)", "none"
  std::size_t duplicates = 0;        // duplicate words dropped (the first of each is kept)
  std::string first_duplicate;       // e.g. "'the' (line 1204)"
  std::size_t file_rows = 0;         // rows read from the file (before dropping duplicates)
};

// The subword model of a fastText .bin: character n-grams of `<word>` with minn ≤ n ≤ maxn
// characters, hashed into `buckets` rows.
struct SubwordInfo {
  std::size_t minn = 0, maxn = 0, buckets = 0;
};

// A loaded table. Cheap to copy (shares the storage, which may be a memory-mapped cache file).
class Embeddings {
 public:
  Embeddings();
  // A table from rows in memory. words: N, vectors: (N, D). Duplicate words keep the first row.
  static Embeddings from_rows(std::vector<std::string> words, const Tensor& vectors, std::string name = "memory");

  std::size_t size() const { return n_; }  // N
  std::size_t dim() const;                 // D
  bool empty() const { return n_ == 0; }
  // Word i (0 <= i < N) as stored: raw bytes, possibly invalid UTF-8.
  std::string_view word(std::size_t i) const;
  // Row i as stored: (D,)
  std::span<const float> row(std::size_t i) const;
  // ||row i||₂ (computed in double when the table was built)
  float norm(std::size_t i) const;
  // row i / ||row i|| (a zero row stays zero): (D,)
  std::vector<float> unit_row(std::size_t i) const;
  // Rows `indices` stacked: (len(indices), D); with `unit`, each row unit-normalised.
  Tensor rows(std::span<const std::size_t> indices, bool unit = false) const;
  // Contiguous (N, D) row-major data and (N,) norms.
  const float* data() const;
  const float* norms() const;

  // Exact, case-sensitive lookup.
  std::optional<std::size_t> find(std::string_view word) const;
  // Exact match if present, else the first word in file order equal to `word` after ASCII
  // lower-casing both (GloVe 6B is all lower case; word2vec's GoogleNews is mixed case).
  std::optional<std::size_t> find_ignore_case(std::string_view word) const;
  std::optional<std::size_t> find(std::string_view word, bool ignore_case) const {
    return ignore_case ? find_ignore_case(word) : find(word);
  }

  // ---- fastText subwords (tables loaded from a .bin model, or its cache) ----
  // The n-gram lengths and bucket count, or nullopt when the table has no subword rows.
  std::optional<SubwordInfo> subwords() const;
  // A row for a word that is not in the vocabulary: the mean of its n-gram bucket rows (as
  // fastText's getWordVector and gensim's get_vector compute it). Rows built this way get the
  // indices after the whole vocabulary (≥ the stored N, so never inside a --limit view's range of
  // neighbours) and are kept for the table's lifetime; word(i), row(i), norm(i), unit_row(i) and
  // rows() accept them. nullopt when the table has no subwords or the word no n-gram in range.
  std::optional<std::size_t> subword_row(std::string_view word) const;
  // True for a row made by subword_row().
  bool is_subword_row(std::size_t i) const;
  // The number of n-grams averaged for subword row i (repeats counted, as fastText does).
  std::size_t subword_ngrams(std::size_t i) const;
  // A vocabulary row (i < size()) or a subword row.
  bool has_row(std::size_t i) const;

  // "built-in teaching embedding" or the file's path.
  const std::string& name() const;
  const LoadInfo& info() const;
  // Named axes of the built-in embedding (dimension i is axes()[i]); empty for files.
  const std::vector<std::string>& axes() const;

  struct Store;  // storage (owned vectors or a mapped cache file); defined in src/
  explicit Embeddings(std::shared_ptr<const Store> store, std::size_t n);
  const Store& store() const { return *s_; }

 private:
  std::shared_ptr<const Store> s_;
  std::size_t n_ = 0;
};

// ---- loading -------------------------------------------------------------------------------

// Loads per `source` (file, cache, or the built-in when path is empty). Throws tfx::Error naming
// file:line and what was expected for every malformed input; never writes a cache for a file
// that failed to parse. Parses text in parallel on all cores.
Embeddings load_embeddings(const EmbeddingSource& source);

// The teaching embedding compiled into tfx (samples/teaching_embedding.tsv): a few hundred words
// whose first dimensions are named semantic axes (royalty, gender, plural, country, capital,
// tense, …), then "concept" dimensions, plus small deterministic noise. Constructed by hand for
// teaching; not trained on any corpus.
const Embeddings& builtin_embedding();

// The built-in embedding's named axes, in dimension order: (name, what it encodes). The
// remaining dimensions (after these) are concept-identity dimensions.
std::vector<std::pair<std::string, std::string>> builtin_axes();

// The cache folder when EmbeddingSource::cache_dir is empty: tfx-cache in the system's temporary
// directory. (The command line passes $XDG_CACHE_HOME/tfx or ~/.cache/tfx.)
std::string fallback_cache_dir();
// The cache file tfx uses for source file `path` in `cache_dir` ("" = fallback_cache_dir()).
std::string cache_path_for(const std::string& path, const std::string& cache_dir = "");

// Writes `e` as a tfx table (the cache format) to `path` (tmp + rename).
void write_embedding_table(const Embeddings& e, const std::string& path);

// Writes `e` as text (GloVe: no header; word2vec/fasttext: `N D` header) or word2vec binary to
// `path` (tmp + rename). Values printed with the shortest round-trip float32 representation.
void write_embedding_file(const Embeddings& e, const std::string& path, EmbeddingFormat format);

// fastText's hash of an n-gram's bytes: 32-bit FNV-1a where each byte is sign-extended through
// int8_t first (Dictionary::hash), so bytes ≥ 0x80 hash as 0xFFFFFF80…0xFFFFFFFF.
std::uint32_t fasttext_hash(std::string_view bytes);

// The bucket (0 … bucket−1) of every character n-gram of `<word>`, n = minn … maxn characters
// (a UTF-8 multi-byte character counts as one; '<' and '>' alone are not n-grams), in fastText's
// order (by start, then length), repeats kept: hash % bucket. Empty when bucket or maxn is 0.
std::vector<std::uint32_t> fasttext_ngram_buckets(std::string_view word, std::size_t minn, std::size_t maxn,
                                                  std::size_t bucket);
// How many n-grams fasttext_ngram_buckets gives for `word` (with bucket > 0), counted from the
// word's length in characters alone, in O(length): the loader's budget asks it before any is hashed.
std::size_t fasttext_ngram_count(std::string_view word, std::size_t minn, std::size_t maxn);

// ---- similarity queries --------------------------------------------------------------------

enum class AnalogyMethod {
  add,  // 3CosAdd, gensim most_similar: cos(w, unit(Σ ±unit(x)/m))
  mul,  // 3CosMul, gensim most_similar_cosmul: Π (1+cos(w,p))/2 / (Π (1+cos(w,n))/2 + 1e-6)
};
inline constexpr Choice<AnalogyMethod> kAnalogyMethodChoices[] = {
    {AnalogyMethod::add, "add", N_("3CosAdd: gensim most_similar")},
    {AnalogyMethod::mul, "mul", N_("3CosMul: gensim most_similar_cosmul")},
};

struct Neighbour {
  std::size_t index;  // row in the table
  double score;       // cosine (add) or the 3CosMul ratio (mul)
};

// Top-k words for the query "Σ positive − Σ negative" with gensim's semantics (indices into e).
//   add: m = unit( mean_j( w_j · unit(x_j) ) ) with w = +1 for positive, −1 for negative;
//        score(w) = unit(w) · m                                  (gensim most_similar)
//   mul: score(w) = Π_p (1 + cos(w,p))/2 / (Π_n (1 + cos(w,n))/2 + 1e-6)  (most_similar_cosmul)
// exclude_inputs: drop every positive/negative word from the result (gensim always does).
// Ties break towards the lower index (earlier in the file). Returns min(k, candidates) entries,
// best first. Runs on all cores for large tables.
std::vector<Neighbour> most_similar(const Embeddings& e, std::span<const std::size_t> positive,
                                    std::span<const std::size_t> negative, std::size_t k,
                                    AnalogyMethod method = AnalogyMethod::add, bool exclude_inputs = true);

// A − B + C (fastText's `analogies` order; gensim most_similar(positive=[A, C], negative=[B])).
std::vector<Neighbour> analogy(const Embeddings& e, std::size_t a, std::size_t b, std::size_t c, std::size_t k,
                               AnalogyMethod method = AnalogyMethod::add, bool exclude_inputs = true);

// Top-k rows by cosine to an arbitrary vector q: (D,), skipping the indices in `exclude`.
std::vector<Neighbour> nearest(const Embeddings& e, std::span<const float> q, std::size_t k,
                               std::span<const std::size_t> exclude = {});

// Up to `max` vocabulary words spelled like `word` (case-insensitive Damerau–Levenshtein
// distance ≤ max(1, len/3)), closest first, ties in file order.
std::vector<std::string> close_spellings(const Embeddings& e, std::string_view word, std::size_t max = 5);

// The row of `word`, or throws tfx::Error: "'kng' is not in <name> (N words); close spellings:
// king, kang" (plus an ignore_case hint, in Error::params(), when only the case differs).
std::size_t require_word(const Embeddings& e, std::string_view word, bool ignore_case);

}  // namespace tfx
