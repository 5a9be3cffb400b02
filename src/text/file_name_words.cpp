#include "tfx/text/file_name_words.hpp"

#include <cctype>

#include "tfx/text/unicode.hpp"

namespace tfx {

std::string name_part(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& t : words) {
    if (s.size() > 40) break;
    std::string w;
    for (std::size_t i = 0; i < t.size();) {
      char32_t cp = 0;
      const std::size_t n = unicode::utf8_decode(t, i, &cp);
      if (n == 0) {
        ++i;
        continue;
      }
      const bool keep = cp < 0x80 ? std::isalnum(static_cast<int>(cp)) != 0
                                  : (unicode::char_flags(cp) & (unicode::kPunctuation | unicode::kWhitespace | unicode::kDropped |
                                                                unicode::kNonspacingMark)) == 0;
      if (keep) w += t.substr(i, n);
      i += n;
    }
    if (w.empty()) continue;
    s += (s.empty() ? "" : "_") + w;
  }
  return s.empty() ? "sentence" : s;
}

std::string default_figure_name(const std::string& command, const std::string& text) {
  std::vector<std::string> words;
  std::string w;
  for (char c : text + " ") {
    if (c == ' ' || c == '\t' || c == '\n') {
      if (!w.empty()) words.push_back(w);
      w.clear();
    } else {
      w += c;
    }
  }
  return command + "_" + name_part(words) + ".png";
}

}  // namespace tfx
