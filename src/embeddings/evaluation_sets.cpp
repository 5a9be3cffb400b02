// The test-set files of the evaluation: the Google analogy format (`: section` lines, then
// `a b c d` questions) and word-pair files (WordSim353, SimLex-999: `word1<TAB>word2<TAB>score`),
// read as gensim reads them (BOM, CRLF, comments; skip_invalid skips malformed lines).
#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tfx/embeddings/evaluation.hpp"
#include "tfx/io/text_file.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {

// The whole file as bytes (bounded; a BOM removed); errors name the path.
// `analogy`: the analogy questions, else the word pairs (each message whole, so it reads as one
// sentence in every language)
std::string read_text_file(const std::string& path, bool analogy) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw Error(analogy ? fmt::format(N_("{}: no such analogy file"), path) : fmt::format(N_("{}: no such word-pair file"), path));
  if (std::filesystem::is_directory(path, ec))
    throw Error(analogy ? fmt::format(N_("{}: is a directory, expected an analogy file"), path)
                        : fmt::format(N_("{}: is a directory, expected a word-pair file"), path));
  return read_text_input(path, analogy ? N_("analogy file") : N_("word-pair file"));
}

// Calls f(line, 1-based line number) for each line, without its "\n" or "\r\n"; skips a BOM.
template <class F>
void for_each_line(std::string_view text, F f) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::size_t no = 0;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    f(line, ++no);
  }
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_ws(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    std::size_t j = i;
    while (j < s.size() && !is_space(s[j])) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// A line shortened for an error message.
std::string quoted(std::string_view s) {
  if (s.size() > 60) return fmt::format("\"{}…\"", s.substr(0, 60));
  return fmt::format("\"{}\"", s);
}

}  // namespace

// ---- test-set files ----------------------------------------------------------------------------

std::size_t AnalogySet::question_count() const {
  std::size_t n = 0;
  for (const auto& s : sections) n += s.questions.size();
  return n;
}

AnalogySet parse_analogy_set(std::string_view text, const std::string& path, bool skip_invalid) {
  AnalogySet set;
  for_each_line(text, [&](std::string_view raw, std::size_t no) {
    std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') return;
    if (line.front() == ':') {
      // gensim: line.lstrip(': ').strip()
      std::string_view name = line;
      while (!name.empty() && (name.front() == ':' || name.front() == ' ')) name.remove_prefix(1);
      name = trim(name);
      if (name.empty()) throw Error(fmt::format(N_("{}:{}: section line without a name (expected ': capital-world')"), path, no));
      set.sections.push_back({std::string(name), no, {}});
      return;
    }
    if (set.sections.empty())
      throw Error(fmt::format(N_("{}:{}: question before the first section; the Google analogy format starts each section "
                              "with a line ': name' (e.g. ': capital-common-countries')"),
                              path, no));
    auto words = split_ws(line);
    if (words.size() != 4) {
      if (skip_invalid) {
        ++set.skipped_lines;
        return;
      }
      throw Error(words.size() == 1 ? fmt::format(N_("{}:{}: expected a question of 4 words 'a b c d' (a:b :: c:d), got 1 word: {} "
                                                     "(skip_invalid skips such lines, as gensim does)"),
                                                  path, no, quoted(line))
                                    : fmt::format(N_("{}:{}: expected a question of 4 words 'a b c d' (a:b :: c:d), got {} words: {} "
                                                     "(skip_invalid skips such lines, as gensim does)"),
                                                  path, no, words.size(), quoted(line)),
                  Error::Kind::data, {"skip_invalid"});
    }
    set.sections.back().questions.push_back(
        {std::string(words[0]), std::string(words[1]), std::string(words[2]), std::string(words[3]), no});
  });
  if (set.question_count() == 0)
    throw Error(fmt::format(N_("{}: no analogy questions (expected ': section' lines followed by 'a b c d' lines)"), path));
  return set;
}

AnalogySet read_analogy_set(const std::string& path, bool skip_invalid) {
  return parse_analogy_set(read_text_file(path, true), path, skip_invalid);
}

WordPairSet parse_word_pairs(std::string_view text, const std::string& path, bool skip_invalid) {
  WordPairSet set;
  for_each_line(text, [&](std::string_view raw, std::size_t no) {
    std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') return;
    std::vector<std::string_view> fields;
    if (line.find('\t') != std::string_view::npos) {
      std::string_view rest = line;
      for (;;) {
        std::size_t t = rest.find('\t');
        fields.push_back(trim(rest.substr(0, t)));
        if (t == std::string_view::npos) break;
        rest.remove_prefix(t + 1);
      }
    } else {
      fields = split_ws(line);
    }
    if (fields.size() != 3 || fields[0].empty() || fields[1].empty()) {
      if (skip_invalid) {
        ++set.skipped_lines;
        return;
      }
      throw Error(fields.size() == 1 ? fmt::format(N_("{}:{}: expected 'word1<TAB>word2<TAB>score', got 1 field: {} (skip_invalid skips such lines, as gensim does)"),
                                                   path, no, quoted(line))
                                     : fmt::format(N_("{}:{}: expected 'word1<TAB>word2<TAB>score', got {} fields: {} (skip_invalid skips such lines, "
                                                      "as gensim does)"),
                                                   path, no, fields.size(), quoted(line)),
                  Error::Kind::data, {"skip_invalid"});
    }
    std::string num(fields[2]);
    char* end = nullptr;
    errno = 0;
    const double score = std::strtod(num.c_str(), &end);
    if (num.empty() || end != num.c_str() + num.size() || !std::isfinite(score)) {
      if (skip_invalid) {
        ++set.skipped_lines;
        return;
      }
      throw Error(fmt::format(N_("{}:{}: score {} is not a number (expected 'word1<TAB>word2<TAB>score', e.g. "
                              "'tiger<TAB>cat<TAB>7.35') (skip_invalid skips such lines, as gensim does)"),
                              path, no, quoted(fields[2])),
                  Error::Kind::data, {"skip_invalid"});
    }
    set.pairs.push_back({std::string(fields[0]), std::string(fields[1]), score, no});
  });
  if (set.pairs.empty())
    throw Error(fmt::format(N_("{}: no word pairs (expected lines 'word1<TAB>word2<TAB>score')"), path));
  return set;
}

WordPairSet read_word_pairs(const std::string& path, bool skip_invalid) {
  return parse_word_pairs(read_text_file(path, false), path, skip_invalid);
}

}  // namespace tfx
