// Private to the embeddings loader: the number parser of text embedding files. Plain decimals
// go through Clinger's exact fast path (8 digits at a time with SWAR), so the float32 results
// are bit-identical to gensim's float32(float(token)); everything else through strtod.
// Inline: called 40 million times for a 400,000 × 100 GloVe file.
#pragma once
#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tfx::numbers {

inline bool is_sep(char c) { return c == ' ' || c == '\t'; }
inline bool is_tok_end(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
inline bool is_digit(char c) { return static_cast<unsigned>(c - '0') < 10u; }

constexpr double kPow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                               1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

enum class Num { ok, not_a_number, non_finite, out_of_range };

constexpr std::uint64_t kPow10u[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

// Value of 8 digit bytes (0..9 each; the first digit in the lowest byte), SWAR as in fast_float.
inline std::uint64_t swar8(std::uint64_t x) {
  x = (x * 10) + (x >> 8);
  x = (((x & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
       (((x >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >> 32;
  return x & 0xFFFFFFFFull;
}

// Appends the run of decimal digits at q (before `end`) to m, 8 at a time where 8 bytes can be
// read (q + 8 <= hard_end; bytes after a line's end are whitespace, never digits).
inline void eat_digits(const char*& q, const char* end, const char* hard_end, std::uint64_t& m, int& count) {
  while (q + 8 <= hard_end) {
    std::uint64_t v;
    std::memcpy(&v, q, 8);
    const std::uint64_t a = v ^ 0x3030303030303030ull;  // digit bytes become 0..9
    const std::uint64_t flags = (((a & 0x7F7F7F7F7F7F7F7Full) + 0x7676767676767676ull) | a) & 0x8080808080808080ull;
    std::ptrdiff_t n = flags ? __builtin_ctzll(flags) >> 3 : 8;
    if (n > end - q) n = end - q;
    if (n <= 0) return;
    m = m * kPow10u[n] + swar8(n == 8 ? a : a << (8 * (8 - n)));
    count += static_cast<int>(n);
    q += n;
    if (n < 8) return;
  }
  for (; q < end && is_digit(*q); ++q, ++count) m = m * 10 + static_cast<unsigned>(*q - '0');
}

// Scans a plain decimal token at q ("-0.24587", "3", "1.5e-3") into sign, mantissa m and
// exponent e (value = ±m·10^e) when it fits Clinger's fast path (≤ 19 digits, m ≤ 2^53,
// |e| ≤ 22); returns false (q unchanged) otherwise. The division is done later, a row at a
// time (ScannedRow::convert), so it is off the parser's critical path.
inline bool scan_decimal(const char*& q0, const char* end, const char* hard_end, std::uint64_t& m, int& e, bool& neg) {
  const char* q = q0;
  neg = q < end && *q == '-';
  q += neg | (q < end && *q == '+');
  m = 0;
  int nint = 0, nfrac = 0;
  if (q + 1 < end && is_digit(q[0]) && q[1] == '.') {
    // the common "d.ddddd" (|v| < 10): one digit, no digit scan before the point
    m = static_cast<unsigned>(q[0] - '0');
    nint = 1;
    q += 2;
    eat_digits(q, end, hard_end, m, nfrac);
  } else {
    eat_digits(q, end, hard_end, m, nint);
    if (q < end && *q == '.') {
      ++q;
      eat_digits(q, end, hard_end, m, nfrac);
    }
  }
  e = -nfrac;
  if (nint + nfrac == 0 || nint + nfrac > 19) return false;
  if (q < end && (*q == 'e' || *q == 'E')) {
    const char* x = q + 1;
    bool eneg = false;
    if (x < end && (*x == '-' || *x == '+')) eneg = *x++ == '-';
    if (!(x < end && is_digit(*x))) return false;
    int ev = 0;
    for (; x < end && is_digit(*x); ++x)
      if (ev < 100000) ev = ev * 10 + (*x - '0');
    e += eneg ? -ev : ev;
    q = x;
  }
  if (!(q == end || is_tok_end(*q)) || m > (std::uint64_t{1} << 53) || e < -22 || e > 22) return false;
  q0 = q;
  return true;
}

// Parses the number token at p (ending at `end` or the first space/tab/CR/LF).
// Fast path (Clinger): ≤ 19 digits with mantissa m ≤ 2^53 and |e| ≤ 22 give v = m·10^e or
// m/10^-e exactly rounded in double; then float32 — the same two roundings as gensim's
// float32(float(token)). Anything else goes through strtod (also exactly rounded).
inline Num parse_number(const char*& p, const char* end, const char* hard_end, float& out) {
  const char* start = p;
  const char* q = p;
  // sign without a branch (signs are random in embedding files: a branch would mispredict)
  const bool neg = q < end && *q == '-';
  q += neg | (q < end && *q == '+');
  std::uint64_t m = 0;
  int nint = 0, nfrac = 0, exp10 = 0;
  eat_digits(q, end, hard_end, m, nint);
  if (q < end && *q == '.') {
    ++q;
    eat_digits(q, end, hard_end, m, nfrac);
  }
  bool any = nint + nfrac > 0;
  exp10 = -nfrac;
  if (any && q < end && (*q == 'e' || *q == 'E')) {
    const char* e = q + 1;
    bool eneg = false;
    if (e < end && (*e == '-' || *e == '+')) eneg = *e++ == '-';
    if (e < end && is_digit(*e)) {
      int ev = 0;
      for (; e < end && is_digit(*e); ++e)
        if (ev < 100000) ev = ev * 10 + (*e - '0');
      exp10 += eneg ? -ev : ev;
      q = e;
    } else {
      any = false;  // "1e" / "1e+": let strtod decide
    }
  }
  if (any && nint + nfrac <= 19 && (q == end || is_tok_end(*q)) && m <= (std::uint64_t{1} << 53) && exp10 >= -22 &&
      exp10 <= 22) {
    double v = static_cast<double>(m);
    v = exp10 < 0 ? v / kPow10[-exp10] : v * kPow10[exp10];
    out = static_cast<float>(neg ? -v : v);  // |v| ≤ 2^53·10^22 < FLT_MAX: always finite
    p = q;
    return Num::ok;
  }
  // slow path: the whole token through strtod
  const char* tok_end = start;
  while (tok_end < end && !is_tok_end(*tok_end)) ++tok_end;
  const std::string tok(start, tok_end);
  p = tok_end;
  if (tok.empty()) return Num::not_a_number;
  // strtod also reads hex floats and "infinity"; plain decimal, nan and inf are what files hold
  char* stop = nullptr;
  errno = 0;
  const double v = std::strtod(tok.c_str(), &stop);
  if (stop != tok.c_str() + tok.size()) return Num::not_a_number;
  if (std::isnan(v) || (std::isinf(v) && errno != ERANGE)) return Num::non_finite;
  if (std::isinf(v) || !std::isfinite(static_cast<float>(v))) return Num::out_of_range;
  out = static_cast<float>(v);
  return Num::ok;
}

// The numbers of one row as the scan leaves them, number j = m[j] / div[j]: m a signed double that
// is exact (|m| < 2^53) or already the one rounding of m·10^e for e > 0, div 1 or a power of ten
// ≤ 10^22 (exact in double). One array per field, so the conversion vectorises. `starts` is
// scan_row's list of where the fields begin.
struct ScannedRow {
  std::vector<double> m, div;
  std::vector<const char*> starts;
  explicit ScannedRow(std::size_t D) : m(D), div(D), starts(D + 64) {}
  // Number j is ±mant·10^e: the sign goes into m's sign bit (no branch: signs are random in
  // embedding files), 10^-e into div, or m·10^e (one rounding) into m.
  void set(std::size_t j, std::uint64_t mant, int e, bool neg) {
    double v = static_cast<double>(mant);
    if (e > 0) v *= kPow10[e];
    m[j] = std::bit_cast<double>(std::bit_cast<std::uint64_t>(v) | (std::uint64_t{neg} << 63));
    div[j] = kPow10[e < 0 ? -e : 0];
  }
  // row[j] = m/div: one correctly rounded double operation (or a division by 1 of an already
  // rounded product), then float32 — the same two roundings as float32(float(token)); rounding to
  // nearest is symmetric, so the sign carried in m changes nothing. No branches and no table
  // lookups, so the compiler vectorises it (the divisions are the expensive part).
  void convert(std::size_t D, float* row) const {
    const double* mp = m.data();
    const double* dp = div.data();
    for (std::size_t j = 0; j < D; ++j) row[j] = static_cast<float>(mp[j] / dp[j]);
  }
};

// Field j of a row, at t, in any form parse_number reads, when scan_row's common case does not
// apply: a plain decimal into nums, anything else converted now and listed in `slow`. False when
// it is not a number or does not end at a separator or le. Kept out of line, so that the common
// case's loop stays small.
[[gnu::noinline]] inline bool scan_field(std::size_t j, const char* t, const char* le, const char* hard_end, ScannedRow& nums,
                                         std::vector<std::pair<std::size_t, float>>& slow) {
  const char* r = t;
  std::uint64_t m;
  int e;
  bool neg;
  if (scan_decimal(r, le, hard_end, m, e, neg) && (r == le || is_sep(*r))) {
    nums.set(j, m, e, neg);
    return true;
  }
  r = t;
  float v;
  if (parse_number(r, le, hard_end, v) == Num::ok && (r == le || is_sep(*r))) {
    slow.push_back({j, v});  // converted already (strtod)
    nums.set(j, 0, 0, false);
    return true;
  }
  return false;
}

// Bit i set when c[i] is a space or a tab, for the 64 bytes at c (those at or after hard_end
// count as separators; the caller masks off what is past its line).
inline std::uint64_t sep_mask64(const char* c, const char* hard_end) {
#if defined(__SSE2__)
  if (hard_end - c >= 64) {
    const __m128i sp = _mm_set1_epi8(' ');
    const __m128i tab = _mm_set1_epi8('\t');
    std::uint64_t mask = 0;
    for (int i = 0; i < 4; ++i) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(c + 16 * i));
      const __m128i s = _mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, tab));
      mask |= static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(s)) & 0xFFFFu) << (16 * i);
    }
    return mask;
  }
#endif
  std::uint64_t mask = ~std::uint64_t{0};
  const std::ptrdiff_t n = std::min<std::ptrdiff_t>(64, hard_end - c);
  for (std::ptrdiff_t i = 0; i < n; ++i)
    if (!is_sep(c[i])) mask &= ~(std::uint64_t{1} << i);
  return mask;
}

// Scans the D numbers after a row's word: [q, le) — q at the separator after the word — must be
// exactly D fields, each after one or more spaces or tabs. Plain decimals are left in `nums`
// (convert them with nums.convert); the others that parse_number reads are converted here and
// listed in `slow` (nums gets 0 for them). False when the rest of the line is anything else (fewer
// or more fields, a word with spaces, a field that is not a number): the caller then splits the
// line the slow way, which also finds the error.
// Two passes, so that no field waits for the one before it: first where every field starts
// (separator bitmasks, 64 bytes at a time), then each field on its own — the common one of
// embedding files, [-]d.ddd… with 1–8 digits after the point, with one 8-byte load and no loop.
inline bool scan_row(const char* q, const char* le, const char* hard_end, std::size_t D, ScannedRow& nums,
                     std::vector<std::pair<std::size_t, float>>& slow) {
  if (q == le || !is_sep(*q)) return false;
  // 1. field starts: a byte that is not a separator right after one that is
  const char** starts = nums.starts.data();
  std::size_t k = 0;
  std::uint64_t carry = 0;  // the byte before the chunk was a separator (q is one: no start there)
  for (const char* c = q; c < le; c += 64) {
    const std::uint64_t sep = sep_mask64(c, hard_end);
    const auto left = static_cast<std::size_t>(le - c);
    const std::uint64_t in = left >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << left) - 1;
    std::uint64_t st = ~sep & in & ((sep << 1) | carry);
    carry = sep >> 63;
    while (st) {  // at most 32 starts in 64 bytes: starts has room for them past D
      starts[k++] = c + std::countr_zero(st);
      st &= st - 1;
    }
    if (k > D) return false;
  }
  if (k != D) return false;
  // 2. each field; a field must end at a separator or the line's end. The common field is taken
  //    when it is followed by exactly one separator and then the next field (or is the last one),
  //    which comparing its end with the next start says at once.
  starts[D] = le + 1;
  const bool wide = hard_end - le >= 16;  // every field's 8-byte load stays before hard_end
  double* mp = nums.m.data();
  double* dp = nums.div.data();
  for (std::size_t j = 0; j < D; ++j) {
    const char* t = starts[j];
    const bool neg = *t == '-';
    t += neg;
    if (wide && is_digit(t[0]) && t[1] == '.') {
      std::uint64_t x;
      std::memcpy(&x, t + 2, 8);
      const std::uint64_t a = x ^ 0x3030303030303030ull;  // digit bytes become 0..9
      const std::uint64_t flags = (((a & 0x7F7F7F7F7F7F7F7Full) + 0x7676767676767676ull) | a) & 0x8080808080808080ull;
      const unsigned n = static_cast<unsigned>(std::countr_zero(flags)) >> 3;  // digits after the point (8: 8 or more)
      if (n - 1 < 8u && t + 3 + n == starts[j + 1]) {
        const std::uint64_t mant = static_cast<std::uint64_t>(t[0] - '0') * kPow10u[n] + swar8(a << (8 * (8 - n)));
        mp[j] = std::bit_cast<double>(std::bit_cast<std::uint64_t>(static_cast<double>(static_cast<std::int64_t>(mant))) |
                                      (std::uint64_t{neg} << 63));
        dp[j] = kPow10[n];
        continue;
      }
    }
    if (!scan_field(j, starts[j], le, hard_end, nums, slow)) return false;
  }
  return true;
}

}  // namespace tfx::numbers
