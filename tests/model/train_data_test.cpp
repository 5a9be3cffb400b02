// The limits of a --pairs file (model/train.hpp parse_pair_lines): at most kMaxPairWords = 64
// words a side — 64 are read, 65 are an error naming the line and the side, on either side.
#include <doctest/doctest.h>

#include <string>

#include "tfx/core/error.hpp"
#include "tfx/model/train.hpp"

using namespace tfx;

namespace {

std::string tdt_sentence(const std::string& word, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += (i ? " " : "") + word + std::to_string(i);
  return s;
}

std::string tdt_error(const std::string& text) {
  try {
    parse_pair_lines(text, "p.tsv");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("parse_pair_lines: 64 words a side are read, 65 are an error naming the line and the side") {
  REQUIRE(kMaxPairWords == 64);
  const std::string ok = "a\tb\n" + tdt_sentence("s", 64) + "\t" + tdt_sentence("t", 64) + "\n";
  const std::vector<TextPair> pairs = parse_pair_lines(ok, "p.tsv");
  REQUIRE(pairs.size() == 2);
  CHECK(pairs[1].source.size() == 64);
  CHECK(pairs[1].target.size() == 64);
  CHECK(pairs[1].source.back() == "s63");
  // 65 on the source side of line 3 (after a comment line), then on the target side of line 2
  const std::string src_long = tdt_error("# c\na\tb\n" + tdt_sentence("s", 65) + "\tx\n");
  CHECK(src_long.find("p.tsv:3:") != std::string::npos);
  CHECK(src_long.find("65 words on the source side") != std::string::npos);
  CHECK(src_long.find("at most 64") != std::string::npos);
  const std::string tgt_long = tdt_error("a\tb\nx\t" + tdt_sentence("t", 65) + "\n");
  CHECK(tgt_long.find("p.tsv:2:") != std::string::npos);
  CHECK(tgt_long.find("target side") != std::string::npos);
  // extra spaces do not count as words
  CHECK(tdt_error("a\t" + tdt_sentence("t", 64) + "   \n").empty());
}
