// HfTokenizer's pipeline on one segment of text (no added tokens in it): the normalizers, the
// pre-tokenizer's split into words, BPE (with merges cached per word) or WordPiece, and the
// byte offsets of every token.
#include "hf_tokenizer_impl.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

using namespace hf_detail;

namespace hf_detail {

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

}  // namespace hf_detail

namespace {

// GPT-2's bytes_to_unicode: printable bytes stay, the others map to U+0100 onwards.
std::u32string decode_utf8(std::string_view s, const std::string& what) {
  std::u32string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    const std::size_t n = unicode::utf8_decode(s, i, &cp);
    if (n == 0) throw usage_error(fmt::format(N_("{}: invalid UTF-8 at byte {}"), what, i));
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
}  // namespace

bool hf_detail::word_char(char32_t c) { return is_l(c) || is_n(c) || c == U'_'; }

std::vector<std::u32string> hf_detail::gpt2_words(const std::u32string& s) { return split_words(s, Split::gpt2); }

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
    if (!unk) throw Error(fmt::format(N_("{}: the character '{}' is not in the vocabulary and there is no unknown token"), source, ch));
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
          if (!id) throw Error(fmt::format(N_("{}: '{}' has no token and there is no unknown token"), source, word));
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


}  // namespace tfx
