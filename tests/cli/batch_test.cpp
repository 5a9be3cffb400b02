// Batch inputs do not stop at one unknown word: analogy --queries, eval-analogies and
// eval-similarity answer every query they can, report each skipped line on stderr (file:line and
// the word), carry them in JSON's tables.skipped, and exit 1 only when none could be answered or
// with --strict. All on the built-in teaching embedding.
#include <nlohmann/json.hpp>

#include "helpers.hpp"

using namespace tfx::test;

namespace {

const std::string kBuiltin = "TFX_EMBEDDINGS=";

int count_of(const std::string& s, const std::string& part) {
  int n = 0;
  for (auto i = s.find(part); i != std::string::npos; i = s.find(part, i + 1)) ++n;
  return n;
}

// The one skipped query of a successful --format json run whose stderr is exactly the one line
// `note` names.
nlohmann::json only_skipped(const Run& r, const std::string& note) {
  const nlohmann::json j = json_of(r);
  CHECK(count_lines(r.err) == 1);
  CHECK(has(r.err, note));
  REQUIRE(j["tables"]["skipped"].size() == 1);
  return j["tables"]["skipped"][0];
}

}  // namespace

TEST_CASE("analogy --queries: skips a query with an unknown word, answers the rest, reports file:line and the word") {
  TempDir t;
  write_file(t / "q.txt", "king man woman\nking man kweeen\n\nparis france germany\nzzyzx man woman\n");
  Run r = run_tfx("analogy --queries q.txt -k 1 --format csv", t.path, kBuiltin);
  CAPTURE(r.err);
  CHECK(r.code == 0);
  CHECK(has(r.out, "king,man,woman,1,queen,"));
  CHECK(has(r.out, "paris,france,germany,1,berlin,"));
  CHECK(count_lines(r.out) == 3);  // header + two answers
  CHECK(count_lines(r.err) == 2);  // one line per skipped query
  CHECK(has(r.err, "tfx: skipped q.txt:2: 'kweeen' is not in the vocabulary"));
  CHECK(has(r.err, "tfx: skipped q.txt:5: 'zzyzx' is not in the vocabulary"));

  // the same from stdin names <stdin>
  Run s = run_tfx("analogy --queries - -k 1 --format csv", t.path, kBuiltin, (t / "q.txt").string());
  CHECK(s.code == 0);
  CHECK(s.out == r.out);
  CHECK(has(s.err, "tfx: skipped <stdin>:2: 'kweeen'"));

  // table output says how many were skipped
  Run table = run_tfx("analogy --queries q.txt -k 1", t.path, kBuiltin);
  CHECK(table.code == 0);
  CHECK(has(table.out, "4 queries"));
  CHECK(has(table.out, "2 answered, 2 skipped"));
}

TEST_CASE("analogy --queries --format json: tables.skipped carries each skipped query with its reason") {
  TempDir t;
  write_file(t / "q.txt", "king man woman\nking man kweeen\n");
  Run r = run_tfx("analogy --queries q.txt -k 1 --format json", t.path, kBuiltin);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["tables"]["skipped"].size() == 1);
  const auto& s = j["tables"]["skipped"][0];
  CHECK(s["file"] == "q.txt");
  CHECK(s["line"] == 2);
  CHECK(s["query"] == "king man kweeen");
  CHECK(s["word"] == "kweeen");
  CHECK(has(s["reason"].get<std::string>(), "'kweeen' is not in the vocabulary"));
  CHECK(j["summary"]["answered"] == 1);
  CHECK(j["summary"]["skipped"] == 1);
  CHECK(j["summary"]["queries"] == 2);
  // nothing skipped: an empty list, not a missing key
  write_file(t / "ok.txt", "king man woman\n");
  Run ok = run_tfx("analogy --queries ok.txt -k 1 --format json", t.path, kBuiltin);
  REQUIRE(ok.code == 0);
  CHECK(nlohmann::json::parse(ok.out)["tables"]["skipped"].empty());
  CHECK(ok.err.empty());
}

