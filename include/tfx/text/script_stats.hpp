// What a text holds per script, for tokenizer statistics (--stats, --compare): characters, UTF-8
// bytes and words under Hangul, Latin, Han and other.
#pragma once
#include <array>
#include <cstddef>
#include <string_view>

namespace tfx {

// Hangul: syllables U+AC00–D7A3, jamo U+1100–11FF, compatibility jamo U+3130–318F; Han: the CJK
// ideographs of unicode.hpp (BERT's list); Latin: A–Z, a–z and U+00C0–024F without × ÷; other:
// everything else (digits, punctuation, spaces, emoji, other scripts).
enum class Script { hangul, latin, han, other };
inline constexpr std::size_t kScripts = 4;
Script script_of(char32_t c);

struct ScriptCounts {
  std::array<std::size_t, kScripts> characters{}, bytes{}, words{};
  std::size_t all_characters() const { return characters[0] + characters[1] + characters[2] + characters[3]; }
  std::size_t all_bytes() const { return bytes[0] + bytes[1] + bytes[2] + bytes[3]; }
  std::size_t all_words() const { return words[0] + words[1] + words[2] + words[3]; }
};

// Code points and their UTF-8 bytes per script; words = runs of non-white-space code points
// (unicode.hpp's is_white_space), each counted under the script of its first Hangul, Latin or Han
// code point (other when it has none: "2017", "…"). `text` is valid UTF-8 (an invalid byte counts
// as one character of other).
ScriptCounts count_scripts(std::string_view text);

}  // namespace tfx
