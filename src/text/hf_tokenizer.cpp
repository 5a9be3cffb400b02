// Hugging Face tokenizers (tfx/text/hf_tokenizer.hpp): tokenizer.json's normalizer →
// pre-tokenizer → model → post-processor pipeline for the kinds BERT, GPT-2, Llama 2/3, Mistral
// and Qwen2 use, after splitting out added tokens, as the `tokenizers` library runs it.
#include "tfx/text/hf_tokenizer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <atomic>
#include <iterator>
#include <array>
#include <cstdint>
#include <queue>
#include <tuple>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "core/parallel.hpp"
#include "tfx/core/error.hpp"
#include "tfx/io/json_fields.hpp"
#include "tfx/io/text_file.hpp"
#include "tfx/text/tokenizer.hpp"
#include "tfx/text/unicode.hpp"

namespace tfx {

namespace {

// The byte of a byte-fallback token <0xHH> (two hex digits, either case); nullopt for any other
// token, <0xZZ> included (a token that only looks like one is an ordinary token).
std::optional<char> byte_token_value(const std::string& t) {
  if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return std::nullopt;
  unsigned v = 0;
  const auto [end, ec] = std::from_chars(t.data() + 3, t.data() + 5, v, 16);
  if (ec != std::errc() || end != t.data() + 5) return std::nullopt;
  return static_cast<char>(v);
}

// The bytes of a vocabulary token that spells bytes: a byte-level token (Ġcat → " cat"; one that
// is not a byte-level spelling comes back as written) or a byte-fallback token <0xXX>; nullopt
// for any other token.
std::optional<std::string> spelled_bytes(const std::string& tok, bool byte_level, bool byte_fallback);

// ▁ (U+2581, SentencePiece's space) as a space: "▁the" → " the".
std::string metaspace_as_spaces(const std::string& tok) {
  std::string out;
  for (std::size_t k = 0; k < tok.size();) {
    if (tok.compare(k, 3, "\xE2\x96\x81") == 0) {
      out += ' ';
      k += 3;
    } else {
      out += tok[k++];
    }
  }
  return out;
}

}  // namespace

namespace {

thread_local std::uint64_t g_work = 0;  // see encode_work()

using json = nlohmann::json;
namespace fs = std::filesystem;

enum class Model { bpe, wordpiece };
enum class Split { none, gpt2, llama3, qwen2 };  // the byte-level split pattern
enum class Prepend { never, first, always };

// A Unicode normalizer step of tokenizer.json, applied in the file's order.
enum class Norm { nfc, nfd, nfkc, nfkd, bert, lowercase, strip_accents };
struct NormStep {
  Norm kind = Norm::nfc;
  // BertNormalizer's switches
  bool clean_text = true, chinese = true, strip = true, lower = true;
};

struct AddedToken {
  std::string content;
  std::size_t id = 0;
  bool special = false, lstrip = false, rstrip = false, single_word = false;
};

// One piece of the post-processor's template: a special token's ids, or the sequence.
struct TemplatePiece {
  bool sequence = false;
  std::vector<std::size_t> ids;
  std::vector<std::string> tokens;
};

// Leftmost-longest matching of the added tokens in O(text + tokens): an Aho–Corasick automaton over
// the reversed tokens, run from the text's end to its start, gives at each byte the longest token
// starting there (the reversed text read so far ends with a reversed token exactly when that token
// starts at the current byte); the longest terminal suffix of each state is precomputed.
class AddedMatcher {
 public:
  void build(const std::vector<AddedToken>& added) {
    nodes_.assign(1, Node{});
    edges_.clear();
    root_.fill(0);
    for (std::size_t k = 0; k < added.size(); ++k) {
      std::uint32_t v = 0;
      const std::string& s = added[k].content;
      for (std::size_t j = s.size(); j-- > 0;) {
        const auto c = static_cast<unsigned char>(s[j]);
        std::uint32_t next = child(v, c);
        if (!next) {
          next = static_cast<std::uint32_t>(nodes_.size());
          nodes_.push_back(Node{});
          nodes_.back().depth = nodes_[v].depth + 1;
          if (v == 0) root_[c] = next;
          else edges_.emplace(key(v, c), next);
          children_.resize(nodes_.size());
          children_[v].push_back({c, next});
        }
        v = next;
      }
      if (!nodes_[v].term) nodes_[v].term = static_cast<std::uint32_t>(k + 1);  // `added` is longest first: first wins
    }
    children_.resize(nodes_.size());
    // breadth first: fail links and the longest terminal suffix
    std::vector<std::uint32_t> queue;
    for (const auto& [c, v] : children_[0]) queue.push_back(v), nodes_[v].out = nodes_[v].term;
    for (std::size_t q = 0; q < queue.size(); ++q) {
      const std::uint32_t u = queue[q];
      for (const auto& [c, v] : children_[u]) {
        std::uint32_t f = nodes_[u].fail;
        while (f && !child(f, c)) f = nodes_[f].fail;
        const std::uint32_t g = child(f, c);
        nodes_[v].fail = g != v ? g : 0;
        nodes_[v].out = nodes_[v].term ? nodes_[v].term : nodes_[nodes_[v].fail].out;
        queue.push_back(v);
      }
    }
    children_.clear();
    children_.shrink_to_fit();
  }
  bool empty() const { return nodes_.size() <= 1; }
  // best[i] = 1 + the index in `added` of the longest token starting at byte i, or 0; `steps`
  // counts automaton steps (at most 2 per byte).
  void scan(std::string_view text, std::vector<std::uint32_t>& best, std::uint64_t& steps) const {
    best.assign(text.size(), 0);
    std::uint32_t state = 0;
    for (std::size_t i = text.size(); i-- > 0;) {
      const auto c = static_cast<unsigned char>(text[i]);
      std::uint32_t next = child(state, c);
      while (!next && state) {
        ++steps;
        state = nodes_[state].fail;
        next = child(state, c);
      }
      ++steps;
      state = next;
      best[i] = nodes_[state].out;
    }
  }

 private:
  struct Node {
    std::uint32_t fail = 0, term = 0, out = 0, depth = 0;
  };
  static std::uint64_t key(std::uint32_t v, unsigned char c) { return (static_cast<std::uint64_t>(v) << 8) | c; }
  std::uint32_t child(std::uint32_t v, unsigned char c) const {
    if (v == 0) return root_[c];
    const auto it = edges_.find(key(v, c));
    return it == edges_.end() ? 0 : it->second;
  }
  std::vector<Node> nodes_{1};
  std::array<std::uint32_t, 256> root_{};
  std::unordered_map<std::uint64_t, std::uint32_t> edges_;
  std::vector<std::vector<std::pair<unsigned char, std::uint32_t>>> children_;
};

}  // namespace

struct HfTokenizer::Impl {
  std::string source, kind;
  Model model = Model::bpe;
  std::vector<std::string> id_to_token;
  std::size_t declared = 0;  // tokens the file lists (vocabulary + added): bounds the ids
  std::unordered_map<std::string, std::size_t> token_to_id;
  // BPE: (left id, right id) → (rank, merged id)
  std::unordered_map<std::uint64_t, std::pair<std::uint32_t, std::uint32_t>> merges;
  bool byte_level = false;    // GPT-2's bytes → printable characters
  Split split = Split::none;  // byte-level: the regex that cuts the text into words
  bool add_prefix_space = false;
  bool metaspace = false;     // ' ' → ▁ (Llama 2 / Mistral)
  Prepend prepend = Prepend::never;
  bool metaspace_split = false;  // Metaspace pre-tokenizer with split: words start at each ▁
  bool byte_fallback = false, fuse_unk = false, ignore_merges = false;
  std::optional<std::size_t> unk;
  std::vector<NormStep> norms;  // Unicode normalizers, in order
  // WordPiece
  bool lowercase = false;
  Vocabulary wordpiece_vocab;
  std::string continuing_prefix = "##";
  std::size_t max_word_chars = 100;
  std::vector<AddedToken> added;         // longest first
  AddedMatcher added_matcher;            // over `added`
  std::vector<TemplatePiece> single;     // post-processor template (empty: none)

