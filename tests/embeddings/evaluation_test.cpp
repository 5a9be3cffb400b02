// Analogy-set and word-pair evaluation: parsers (file:line errors), gensim's evaluation rules on
// hand-built vectors whose answers follow from their geometry, p-values from closed forms, and
// the real GloVe prefixes against numbers gensim 4.2.0 printed.
#include <cmath>
#include <numbers>

#include "helpers.hpp"
#include "tfx/embeddings/evaluation.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/stats.hpp"

using namespace tfx;
using namespace tfx::test;
using tfx::test::shared_data;

namespace {

// A table from rows written out in the test.
Embeddings table(std::initializer_list<std::pair<const char*, std::vector<float>>> rows) {
  std::vector<std::string> words;
  std::vector<float> vals;
  std::size_t D = 0;
  for (const auto& [w, v] : rows) {
    words.emplace_back(w);
    D = v.size();
    vals.insert(vals.end(), v.begin(), v.end());
  }
  const std::size_t n = words.size();
  return Embeddings::from_rows(std::move(words), Tensor::from({n, D}, vals));
}

// Royalty (axis 0), maleness (axis 1), person (axis 2), fruit (axis 3): king − man + woman
// lands nearest queen and queen − king + man nearest woman (see the cosines in the tests).
Embeddings royals() {
  return table({{"man", {0, 1, 1, 0}},
                {"woman", {0, -1, 1, 0}},
                {"king", {1, 1, 1, 0}},
                {"queen", {1, -1, 1, 0}},
                {"apple", {0, 0, 0, 1}},
                {"pear", {0, 0, 0.2f, 1}}});
}

// A GloVe text file (no header, word then D numbers) read plainly, for the shared-data checks.
Embeddings read_glove(const std::filesystem::path& p) {
  std::vector<std::string> words;
  std::istringstream in(tfx::test::read_file(p));
  std::string line;
  std::vector<float> vals;
  std::size_t D = 0;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string w;
    ls >> w;
    std::size_t n = 0;
    float x;
    while (ls >> x) {
      vals.push_back(x);
      ++n;
    }
    D = n;
    words.push_back(w);
  }
  const std::size_t n = words.size();
  return Embeddings::from_rows(std::move(words), Tensor::from({n, D}, vals));
}

}  // namespace

TEST_CASE("analogy file: sections, questions, blank lines, CRLF, BOM and comments") {
  auto set = parse_analogy_set("\xEF\xBB\xBF: capital-common-countries\r\nAthens Greece Baghdad Iraq\r\n\r\n"
                               "# a comment\n:  family \nboy girl brother sister\nking queen man woman",
                               "q.txt");
  REQUIRE(set.sections.size() == 2);
  CHECK(set.sections[0].name == "capital-common-countries");
  CHECK(set.sections[1].name == "family");
  CHECK(set.sections[1].line == 5);
  CHECK(set.question_count() == 3);
  CHECK(set.sections[0].questions[0].expected == "Iraq");
  CHECK(set.sections[1].questions[1].line == 7);
  CHECK(set.sections[1].questions[1].c == "man");
}

TEST_CASE("analogy file: bad lines are errors naming file and line") {
  CHECK(error_of([] { parse_analogy_set(": s\na b c\n", "q.txt"); }).starts_with("q.txt:2: expected a question of 4 words"));
  CHECK(error_of([] { parse_analogy_set(": s\na b c d e\n", "q.txt"); }).find("got 5 words") != std::string::npos);
  CHECK(error_of([] { parse_analogy_set("a b c d\n", "q.txt"); }).starts_with("q.txt:1: question before the first section"));
  CHECK(error_of([] { parse_analogy_set("\n\n", "q.txt"); }).starts_with("q.txt: no analogy questions"));
  CHECK(error_of([] { parse_analogy_set(": s\n", "q.txt"); }).starts_with("q.txt: no analogy questions"));
  CHECK(error_of([] { parse_analogy_set(":\na b c d\n", "q.txt"); }).starts_with("q.txt:1: section line without a name"));
  // gensim skips malformed questions; --skip-invalid does the same and counts them
  auto set = parse_analogy_set(": s\na b c\na b c d\n", "q.txt", true);
  CHECK(set.question_count() == 1);
  CHECK(set.skipped_lines == 1);
  CHECK(error_of([] { read_analogy_set("/nonexistent/q.txt"); }).find("no such analogy file") != std::string::npos);
}

