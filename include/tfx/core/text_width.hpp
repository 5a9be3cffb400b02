// Display width of UTF-8 text in a terminal: one column per character, two for East Asian wide
// characters (Hangul, CJK ideographs, kana, fullwidth forms, most emoji), none for combining
// marks and ANSI escape sequences. The one home for fitting text to a terminal's columns:
// tables, --view, notes and progress bars all measure with it.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tfx {

// Columns a terminal uses for code point cp: 0, 1 or 2.
int codepoint_width(char32_t cp);

// Columns s takes; "\x1b[…m" escape sequences count 0, bytes that are not valid UTF-8 count 1.
std::size_t display_width(std::string_view s);

// s cut to at most `width` columns, ending in "…" when cut (s has no escape sequences).
std::string clip_to_width(std::string_view s, std::size_t width);

// s padded with spaces on the left (right-aligned) or right to `width` columns.
std::string pad_left(std::string_view s, std::size_t width);
std::string pad_right(std::string_view s, std::size_t width);

// s broken at spaces into lines of at most `width` columns (a word longer than the width gets a
// line of its own and is cut); later lines start with `indent`. No trailing newline.
std::vector<std::string> wrap_words(std::string_view s, std::size_t width, std::string_view indent = "");

}  // namespace tfx