  std::optional<std::size_t> find(std::string_view t) const {
    const auto it = token_to_id.find(std::string(t));
    if (it == token_to_id.end()) return std::nullopt;
    return it->second;
  }
  // BPE's merges of each distinct word, kept for one encode call (a document repeats its words)
  using WordCache = std::unordered_map<std::string, std::vector<std::uint32_t>>;
  void encode_segment(std::string_view text, bool first, HfEncoding& out, WordCache& cache) const;
  void bpe_cached(const std::string& word, HfEncoding& out, WordCache& cache) const;
  std::u32string normalize(std::u32string s) const;
  void bpe_word(const std::vector<std::size_t>& symbols, HfEncoding& out) const;
  std::vector<std::size_t> symbols_of(const std::string& word) const;
  std::string piece_bytes(std::size_t id) const;
  void segment_offsets(std::string_view text, std::size_t base, HfEncoding& part) const;
};

namespace {

// GPT-2's bytes_to_unicode: printable bytes stay, the others map to U+0100 onwards.
const std::array<char32_t, 256>& byte_to_char() {
  static const std::array<char32_t, 256> table = [] {
    std::array<char32_t, 256> t{};
    std::vector<bool> kept(256, false);
    for (int b = '!'; b <= '~'; ++b) kept[b] = true;
    for (int b = 0xA1; b <= 0xAC; ++b) kept[b] = true;
    for (int b = 0xAE; b <= 0xFF; ++b) kept[b] = true;
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) t[b] = kept[b] ? static_cast<char32_t>(b) : next++;
    return t;
  }();
  return table;
}

const std::unordered_map<char32_t, unsigned char>& char_to_byte() {
  static const auto table = [] {
    std::unordered_map<char32_t, unsigned char> m;
    for (int b = 0; b < 256; ++b) m[byte_to_char()[b]] = static_cast<unsigned char>(b);
    return m;
  }();
  return table;
}

std::u32string decode_utf8(std::string_view s, const std::string& what) {
  std::u32string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    const std::size_t n = unicode::utf8_decode(s, i, &cp);
    if (n == 0) throw usage_error(fmt::format("{}: invalid UTF-8 at byte {}", what, i));
    out.push_back(cp);
    i += n;
  }
  return out;
}

bool is_l(char32_t c) { return unicode::char_flags(c) & unicode::kLetter; }
bool is_n(char32_t c) { return unicode::char_flags(c) & unicode::kNumber; }
bool is_s(char32_t c) { return unicode::is_white_space(c); }
bool is_rn(char32_t c) { return c == U'\r' || c == U'\n'; }
char32_t ascii_lower(char32_t c) { return c >= U'A' && c <= U'Z' ? c + 32 : c; }

// 's 't 're 've 'm 'll 'd at s[i] (case-insensitive for Llama 3 / Qwen2): its length, or 0.
std::size_t contraction(const std::u32string& s, std::size_t i, bool ignore_case) {
  if (s[i] != U'\'' || i + 1 >= s.size()) return 0;
  auto at = [&](std::size_t k) { return k < s.size() ? (ignore_case ? ascii_lower(s[k]) : s[k]) : 0; };
  const char32_t a = at(i + 1), b = at(i + 2);
  if ((a == U'r' && b == U'e') || (a == U'v' && b == U'e') || (a == U'l' && b == U'l')) return 3;
  if (a == U's' || a == U't' || a == U'm' || a == U'd') return 2;
  return 0;
}

// The end of the whitespace alternatives `\s*[\r\n]+` (llama3 only), `\s+(?!\S)` and `\s+` at s[i].
std::size_t whitespace_match(const std::u32string& s, std::size_t i, bool newline_rule) {
  std::size_t k = i;
  while (k < s.size() && is_s(s[k])) ++k;
  if (k == i) return 0;
  if (newline_rule) {
    std::size_t last = k;
    for (std::size_t j = i; j < k; ++j)
      if (is_rn(s[j])) last = j;
    if (last != k) return last + 1 - i;
  }
  if (k == s.size()) return k - i;
  if (k - 1 > i) return k - 1 - i;  // leave the last space to the word after it
  return k - i;
}

// The byte-level split patterns, by hand:
//  gpt2:   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//  llama3: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//  qwen2:  the same with \p{N} (one digit per piece)
std::vector<std::u32string> split_words(const std::u32string& s, Split split) {
  std::vector<std::u32string> words;
  const bool gpt2 = split == Split::gpt2;
  auto other = [](char32_t c) { return !is_s(c) && !is_l(c) && !is_n(c); };
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = contraction(s, i, !gpt2);
    auto run = [&](std::size_t from, auto pred) {
      std::size_t k = from;
      while (k < s.size() && pred(s[k])) ++k;
      return k;
    };
    if (!n && gpt2) {
      const std::size_t j = s[i] == U' ' ? i + 1 : i;
      if (j < s.size()) {
        if (is_l(s[j])) n = run(j, is_l) - i;
        else if (is_n(s[j])) n = run(j, is_n) - i;
        else if (other(s[j])) n = run(j, other) - i;
      }
    } else if (!n) {
      if (!is_rn(s[i]) && !is_l(s[i]) && !is_n(s[i]) && i + 1 < s.size() && is_l(s[i + 1])) n = run(i + 1, is_l) - i;
      else if (is_l(s[i])) n = run(i, is_l) - i;
      else if (is_n(s[i])) n = std::min(run(i, is_n) - i, std::size_t{split == Split::llama3 ? 3u : 1u});
      else {
        const std::size_t j = s[i] == U' ' ? i + 1 : i;
        if (j < s.size() && other(s[j])) n = run(run(j, other), is_rn) - i;
      }
    }
    if (!n) n = whitespace_match(s, i, !gpt2);
    if (!n) n = 1;  // unreachable: every character is in one class
    words.push_back(s.substr(i, n));
    i += n;
  }
  return words;
}

std::string utf8(const std::u32string& s) { return unicode::to_utf8(s); }

// Whether s[i] is a "word" character for an added token's single_word flag.
bool word_char(char32_t c) { return is_l(c) || is_n(c) || c == U'_'; }

}  // namespace

std::vector<std::size_t> HfTokenizer::Impl::symbols_of(const std::string& word) const {
  // BPE's initial symbols: one per character; a character outside the vocabulary becomes its
  // UTF-8 bytes as <0xXX> tokens (byte fallback) or <unk> (consecutive ones fused)
  std::vector<std::size_t> out;
  bool last_unk = false;
  for (std::size_t i = 0; i < word.size();) {
    const std::size_t n = std::max<std::size_t>(1, unicode::utf8_decode(word, i));
    const std::string ch = word.substr(i, n);
    i += n;
    if (const auto id = find(ch)) {
      out.push_back(*id);
      last_unk = false;
      continue;
    }
    if (byte_fallback) {
      bool all = true;
      std::vector<std::size_t> bytes;
      for (unsigned char b : ch) {
        const auto id = find(fmt::format("<0x{:02X}>", b));
        if (!id) all = false;
        else bytes.push_back(*id);
      }
      if (all) {
        out.insert(out.end(), bytes.begin(), bytes.end());
        last_unk = false;
        continue;
      }
    }
    if (!unk) throw Error(fmt::format("{}: the character '{}' is not in the vocabulary and there is no unknown token", source, ch));
    if (!(fuse_unk && last_unk)) out.push_back(*unk);
    last_unk = true;
  }
  return out;
}

