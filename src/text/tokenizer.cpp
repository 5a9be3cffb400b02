// Word, character and WordPiece tokenization; vocab.txt parsing; the built-in vocabulary.
#include "tfx/text/tokenizer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tfx/core/i18n.hpp"
#include "tfx/core/error.hpp"
#include "tfx/io/text_file.hpp"
#include "tfx/text/unicode.hpp"

namespace tfx {

namespace {

using unicode::utf8_decode;

// "\xNN" for bytes that are not printable ASCII, so a message never carries raw binary.
std::string printable(std::string_view s) {
  std::string o;
  for (unsigned char c : s.substr(0, 60)) {
    if (c >= 32 && c < 127) o += static_cast<char>(c);
    else o += fmt::format("\\x{:02X}", c);
  }
  if (s.size() > 60) o += "…";
  return o;
}

// The built-in vocabulary's tokens in id order (one per line).
constexpr const char* kBuiltinVocab =
    "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n"
    ".\n,\n!\n?\n'\n\"\n:\n;\n-\n(\n)\n"
    "I\ni\nyou\nwe\nhe\nshe\nit\nthey\nme\nmy\nthe\na\nan\nam\nis\nare\nwas\nbe\nnot\nand\nor\nto\nof\nin\non\nat\n"
    "with\nfor\nthis\nthat\nwhat\nhow\nlove\nlike\nplay\nfoot\nbasket\nbase\nball\ngame\nwalk\nrun\nread\nwrite\n"
    "learn\nstudy\nwork\nthink\nspeak\nsing\nstudent\nteacher\nschool\nbook\nword\ntoken\nvector\nking\nqueen\nman\n"
    "woman\ndog\ncat\nhello\nworld\nattention\ntransform\nembed\nposition\nsentence\nlanguage\nmodel\ndeep\nneural\n"
    "network\n"
    "##ing\n##ball\n##ed\n##s\n##er\n##ers\n##est\n##ly\n##ize\n##ding\n##ment\n##al\n##ness\n"
    "나\n나는\n학생\n이다\n##는\n##다\n이\n저\n##의\n";

Vocabulary make_builtin() {
  Vocabulary v = parse_vocab(kBuiltinVocab, "built-in vocabulary");
  v.name = N_("built-in WordPiece vocabulary");  // shown through tr_runtime
  return v;
}

}  // namespace

std::optional<std::size_t> Vocabulary::find(const std::string& token) const {
  auto it = ids.find(token);
  if (it == ids.end()) return std::nullopt;
  return it->second;
}

Vocabulary parse_vocab(std::string_view text, const std::string& where) {
  Vocabulary v;
  v.name = where;
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a BOM
  std::size_t line_no = 0;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.empty())
      throw Error(fmt::format(N_("{}:{}: empty line; a vocab file has one token per line (id = line number − 1)"), where, line_no));
    for (std::size_t i = 0; i < line.size();) {
      const std::size_t n = utf8_decode(line, i);
      if (n == 0) throw Error(fmt::format(N_("{}:{}: invalid UTF-8 in '{}'"), where, line_no, printable(line)));
      if (line[i] == '\t') throw Error(fmt::format(N_("{}:{}: a tab in '{}'; expected one token per line"), where, line_no, printable(line)));
      i += n;
    }
    std::string token(line);
    v.longest = std::max(v.longest, token.size());
    auto [it, fresh] = v.ids.emplace(token, v.tokens.size());
    if (!fresh)
      throw Error(fmt::format(N_("{}:{}: duplicate token '{}' (first on line {})"), where, line_no, token, it->second + 1));
    v.tokens.push_back(std::move(token));
  }
  if (v.tokens.empty()) throw Error(fmt::format(N_("{}: no tokens; expected one token per line"), where));
  return v;
}

Vocabulary read_vocab(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(fmt::format(N_("{}: no such file"), path));
  if (std::filesystem::is_directory(path, ec)) throw Error(fmt::format(N_("{}: is a directory; expected a vocab.txt file"), path));
  return parse_vocab(read_text_input(path, N_("vocabulary file")), path);  // bounded: /dev/zero is refused
}

const Vocabulary& builtin_vocab() {
  static const Vocabulary v = make_builtin();
  return v;
}

std::vector<std::string> utf8_characters(std::string_view text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_decode(text, i);
    if (n == 0) throw usage_error(fmt::format(N_("invalid UTF-8 at byte {} of '{}'"), i, printable(text)));
    out.emplace_back(text.substr(i, n));
    i += n;
  }
  return out;
}

std::string normalize_case(std::string_view text, Casing casing) {
  if (casing == Casing::keep) return std::string(text);
  std::u32string s;
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0xFFFD;
    const std::size_t n = utf8_decode(text, i, &cp);
    s += n ? cp : char32_t{0xFFFD};
    i += n ? n : 1;
  }
  s = unicode::lower(s);
  if (casing == Casing::bert_uncased) s = unicode::strip_accents(s);
  return unicode::to_utf8(s);
}

// BERT's special tokens, which HF's BertTokenizer passes to the basic tokenizer as never_split.
constexpr std::u32string_view kSpecialTokens[] = {U"[PAD]", U"[UNK]", U"[CLS]", U"[SEP]", U"[MASK]"};

