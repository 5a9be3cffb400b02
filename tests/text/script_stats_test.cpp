// count_scripts (tfx/text/script_stats.hpp): characters, UTF-8 bytes and words per script, counted
// here by hand for small texts.
#include <doctest/doctest.h>

#include "tfx/text/script_stats.hpp"

using tfx::Script;

namespace {
constexpr std::size_t kHangulAt = static_cast<std::size_t>(Script::hangul), kLatinAt = static_cast<std::size_t>(Script::latin),
                      kHanAt = static_cast<std::size_t>(Script::han), kOtherAt = static_cast<std::size_t>(Script::other);
}

TEST_CASE("script_of: Hangul syllables and jamo, Latin letters with accents, Han ideographs, the rest other") {
  CHECK(tfx::script_of(U'가') == Script::hangul);
  CHECK(tfx::script_of(U'힣') == Script::hangul);
  CHECK(tfx::script_of(0x1100) == Script::hangul);  // ᄀ, a leading jamo (BERT uncased's NFD)
  CHECK(tfx::script_of(U'ㄱ') == Script::hangul);   // compatibility jamo
  CHECK(tfx::script_of(U'a') == Script::latin);
  CHECK(tfx::script_of(U'É') == Script::latin);
  CHECK(tfx::script_of(U'×') == Script::other);     // U+00D7 sits among the Latin letters
  CHECK(tfx::script_of(U'学') == Script::han);
  CHECK(tfx::script_of(U'7') == Script::other);
  CHECK(tfx::script_of(U'α') == Script::other);
  CHECK(tfx::script_of(0x1F600) == Script::other);  // 😀
}

TEST_CASE("count_scripts: a word counts under its first Hangul, Latin or Han character") {
  // "I am 학생(2017) 中文 …": words I, am, 학생(2017), 中文, … — 2 Latin, 1 Hangul, 1 Han, 1 other
  const tfx::ScriptCounts s = tfx::count_scripts("I am 학생(2017) 中文 …");
  CHECK(s.words[kLatinAt] == 2);
  CHECK(s.words[kHangulAt] == 1);
  CHECK(s.words[kHanAt] == 1);
  CHECK(s.words[kOtherAt] == 1);
  CHECK(s.characters[kLatinAt] == 3);
  CHECK(s.characters[kHangulAt] == 2);
  CHECK(s.bytes[kHangulAt] == 6);
  CHECK(s.characters[kHanAt] == 2);
  CHECK(s.bytes[kHanAt] == 6);
  // other: 4 spaces, ( 2 0 1 7 ), … = 11 characters, 4 + 6 + 3 bytes
  CHECK(s.characters[kOtherAt] == 11);
  CHECK(s.bytes[kOtherAt] == 13);
  CHECK(s.all_bytes() == std::string_view("I am 학생(2017) 中文 …").size());
  // a word that starts with digits takes the script of its first letter; one of digits alone is other
  const tfx::ScriptCounts d = tfx::count_scripts("  3개 42\n");
  CHECK(d.words[kHangulAt] == 1);
  CHECK(d.words[kOtherAt] == 1);
  CHECK(d.all_words() == 2);
  CHECK(tfx::count_scripts("").all_words() == 0);
}