void HfTokenizer::Impl::bpe_word(const std::vector<std::size_t>& symbols, HfEncoding& out) const {
  // The lowest-ranked pair first, the leftmost among equals, as Hugging Face's BPE merges: a
  // doubly linked list of symbols and a heap of candidate pairs (stale entries skipped), so a
  // long word costs O(n log n), not O(n²).
  const std::size_t n = symbols.size();
  std::vector<std::size_t> id = symbols;
  std::vector<long> prev(n), next(n);
  std::vector<bool> alive(n, true);
  for (std::size_t i = 0; i < n; ++i) prev[i] = static_cast<long>(i) - 1, next[i] = i + 1 < n ? static_cast<long>(i + 1) : -1;
  using Entry = std::tuple<std::uint32_t, std::size_t, std::size_t, std::size_t>;  // rank, left position, left id, right id
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
  auto push = [&](long i) {
    if (i < 0 || next[i] < 0) return;
    const std::size_t r = static_cast<std::size_t>(next[i]);
    const auto it = merges.find((static_cast<std::uint64_t>(id[i]) << 32) | id[r]);
    if (it != merges.end()) heap.emplace(it->second.first, static_cast<std::size_t>(i), id[i], id[r]);
  };
  for (std::size_t i = 0; i + 1 < n; ++i) push(static_cast<long>(i));
  while (!heap.empty()) {
    const auto [rank, i, left, right] = heap.top();
    heap.pop();
    ++g_work;
    // stale: the symbol was merged away, changed, or its right neighbour changed
    if (!alive[i] || id[i] != left || next[i] < 0 || id[static_cast<std::size_t>(next[i])] != right) continue;
    const std::size_t r = static_cast<std::size_t>(next[i]);
    id[i] = merges.at((static_cast<std::uint64_t>(left) << 32) | right).second;
    alive[r] = false;
    next[i] = next[r];
    if (next[r] >= 0) prev[static_cast<std::size_t>(next[r])] = static_cast<long>(i);
    push(prev[i]);
    push(static_cast<long>(i));
  }
  for (std::size_t i = 0; i < n; ++i)
    if (alive[i]) {
      out.ids.push_back(id[i]);
      out.tokens.push_back(id_to_token[id[i]]);
      out.special.push_back(false);
    }
}

// Hugging Face's BertNormalizer: clean_text drops U+0000, U+FFFD and the controls (Cc, Cf, Co, but
// not \t \n \r) and turns whitespace into ' '; CJK ideographs get a space on each side; strip_accents
// is NFD with every mark (M*) dropped; lowercase maps each character alone (Σ → σ, no final-sigma rule).
std::u32string HfTokenizer::Impl::normalize(std::u32string s) const {
  auto drop_marks = [](std::u32string& x) { std::erase_if(x, [](char32_t c) { return c >= 0x300 && (unicode::char_flags(c) & unicode::kMark); }); };
  for (const NormStep& n : norms) {
    switch (n.kind) {
      case Norm::nfc: s = unicode::nfc(s); break;
      case Norm::nfd: s = unicode::nfd(s); break;
      case Norm::nfkc: s = unicode::nfkc(s); break;
      case Norm::nfkd: s = unicode::nfkd(s); break;
      case Norm::lowercase: s = unicode::lower(s, false); break;
      case Norm::strip_accents: drop_marks(s); break;
      case Norm::bert: {
        std::u32string o;
        o.reserve(s.size());
        for (char32_t c : s) {
          if (n.clean_text) {
            const bool keep = c == U'\t' || c == U'\n' || c == U'\r';
            if (!keep && ((unicode::char_flags(c) & unicode::kDropped) || unicode::is_private_use(c))) continue;
            if (keep || unicode::is_white_space(c)) c = U' ';
          }
          if (n.chinese && unicode::is_cjk_ideograph(c)) {
            o += U' ';
            o += c;
            o += U' ';
          } else {
            o += c;
          }
        }
        if (n.strip) {
          o = unicode::nfd(o);
          drop_marks(o);
        }
        if (n.lower) o = unicode::lower(o, false);
        s = std::move(o);
        break;
      }
    }
  }
  return s;
}

void HfTokenizer::Impl::bpe_cached(const std::string& word, HfEncoding& out, WordCache& cache) const {
  auto it = cache.find(word);
  if (it == cache.end()) {
    HfEncoding e;
    bpe_word(symbols_of(word), e);
    if (cache.size() >= 1u << 18) cache.clear();  // bounded memory: start over
    std::vector<std::uint32_t> ids(e.ids.begin(), e.ids.end());
    it = cache.emplace(word, std::move(ids)).first;
  }
  for (const std::uint32_t id : it->second) {
    out.ids.push_back(id);
    out.tokens.push_back(id_to_token[id]);
    out.special.push_back(false);
  }
}

void HfTokenizer::Impl::encode_segment(std::string_view text, bool first, HfEncoding& out, WordCache& cache) const {
  std::string normalized;
  if (!norms.empty()) {
    normalized = utf8(normalize(decode_utf8(text, "TEXT")));
    text = normalized;
  }
  if (model == Model::wordpiece) {
    // BertPreTokenizer: words end at whitespace; each punctuation character is a word of its own
    std::string word;
    auto emit_word = [&] {
      if (word.empty()) return;
      auto it = cache.find(word);
      if (it == cache.end()) {
        std::size_t probes = 0;
        std::vector<std::uint32_t> ids;
        for (const std::string& piece : wordpiece(word, wordpiece_vocab, max_word_chars, &probes)) {
          std::optional<std::size_t> id = piece == "[UNK]" ? unk : find(piece);
          if (!id) id = unk;
          if (!id) throw Error(fmt::format("{}: '{}' has no token and there is no unknown token", source, word));
          ids.push_back(static_cast<std::uint32_t>(*id));
        }
        g_work += probes + 1;
        if (cache.size() >= 1u << 18) cache.clear();  // bounded memory: start over
        it = cache.emplace(word, std::move(ids)).first;
      }
      for (const std::uint32_t id : it->second) {
        out.ids.push_back(id);
        out.tokens.push_back(id_to_token[id]);
        out.special.push_back(false);
      }
      word.clear();
    };
    for (std::size_t i = 0; i < text.size();) {
      char32_t c = 0;
      const std::size_t n = std::max<std::size_t>(1, unicode::utf8_decode(text, i, &c));
      if (unicode::is_white_space(c)) {
        emit_word();
      } else if (unicode::char_flags(c) & unicode::kPunctuation) {
        emit_word();
        word.assign(text.substr(i, n));
        emit_word();
      } else {
        word.append(text.substr(i, n));
      }
      i += n;
    }
    emit_word();
    return;
  }
  if (byte_level) {
    std::u32string s = decode_utf8(text, "TEXT");
    if (add_prefix_space && !s.empty() && s[0] != U' ') s.insert(s.begin(), U' ');
    const std::vector<std::u32string> words = split == Split::none ? std::vector<std::u32string>{s} : split_words(s, split);
    for (const std::u32string& w : words) {
      std::string bytes = utf8(w), mapped;
      for (unsigned char b : bytes) unicode::append_utf8(mapped, byte_to_char()[b]);
      if (ignore_merges)
        if (const auto id = find(mapped)) {
          out.ids.push_back(*id);
          out.tokens.push_back(mapped);
          out.special.push_back(false);
          continue;
        }
      bpe_cached(mapped, out, cache);
    }
    return;
  }
  // ▁ BPE: spaces become ▁, a ▁ is put in front (Prepend / Metaspace), then one word (or one per ▁)
  std::string s;
  if (prepend == Prepend::always || (prepend == Prepend::first && first)) s = "\xE2\x96\x81";
  for (char c : text) {
    if (c == ' ' && metaspace) s += "\xE2\x96\x81";
    else s += c;
  }
  if (s.empty()) return;
  std::vector<std::string> words;
  if (metaspace_split) {
    for (std::size_t i = 0; i < s.size();) {
      std::size_t j = s.find("\xE2\x96\x81", i + (s.compare(i, 3, "\xE2\x96\x81") == 0 ? 3 : 0));
      if (j == std::string::npos) j = s.size();
      words.push_back(s.substr(i, j - i));
      i = j;
    }
  } else {
    words.push_back(s);
  }
  for (const std::string& w : words) {
    if (ignore_merges)
      if (const auto id = find(w)) {
        out.ids.push_back(*id);
        out.tokens.push_back(w);
        out.special.push_back(false);
        continue;
      }
    bpe_cached(w, out, cache);
  }
}

