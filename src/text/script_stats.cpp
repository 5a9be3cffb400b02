// Characters, bytes and words of a text per script (include/tfx/text/script_stats.hpp).
#include "tfx/text/script_stats.hpp"

#include <algorithm>

#include "tfx/text/unicode.hpp"

namespace tfx {

Script script_of(char32_t c) {
  if ((c >= 0xAC00 && c <= 0xD7A3) || (c >= 0x1100 && c <= 0x11FF) || (c >= 0x3130 && c <= 0x318F)) return Script::hangul;
  if (unicode::is_cjk_ideograph(c)) return Script::han;
  if ((c >= U'A' && c <= U'Z') || (c >= U'a' && c <= U'z') || (c >= 0xC0 && c <= 0x24F && c != 0xD7 && c != 0xF7))
    return Script::latin;
  return Script::other;
}

ScriptCounts count_scripts(std::string_view text) {
  ScriptCounts s;
  // pending: a word started whose script is not known yet (no Hangul, Latin or Han so far)
  bool in_word = false, pending = false;
  for (std::size_t i = 0; i < text.size();) {
    char32_t c = 0xFFFD;
    const std::size_t n = std::max<std::size_t>(1, unicode::utf8_decode(text, i, &c));
    const Script sc = script_of(c);
    const auto k = static_cast<std::size_t>(sc);
    ++s.characters[k], s.bytes[k] += n;
    if (unicode::is_white_space(c)) {
      if (pending) ++s.words[static_cast<std::size_t>(Script::other)];
      in_word = pending = false;
    } else {
      if (!in_word) in_word = pending = true;
      if (pending && sc != Script::other) {
        ++s.words[k];
        pending = false;
      }
    }
    i += n;
  }
  if (pending) ++s.words[static_cast<std::size_t>(Script::other)];
  return s;
}

}  // namespace tfx
