// translate and trace outside the teaching translator's training domain: the answer still comes
// (exit 0), and stderr, the table's header, the figure's title and the JSON summary all say it is
// outside and why; inside, the header says whether the sentence was trained on or held out.
// Standard spellings are usage errors that show the domain's spelling; greedy decoding that runs
// into --max-tokens says so.
#include <nlohmann/json.hpp>

#include "helpers.hpp"

using namespace tfx::test;

TEST_CASE("translate: English input is translated but flagged everywhere as outside the training domain") {
  const Run t = run_tfx("translate 'I am a student'");
  REQUIRE(t.code == 0);
  CHECK(has(t.err, "tfx: warning: outside the training domain: 'I', 'am', 'a', 'student' are words of the English side"));
  CHECK(has(t.out, "outside the training domain"));
  CHECK(has(t.out, "the model has never seen this"));
  const Run j = run_tfx("translate 'I am a student' --format json");
  REQUIRE(j.code == 0);
  const auto s = json_of(j)["summary"];
  CHECK(s["in_domain"] == false);
  CHECK(s["domain"] == "outside");
  REQUIRE(s["domain_reasons"].size() == 1);
  CHECK(has(s["domain_reasons"][0].get<std::string>(), "the source is Korean, e.g. 나는 학생 이다"));
  const Run svg = run_tfx("translate 'I am a student' --format svg -o -");
  REQUIRE(svg.code == 0);
  CHECK(has(svg.out, "outside the training domain, the model has never seen this"));
  CHECK(has(svg.out, "words of the English side"));  // the reason, as the panel's subtitle
}

TEST_CASE("translate: domain words in a shape the corpus never has are outside; held-out sentences are inside") {
  const Run a = run_tfx("translate '그는 책을 마셨다' --format json");
  REQUIRE(a.code == 0);
  CHECK(json_of(a)["summary"]["in_domain"] == false);
  CHECK(has(json_of(a)["summary"]["domain_reasons"][0].get<std::string>(), "'책을' is followed by '읽는다' or '읽었다'"));
  CHECK(has(a.err, "tfx: warning: outside the training domain"));
  const Run b = run_tfx("translate '나는 학생 이다'");
  REQUIRE(b.code == 0);
  CHECK(b.err.empty());
  CHECK(has(b.out, "in the training domain: a training sentence"));
  // corpus.tsv marks 나는 의사 이었다 as a test sentence
  const Run c = run_tfx("translate '나는 의사 이었다' --format json");
  CHECK(json_of(c)["summary"]["in_domain"] == true);
  CHECK(json_of(c)["summary"]["domain"] == "test");
}

TEST_CASE("translate: greedy decoding that hits --max-tokens says it stopped at the limit and what it repeated") {
  const Run r = run_tfx("translate '나는' --max-tokens 6");
  REQUIRE(r.code == 0);
  CHECK(has(r.err, "stopped at the limit (--max-tokens 6) without <eos>"));
  CHECK(has(r.out, "stopped at the limit (--max-tokens 6) without <eos>"));
  const auto j = json_of(run_tfx("translate '나는' --max-tokens 6 --format json"));
  CHECK(j["summary"]["finished"] == false);
  const auto tokens = j["summary"]["tokens"];
  REQUIRE(tokens.size() == 6);
  bool repeated = true;
  for (const auto& t : tokens) repeated = repeated && t == tokens[5];
  CHECK(has(r.err, "repeated") == repeated);  // the note names a repetition only when there is one
}

TEST_CASE("translate and trace: standard spelling is a usage error that shows the domain's spelling") {
  check_one_line_error(run_tfx("translate '나는 학생이다'"), 2, "try \"나는 학생 이다\"");
  check_one_line_error(run_tfx("translate '저는 학생입니다'"), 2, "'저는' → '나는', '학생입니다' → '학생 이다'");
  check_one_line_error(run_tfx("trace '저는 학생 이다'"), 2, "try \"나는 학생 이다\"");
}

TEST_CASE("trace: outside the domain it still traces, and says so on stderr, in the header, JSON and the poster's title") {
  const Run r = run_tfx("trace 'I am a student'");
  REQUIRE(r.code == 0);
  CHECK(has(r.err, "tfx: warning: outside the training domain"));
  CHECK(has(r.out, "outside the training domain"));
  const auto j = json_of(run_tfx("trace '나는 학생 마셨다' --format json"));
  CHECK(j["summary"]["in_domain"] == false);
  CHECK(has(j["summary"]["domain_reasons"][0].get<std::string>(), "'학생' is followed by '이다' or '이었다', never by '마셨다'"));
  const Run svg = run_tfx("trace 'I am a student' --format svg -o -");
  REQUIRE(svg.code == 0);
  CHECK(has(svg.out, "outside the training domain, the model has never seen this"));
  const Run in = run_tfx("trace '나는 학생 이다' --format json");
  CHECK(in.err.empty());
  CHECK(json_of(in)["summary"]["in_domain"] == true);
}
