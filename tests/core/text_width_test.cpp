// Display width: Hangul and CJK take two columns, combining marks none, escapes none; clipping
// and padding by columns; word wrapping.
#include <doctest/doctest.h>

#include "tfx/core/text_width.hpp"

using namespace tfx;

TEST_CASE("text width: wide characters count two columns, escapes and combining marks none") {
  CHECK(display_width("king") == 4);
  CHECK(display_width("왕") == 2);           // Hangul syllable U+C655
  CHECK(display_width("여왕") == 4);
  CHECK(display_width("東京") == 4);          // CJK ideographs
  CHECK(display_width("ｱ") == 1);            // halfwidth katakana stays narrow
  CHECK(display_width("Ａ") == 2);           // fullwidth Latin
  CHECK(display_width("é") == 1);            // precomposed
  CHECK(display_width("e\xCC\x81") == 1);    // e + combining acute
  CHECK(display_width("…") == 1);
  CHECK(display_width("\x1b[38;2;1;2;3m▀\x1b[0m") == 1);
  CHECK(display_width("\xff") == 1);         // invalid UTF-8 byte
}

TEST_CASE("text width: padding and clipping by columns") {
  CHECK(pad_left("왕", 4) == "  왕");
  CHECK(pad_right("왕", 4) == "왕  ");
  CHECK(pad_left("queen", 3) == "queen");
  CHECK(clip_to_width("abcdef", 4) == "abc…");
  CHECK(clip_to_width("여왕여왕", 5) == "여왕…");  // 2 + 2 + 1
  CHECK(clip_to_width("여왕여왕", 4) == "여…");    // a wide character never straddles the edge
  CHECK(clip_to_width("abc", 3) == "abc");
}

TEST_CASE("text width: words wrap at the width, later lines indented") {
  const auto lines = wrap_words("the quick brown fox jumps over the lazy dog", 15, "  ");
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == "the quick brown");
  CHECK(lines[1] == "  fox jumps");
  CHECK(lines[2] == "  over the lazy");
  CHECK(lines[3] == "  dog");
  for (const auto& l : wrap_words("supercalifragilistic word", 8)) CHECK(display_width(l) <= 8);
  CHECK(wrap_words("short", 80) == std::vector<std::string>{"short"});
}
