// Private to the embeddings loader: the number parser of text embedding files. Plain decimals
// go through Clinger's exact fast path (8 digits at a time with SWAR), so the float32 results
// are bit-identical to gensim's float32(float(token)); everything else through strtod.
// Inline: called 40 million times for a 400,000 × 100 GloVe file.
#pragma once
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

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

// The numbers of one row as the scan leaves them, number j = m[j] · mul[j] / div[j]: m signed,
// |m| < 2^53, and at most one of mul and div a power of ten other than 1 (10^k ≤ 10^22 is exact in
// double). One array per field, so the conversion vectorises.
struct ScannedRow {
  std::vector<double> m, mul, div;
  explicit ScannedRow(std::size_t D) : m(D), mul(D), div(D) {}
  // Number j is ±m·10^e: the sign goes into m's sign bit (no branch: signs are random in
  // embedding files), 10^e into mul or div.
  void set(std::size_t j, std::uint64_t mant, int e, bool neg) {
    m[j] = std::bit_cast<double>(std::bit_cast<std::uint64_t>(static_cast<double>(mant)) | (std::uint64_t{neg} << 63));
    mul[j] = kPow10[e > 0 ? e : 0];
    div[j] = kPow10[e < 0 ? -e : 0];
  }
  // row[j] = m·mul/div: one correctly rounded double operation on exact operands (the other one
  // multiplies or divides by 1), then float32 — the same two roundings as float32(float(token));
  // rounding to nearest is symmetric, so the sign carried in m changes nothing. No branches and
  // no table lookups, so the compiler vectorises it (the divisions are the expensive part).
  void convert(std::size_t D, float* row) const {
    const double* mp = m.data();
    const double* up = mul.data();
    const double* dp = div.data();
    for (std::size_t j = 0; j < D; ++j) row[j] = static_cast<float>(mp[j] * up[j] / dp[j]);
  }
};

}  // namespace tfx::numbers