TEST_CASE("word-pair file: tabs or spaces, comments, bad scores") {
  auto set = parse_word_pairs("# comment\nTiger\tcat\t7.35\r\nbook paper 7.46\n\n", "p.tsv");
  REQUIRE(set.pairs.size() == 2);
  CHECK(set.pairs[0].a == "Tiger");
  CHECK(set.pairs[0].score == 7.35);
  CHECK(set.pairs[1].b == "paper");
  CHECK(set.pairs[1].line == 3);
  CHECK(error_of([] { parse_word_pairs("a\tb\thigh\n", "p.tsv"); }).starts_with("p.tsv:1: score \"high\" is not a number"));
  CHECK(error_of([] { parse_word_pairs("a\tb\t1\nx\ty\n", "p.tsv"); }).starts_with("p.tsv:2: expected 'word1<TAB>word2<TAB>score', got 2 fields"));
  CHECK(error_of([] { parse_word_pairs("a\tb\tnan\n", "p.tsv"); }).find("not a number") != std::string::npos);
  CHECK(error_of([] { parse_word_pairs("a\tb\t1e999\n", "p.tsv"); }).find("not a number") != std::string::npos);
  CHECK(error_of([] { parse_word_pairs("# only a comment\n", "p.tsv"); }).starts_with("p.tsv: no word pairs"));
  auto skipped = parse_word_pairs("a\tb\thigh\nc\td\t2\n", "p.tsv", true);
  CHECK(skipped.pairs.size() == 1);
  CHECK(skipped.skipped_lines == 1);
}

TEST_CASE("utf8_upper: ASCII, Latin, Cyrillic, invalid bytes kept") {
  CHECK(utf8_upper("Athens") == "ATHENS");
  CHECK(utf8_upper("über") == "ÜBER");
  CHECK(utf8_upper("преступление") == "ПРЕСТУПЛЕНИЕ");
  CHECK(utf8_upper("a\xFF" "b") == "A\xFF" "B");
}

TEST_CASE("restricted vocabulary: first R words, first case variant wins") {
  Embeddings w = table({{"the", {1}}, {"Paris", {2}}, {"paris", {3}}, {"PARIS", {4}}, {"berlin", {5}}});
  auto v = restricted_vocab(w, 4, true);
  CHECK(v.at("PARIS") == 1);
  CHECK(v.count("BERLIN") == 0);
  auto cs = restricted_vocab(w, 300000, false);
  CHECK(cs.at("paris") == 2);
  CHECK(cs.at("berlin") == 4);
}

TEST_CASE("analogies on known geometry: correct, wrong, OOV, semantic split") {
  Embeddings t = royals();
  // Six sections so the sixth counts as syntactic.
  auto set = parse_analogy_set(
      ": s1\nman woman king queen\n"  // k̂ − m̂ + ŵ: cos(queen) 0.98, others ≤ 0.6 -> correct
      ": s2\nking queen man woman\n"  // q̂ − k̂ + m̂ = (0, −0.45, 0.71, 0): cos(woman) 0.98 -> correct
      ": s3\nman king woman apple\n"  // answer queen, expected apple -> wrong
      ": s4\nman woman dog dogs\n"    // dog is not in the vocabulary -> OOV, skipped
      ": s5\nMAN Woman KING queen\n"  // case-insensitive by default -> correct
      ": s6\napple pear man woman\n", // p̂ − â + m̂ = (0, 0.71, 0.90, −0.02): king wins, see below
      "q.txt");
  AnalogyEvalOptions o;
  auto ev = evaluate_word_analogies(t, set, o);
  CHECK(ev.questions == 6);
  CHECK(ev.oov == 1);
  CHECK(ev.oov_ratio == doctest::Approx(100.0 / 6));
  CHECK(ev.sections[0].correct == 1);
  CHECK(ev.sections[1].correct == 1);
  CHECK(ev.sections[2].incorrect == 1);
  CHECK(ev.sections[3].oov == 1);
  CHECK(ev.sections[3].answered() == 0);
  CHECK(std::isnan(ev.sections[3].accuracy()));
  CHECK(ev.sections[4].correct == 1);
  // apple:pear :: man:? p̂ − â + m̂ = (0, 0.71, 0.90, −0.02): with apple, pear and man excluded,
  // cos(king) = 0.81, cos(woman) = 0.12, cos(queen) = 0.10: the answer is king, not woman.
  CHECK(ev.sections[5].incorrect == 1);
  REQUIRE(ev.misses.size() == 2);
  CHECK(ev.misses[0].predicted == "queen");
  CHECK(ev.misses[0].question.line == 6);
  CHECK(ev.misses[1].predicted == "king");
  CHECK(ev.semantic.correct == 3);
  CHECK(ev.semantic.incorrect == 1);
  CHECK(ev.syntactic.incorrect == 1);
  CHECK(ev.total.correct == 3);
  CHECK(ev.total.answered() == 5);
  CHECK(ev.total.accuracy() == doctest::Approx(0.6));

  // Case-sensitive: "MAN", "Woman", "KING" are unknown, so s5's question becomes OOV.
  o.case_insensitive = false;
  auto cs = evaluate_word_analogies(t, set, o);
  CHECK(cs.oov == 2);
  // 3CosMul agrees on these clear-cut questions.
  o.case_insensitive = true;
  o.method = AnalogyMethod::mul;
  auto mul = evaluate_word_analogies(t, set, o);
  CHECK(mul.total.correct == 3);
  CHECK(mul.misses.size() == 2);
  // restrict_vocab 3: only man, woman, king are known; every question has another word -> all OOV
  o.restrict_vocab = 3;
  auto r3 = evaluate_word_analogies(t, set, o);
  CHECK(r3.oov == 6);
  CHECK(r3.restrict_vocab == 3);
  o.restrict_vocab = 0;
  CHECK_THROWS_AS(evaluate_word_analogies(t, set, o), Error);
}