// The bytes a vocabulary token stands for in the text (added tokens never reach a segment):
// byte-level characters back to bytes, <0xXX> to its byte, ▁ to a space, WordPiece as spelled.
std::string HfTokenizer::Impl::piece_bytes(std::size_t id) const {
  const std::string& tok = id_to_token[id];
  if (std::optional<std::string> b = spelled_bytes(tok, byte_level, byte_fallback)) return *b;
  return metaspace_as_spaces(tok);
}

// Offsets of the tokens encode_segment gave for `text` (at byte `base` of the whole input), by
// aligning each token's bytes with the normalized text:
//   1. the normalized text, built one cluster at a time (a character with the marks and Hangul
//      vowel/final jamo that follow it, so composition stays inside), each of its bytes remembering
//      the cluster's byte range in `text`;
//   2. each token's bytes found at the current position: WordPiece skips white space, drops the
//      ## of a continuation, and an [UNK] takes the rest of its word; a token's leading space that
//      the text does not have (add_prefix_space, Prepend ▁) belongs to the next character (a lone
//      ▁ spans that character and leaves it to the next token); an <unk> of BPE takes one cluster;
//   3. the token spans from its first byte's cluster start to its last byte's cluster end.
// A token that cannot be found (a normalizer that reorders across clusters) gets the rest of the
// segment, so offsets stay ordered and inside the text.
void HfTokenizer::Impl::segment_offsets(std::string_view text, std::size_t base, HfEncoding& part) const {
  // 1.
  std::string s;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> src;  // per byte of s: its cluster in text
  s.reserve(text.size());
  src.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    std::size_t j = i + std::max<std::size_t>(1, unicode::utf8_decode(text, i));
    if (!norms.empty())
      while (j < text.size()) {
        char32_t c = 0;
        const std::size_t n = std::max<std::size_t>(1, unicode::utf8_decode(text, j, &c));
        if (!((unicode::char_flags(c) & unicode::kMark) || (c >= 0x1160 && c <= 0x11FF))) break;
        j += n;
      }
    const std::string_view cluster = text.substr(i, j - i);
    const std::string n = norms.empty() ? std::string(cluster) : utf8(normalize(decode_utf8(cluster, "TEXT")));
    s += n;
    src.insert(src.end(), n.size(), {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)});
    i = j;
  }
  // 2.
  std::size_t pos = 0;
  auto char_end = [&](std::size_t p) { return p + std::max<std::size_t>(1, unicode::utf8_decode(s, p)); };
  auto flags_at = [&](std::size_t p) {
    char32_t c = 0;
    unicode::utf8_decode(s, p, &c);
    return std::pair<bool, bool>{unicode::is_white_space(c), (unicode::char_flags(c) & unicode::kPunctuation) != 0};
  };
  const std::size_t first = part.offsets.size();
  for (std::size_t k = first; k < part.ids.size(); ++k) {
    const std::size_t id = part.ids[k];
    std::size_t a = pos, b = pos;
    if (model == Model::wordpiece) {
      while (a < s.size() && flags_at(a).first) a = char_end(a);
      if (unk && id == *unk) {
        b = a < s.size() ? char_end(a) : a;
        if (a < s.size() && !flags_at(a).second)
          while (b < s.size() && !flags_at(b).first && !flags_at(b).second) b = char_end(b);
      } else {
        std::string_view piece = id_to_token[id];
        if (piece.starts_with(continuing_prefix) && piece.size() > continuing_prefix.size() && s.compare(a, piece.size(), piece) != 0)
          piece.remove_prefix(continuing_prefix.size());
        b = s.compare(a, piece.size(), piece) == 0 ? a + piece.size() : s.size();
      }
    } else if (unk && id == *unk && !byte_fallback) {
      b = a < s.size() ? char_end(a) : a;
    } else {
      std::string_view bytes;
      const std::string owned = piece_bytes(id);
      bytes = owned;
      if (!bytes.empty() && bytes[0] == ' ' && (a >= s.size() || s[a] != ' ')) {
        bytes.remove_prefix(1);
        if (bytes.empty() && a < s.size()) {
          // a lone ▁ put in front: it spans the character it was put before, which stays next
          part.offsets.emplace_back(base + src[a].first, base + src[a].second);
          continue;
        }
      }
      b = s.compare(a, bytes.size(), bytes) == 0 ? a + bytes.size() : s.size();
    }
    // 3.
    std::size_t from = text.size(), to = text.size();
    if (a < s.size()) from = src[a].first;
    if (b > a && b - 1 < s.size()) to = src[b - 1].second;
    else if (b <= a) to = from;
    part.offsets.emplace_back(base + from, base + std::max(from, to));
    pos = b;
  }
}

