// The command line helps: "did you mean" for misspelled flags and commands, a hint to quote a
// sentence, `tfx` alone prints the overview, one message style for ranges, --help in plain words
// with types and defaults, the common flags first in long help.
#include <doctest/doctest.h>

#include "helpers.hpp"

using namespace tfx::test;

TEST_CASE("cli: a misspelled flag gets 'did you mean'") {
  check_one_line_error(run_tfx("pe --lenght 50"), 2, "unknown flag '--lenght' for 'tfx pe'; did you mean '--len'?");
  check_one_line_error(run_tfx("pe sim --metrc cosine"), 2, "unknown flag '--metrc' for 'tfx pe sim'; did you mean '--metric'?");
  check_one_line_error(run_tfx("attention --sentense \"the cat\""), 2, "did you mean '--sentence'?");
  // nothing close: the flag and where to look
  check_one_line_error(run_tfx("pe --zzzzzz 3"), 2, "unknown flag '--zzzzzz' for 'tfx pe' (see tfx pe --help)");
}

TEST_CASE("cli: a misspelled command gets 'did you mean'; an unknown one is named as typed") {
  check_one_line_error(run_tfx("pe sims"), 2, "unknown command 'sims' for 'tfx pe'; did you mean 'tfx pe sim'?");
  check_one_line_error(run_tfx("atention --sentence hi"), 2, "unknown command 'atention'; did you mean 'tfx attention'?");
  Run bogus = run_tfx("bogus");
  check_one_line_error(bogus, 2, "tfx: error: unknown command 'bogus'; expected one of: pe, rope,");
  CHECK(!has(bogus.err, "'tfx bogus'"));
}

TEST_CASE("cli: an unquoted sentence is told to quote it") {
  check_one_line_error(run_tfx("attention --sentence the cat sat"), 2,
                       "--sentence takes one value but got 3 words; quote them: --sentence \"the cat sat\"");
}

TEST_CASE("cli: words a command does not take are named in the order given, not as a sentence to quote") {
  // CLI11 lists them last first ("4 3 2 1"); and a flag whose value is optional (--png) does not
  // take the next flag as its value, so the left-over words are not blamed on it
  TempDir dir;
  check_one_line_error(run_tfx("layernorm 1 2 3 4", dir.path), 2,
                       "The following arguments were not expected: 1 2 3 4 (see tfx layernorm --help)");
  check_one_line_error(run_tfx("layernorm 1 2 3 4 --png -o x.png", dir.path), 2,
                       "The following arguments were not expected: 1 2 3 4 (see tfx layernorm --help)");
  check_one_line_error(run_tfx("layernorm 7", dir.path), 2, "The following argument was not expected: 7");
  CHECK(std::filesystem::is_empty(dir.path));
}

TEST_CASE("cli: tfx alone prints the overview") {
  Run r = run_tfx("");
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(has(r.out, "Positional encodings:"));
  CHECK(has(r.out, "attention"));
  CHECK(!has(r.out, "A subcommand is required"));
}

TEST_CASE("cli: one message style for ranges") {
  check_one_line_error(run_tfx("attention --sentence \"the cat\" --dk 0"), 2,
                       "tfx: error: --dk: expected a whole number in 1…16777216, got '0'");
  check_one_line_error(run_tfx("pe --len 0"), 2, "tfx: error: --len: expected a whole number ≥ 1, got '0'");
  check_one_line_error(run_tfx("pe --view --width 3"), 2, "--width");
  for (const char* args : {"attention --sentence hi --heads 0", "analogy king man woman --top 0", "pe --view --width 0"}) {
    Run r = run_tfx(args);
    CAPTURE(args);
    CHECK(r.code == 2);
    CHECK(!has(r.err, "not in range"));
    CHECK(has(r.err, "expected a whole number in "));
  }
}

TEST_CASE("cli: --help says types and defaults in plain words") {
  Run r = run_tfx("pe --help");
  REQUIRE(r.code == 0);
  // descriptions wrap at the terminal width: read them as one line each
  for (std::size_t p; (p = r.out.find("\n                          ")) != std::string::npos;) r.out.replace(p, 27, " ");
  CHECK(has(r.out, "--len N"));
  CHECK(has(r.out, "(≥ 1, default 50)"));
  CHECK(has(r.out, "--base X"));
  CHECK(has(r.out, "(> 0, default 10000)"));
  CHECK(has(r.out, "--format NAME"));
  CHECK(has(r.out, "(one of table, csv, json, npy, md, markdown, png, svg; default table)"));
  CHECK(!has(r.out, "INT:INT"));
  CHECK(!has(r.out, "=50"));
  CHECK(!has(r.out, "TEXT:{"));
}
