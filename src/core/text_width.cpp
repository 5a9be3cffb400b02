// Display width of UTF-8 text (see text_width.hpp): wcwidth's wide ranges, decoded by hand so
// the result does not depend on the C locale.
#include "tfx/core/text_width.hpp"

#include <algorithm>

namespace tfx {

namespace {

// Decodes one code point at s[i]; advances i. Invalid bytes decode as themselves (width 1).
char32_t next_codepoint(std::string_view s, std::size_t& i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  int len = b0 < 0x80 ? 1 : (b0 >> 5) == 6 ? 2 : (b0 >> 4) == 14 ? 3 : (b0 >> 3) == 30 ? 4 : 0;
  if (len == 0 || i + len > s.size()) {
    ++i;
    return 0xFFFD;
  }
  char32_t cp = len == 1 ? b0 : len == 2 ? (b0 & 0x1F) : len == 3 ? (b0 & 0x0F) : (b0 & 0x07);
  for (int k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) {
      ++i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  i += len;
  return cp;
}

// Length of an escape sequence "\x1b[…<letter>" starting at s[i] (0 when none).
std::size_t escape_length(std::string_view s, std::size_t i) {
  if (s[i] != '\x1b') return 0;
  std::size_t j = i + 1;
  if (j < s.size() && s[j] == '[') {
    ++j;
    while (j < s.size() && !((s[j] >= 'A' && s[j] <= 'Z') || (s[j] >= 'a' && s[j] <= 'z'))) ++j;
    return std::min(j + 1, s.size()) - i;
  }
  return 1;
}

}  // namespace

int codepoint_width(char32_t cp) {
  if (cp == 0) return 0;
  if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0)) return 0;
  // combining marks and zero-width characters
  if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x1AB0 && cp <= 0x1AFF) || (cp >= 0x1DC0 && cp <= 0x1DFF) ||
      (cp >= 0x20D0 && cp <= 0x20FF) || (cp >= 0xFE20 && cp <= 0xFE2F) || cp == 0x200B || cp == 0x200C ||
      cp == 0x200D || cp == 0xFEFF || (cp >= 0x1160 && cp <= 0x11FF))
    return 0;
  // East Asian wide and fullwidth
  if ((cp >= 0x1100 && cp <= 0x115F) || cp == 0x2329 || cp == 0x232A || (cp >= 0x2E80 && cp <= 0x303E) ||
      (cp >= 0x3041 && cp <= 0x33FF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF) ||
      (cp >= 0xA000 && cp <= 0xA4CF) || (cp >= 0xA960 && cp <= 0xA97F) || (cp >= 0xAC00 && cp <= 0xD7A3) ||
      (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
      (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) || (cp >= 0x1F900 && cp <= 0x1F9FF) ||
      (cp >= 0x20000 && cp <= 0x3FFFD))
    return 2;
  return 1;
}

std::size_t display_width(std::string_view s) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < s.size();) {
    if (std::size_t e = escape_length(s, i)) {
      i += e;
      continue;
    }
    w += static_cast<std::size_t>(codepoint_width(next_codepoint(s, i)));
  }
  return w;
}

std::string clip_to_width(std::string_view s, std::size_t width) {
  if (display_width(s) <= width) return std::string(s);
  if (width == 0) return {};
  std::string out;
  std::size_t w = 0;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t start = i;
    const int cw = codepoint_width(next_codepoint(s, i));
    if (w + static_cast<std::size_t>(cw) > width - 1) break;
    w += static_cast<std::size_t>(cw);
    out.append(s.substr(start, i - start));
  }
  return out + "…";
}

std::string pad_left(std::string_view s, std::size_t width) {
  const std::size_t w = display_width(s);
  return w >= width ? std::string(s) : std::string(width - w, ' ') + std::string(s);
}

std::string pad_right(std::string_view s, std::size_t width) {
  const std::size_t w = display_width(s);
  return w >= width ? std::string(s) : std::string(s) + std::string(width - w, ' ');
}

std::vector<std::string> wrap_words(std::string_view s, std::size_t width, std::string_view indent) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t line_w = 0;
  const std::size_t indent_w = display_width(indent);
  auto flush = [&] {
    lines.push_back(line);
    line = std::string(indent);
    line_w = indent_w;
  };
  std::size_t i = 0;
  bool first_word = true;
  while (i < s.size()) {
    std::size_t j = s.find(' ', i);
    if (j == std::string_view::npos) j = s.size();
    std::string_view word = s.substr(i, j - i);
    i = j + 1;
    if (word.empty() && !first_word) continue;
    const std::size_t ww = display_width(word);
    const bool at_start = first_word || line_w == indent_w;
    if (!at_start && line_w + 1 + ww > width) flush();
    const bool now_at_start = first_word || line_w == indent_w;
    std::string piece = now_at_start ? std::string(word) : " " + std::string(word);
    if (line_w + display_width(piece) > width) piece = clip_to_width(piece, width > line_w ? width - line_w : 0);
    line += piece;
    line_w += display_width(piece);
    first_word = false;
  }
  lines.push_back(line);
  return lines;
}

}  // namespace tfx