namespace {

[[noreturn]] void bad(const std::string& where, const std::string& what) { throw Error(fmt::format("{}: {}", where, what)); }

const json& member(const json& j, const char* key, const std::string& where, const std::string& what) {
  if (!j.is_object() || !j.contains(key)) bad(where, fmt::format("no \"{}\" ({})", key, what));
  return j[key];
}

std::string str(const json& j, const std::string& where, const std::string& what) {
  if (!j.is_string()) bad(where, fmt::format("{} should be a string", what));
  return j.get<std::string>();
}

std::size_t whole(const json& j, const std::string& where, const std::string& what) {
  if (!j.is_number_unsigned() || j.get<std::uint64_t>() >= (1u << 30)) bad(where, fmt::format("{} should be a whole number below 2^30", what));
  return j.get<std::size_t>();
}

void add_token(HfTokenizer::Impl& t, const std::string& token, std::size_t id, const std::string& where) {
  // ids run 0…V−1; a few gaps are tolerated, but an id far past the tokens the file declares
  // would only allocate an empty table (a 50-byte file claiming id 47666666)
  if (id >= 2 * t.declared + 1024)
    bad(where, fmt::format("the id {} of '{}' is far past the {} tokens the file declares (ids should run from 0)", id, token, t.declared));
  if (id >= t.id_to_token.size()) t.id_to_token.resize(id + 1);
  if (!t.id_to_token[id].empty() && t.id_to_token[id] != token)
    bad(where, fmt::format("id {} is both '{}' and '{}'", id, t.id_to_token[id], token));
  t.id_to_token[id] = token;
  t.token_to_id.emplace(token, id);
}

void read_merges(HfTokenizer::Impl& t, const json& merges, const std::string& where) {
  if (!merges.is_array()) bad(where, "model.merges should be a list");
  std::uint32_t rank = 0;
  for (const json& m : merges) {
    std::string a, b;
    if (m.is_string()) {
      const std::string s = m.get<std::string>();
      const std::size_t sp = s.find(' ');
      if (sp == std::string::npos) bad(where, fmt::format("merge {} '{}' should be two tokens separated by a space", rank, s));
      a = s.substr(0, sp), b = s.substr(sp + 1);
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      a = m[0].get<std::string>(), b = m[1].get<std::string>();
    } else {
      bad(where, fmt::format("merge {} should be \"a b\" or [\"a\", \"b\"]", rank));
    }
    const auto ia = t.find(a), ib = t.find(b), ic = t.find(a + b);
    if (!ia || !ib || !ic) bad(where, fmt::format("merge {} '{} {}': a token of it is not in the vocabulary", rank, a, b));
    t.merges.emplace((static_cast<std::uint64_t>(*ia) << 32) | *ib, std::pair<std::uint32_t, std::uint32_t>{rank, static_cast<std::uint32_t>(*ic)});
    ++rank;
  }
}

Split split_of(const std::string& pattern, const std::string& where) {
  if (pattern.find("\\p{N}{1,3}") != std::string::npos) return Split::llama3;
  if (pattern.find("(?i:'s") != std::string::npos) return Split::qwen2;
  if (pattern.find("'s|'t|'re|'ve|'m|'ll|'d") != std::string::npos) return Split::gpt2;
  bad(where, fmt::format("pre_tokenizer Split pattern '{}' is not one tfx knows (GPT-2's, Llama 3's or Qwen2's)", pattern));
}

void read_pre_tokenizer(HfTokenizer::Impl& t, const json& p, const std::string& where) {
  if (p.is_null()) return;
  const std::string type = str(member(p, "type", where, "the pre-tokenizer's kind"), where, "pre_tokenizer.type");
  if (type == "Sequence") {
    for (const json& q : member(p, "pretokenizers", where, "a list of pre-tokenizers")) read_pre_tokenizer(t, q, where);
  } else if (type == "ByteLevel") {
    t.byte_level = true;
    t.add_prefix_space = json_bool(p, "add_prefix_space", false, where);
    if (json_bool(p, "use_regex", true, where)) t.split = Split::gpt2;
  } else if (type == "Split") {
    const json& pat = member(p, "pattern", where, "the split pattern");
    if (!pat.is_object() || !pat.contains("Regex")) bad(where, "pre_tokenizer Split: only a Regex pattern is supported");
    t.split = split_of(str(pat["Regex"], where, "Split pattern"), where);
  } else if (type == "BertPreTokenizer" || type == "Whitespace" || type == "WhitespaceSplit") {
    // WordPiece's split (BERT's basic tokenizer) is built into the model
  } else if (type == "Metaspace") {
    t.metaspace = true;
    const std::string scheme = json_string(p, "prepend_scheme", json_bool(p, "add_prefix_space", true, where) ? "always" : "never", where);
    t.prepend = scheme == "always" ? Prepend::always : scheme == "first" ? Prepend::first : Prepend::never;
    t.metaspace_split = json_bool(p, "split", true, where);
  } else if (type == "Digits" || type == "Punctuation") {
    bad(where, fmt::format("pre_tokenizer {} is not supported (supported: ByteLevel, Split, BertPreTokenizer, Metaspace)", type));
  } else {
    bad(where, fmt::format("pre_tokenizer {} is not supported (supported: ByteLevel, Split, BertPreTokenizer, Metaspace)", type));
  }
}

void read_normalizer(HfTokenizer::Impl& t, const json& n, const std::string& where) {
  if (n.is_null()) return;
  const std::string type = str(member(n, "type", where, "the normalizer's kind"), where, "normalizer.type");
  if (type == "Sequence") {
    for (const json& m : member(n, "normalizers", where, "a list of normalizers")) read_normalizer(t, m, where);
  } else if (type == "BertNormalizer") {
    NormStep b;
    b.kind = Norm::bert;
    b.clean_text = json_bool(n, "clean_text", true, where);
    b.chinese = json_bool(n, "handle_chinese_chars", true, where);
    b.lower = json_bool(n, "lowercase", true, where);
    b.strip = n.contains("strip_accents") && !n["strip_accents"].is_null() ? json_bool(n, "strip_accents", b.lower, where) : b.lower;
    t.lowercase = b.lower;
    t.norms.push_back(b);
  } else if (type == "Lowercase") {
    t.lowercase = true;
    t.norms.push_back({Norm::lowercase});
  } else if (type == "Prepend") {
    if (json_string(n, "prepend", "", where) != "\xE2\x96\x81") bad(where, "normalizer Prepend: only \"▁\" is supported");
    t.prepend = Prepend::always;
  } else if (type == "Replace") {
    const json& pat = member(n, "pattern", where, "what to replace");
    if (!(pat.is_object() && json_string(pat, "String", "", where) == " " && json_string(n, "content", "", where) == "\xE2\x96\x81"))
      bad(where, "normalizer Replace: only \" \" → \"▁\" is supported");
    t.metaspace = true;
  } else if (type == "NFC" || type == "NFD" || type == "NFKC" || type == "NFKD" || type == "StripAccents") {
    t.norms.push_back({type == "NFC"    ? Norm::nfc
                       : type == "NFD"  ? Norm::nfd
                       : type == "NFKC" ? Norm::nfkc
                       : type == "NFKD" ? Norm::nfkd
                                        : Norm::strip_accents});
  } else {
    bad(where, fmt::format("normalizer {} is not supported (supported: BertNormalizer, Lowercase, NFC, NFD, NFKC, NFKD, "
                           "StripAccents, Prepend, Replace)", type));
  }
}

TemplatePiece special_piece(const std::string& name, const json& specials, const HfTokenizer::Impl& t, const std::string& where) {
  TemplatePiece p;
  if (specials.is_object() && specials.contains(name)) {
    const json& s = specials[name];
    for (const json& id : member(s, "ids", where, "the special token's ids")) p.ids.push_back(whole(id, where, "a special token id"));
    for (const json& tok : member(s, "tokens", where, "the special token's tokens")) p.tokens.push_back(str(tok, where, "a special token"));
  } else if (const auto id = t.find(name)) {
    p.ids = {*id};
    p.tokens = {name};
  } else {
    bad(where, fmt::format("post_processor: special token '{}' is not in the vocabulary", name));
  }
  if (p.ids.size() != p.tokens.size()) bad(where, fmt::format("post_processor: '{}' has {} ids and {} tokens", name, p.ids.size(), p.tokens.size()));
  for (std::size_t id : p.ids)
    if (id >= t.id_to_token.size()) bad(where, fmt::format("post_processor: '{}' has id {}, past the vocabulary ({} tokens)", name, id, t.id_to_token.size()));
  return p;
}

void read_post_processor(HfTokenizer::Impl& t, const json& p, const std::string& where) {
  if (p.is_null()) return;
  const std::string type = str(member(p, "type", where, "the post-processor's kind"), where, "post_processor.type");
  if (type == "Sequence") {
    for (const json& q : member(p, "processors", where, "a list of post-processors")) read_post_processor(t, q, where);
  } else if (type == "ByteLevel") {
    // offsets only
  } else if (type == "TemplateProcessing") {
    t.single.clear();
    for (const json& piece : member(p, "single", where, "the single-sequence template")) {
      if (piece.contains("Sequence")) {
        TemplatePiece s;
        s.sequence = true;
        t.single.push_back(s);
      } else if (piece.contains("SpecialToken")) {
        t.single.push_back(special_piece(str(member(piece["SpecialToken"], "id", where, "the token"), where, "SpecialToken.id"),
                                          p.value("special_tokens", json::object()), t, where));
      } else {
        bad(where, "post_processor template: each piece should be a Sequence or a SpecialToken");
      }
    }
  } else if (type == "RobertaProcessing" || type == "BertProcessing") {
    const json& cls = member(p, "cls", where, "[token, id]");
    const json& sep = member(p, "sep", where, "[token, id]");
    auto piece = [&](const json& j) {
      if (!j.is_array() || j.size() != 2) bad(where, fmt::format("post_processor {}: cls and sep should be [token, id]", type));
      TemplatePiece tp;
      tp.tokens = {str(j[0], where, "the token")};
      tp.ids = {whole(j[1], where, "the id")};
      if (tp.ids[0] >= t.id_to_token.size())
        bad(where, fmt::format("post_processor {}: id {} is past the vocabulary ({} tokens)", type, tp.ids[0], t.id_to_token.size()));
      return tp;
    };
    TemplatePiece seq;
    seq.sequence = true;
    t.single = {piece(cls), seq, piece(sep)};
  } else {
    bad(where, fmt::format("post_processor {} is not supported (supported: TemplateProcessing, ByteLevel, RobertaProcessing)", type));
  }
}

void sort_added(HfTokenizer::Impl& t) {
  std::stable_sort(t.added.begin(), t.added.end(), [](const AddedToken& a, const AddedToken& b) { return a.content.size() > b.content.size(); });
  t.added_matcher.build(t.added);
}

std::string read_text(const fs::path& p) { return read_text_input(p.string(), p.filename().string()); }

}  // namespace

