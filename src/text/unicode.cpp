// BERT's Unicode operations (see tfx/unicode.hpp): lookups in the generated tables of
// unicode_tables.inc, str.lower with its final-sigma rule, and NFD.
#include "tfx/text/unicode.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>

namespace tfx::unicode {

namespace {

struct CharFlagRange {
  char32_t first, last;
  std::uint16_t flags;
};
struct LowerRange {
  char32_t first, last;
  std::int32_t delta;
  std::uint8_t stride;
};
struct LowerSpecial {
  char32_t cp;
  char32_t to[2];
};
struct Decomposition {
  char32_t cp, a, b;
};
struct CombiningRange {
  char32_t first, last;
  std::uint8_t ccc;
};
struct CompatDecomposition {
  char32_t cp;
  std::uint32_t offset, length;
};
struct Composition {
  char32_t a, b, c;
};

#include "unicode_tables.inc"

// The range whose span holds cp, or nullptr (tables are sorted by first, spans disjoint).
template <class Range, std::size_t N>
const Range* find_range(const Range (&table)[N], char32_t cp) {
  auto it = std::upper_bound(std::begin(table), std::end(table), cp, [](char32_t c, const Range& r) { return c < r.first; });
  if (it == std::begin(table)) return nullptr;
  --it;
  return cp <= it->last ? &*it : nullptr;
}

unsigned combining_class(char32_t cp) {
  const CombiningRange* r = find_range(kCombiningClasses, cp);
  return r ? r->ccc : 0;
}

// Hangul syllables decompose by arithmetic (Unicode §3.12): S = 0xAC00 + (L·21 + V)·28 + T.
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr char32_t kVCount = 21, kTCount = 28, kSCount = 19 * kVCount * kTCount;

void decompose(char32_t cp, std::u32string& out, bool compat = false) {
  if (cp < 0xA0) {  // nothing below U+00A0 decomposes
    out += cp;
    return;
  }
  if (compat) {
    auto c = std::lower_bound(std::begin(kCompatDecompositions), std::end(kCompatDecompositions), cp,
                              [](const CompatDecomposition& d, char32_t x) { return d.cp < x; });
    if (c != std::end(kCompatDecompositions) && c->cp == cp) {  // already the full NFKD
      out.append(kCompatData + c->offset, c->length);
      return;
    }
  }
  if (cp >= kSBase && cp < kSBase + kSCount) {
    const char32_t s = cp - kSBase;
    out += kLBase + s / (kVCount * kTCount);
    out += kVBase + (s % (kVCount * kTCount)) / kTCount;
    if (s % kTCount) out += kTBase + s % kTCount;
    return;
  }
  auto it = std::lower_bound(std::begin(kDecompositions), std::end(kDecompositions), cp,
                             [](const Decomposition& d, char32_t c) { return d.cp < c; });
  if (it == std::end(kDecompositions) || it->cp != cp) {
    out += cp;
    return;
  }
  decompose(it->a, out, compat);  // one level per table entry; the parts decompose further
  if (it->b) decompose(it->b, out, compat);
}

// The primary composite of a b, or 0.
char32_t compose_pair(char32_t a, char32_t b) {
  constexpr char32_t kLCount = 19, kNCount = kVCount * kTCount;
  if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount)
    return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
  if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 && b > kTBase && b < kTBase + kTCount)
    return a + (b - kTBase);
  (void)kNCount;
  auto it = std::lower_bound(std::begin(kCompositions), std::end(kCompositions), std::pair<char32_t, char32_t>{a, b},
                             [](const Composition& c, const std::pair<char32_t, char32_t>& x) {
                               return c.a != x.first ? c.a < x.first : c.b < x.second;
                             });
  return it != std::end(kCompositions) && it->a == a && it->b == b ? it->c : 0;
}

// The canonical ordering of a decomposed text, in place: each run of marks (class ≠ 0) sorted by
// class, stably.
void canonical_order(std::u32string& out) {
  for (std::size_t i = 0; i < out.size();) {
    if (out[i] < 0x300 || combining_class(out[i]) == 0) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < out.size() && combining_class(out[j]) != 0) ++j;
    if (j - i > 1)
      std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(i), out.begin() + static_cast<std::ptrdiff_t>(j),
                       [](char32_t a, char32_t b) { return combining_class(a) < combining_class(b); });
    i = j;
  }
}

// Canonical composition of a decomposed, ordered text (UAX #15 §1.3).
std::u32string compose(const std::u32string& d) {
  std::u32string out;
  out.reserve(d.size());
  std::size_t starter = std::u32string::npos;  // index in out of the last starter
  unsigned last_ccc = 0;                       // class of the last character kept in out
  for (char32_t c : d) {
    const unsigned ccc = c < 0x300 ? 0 : combining_class(c);
    if (starter != std::u32string::npos) {
      const bool adjacent = starter + 1 == out.size();
      if (adjacent || (last_ccc != 0 && last_ccc < ccc)) {
        if (const char32_t p = compose_pair(out[starter], c)) {
          out[starter] = p;
          continue;
        }
      }
    }
    if (ccc == 0) starter = out.size();
    last_ccc = ccc;
    out += c;
  }
  return out;
}

