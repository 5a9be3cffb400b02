// split_words / join_words: the one white-space splitter (spaces, tabs, CR of a Windows line, runs
// of them) and its inverse on already-split words.
#include <doctest/doctest.h>

#include "tfx/core/words.hpp"

using namespace tfx;

TEST_CASE("split_words: ASCII white space of any kind and length separates, nothing else; join_words inverts it") {
  using V = std::vector<std::string>;
  CHECK(split_words("  나는 학생\t이다\r") == V{"나는", "학생", "이다"});
  CHECK(split_words("a\n\nb \v c\fd") == V{"a", "b", "c", "d"});
  CHECK(split_words("") == V{});
  CHECK(split_words(" \t\r\n ") == V{});
  CHECK(split_words("학생이다") == V{"학생이다"});  // no space: one word (a non-breaking space U+00A0 is not ASCII space)
  CHECK(split_words("a\xC2\xA0" "b") == V{"a\xC2\xA0" "b"});
  CHECK(join_words({"I", "am", "a", "student"}) == "I am a student");
  CHECK(join_words({"x", "y"}, ", ") == "x, y");
  CHECK(join_words({}) == "");
  const std::string s = "그녀는 커피를 마셨다";
  CHECK(join_words(split_words(s)) == s);
}
