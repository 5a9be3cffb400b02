// The white-space splitter and joiner of tfx/core/words.hpp.
#include "tfx/core/words.hpp"

namespace tfx {

namespace {
bool ascii_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
}  // namespace

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && ascii_space(text[i])) ++i;
    const std::size_t start = i;
    while (i < text.size() && !ascii_space(text[i])) ++i;
    if (i > start) words.emplace_back(text.substr(start, i - start));
  }
  return words;
}

std::string join_words(const std::vector<std::string>& words, std::string_view sep) {
  std::string s;
  for (std::size_t k = 0; k < words.size(); ++k) {
    if (k) s += sep;
    s += words[k];
  }
  return s;
}

}  // namespace tfx
