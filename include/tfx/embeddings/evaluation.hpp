// Evaluation of word vectors against human-made test sets, as gensim's KeyedVectors does it:
// the Google analogy set (`: section` lines, then `a b c d` questions, a:b :: c:d) scored by
// 3CosAdd / 3CosMul over the first `restrict_vocab` words, and word-pair similarity sets
// (WordSim353, SimLex-999: `word1<TAB>word2<TAB>score`) scored by Pearson and Spearman
// correlation.
//
// Rows of the Embeddings table are taken in file order (most frequent first, as GloVe/word2vec
// files are), which is what restrict_vocab relies on.
// Letters: N = vocabulary size, R = restricted vocabulary size (≤ N), D = dimension,
// B = questions in one batch.
#pragma once
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tfx/embeddings/embeddings.hpp"
#include "tfx/core/progress.hpp"
#include "tfx/core/tensor.hpp"

namespace tfx {

// ---- test-set files ----------------------------------------------------------------------------

// One analogy question a:b :: c:expected, with its 1-based line in the file.
struct AnalogyQuestion {
  std::string a, b, c, expected;
  std::size_t line = 0;
};

struct AnalogySection {
  std::string name;  // "capital-common-countries"
  std::size_t line = 0;
  std::vector<AnalogyQuestion> questions;
};

struct AnalogySet {
  std::vector<AnalogySection> sections;
  std::size_t skipped_lines = 0;  // malformed lines skipped (only with skip_invalid)
  std::size_t question_count() const;
};

// Parses the Google analogy format: `: name` starts a section; every other non-blank line is a
// question of exactly four whitespace-separated words. Blank lines, `#` comment lines, a UTF-8
// BOM and Windows line ends (CRLF) are accepted. Throws tfx::Error "PATH:LINE: …" for a
// question before the first section, a line without four words (unless skip_invalid, which
// skips and counts it as gensim does), an empty section name, or a file with no questions.
AnalogySet parse_analogy_set(std::string_view text, const std::string& path, bool skip_invalid = false);
// Reads and parses `path` (errors name the path: missing, a directory, unreadable).
AnalogySet read_analogy_set(const std::string& path, bool skip_invalid = false);

// One judged pair: the human similarity score of words a and b.
struct WordPair {
  std::string a, b;
  double score = 0;
  std::size_t line = 0;
};

struct WordPairSet {
  std::vector<WordPair> pairs;
  std::size_t skipped_lines = 0;  // malformed lines skipped (only with skip_invalid)
};

// Parses a word-pair file: `#` comment lines and blank lines are skipped; every other line is
// `word1 word2 score` separated by tabs (when the line has a tab) or else by spaces. Throws
// tfx::Error "PATH:LINE: …" for a line without exactly three fields or a score that is not a
// finite number (unless skip_invalid: skipped and counted, as gensim does), and for a file
// with no pairs.
WordPairSet parse_word_pairs(std::string_view text, const std::string& path, bool skip_invalid = false);
WordPairSet read_word_pairs(const std::string& path, bool skip_invalid = false);

// ---- vocabulary --------------------------------------------------------------------------------

// Upper case of a UTF-8 word, code point by code point (towupper in C.UTF-8; bytes that are
// not valid UTF-8 are kept as they are). gensim's case_insensitive=True compares str.upper().
std::string utf8_upper(std::string_view word);

// The lookup gensim's evaluations use: the first R = min(restrict_vocab, N) words, keyed by
// their upper case when case_insensitive; when several words share a key the first (most
// frequent) wins. `progress` (optional) hears (words keyed, R).
std::unordered_map<std::string, std::size_t> restricted_vocab(const Embeddings& e, std::size_t restrict_vocab,
                                                              bool case_insensitive, const Progress& progress = {});

// The first R rows of e divided by their norms: (R, D); all-zero rows stay zero.
Tensor unit_rows(const Embeddings& e, std::size_t R);

// ---- analogies ---------------------------------------------------------------------------------

struct AnalogyEvalOptions {
  std::size_t restrict_vocab = 300000;  // search and accept only the first R words (> 0)
  bool case_insensitive = true;         // compare upper-cased words, as gensim does by default
  bool dummy4unknown = false;           // gensim's dummy4unknown: OOV questions count as wrong answers
  AnalogyMethod method = AnalogyMethod::add;  // embeddings.hpp: add = 3CosAdd, mul = 3CosMul
  std::size_t batch = 0;                // questions per matmul; 0 = choose from R (≤ ~32 MB of scores)
  unsigned threads = 0;                 // matmul threads; 0 = all hardware threads
  // Called after each batch with (questions answered, questions to answer).
  Progress progress;
};

struct SectionScore {
  std::string name;
  std::size_t correct = 0, incorrect = 0;  // answered questions
  std::size_t oov = 0;                     // a word outside the restricted vocabulary: skipped
                                           // (or, with dummy4unknown, also counted in incorrect)
  std::size_t answered() const { return correct + incorrect; }
  // correct / answered, or NaN when nothing was answered (gensim logs nothing and scores 0.0).
  double accuracy() const;
};

// A wrongly answered question (predicted is empty when no candidate word was left).
struct AnalogyMiss {
  std::size_t section = 0;  // index into AnalogyEvaluation::sections
  AnalogyQuestion question;
  std::string predicted;
};

// A question skipped because `word` (as written in the file) is outside the restricted vocabulary.
struct AnalogySkip {
  std::size_t section = 0;  // index into AnalogyEvaluation::sections
  AnalogyQuestion question;
  std::string word;
};

struct AnalogyEvaluation {
  std::vector<SectionScore> sections;  // in file order
  SectionScore semantic;               // the first five sections (the Google set's semantic part)
  SectionScore syntactic;              // the remaining sections
  SectionScore total;                  // "Total accuracy" in gensim
  std::size_t questions = 0;           // all questions in the file
  std::size_t oov = 0;                 // questions skipped for out-of-vocabulary words
  double oov_ratio = 0;                // 100 · oov / questions (percent, as gensim logs it)
  std::size_t restrict_vocab = 0;      // R actually used: min(restrict_vocab, N)
  std::vector<AnalogyMiss> misses;     // every wrong answer, in file order
  std::vector<AnalogySkip> skipped;    // every OOV question, in file order (also with dummy4unknown)
};

// Reproduces gensim 4 KeyedVectors.evaluate_word_analogies(restrict_vocab, case_insensitive,
// dummy4unknown=False): a question is skipped (counted as OOV) unless all four words are among
// the first R words; otherwise the query b̂ − â + ĉ (unit vectors; mean and renormalisation do
// not change the ranking) is scored against the R unit rows, the rows of a, b, c are excluded,
// and of the top five the first word whose (upper-cased) form is not a, b or c is the answer.
// With method mul the score is 3CosMul, s_b·s_c / (s_a + 1e-6) with s_x = (1 + cos(w, x))/2
// (gensim's most_similar_cosmul), under the same rules. Questions go through matmul_bt in
// batches of B: scores (B, R) = Q (B, D) · V̂ᵀ (R, D).
AnalogyEvaluation evaluate_word_analogies(const Embeddings& e, const AnalogySet& set, const AnalogyEvalOptions& options);

// ---- word-pair similarity ----------------------------------------------------------------------

struct PairEvalOptions {
  std::size_t restrict_vocab = 300000;
  bool case_insensitive = true;
  bool dummy4unknown = false;  // gensim's dummy4unknown: OOV pairs enter the correlation with cosine 0
  // optional: (done, total) over the R vocabulary words keyed, then the pairs scored
  Progress progress;
};

struct ScoredPair {
  WordPair pair;
  double model = 0;  // cos(a, b)
};

// A pair skipped because `word` (as written in the file) is outside the restricted vocabulary.
struct SkippedPair {
  WordPair pair;
  std::string word;
};

struct WordPairEvaluation {
  double pearson = 0, pearson_p = 0;    // r and its two-sided p-value (scipy.stats.pearsonr)
  double spearman = 0, spearman_p = 0;  // ρ and its two-sided p-value (scipy.stats.spearmanr)
  std::size_t pairs = 0;                // pairs in the file
  std::size_t oov = 0;                  // pairs skipped: a word outside the restricted vocabulary
  double oov_ratio = 0;                 // 100 · oov / pairs (percent, as gensim returns it)
  std::vector<ScoredPair> scored;       // the pairs used, in file order
  std::vector<SkippedPair> missing;     // the OOV pairs, in file order
};

// Reproduces gensim 4 KeyedVectors.evaluate_word_pairs(restrict_vocab, case_insensitive,
// dummy4unknown=False): pairs with a word outside the first R words are skipped; the others get
// cos(a, b); Pearson and Spearman (average ranks) of human scores against cosines. Throws
// tfx::Error when no pair is in the vocabulary.
WordPairEvaluation evaluate_word_pairs(const Embeddings& e, const WordPairSet& set, const PairEvalOptions& options);

}  // namespace tfx