namespace {

std::shared_ptr<HfTokenizer::Impl> interpret(const json& j, const std::string& where) {
  auto t = std::make_shared<HfTokenizer::Impl>();
  t->source = where;
  const json& model = member(j, "model", where, "the tokenizer model");
  const std::string type = model.contains("type") ? str(model["type"], where, "model.type")
                           : model.contains("merges") ? "BPE"
                                                      : "WordPiece";
  const json& vocab = member(model, "vocab", where, "the vocabulary");
  if (!vocab.is_object()) bad(where, "model.vocab should be an object {token: id}");
  t->declared = vocab.size() + (j.contains("added_tokens") && j["added_tokens"].is_array() ? j["added_tokens"].size() : 0);
  for (const auto& [token, id] : vocab.items()) add_token(*t, token, whole(id, where, fmt::format("the id of '{}'", token)), where);
  // added tokens (special ones and others), matched in the text before anything else
  if (j.contains("added_tokens") && j["added_tokens"].is_array())
    for (const json& a : j["added_tokens"]) {
      AddedToken at;
      at.content = str(member(a, "content", where, "an added token's text"), where, "added_tokens content");
      at.id = whole(member(a, "id", where, "an added token's id"), where, "added_tokens id");
      at.special = json_bool(a, "special", false, where);
      at.lstrip = json_bool(a, "lstrip", false, where);
      at.rstrip = json_bool(a, "rstrip", false, where);
      at.single_word = json_bool(a, "single_word", false, where);
      if (at.content.empty()) bad(where, "an added token is empty");
      add_token(*t, at.content, at.id, where);
      t->added.push_back(at);
    }
  sort_added(*t);
  if (model.contains("unk_token") && model["unk_token"].is_string()) t->unk = t->find(model["unk_token"].get<std::string>());
  if (type == "BPE") {
    t->model = Model::bpe;
    read_merges(*t, member(model, "merges", where, "the BPE merges"), where);
    t->byte_fallback = json_bool(model, "byte_fallback", false, where);
    t->fuse_unk = json_bool(model, "fuse_unk", false, where);
    t->ignore_merges = json_bool(model, "ignore_merges", false, where);
  } else if (type == "WordPiece") {
    t->model = Model::wordpiece;
    t->continuing_prefix = json_string(model, "continuing_subword_prefix", "##", where);
    t->max_word_chars = json_whole(model, "max_input_chars_per_word", 100, std::size_t{1} << 20, where);
    if (t->continuing_prefix != "##") bad(where, "WordPiece: only the \"##\" continuing prefix is supported");
  } else {
    bad(where, fmt::format("model type '{}' is not supported (supported: BPE, WordPiece)", type));
  }
  read_normalizer(*t, j.value("normalizer", json()), where);
  read_pre_tokenizer(*t, j.value("pre_tokenizer", json()), where);
  read_post_processor(*t, j.value("post_processor", json()), where);
  if (t->model == Model::wordpiece) {
    t->wordpiece_vocab.name = where;
    t->wordpiece_vocab.tokens = t->id_to_token;
    for (std::size_t i = 0; i < t->id_to_token.size(); ++i)
      if (!t->id_to_token[i].empty()) {
        t->wordpiece_vocab.ids.emplace(t->id_to_token[i], i);
        t->wordpiece_vocab.longest = std::max(t->wordpiece_vocab.longest, t->id_to_token[i].size());
      }
    t->kind = "WordPiece";
  } else if (t->byte_level) {
    t->kind = "byte-level BPE";
  } else if (t->metaspace || t->prepend != Prepend::never) {
    t->kind = t->byte_fallback ? "BPE over ▁ with byte fallback" : "BPE over ▁";
  } else {
    t->kind = "BPE";
  }
  return t;
}

}  // namespace

HfTokenizer HfTokenizer::from_json(std::string_view text, const std::string& where) {
  json j;
  try {
    j = parse_json(text, where);
  } catch (const json::exception& e) {
    bad(where, fmt::format("not valid JSON ({})", e.what()));
  }
  HfTokenizer h;
  try {
    h.impl_ = interpret(j, where);
  } catch (const json::exception& e) {  // a field of a type no check above expected
    bad(where, fmt::format("unexpected JSON structure ({})", e.what()));
  }
  return h;
}

HfTokenizer HfTokenizer::load(const std::string& dir) {
  const fs::path d(dir);
  std::error_code ec;
  if (!fs::is_directory(d, ec)) throw Error(fmt::format("{}: not a directory (expected a checkpoint folder with tokenizer.json, "
                                                        "vocab.txt or vocab.json + merges.txt)", dir));
  if (fs::exists(d / "tokenizer.json", ec)) {
    const std::string path = (d / "tokenizer.json").string();
    return from_json(read_text(d / "tokenizer.json"), path);
  }
  auto t = std::make_shared<Impl>();
  if (fs::exists(d / "vocab.txt", ec)) {
    // BERT's vocab.txt: WordPiece, lower-cased unless tokenizer_config.json says do_lower_case false
    t->source = (d / "vocab.txt").string();
    t->model = Model::wordpiece;
    t->wordpiece_vocab = read_vocab(t->source);
    t->id_to_token = t->wordpiece_vocab.tokens;
    for (std::size_t i = 0; i < t->id_to_token.size(); ++i) t->token_to_id.emplace(t->id_to_token[i], i);
    t->lowercase = true;
    if (fs::exists(d / "tokenizer_config.json", ec)) {
      const std::string config = (d / "tokenizer_config.json").string();
      json c;
      try {
        c = parse_json(read_text(d / "tokenizer_config.json"), config);
      } catch (const json::exception& e) {
        bad(config, fmt::format("not valid JSON ({})", e.what()));
      }
      t->lowercase = json_bool(c, "do_lower_case", true, config);
    }
    NormStep b;  // what BertTokenizerFast builds from vocab.txt
    b.kind = Norm::bert;
    b.lower = b.strip = t->lowercase;
    t->norms.push_back(b);
    t->unk = t->find("[UNK]");
    for (const char* s : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"})
      if (const auto id = t->find(s)) t->added.push_back({s, *id, true});
    sort_added(*t);
    const auto cls = t->find("[CLS]"), sep = t->find("[SEP]");
    if (cls && sep) {
      TemplatePiece a, seq, b;
      a.ids = {*cls}, a.tokens = {"[CLS]"}, seq.sequence = true, b.ids = {*sep}, b.tokens = {"[SEP]"};
      t->single = {a, seq, b};
    }
    t->kind = "WordPiece";
  } else if (fs::exists(d / "vocab.json", ec) && fs::exists(d / "merges.txt", ec)) {
    // GPT-2's vocab.json + merges.txt: byte-level BPE with GPT-2's pattern, no special tokens added
    t->source = (d / "vocab.json").string() + " + merges.txt";
    json v;
    try {
      v = parse_json(read_text(d / "vocab.json"), (d / "vocab.json").string());
    } catch (const json::exception& e) {
      bad((d / "vocab.json").string(), fmt::format("not valid JSON ({})", e.what()));
    }
    if (!v.is_object()) bad((d / "vocab.json").string(), "should be an object {token: id}");
    t->declared = v.size();
    for (const auto& [token, id] : v.items()) add_token(*t, token, whole(id, (d / "vocab.json").string(), "an id"), (d / "vocab.json").string());
    json merges = json::array();
    const std::string m = read_text(d / "merges.txt");
    for (std::size_t i = 0; i < m.size();) {
      std::size_t e = m.find('\n', i);
      if (e == std::string::npos) e = m.size();
      std::string line = m.substr(i, e - i);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty() && line.rfind("#version", 0) != 0) merges.push_back(line);
      i = e + 1;
    }
    read_merges(*t, merges, (d / "merges.txt").string());
    t->byte_level = true;
    t->split = Split::gpt2;
    if (const auto id = t->find("<|endoftext|>")) t->added.push_back({"<|endoftext|>", *id, true});
    sort_added(*t);
    t->kind = "byte-level BPE";
  } else {
    throw Error(fmt::format("{}: no tokenizer.json, vocab.txt or vocab.json + merges.txt (the tokenizer files a checkpoint folder needs)", dir));
  }
  HfTokenizer h;
  h.impl_ = std::move(t);
  return h;
}

