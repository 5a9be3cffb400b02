// Korean output (issue 24 §16): the language choice (--lang, LC_ALL / LC_MESSAGES / LANG /
// LANGUAGE), what gets translated (figure titles, notes, table headers) and what does not (the
// numbers, JSON keys, CSV headers), and error lines in Korean with their flags and values. The completeness of po/ko.po and the absence
// of English in every command's Korean output are checked by tests/i18n/check_catalog.py and
// check_korean.py (ctest entries i18n_catalog, i18n_korean_output).
#include <doctest/doctest.h>

#include <cstdlib>
#include <optional>

#include "helpers.hpp"
#include "xml_check.hpp"
#include "tfx/core/i18n.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

// True when `tfx pe --dim 4 --pos 1 --i 2` run with exactly these locale variables (the others
// unset) explains itself in Korean ("짝수", even), false when in English; the environment is read
// by the command layer (src/cli/language_env.cpp), so the binary is what is asked.
bool korean_under(const std::string& vars) {
  const Run r = run_tfx("pe --dim 4 --pos 1 --i 2", {}, "-u LC_ALL -u LC_MESSAGES -u LANG -u LANGUAGE " + vars);
  REQUIRE(r.code == 0);
  REQUIRE((has(r.out, "짝수") != has(r.out, "even")));
  return has(r.out, "짝수");
}

}  // namespace

TEST_CASE("i18n: --lang takes en or ko (and their English names), anything else is refused naming the flag") {
  CHECK(parse_language("ko", "--lang") == Language::ko);
  CHECK(parse_language("KO", "--lang") == Language::ko);
  CHECK(parse_language("korean", "--lang") == Language::ko);
  CHECK(parse_language("en", "--lang") == Language::en);
  const std::string e = error_of([] { parse_language("fr", "--lang"); });
  CHECK(has(e, "--lang"));
  CHECK(has(e, "'fr'"));
  CHECK(has(e, "ko"));
}

TEST_CASE("i18n: the environment picks Korean as gettext does: LC_ALL over LC_MESSAGES over LANG, LANGUAGE only under a set locale") {
  CHECK_FALSE(korean_under(""));
  CHECK(korean_under("LANG=ko_KR.UTF-8"));
  CHECK_FALSE(korean_under("LANG=ko_KR.UTF-8 LC_MESSAGES=en_US.UTF-8"));
  CHECK(korean_under("LANG=en_US.UTF-8 LC_ALL=ko_KR.UTF-8"));
  CHECK(korean_under("LANG=en_US.UTF-8 LANGUAGE=ko:en"));
  // the C locale ignores LANGUAGE (as glibc does)
  CHECK_FALSE(korean_under("LANG=C LANGUAGE=ko"));
  CHECK_FALSE(korean_under("LC_ALL=C.UTF-8 LANG=ko_KR.UTF-8"));
}

TEST_CASE("i18n: pe --pos 1 --i 2 --lang ko explains PE(1,2) in Korean with the same value 0.00999983 as the notes") {
  const Run en = run_tfx("pe --dim 4 --pos 1 --i 2");
  const Run ko = run_tfx("pe --dim 4 --pos 1 --i 2 --lang ko");
  REQUIRE(en.code == 0);
  REQUIRE(ko.code == 0);
  CHECK(has(en.out, "0.00999983"));
  CHECK(has(ko.out, "0.00999983"));
  CHECK(has(en.out, "even"));
  CHECK(has(ko.out, "짝수"));  // i = 2 is even: the sine formula
  CHECK_FALSE(has(ko.out, "even"));
  // --lang may come first, as an option of tfx itself, or as --lang=ko
  CHECK(run_tfx("--lang ko pe --dim 4 --pos 1 --i 2").out == ko.out);
  CHECK(run_tfx("pe --lang=ko --dim 4 --pos 1 --i 2").out == ko.out);
}

TEST_CASE("i18n: a Korean LANG switches the output, --lang en switches it back; a bad --lang is a usage error") {
  const Run en = run_tfx("pe --dim 4 --pos 1 --i 2");
  const Run by_env = run_tfx("pe --dim 4 --pos 1 --i 2", {}, "LC_ALL= LANG=ko_KR.UTF-8");
  CHECK(by_env.out == run_tfx("pe --dim 4 --pos 1 --i 2 --lang ko").out);
  CHECK(run_tfx("pe --dim 4 --pos 1 --i 2 --lang en", {}, "LC_ALL= LANG=ko_KR.UTF-8").out == en.out);
  const Run bad = run_tfx("pe --dim 4 --lang fr");
  CHECK(bad.code == 2);
  CHECK(bad.err == "tfx: error: --lang: expected en (English) or ko (Korean), got 'fr'\n");
  const Run missing = run_tfx("pe --dim 4 --lang");
  CHECK(missing.code == 2);
  CHECK(has(missing.err, "--lang"));
  // error messages in Korean, the flag and the value as given
  const Run err = run_tfx("pe --dim 0 --lang ko");
  CHECK(err.code == 2);
  CHECK(err.err == "tfx: error: --dim: 1 이상의 정수가 필요한데 '0'을 받음 (tfx pe --help 참고)\n");
  CHECK(run_tfx("pe --dim 0").err == "tfx: error: --dim: expected a whole number ≥ 1, got '0' (see tfx pe --help)\n");
  // the system's reason inside an error line too, from tfx's catalog (glibc's own strerror would
  // follow LANGUAGE and, in the C locale's ASCII, print "?? ????")
  const Run unwritable = run_tfx("pe --len 2 --dim 2 --lang ko -o /nonexistent-tfx-dir/pe.csv");
  CHECK(unwritable.code == 1);
  CHECK(has(unwritable.err, "-o /nonexistent-tfx-dir/pe.csv: "));
  CHECK(has(unwritable.err, "그런 파일이나 디렉터리가 없음"));
  CHECK_FALSE(has(unwritable.err, "No such file"));
  CHECK_FALSE(has(unwritable.err, "??"));
}

TEST_CASE("i18n: under --lang ko figures and table headers speak the notes' terms, while JSON keys, CSV headers and numbers stay as in English") {
  TempDir dir;
  REQUIRE(run_tfx("pe --len 8 --dim 8 --svg pe.svg --lang ko", dir.path).code == 0);
  const std::string svg = read_file(dir / "pe.svg");
  CHECK(svg_problem(svg) == "");
  CHECK(has(svg, "위치 인코딩"));  // positional encoding, as note 001 writes it
  CHECK(has(svg, "임베딩 차원"));  // the x axis: embedding dimension
  CHECK_FALSE(has(svg, "Sinusoidal"));
  // the table: the attention weights' header and the step notes in Korean, the numbers the same
  const Run en = run_tfx("attention --sentence \"I love you\" --dk 4 --format csv");
  const Run ko = run_tfx("attention --sentence \"I love you\" --dk 4 --format csv --lang ko");
  CHECK(ko.out == en.out);  // CSV is for programs: same header, same numbers
  const Run ko_json = run_tfx("pe --len 2 --dim 2 --format json --lang ko");
  const Run en_json = run_tfx("pe --len 2 --dim 2 --format json");
  const auto a = nlohmann::json::parse(ko_json.out), b = nlohmann::json::parse(en_json.out);
  CHECK(a["data"] == b["data"]);
  CHECK(a["params"] == b["params"]);
  const Run table = run_tfx("attention --sentence \"I love you\" --dk 4 --lang ko");
  CHECK(has(table.out, "쿼리"));  // query\key corner of the weights table
  CHECK(has(table.out, "가중치"));
}
