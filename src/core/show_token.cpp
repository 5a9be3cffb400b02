// show_token: a word or field of an input file made safe for a one-line error message.
#include "tfx/core/show_token.hpp"

#include <fmt/format.h>

namespace tfx {

std::string show_token(std::string_view t) {
  std::string o;
  std::size_t i = 0, shown = 0;
  while (i < t.size() && shown < 40) {
    const auto c = static_cast<unsigned char>(t[i]);
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (len > 1 && c < 0xc2) len = 0;  // overlong lead byte
    for (std::size_t k = 1; k < len; ++k)
      if (i + k >= t.size() || (static_cast<unsigned char>(t[i + k]) & 0xc0) != 0x80) len = 0;
    if (len == 1 && c >= 0x20 && c != 0x7f) {
      o += static_cast<char>(c);
    } else if (len > 1) {
      o.append(t.substr(i, len));
    } else {
      o += fmt::format("\\x{:02x}", c);
      len = 1;
    }
    i += len;
    ++shown;
  }
  if (i < t.size()) o += "…";
  return o;
}

}  // namespace tfx