TEST_CASE("analogies: a case variant of an input is skipped as gensim skips it") {
  // "Woman" (a later row, same key WOMAN as the input woman) points closer to the query than
  // queen: cos(Woman) = 2.075/(1.792·1.169) = 0.991 > cos(queen) = 0.983. gensim excludes only
  // the inputs' rows, then skips candidates whose upper case is an input: the answer is queen.
  Embeddings t = table({{"man", {0, 1, 1, 0}},
                   {"woman", {0, -1, 1, 0}},
                   {"king", {1, 1, 1, 0}},
                   {"queen", {1, -1, 1, 0}},
                   {"Woman", {1, -1.1f, 1, 0}}});
  auto set = parse_analogy_set(": s\nman woman king queen\n", "q.txt");
  AnalogyEvalOptions o;
  CHECK(evaluate_word_analogies(t, set, o).total.correct == 1);
  o.case_insensitive = false;  // now "Woman" is just another word, and it wins
  auto ev = evaluate_word_analogies(t, set, o);
  CHECK(ev.total.incorrect == 1);
  CHECK(ev.misses.at(0).predicted == "Woman");
}

TEST_CASE("analogies: batching does not change the answers") {
  Embeddings t = royals();
  std::string text = ": s\n";
  for (int i = 0; i < 37; ++i) text += i % 2 ? "man woman king queen\n" : "man king woman apple\n";
  auto set = parse_analogy_set(text, "q.txt");
  AnalogyEvalOptions o;
  std::size_t calls = 0, last = 0;
  o.batch = 5;
  o.progress = [&](std::size_t done, std::size_t total) {
    ++calls;
    last = done;
    CHECK(total == 37);
  };
  auto ev = evaluate_word_analogies(t, set, o);
  CHECK(calls == 8);
  CHECK(last == 37);
  CHECK(ev.total.correct == 18);
  CHECK(ev.total.incorrect == 19);
}

TEST_CASE("word pairs on known angles: Pearson by hand, Spearman 1, OOV ratio") {
  // w0 at 0°, w1 at 60°, w2 at 90°, w3 at 180° -> cosines with w0: 0.5, 0, −1
  const float s = static_cast<float>(std::sqrt(3.0) / 2);
  Embeddings t = table({{"w0", {1, 0}}, {"w1", {0.5f, s}}, {"w2", {0, 2}}, {"w3", {-3, 0}}});
  auto set = parse_word_pairs("W0\tw1\t5\nw0\tw2\t3\nw0\tw3\t1\nw0\tzebra\t9\n", "p.tsv");
  auto ev = evaluate_word_pairs(t, set, {});
  CHECK(ev.pairs == 4);
  CHECK(ev.oov == 1);
  CHECK(ev.oov_ratio == doctest::Approx(25.0));
  REQUIRE(ev.scored.size() == 3);
  CHECK(ev.scored[0].model == doctest::Approx(0.5).epsilon(1e-6));
  CHECK(ev.scored[2].model == doctest::Approx(-1.0).epsilon(1e-6));
  // gold (5,3,1) centred (2,0,−2); model (0.5,0,−1) centred (2/3,1/6,−5/6):
  // Σxy = 3, Σx² = 8, Σy² = 7/6 -> r = 3/√(28/3) = 0.98198
  CHECK(ev.pearson == doctest::Approx(3 / std::sqrt(28.0 / 3)).epsilon(1e-6));
  CHECK(ev.spearman == doctest::Approx(1.0));
  CHECK(ev.spearman_p == 0.0);
  CHECK(ev.missing.at(0).pair.b == "zebra");
  CHECK(ev.missing.at(0).word == "zebra");
  auto none = parse_word_pairs("x\ty\t1\n", "p.tsv");
  CHECK(error_of([&] { evaluate_word_pairs(t, none, {}); }).find("none of the 1 pairs") != std::string::npos);
}