// Σ's lower case at position i of s: CPython's handle_capital_sigma.
char32_t lower_sigma(std::u32string_view s, std::size_t i) {
  std::size_t j = i;
  while (j > 0 && (char_flags(s[j - 1]) & kCaseIgnorable)) --j;
  if (j == 0 || !(char_flags(s[j - 1]) & kCased)) return U'σ';
  j = i + 1;
  while (j < s.size() && (char_flags(s[j]) & kCaseIgnorable)) ++j;
  return j < s.size() && (char_flags(s[j]) & kCased) ? U'σ' : U'ς';
}

}  // namespace

unsigned char_flags(char32_t cp) {
  static const std::array<std::uint16_t, 128> ascii = [] {  // the common case without a search
    std::array<std::uint16_t, 128> a{};
    for (char32_t c = 0; c < 128; ++c) {
      const CharFlagRange* r = find_range(kCharFlags, c);
      a[c] = r ? r->flags : 0;
    }
    return a;
  }();
  if (cp < 128) return ascii[cp];
  const CharFlagRange* r = find_range(kCharFlags, cp);
  return r ? r->flags : 0;
}

bool is_white_space(char32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

bool is_cjk_ideograph(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF) ||
         (cp >= 0x2A700 && cp <= 0x2CEAF) || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

std::string escape_invalid_utf8(std::string_view s, std::size_t* bad) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_decode(s, i);
    if (n == 0) {
      static constexpr char kHex[] = "0123456789abcdef";
      const auto b = static_cast<unsigned char>(s[i]);
      out += "\\x";
      out += kHex[b >> 4];
      out += kHex[b & 15];
      if (bad) ++*bad;
      ++i;
    } else {
      out.append(s, i, n);
      i += n;
    }
  }
  return out;
}

std::size_t utf8_decode(std::string_view s, std::size_t i, char32_t* cp) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  std::size_t n;
  char32_t v;
  if (c < 0x80) {
    if (cp) *cp = c;
    return 1;
  } else if ((c & 0xE0) == 0xC0) {
    n = 2, v = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, v = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, v = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const unsigned char d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xC0) != 0x80) return 0;
    v = (v << 6) | (d & 0x3F);
  }
  static constexpr char32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < kMin[n] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  if (cp) *cp = v;
  return n;
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

std::string to_utf8(std::u32string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t c : s) append_utf8(out, c);
  return out;
}

std::u32string lower(std::u32string_view s, bool final_sigma) {
  std::u32string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char32_t c = s[i];
    if (c < 0x80) {
      out += c >= U'A' && c <= U'Z' ? c + 32 : c;
      continue;
    }
    if (c == U'Σ' && final_sigma) {
      out += lower_sigma(s, i);
      continue;
    }
    auto sp = std::find_if(std::begin(kLowerSpecial), std::end(kLowerSpecial), [&](const LowerSpecial& x) { return x.cp == c; });
    if (sp != std::end(kLowerSpecial)) {
      for (char32_t t : sp->to)
        if (t) out += t;
      continue;
    }
    const LowerRange* r = find_range(kLowerRanges, c);
    out += r && (c - r->first) % r->stride == 0 ? static_cast<char32_t>(static_cast<std::int64_t>(c) + r->delta) : c;
  }
  return out;
}

std::u32string nfd(std::u32string_view s) {
  // 1. full canonical decomposition of each code point, 2. canonical ordering of the marks
  std::u32string out;
  out.reserve(s.size());
  for (char32_t c : s) decompose(c, out);
  canonical_order(out);
  return out;
}

std::u32string nfkd(std::u32string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (char32_t c : s) decompose(c, out, true);
  canonical_order(out);
  return out;
}

std::u32string nfc(std::u32string_view s) { return compose(nfd(s)); }
std::u32string nfkc(std::u32string_view s) { return compose(nfkd(s)); }

std::string nfc_utf8(std::string_view s) {
  if (std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) return std::string(s);
  std::u32string cps;
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    const std::size_t len = utf8_decode(s, i, &cp);
    if (!len) return std::string(s);  // not UTF-8: left as it is (the caller's error shows the bytes)
    cps.push_back(cp);
    i += len;
  }
  return to_utf8(nfc(cps));
}

bool is_private_use(char32_t cp) {
  return (cp >= 0xE000 && cp <= 0xF8FF) || (cp >= 0xF0000 && cp <= 0xFFFFD) || (cp >= 0x100000 && cp <= 0x10FFFD);
}

std::u32string strip_accents(std::u32string_view s) {
  std::u32string out = nfd(s);
  std::erase_if(out, [](char32_t c) { return (char_flags(c) & kNonspacingMark) != 0; });
  return out;
}

const char* version() { return kUnicodeVersion; }

}  // namespace tfx::unicode