namespace {

// The readable form of every token: byte-level characters back to bytes, <0xXX> to its byte, ▁
// and spaces as ␣; a character whose bytes span tokens is shown in each with its part ("나 1/3").
std::vector<std::string> readable_tokens(const HfEncoding& e, bool byte_level, bool byte_tokens) {
  const std::size_t n = e.tokens.size();
  std::vector<std::string> bytes(n);
  std::vector<bool> has_bytes(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string& t = e.tokens[i];
    if (e.special[i]) continue;
    if (byte_level) {
      std::string b;
      bool ok = true;
      for (std::size_t k = 0; k < t.size();) {
        char32_t cp = 0;
        const std::size_t len = unicode::utf8_decode(t, k, &cp);
        const auto it = char_to_byte().find(cp);
        if (!len || it == char_to_byte().end()) {
          ok = false;
          break;
        }
        b += static_cast<char>(it->second);
        k += len;
      }
      if (ok) bytes[i] = b, has_bytes[i] = true;
    } else if (const std::optional<char> byte = byte_token_value(t); byte_tokens && byte) {
      bytes[i] = std::string(1, *byte);
      has_bytes[i] = true;
    }
  }
  auto visible = [](const std::string& s) {
    std::string out;
    for (std::size_t k = 0; k < s.size();) {
      char32_t cp = 0;
      const std::size_t len = std::max<std::size_t>(1, unicode::utf8_decode(s, k, &cp));
      if (cp == U' ' || cp == U'\u2581') out += "␣";
      else if (cp == U'\n') out += "↵";
      else if (cp == U'\t') out += "⇥";
      else if (cp < 0x20 || cp == 0x7F) out += fmt::format("<0x{:02X}>", static_cast<unsigned>(cp));
      else out += s.substr(k, len);
      k += len;
    }
    return out;
  };
  std::vector<std::string> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!has_bytes[i]) {
      out[i] = e.special[i] ? e.tokens[i] : visible(e.tokens[i]);
      continue;
    }
    // a run of byte-carrying tokens: decode it as a whole, give each token its characters and
    // the parts of the characters it shares with its neighbours
    std::size_t j = i;
    std::string all;
    std::vector<std::size_t> start;
    while (j < n && has_bytes[j]) start.push_back(all.size()), all += bytes[j], ++j;
    start.push_back(all.size());
    std::size_t a = 0;  // moves forward only: a run of n tokens costs O(n + bytes)
    for (std::size_t k = 0; k < all.size();) {
      const std::size_t len = unicode::utf8_decode(all, k);
      const std::size_t step = len ? len : 1;
      // the tokens [a, b] this character's bytes lie in
      while (start[a + 1] <= k) ++a;
      std::size_t b = a;
      while (start[b + 1] < k + step) ++b;
      const std::string ch = len ? visible(all.substr(k, len)) : fmt::format("<0x{:02X}>", static_cast<unsigned char>(all[k]));
      for (std::size_t t = a; t <= b; ++t)
        out[i + t] += a == b ? ch : fmt::format("{}({}/{})", ch, t - a + 1, b - a + 1);
      k += step;
    }
    i = j - 1;
  }
  return out;
}

}  // namespace

namespace {

// Where a long stretch of ordinary text may be cut so that its parts tokenize, one by one, to what
// the whole gives: after a lone '\n' between visible ASCII (a letter after it). In every split
// pattern tfx knows (GPT-2's, Llama 3's, Qwen2's) a piece holding that newline ends with it (a
// one-character whitespace run before a letter, or punctuation with its newlines), also at the end
// of the part alone, and a letter piece may not start with a newline;
// BERT splits at every whitespace; no normalizer tfx applies joins a newline to a letter. Cuts
// every ~`chunk` bytes.
std::vector<std::size_t> safe_cuts(std::string_view s, std::size_t chunk) {
  std::vector<std::size_t> cuts{0};
  for (std::size_t p = chunk; p < s.size();) {
    const std::size_t nl = s.find('\n', p);
    if (nl == std::string_view::npos || nl + 1 >= s.size()) break;
    const auto c = static_cast<unsigned char>(s[nl + 1]), b = static_cast<unsigned char>(nl ? s[nl - 1] : ' ');
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z' && b > 0x20 && b < 0x7F) {
      cuts.push_back(nl + 1);
      p = nl + 1 + chunk;
    } else {
      p = nl + 1;
    }
  }
  cuts.push_back(s.size());
  return cuts;
}

}  // namespace

