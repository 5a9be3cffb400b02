// The message-safe form of outside values (tfx/core/error.hpp: escape_for_message).
#include "tfx/core/error.hpp"

#include <algorithm>
#include <cstdio>

namespace tfx {

namespace {

// The length of the valid UTF-8 sequence at s[i] (0 when invalid: truncated, overlong, a
// surrogate or above U+10FFFF) and its code point.
std::size_t errmsg_utf8_at(std::string_view s, std::size_t i, char32_t& cp) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  std::size_t n = 0;
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  if (c >= 0xC2 && c <= 0xDF) n = 2, cp = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, cp = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, cp = c & 0x07;
  else return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3F);
  }
  if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;
  return n;
}

}  // namespace

std::string markup_escape(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '&': o += "&amp;"; break;
        case '<': o += "&lt;"; break;
        case '>': o += "&gt;"; break;
        case '"': o += "&quot;"; break;
        default:
          if (c >= 0x20 || c == '\t' || c == '\n') o += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    char32_t cp = 0;
    const std::size_t n = errmsg_utf8_at(s, i, cp);
    if (n == 0 || cp == 0xFFFE || cp == 0xFFFF) {
      o += "\xEF\xBF\xBD";  // U+FFFD
      i += n == 0 ? 1 : n;
    } else {
      o.append(s.data() + i, n);
      i += n;
    }
  }
  return o;
}

// Escapes C0/DEL/C1 controls and invalid bytes; cuts after max_bytes of input.
std::string escape_for_message(std::string_view s, std::size_t max_bytes) {
  std::string out;
  out.reserve(std::min(s.size(), max_bytes) + 8);
  char buf[12];
  std::size_t i = 0;
  while (i < s.size()) {
    if (i >= max_bytes) {
      out += "…";
      break;
    }
    char32_t cp = 0;
    const std::size_t n = errmsg_utf8_at(s, i, cp);
    if (n == 0) {
      std::snprintf(buf, sizeof buf, "\\x%02X", static_cast<unsigned char>(s[i]));
      out += buf;
      i += 1;
      continue;
    }
    if (cp == '\n') out += "\\n";
    else if (cp == '\t') out += "\\t";
    else if (cp == '\r') out += "\\r";
    else if (cp == 0) out += "\\0";
    else if (cp < 0x20 || cp == 0x7F) {
      std::snprintf(buf, sizeof buf, "\\x%02X", static_cast<unsigned>(cp));
      out += buf;
    } else if (cp >= 0x80 && cp <= 0x9F) {
      std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned>(cp));
      out += buf;
    } else {
      out.append(s.data() + i, n);
    }
    i += n;
  }
  return out;
}

}  // namespace tfx