// BERT's BasicTokenizer.tokenize: 1. clean the text, 2. CJK ideographs apart, 3. split at
// whitespace, 4. per word: lower-case (+ strip accents), then each punctuation mark apart.
std::vector<std::string> word_tokens(std::string_view text, Casing casing) {
  std::vector<std::string> out;
  std::u32string word;
  auto split_word = [&] {
    if (word.empty()) return;
    if (std::find(std::begin(kSpecialTokens), std::end(kSpecialTokens), word) != std::end(kSpecialTokens)) {
      out.push_back(unicode::to_utf8(word));  // never_split: kept as typed
      word.clear();
      return;
    }
    if (casing != Casing::keep) word = unicode::lower(word);  // per word, as str.lower's Σ rule sees it
    if (casing == Casing::bert_uncased) word = unicode::strip_accents(word);
    std::u32string piece;
    for (char32_t c : word) {
      const unsigned f = unicode::char_flags(c);
      if (f & (unicode::kPunctuation | unicode::kWhitespace)) {
        if (!piece.empty()) out.push_back(unicode::to_utf8(piece));
        piece.clear();
        if (f & unicode::kPunctuation) out.push_back(unicode::to_utf8(std::u32string(1, c)));
      } else {
        piece += c;
      }
    }
    if (!piece.empty()) out.push_back(unicode::to_utf8(piece));
    word.clear();
  };
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0xFFFD;
    std::size_t n = utf8_decode(text, i, &cp);
    if (n == 0) n = 1, cp = 0xFFFD;  // invalid byte: dropped like U+FFFD (tokenize() refuses it first)
    i += n;
    const unsigned f = unicode::char_flags(cp);
    if (f & unicode::kDropped) continue;
    if (f & unicode::kWhitespace) {
      split_word();
    } else if (unicode::is_cjk_ideograph(cp)) {
      split_word();  // a word of its own
      word += cp;
      split_word();
    } else {
      word += cp;
    }
  }
  split_word();
  return out;
}

std::vector<std::string> wordpiece(const std::string& word, const Vocabulary& vocab, std::size_t max_chars, std::size_t* probes) {
  // byte offsets of the code points, and the end
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < word.size();) {
    const std::size_t n = utf8_decode(word, i);
    if (n == 0) throw usage_error(fmt::format(N_("invalid UTF-8 at byte {} of '{}'"), i, printable(word)));
    at.push_back(i);
    i += n;
  }
  const std::size_t chars = at.size();
  at.push_back(word.size());
  if (chars > max_chars) return {"[UNK]"};
  const std::size_t longest = vocab.longest ? vocab.longest : word.size() + 2;
  std::vector<std::string> pieces;
  std::string piece;
  std::size_t start = 0;
  while (start < chars) {
    // longest chars[start, end) in the vocabulary ("##" before it unless it starts the word),
    // trying only ends within `longest` bytes
    const std::size_t prefix = start > 0 ? 2 : 0;
    if (longest <= prefix) return {"[UNK]"};
    std::size_t end = static_cast<std::size_t>(std::upper_bound(at.begin() + static_cast<std::ptrdiff_t>(start), at.end(),
                                                                at[start] + longest - prefix) - at.begin()) - 1;
    bool found = false;
    for (; end > start; --end) {
      if (probes) ++*probes;
      piece.assign(prefix ? "##" : "");
      piece.append(word, at[start], at[end] - at[start]);
      if (vocab.ids.count(piece)) {
        found = true;
        break;
      }
    }
    if (!found) return {"[UNK]"};
    pieces.push_back(piece);
    start = end;
  }
  return pieces;
}

Tokenized tokenize(std::string_view text, TokenizerMode mode, const Vocabulary& vocab, Casing casing, bool allow_empty) {
  utf8_characters(text);  // rejects invalid UTF-8 up front
  Tokenized t;
  const std::optional<std::size_t> unk = vocab.find("[UNK]");
  auto id_of = [&](const std::string& token) -> long long {
    if (auto id = vocab.find(token)) return static_cast<long long>(*id);
    return unk ? static_cast<long long>(*unk) : -1;
  };
  if (mode == TokenizerMode::character) {
    for (std::string& c : utf8_characters(normalize_case(text, casing))) {
      char32_t cp = 0;
      utf8_decode(c, 0, &cp);
      t.ids.push_back(static_cast<long long>(cp));
      t.tokens.push_back(std::move(c));
    }
  } else {
    for (const std::string& w : word_tokens(text, casing)) {
      if (mode == TokenizerMode::word) {
        t.tokens.push_back(w);
        t.ids.push_back(id_of(w));
      } else {
        for (std::string& p : wordpiece(w, vocab)) {
          t.ids.push_back(id_of(p));
          t.tokens.push_back(std::move(p));
        }
      }
    }
  }
  if (t.tokens.empty() && !allow_empty)
    throw usage_error(fmt::format(N_("text '{}' has no tokens; expected e.g. \"I love playing football.\""), printable(text)));
  return t;

}

}  // namespace tfx