HfEncoding HfTokenizer::encode(std::string_view text, bool add_special_tokens, bool with_readable, const Progress& progress,
                               bool with_offsets) const {
  const Impl& t = *impl_;
  for (std::size_t i = 0; i < text.size();) {  // invalid UTF-8 is a usage error before anything runs
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = unicode::utf8_decode(text, i);
    if (n == 0) throw usage_error(fmt::format("TEXT: invalid UTF-8 at byte {}", i));
    i += n;
  }
  // 1. split out added tokens: ordinary stretches of text between them (a job each) and the tokens
  struct Job {
    std::size_t begin, end;
    bool first;
    const AddedToken* token;  // an added token instead of text
    std::size_t token_begin = 0;  // where its content is in the text
  };
  std::vector<Job> jobs;
  std::size_t begin = 0;
  bool first = true;
  auto flush = [&](std::size_t end) {
    if (end > begin) jobs.push_back({begin, end, first, nullptr});
    first = false;
  };
  // leftmost-longest matches, as Hugging Face's AddedVocabulary: a match a single_word token may not
  // take (a word character beside it) stays ordinary text, and matching resumes after it
  std::vector<std::uint32_t> best;
  if (!t.added_matcher.empty()) t.added_matcher.scan(text, best, g_work);
  std::size_t i = 0;
  while (i < best.size()) {
    if (!best[i]) {
      ++i;
      continue;
    }
    const AddedToken* hit = &t.added[best[i] - 1];
    if (hit->single_word) {
      char32_t before = 0, after = 0;
      if (i > 0) {
        std::size_t k = i - 1;
        while (k > 0 && (static_cast<unsigned char>(text[k]) & 0xC0) == 0x80) --k;
        unicode::utf8_decode(text, k, &before);
      }
      if (i + hit->content.size() < text.size()) unicode::utf8_decode(text, i + hit->content.size(), &after);
      if ((before && word_char(before)) || (after && word_char(after))) {
        i += hit->content.size();
        continue;
      }
    }
    std::size_t left = i, right = i + hit->content.size();
    if (hit->lstrip)
      while (left > begin && (text[left - 1] == ' ' || text[left - 1] == '\t' || text[left - 1] == '\n' || text[left - 1] == '\r')) --left;
    if (hit->rstrip)
      while (right < text.size() && (text[right] == ' ' || text[right] == '\t' || text[right] == '\n' || text[right] == '\r')) ++right;
    flush(left);
    jobs.push_back({left, left, false, hit, i});
    begin = i = right;
  }
  flush(text.size());
  // 2. a big text on all cores: long stretches cut where cutting changes nothing (safe_cuts), the
  // parts encoded on the library's threads, each with its own word cache, joined in order
  const unsigned threads = worker_threads(text.size());
  const bool cuttable = t.model == Model::wordpiece || (t.byte_level && t.split != Split::none && !t.add_prefix_space);
  if (threads > 1 && cuttable) {
    const std::size_t chunk = std::max<std::size_t>(1u << 16, text.size() / (8 * threads));
    std::vector<Job> cut;
    for (const Job& j : jobs) {
      if (j.token || j.end - j.begin < 2 * chunk) {
        cut.push_back(j);
        continue;
      }
      const std::vector<std::size_t> at = safe_cuts(text.substr(j.begin, j.end - j.begin), chunk);
      for (std::size_t k = 0; k + 1 < at.size(); ++k) cut.push_back({j.begin + at[k], j.begin + at[k + 1], j.first && k == 0, nullptr});
    }
    jobs = std::move(cut);
  }
  std::vector<HfEncoding> parts(jobs.size());
  auto run = [&](std::size_t k, Impl::WordCache& cache) {
    const Job& j = jobs[k];
    if (j.token) {
      parts[k].ids.push_back(j.token->id);
      parts[k].tokens.push_back(j.token->content);
      parts[k].special.push_back(j.token->special);
      if (with_offsets) parts[k].offsets.emplace_back(j.token_begin, j.token_begin + j.token->content.size());
    } else {
      t.encode_segment(text.substr(j.begin, j.end - j.begin), j.first, parts[k], cache);
      if (with_offsets) t.segment_offsets(text.substr(j.begin, j.end - j.begin), j.begin, parts[k]);
    }
  };
  // progress in bytes of text, reported by the calling thread only (share 0)
  std::atomic<std::size_t> done_bytes{0};
  ProgressTicker tick(progress, text.size(), 200);
  if (threads > 1 && jobs.size() > 1) {
    std::atomic<std::size_t> next{0};
    parallel_for_threads(threads, [&](unsigned share, unsigned) {
      Impl::WordCache cache;
      for (std::size_t k; (k = next.fetch_add(1)) < jobs.size();) {
        run(k, cache);
        const std::size_t d = done_bytes.fetch_add(jobs[k].end - jobs[k].begin) + (jobs[k].end - jobs[k].begin);
        if (share == 0) tick(d);
      }
    });
  } else {
    Impl::WordCache cache;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      run(k, cache);
      tick(done_bytes += jobs[k].end - jobs[k].begin);
    }
  }
  tick(text.size());
  HfEncoding seq;
  std::size_t total = 0;
  for (const HfEncoding& p : parts) total += p.ids.size();
  seq.ids.reserve(total), seq.tokens.reserve(total), seq.special.reserve(total);
  for (HfEncoding& p : parts) {
    seq.ids.insert(seq.ids.end(), p.ids.begin(), p.ids.end());
    std::move(p.tokens.begin(), p.tokens.end(), std::back_inserter(seq.tokens));
    seq.special.insert(seq.special.end(), p.special.begin(), p.special.end());
    seq.offsets.insert(seq.offsets.end(), p.offsets.begin(), p.offsets.end());
    p = HfEncoding{};
  }
  // 2. the post-processor's template
  HfEncoding out;
  if (add_special_tokens && !t.single.empty()) {
    for (const TemplatePiece& p : t.single) {
      if (p.sequence) {
        out.ids.insert(out.ids.end(), seq.ids.begin(), seq.ids.end());
        out.tokens.insert(out.tokens.end(), seq.tokens.begin(), seq.tokens.end());
        out.special.insert(out.special.end(), seq.special.begin(), seq.special.end());
        out.offsets.insert(out.offsets.end(), seq.offsets.begin(), seq.offsets.end());
      } else {
        out.ids.insert(out.ids.end(), p.ids.begin(), p.ids.end());
        out.tokens.insert(out.tokens.end(), p.tokens.begin(), p.tokens.end());
        out.special.insert(out.special.end(), p.ids.size(), true);
        if (with_offsets) out.offsets.insert(out.offsets.end(), p.ids.size(), std::pair<std::size_t, std::size_t>{0, 0});
      }
    }
  } else {
    out = std::move(seq);
  }
  if (with_readable) out.readable = readable_tokens(out, t.byte_level, t.byte_fallback);
  return out;
}

std::uint64_t HfTokenizer::encode_work() { return g_work; }

std::size_t HfTokenizer::vocab_size() const { return impl_->id_to_token.size(); }

std::optional<std::size_t> HfTokenizer::token_to_id(std::string_view token) const { return impl_->find(token); }

std::string HfTokenizer::id_to_token(std::size_t id) const { return id < impl_->id_to_token.size() ? impl_->id_to_token[id] : ""; }

std::string HfTokenizer::readable(std::size_t id) const {
  const std::string t = id_to_token(id);
  if (t.empty()) return fmt::format("<id {}>", id);
  HfEncoding e;
  e.ids = {id};
  e.tokens = {t};
  bool special = false;
  for (const AddedToken& a : impl_->added) special = special || (a.id == id && a.special);
  e.special = {special};
  return readable_tokens(e, impl_->byte_level, impl_->byte_fallback)[0];
}

std::string HfTokenizer::token_bytes(std::size_t id) const {
  const Impl& t = *impl_;
  for (const AddedToken& a : t.added)
    if (a.id == id) return a.special ? std::string() : a.content;
  const std::string tok = id_to_token(id);
  if (tok.empty()) return {};
  if (std::optional<std::string> b = spelled_bytes(tok, t.byte_level, t.byte_fallback)) return *b;
  if (t.metaspace || t.prepend != Prepend::never) return metaspace_as_spaces(tok);
  if (t.model == Model::wordpiece) {
    if (tok.rfind(t.continuing_prefix, 0) == 0) return tok.substr(t.continuing_prefix.size());
    return " " + tok;
  }
  return tok;
}

std::optional<std::size_t> HfTokenizer::word_id(const std::string& word, std::string* token) const {
  const Impl& t = *impl_;
  std::vector<std::string> candidates;
  if (t.byte_level) {
    std::string mapped;
    for (unsigned char b : " " + word) unicode::append_utf8(mapped, byte_to_char()[b]);
    candidates.push_back(mapped);
    candidates.push_back(mapped.substr(byte_to_char()[' '] < 0x80 ? 1 : 2));
  } else if (t.metaspace || t.prepend != Prepend::never) {
    candidates.push_back("\xE2\x96\x81" + word);
    candidates.push_back(word);
  } else {
    candidates.push_back(word);
    if (t.lowercase) candidates.push_back(normalize_case(word, Casing::bert_uncased));
  }
  for (const std::string& c : candidates)
    if (const auto id = t.find(c)) {
      if (token) *token = c;
      return id;
    }
  return std::nullopt;
}

std::string HfTokenizer::kind() const { return impl_->kind; }
std::string HfTokenizer::source() const { return impl_->source; }

std::optional<std::size_t> HfTokenizer::mask_id() const {
  for (const char* m : {"[MASK]", "<mask>"})
    if (const auto id = impl_->find(m)) return id;
  return std::nullopt;
}

std::string HfTokenizer::mask_token() const {
  const auto id = mask_id();
  return id ? impl_->id_to_token[*id] : "";
}

std::optional<std::size_t> HfTokenizer::special_id(const std::string& token) const {
  for (const AddedToken& a : impl_->added)
    if (a.content == token) return a.id;
  return std::nullopt;
}

namespace {
std::optional<std::string> spelled_bytes(const std::string& tok, bool byte_level, bool byte_fallback) {
  if (byte_level) {
    std::string b;
    for (std::size_t k = 0; k < tok.size();) {
      char32_t cp = 0;
      const std::size_t len = unicode::utf8_decode(tok, k, &cp);
      const auto it = char_to_byte().find(cp);
      if (!len || it == char_to_byte().end()) return tok;  // not a byte-level spelling: as written
      b += static_cast<char>(it->second);
      k += len;
    }
    return b;
  }
  if (const std::optional<char> byte = byte_token_value(tok); byte_fallback && byte) return std::string(1, *byte);
  return std::nullopt;
}
}  // namespace

}  // namespace tfx