TEST_CASE("correlation p-value: closed forms for 1 and 2 degrees of freedom, and scipy") {
  // df = 1 (n = 3): Student t with 1 df is Cauchy, p = 1 − (2/π)·atan|t|, t = r/√(1−r²)
  for (double r : {0.1, 0.5, 0.9819805060619655}) {
    const double t = r / std::sqrt(1 - r * r);
    CHECK(correlation_p_value(r, 3) == doctest::Approx(1 - 2 / std::numbers::pi * std::atan(t)).epsilon(1e-10));
  }
  // df = 2 (n = 4): p = 1 − |t|/√(2 + t²), t = r·√(2/(1−r²))
  for (double r : {-0.3, 0.7}) {
    const double t = r * std::sqrt(2 / (1 - r * r));
    CHECK(correlation_p_value(r, 4) == doctest::Approx(1 - std::abs(t) / std::sqrt(2 + t * t)).epsilon(1e-10));
  }
  // scipy.stats.pearsonr(arange(10), [3,1,4,1,5,9,2,6,5,3]) = (0.3343253990189949, 0.34507104773311176)
  CHECK(correlation_p_value(0.3343253990189949, 10) == doctest::Approx(0.34507104773311176).epsilon(1e-9));
  CHECK(std::isnan(correlation_p_value(0.5, 2)));
}

// The expected numbers below were printed by gensim 4.2.0 (Debian python3-gensim) with
//   kv = KeyedVectors.load_word2vec_format(path, no_header=True)
//   kv.evaluate_word_analogies('questions-words.txt')   # restrict_vocab=300000, case_insensitive
//   kv.evaluate_word_pairs('wordsim353.tsv' / 'simlex999.txt')
TEST_CASE("shared data: GloVe 100d prefix matches gensim's evaluate_word_analogies and evaluate_word_pairs") {
  auto glove = shared_data("glove.6B.100d.top2604.txt");
  auto questions = shared_data("questions-words.txt");
  auto ws = shared_data("wordsim353.tsv");
  auto sl = shared_data("simlex999.txt");
  if (glove.empty() || questions.empty() || ws.empty() || sl.empty()) return;
  Embeddings t = read_glove(glove);
  REQUIRE(t.size() == 2604);
  auto set = read_analogy_set(questions.string());
  CHECK(set.question_count() == 19544);
  auto ev = evaluate_word_analogies(t, set, {});
  // gensim: Total accuracy 804/1039 = 0.7738209817131858; semantic (first five sections) 136/191
  CHECK(ev.total.answered() == 1039);
  CHECK(std::abs(ev.total.correct - 804.0) <= 1.0);  // 0.1 points of 1039 questions
  CHECK(ev.semantic.answered() == 191);
  CHECK(std::abs(ev.semantic.correct - 136.0) <= 1.0);
  CHECK(ev.sections[1].correct == 14);                // capital-world 14/14
  CHECK(ev.sections[10].correct == 331);              // gram6-nationality-adjective 331/332
  CHECK(ev.oov == 19544 - 1039);
  // restrict_vocab=1000 -> 0.8378378378378378; case_insensitive=False -> 0.6768707482993197
  AnalogyEvalOptions o;
  o.restrict_vocab = 1000;
  CHECK(evaluate_word_analogies(t, set, o).total.accuracy() == doctest::Approx(0.8378378378378378).epsilon(1e-3));
  o.restrict_vocab = 300000;
  o.case_insensitive = false;
  CHECK(evaluate_word_analogies(t, set, o).total.accuracy() == doctest::Approx(0.6768707482993197).epsilon(1e-3));

  // wordsim353: pearson (0.655308461517998, p 2.77e-18), spearman (0.6608904029047856, p 1.14e-18), oov 60.90651558073654 %
  auto w = evaluate_word_pairs(t, read_word_pairs(ws.string()), {});
  CHECK(w.pearson == doctest::Approx(0.655308461517998).epsilon(1e-5));
  CHECK(w.spearman == doctest::Approx(0.6608904029047856).epsilon(1e-5));
  CHECK(w.oov_ratio == doctest::Approx(60.90651558073654).epsilon(1e-9));
  CHECK(w.pearson_p == doctest::Approx(2.7726154889948722e-18).epsilon(1e-3));
  CHECK(w.spearman_p == doctest::Approx(1.1391627921411415e-18).epsilon(1e-3));
  // simlex999: pearson 0.256367611805076, spearman 0.2294553283198281, oov 80.18018018018019 %
  auto s = evaluate_word_pairs(t, read_word_pairs(sl.string()), {});
  CHECK(s.pearson == doctest::Approx(0.256367611805076).epsilon(1e-5));
  CHECK(s.spearman == doctest::Approx(0.2294553283198281).epsilon(1e-5));
  CHECK(s.oov_ratio == doctest::Approx(80.18018018018019).epsilon(1e-9));
}