TEST_CASE("analogy --queries: exit 1 when no query could be answered, or at the first with --strict") {
  TempDir t;
  write_file(t / "none.txt", "king man kweeen\nqqq man woman\n");
  check_one_line_error(run_tfx("analogy --queries none.txt", t.path, kBuiltin), 1,
                       "none.txt: none of the 2 queries could be answered (line 1: 'kweeen' is not in the vocabulary");
  write_file(t / "q.txt", "king man woman\nking man kweeen\nparis france germany\n");
  check_one_line_error(run_tfx("analogy --queries q.txt --strict", t.path, kBuiltin), 1, "q.txt:2: 'kweeen' is not in the vocabulary");
  // 'A − A + A' is skipped too, with its reason (no single unknown word)
  write_file(t / "same.txt", "king king king\nking man woman\n");
  Run same = run_tfx("analogy --queries same.txt -k 1 --format json", t.path, kBuiltin);
  REQUIRE(same.code == 0);
  const auto j = nlohmann::json::parse(same.out);
  CHECK(j["tables"]["skipped"][0]["word"] == "");
  CHECK(has(j["tables"]["skipped"][0]["reason"].get<std::string>(), "is just 'king'"));
  // a malformed line is still an error: the file is wrong, not one query
  write_file(t / "two.txt", "king man woman\nking man\n");
  check_one_line_error(run_tfx("analogy --queries two.txt", t.path, kBuiltin), 1, "two.txt:2: expected 'A B C'");
}

TEST_CASE("eval-analogies: questions with an unknown word are skipped and reported, --strict stops, none answered is an error") {
  TempDir t;
  write_file(t / "a.txt", ": family\nking queen man woman\nking queen zzyzx woman\n: capitals\nparis france berlin germany\n");
  Run r = run_tfx("eval-analogies a.txt --no-progress --format json", t.path, kBuiltin);
  const auto skipped = only_skipped(r, "tfx: skipped a.txt:3: 'zzyzx' is not among the first 531 words (upper-cased)");
  CHECK(skipped["line"] == 3);
  CHECK(skipped["word"] == "zzyzx");
  CHECK(skipped["query"] == "king queen zzyzx woman");
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["summary"]["answered"] == 2);
  CHECK(j["summary"]["oov"] == 1);

  check_one_line_error(run_tfx("eval-analogies a.txt --no-progress --strict", t.path, kBuiltin), 1,
                       "a.txt:3: 'zzyzx' is not among the first 531 words");
  write_file(t / "none.txt", ": s\nqqq queen man woman\nking zzz man woman\n");
  check_one_line_error(run_tfx("eval-analogies none.txt --no-progress", t.path, kBuiltin), 1,
                       "none.txt: none of the 2 questions could be answered");
  // gensim's dummy4unknown counts them as wrong instead: nothing is skipped
  Run d = run_tfx("eval-analogies a.txt --no-progress --dummy4unknown --format json", t.path, kBuiltin);
  REQUIRE(d.code == 0);
  CHECK(d.err.empty());
  CHECK(nlohmann::json::parse(d.out)["summary"]["answered"] == 3);
}

TEST_CASE("eval-similarity: pairs with an unknown word are skipped and reported; --strict stops") {
  TempDir t;
  write_file(t / "p.tsv", "# pairs\nking\tqueen\t8\nking\tzzyzx\t3\nman\twoman\t7\ncar\tqueen\t1\n");
  Run r = run_tfx("eval-similarity p.tsv --format json", t.path, kBuiltin);
  const auto skipped = only_skipped(r, "tfx: skipped p.tsv:3: 'zzyzx' is not among the first 531 words");
  CHECK(skipped["query"] == "king zzyzx");
  CHECK(skipped["word"] == "zzyzx");
  check_one_line_error(run_tfx("eval-similarity p.tsv --strict", t.path, kBuiltin), 1, "p.tsv:3: 'zzyzx' is not among");
}

TEST_CASE("skipped lines on stderr: the first 20, then a count; JSON lists all") {
  TempDir t;
  std::string text = "king man woman\n";
  for (int i = 0; i < 25; ++i) text += "king man unknownword" + std::to_string(i) + "\n";
  write_file(t / "many.txt", text);
  Run r = run_tfx("analogy --queries many.txt -k 1 --format json", t.path, kBuiltin);
  REQUIRE(r.code == 0);
  CHECK(count_of(r.err, "tfx: skipped many.txt:") == 20);
  CHECK(has(r.err, "tfx: skipped 5 more lines"));
  CHECK(count_lines(r.err) == 21);
  CHECK(nlohmann::json::parse(r.out)["tables"]["skipped"].size() == 25);
}
