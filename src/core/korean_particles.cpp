// Korean particles chosen by the sound the word before them ends in (the rules are in the header
// and docs/korean.md).
#include "tfx/core/korean_particles.hpp"

#include <array>
#include <cstdint>

namespace tfx {

namespace {

// The code point ending at byte `end` of UTF-8 `s` and its first byte; {0, end} for an invalid tail.
std::pair<char32_t, std::size_t> last_code_point(std::string_view s, std::size_t end) {
  std::size_t i = end;
  while (i > 0 && (static_cast<unsigned char>(s[i - 1]) & 0xC0) == 0x80 && end - i < 3) --i;
  if (i == 0) return {0, 0};
  --i;
  const auto b0 = static_cast<unsigned char>(s[i]);
  const std::size_t n = end - i;
  char32_t c = 0;
  if (b0 < 0x80 && n == 1) c = b0;
  else if ((b0 & 0xE0) == 0xC0 && n == 2) c = b0 & 0x1F;
  else if ((b0 & 0xF0) == 0xE0 && n == 3) c = b0 & 0x0F;
  else if ((b0 & 0xF8) == 0xF0 && n == 4) c = b0 & 0x07;
  else return {0, i};
  for (std::size_t k = i + 1; k < end; ++k) c = (c << 6) | (static_cast<unsigned char>(s[k]) & 0x3F);
  return {c, i};
}

bool is_closing(char32_t c) {
  switch (c) {
    case U'\'': case U'"': case U')': case U']': case U'}': case U'>': case U'`':
    case U'\u201D': case U'\u2019': case U'\u300D': case U'\u300F': case U'\u00BB': case U'\u3009': case U'\u300B':
      return true;
    default:
      return false;
  }
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_latin(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// The English name of a letter, read in Korean: L 엘, R 알 end in ㄹ; M 엠, N 엔 in a consonant.
FinalSound letter_name(char c) {
  switch (lower(c)) {
    case 'l': case 'r': return FinalSound::rieul;
    case 'm': case 'n': return FinalSound::consonant;
    default: return FinalSound::vowel;
  }
}

// 0 영, 1 일, 2 이, 3 삼, 4 사, 5 오, 6 육, 7 칠, 8 팔, 9 구
FinalSound digit_reading(char d) {
  static constexpr std::array<FinalSound, 10> kDigits = {FinalSound::consonant, FinalSound::rieul,     FinalSound::vowel,
                                                         FinalSound::consonant, FinalSound::vowel,     FinalSound::vowel,
                                                         FinalSound::consonant, FinalSound::rieul,     FinalSound::rieul,
                                                         FinalSound::vowel};
  return kDigits[static_cast<std::size_t>(d - '0')];
}

// The digits `s` ends with (s[begin, end) all digits, maybe after a decimal point).
FinalSound number_reading(std::string_view s, std::size_t begin, std::size_t end) {
  const bool after_point = begin > 0 && s[begin - 1] == '.' && begin >= 2 && is_digit(s[begin - 2]);
  if (after_point) return digit_reading(s[end - 1]);
  std::size_t zeros = 0;
  while (zeros < end - begin && s[end - 1 - zeros] == '0') ++zeros;
  if (zeros == end - begin) return FinalSound::consonant;  // 0 영
  switch (zeros) {
    case 0: return digit_reading(s[end - 1]);
    case 1: return FinalSound::consonant;  // 십
    case 2: return FinalSound::consonant;  // 백
    case 3: return FinalSound::consonant;  // 천
    default:
      // 만 (10^4..10^7), 억 (10^8..10^11), 조 (10^12..): 만 and 억 end in a consonant, 조 does not
      return zeros >= 12 ? FinalSound::vowel : FinalSound::consonant;
  }
}

FinalSound latin_reading(std::string_view s, std::size_t begin, std::size_t end) {
  const std::string_view w = s.substr(begin, end - begin);
  bool all_caps = true, has_vowel = false;
  for (const char c : w) {
    if (c >= 'a' && c <= 'z') all_caps = false;
    if (std::string_view("aeiouAEIOU").find(c) != std::string_view::npos) has_vowel = true;
  }
  if (all_caps || !has_vowel || w.size() == 1) return letter_name(w.back());
  const char last = lower(w.back());
  const char before = w.size() >= 2 ? lower(w[w.size() - 2]) : '\0';
  switch (last) {
    case 'l': return FinalSound::rieul;
    case 'm': case 'n': case 'k': case 'p': case 'b': case 'c': return FinalSound::consonant;
    case 'g': return before == 'n' ? FinalSound::consonant : FinalSound::vowel;
    case 't': return before == 's' ? FinalSound::vowel : FinalSound::consonant;
    default: return FinalSound::vowel;
  }
}

struct Marker {
  std::string_view text, with_final, without_final;  // 이(가): 이 after a consonant, 가 after a vowel
};
constexpr Marker kMarkers[] = {
    {"은(는)", "은", "는"}, {"는(은)", "은", "는"}, {"이(가)", "이", "가"}, {"가(이)", "이", "가"},
    {"을(를)", "을", "를"}, {"를(을)", "을", "를"}, {"과(와)", "과", "와"}, {"와(과)", "과", "와"},
    {"(으)로", "으로", "로"},
};

}  // namespace

FinalSound final_sound(std::string_view word) {
  std::size_t end = word.size();
  while (end > 0) {
    const auto [c, at] = last_code_point(word, end);
    if (c == 0 && at == end) return FinalSound::vowel;
    if (c >= 0xAC00 && c <= 0xD7A3) {
      const unsigned jong = static_cast<unsigned>(c - 0xAC00) % 28;
      return jong == 0 ? FinalSound::vowel : jong == 8 ? FinalSound::rieul : FinalSound::consonant;
    }
    if (c < 0x80 && is_digit(static_cast<char>(c))) {
      std::size_t begin = at;
      while (begin > 0 && is_digit(word[begin - 1])) --begin;
      return number_reading(word, begin, end);
    }
    if (c < 0x80 && is_latin(static_cast<char>(c))) {
      std::size_t begin = at;
      while (begin > 0 && is_latin(word[begin - 1])) --begin;
      return latin_reading(word, begin, end);
    }
    if (c == U'%') return FinalSound::vowel;  // 퍼센트
    if (!is_closing(c)) return FinalSound::vowel;
    end = at;
  }
  return FinalSound::vowel;
}

std::string_view particle_for(std::string_view word, std::string_view pair) {
  for (const auto& m : kMarkers) {
    if (m.text != pair) continue;
    const FinalSound f = final_sound(word);
    if (m.text == "(으)로") return f == FinalSound::consonant ? m.with_final : m.without_final;
    return f == FinalSound::vowel ? m.without_final : m.with_final;
  }
  return {};
}

std::size_t particle_marker_length(std::string_view text) {
  for (const auto& m : kMarkers)
    if (text.substr(0, m.text.size()) == m.text) return m.text.size();
  return 0;
}

}  // namespace tfx
