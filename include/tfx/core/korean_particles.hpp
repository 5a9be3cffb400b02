// Korean particles that agree with the word before them: 은/는, 이/가, 을/를, 과/와, (으)로 are
// chosen by whether that word, read aloud, ends in a consonant (받침, the final consonant
// jongseong) and, for (으)로, whether that consonant is ㄹ (which takes 로, like a vowel).
//
// How a word is read (docs/korean.md, "Particles"):
//   - Hangul: the last syllable's jongseong ((code − 0xAC00) mod 28: 0 none, 8 ㄹ).
//   - numbers: their Korean reading, by the last digit read: 0 영, 1 일, 2 이, 3 삼, 4 사, 5 오,
//     6 육, 7 칠, 8 팔, 9 구; an integer ending in zeros by its unit: …0 십, …00 백, …000 천,
//     …0000 만 (up to 10^7), 10^8… 억, 10^12… 조; after a decimal point the last digit (0.5 영 점 오).
//     "%" reads 퍼센트 (no final).
//   - Latin letters: a word in capitals (an acronym: PE, RoPE is mixed and read as a word) or a
//     word without vowels (csv, png) is read letter by letter, by the English letter name: L 엘 and
//     R 알 end in ㄹ, M 엠 and N 엔 in a consonant, every other letter in a vowel; any other word by
//     its last letter: l → ㄹ (model 모델); m, n, k, p, b, c, ng, and t but after s → a consonant
//     (king 킹, cat 캣, magic 매직); anything else → a vowel (word 워드, test 테스트, tokens 토큰스).
//   - closing quotes and brackets (' " ) ] ” ’ 」 ») are skipped; any other symbol, or nothing,
//     counts as a vowel.
#pragma once
#include <string>
#include <string_view>

namespace tfx {

enum class FinalSound { vowel, consonant, rieul };  // rieul: ends in ㄹ

// How `word` ends when read aloud (rules above).
FinalSound final_sound(std::string_view word);

// The particle of `pair` for `word`: pair is one of the marker spellings "은(는)", "이(가)",
// "을(를)", "과(와)", "(으)로" (also "는(은)", "가(이)", "를(을)", "와(과)"); returns the one
// form that agrees ("은" or "는", …, "으로" or "로"), or "" when `pair` is not a marker.
std::string_view particle_for(std::string_view word, std::string_view pair);

// The length in bytes of the particle marker `text` starts with (one of those above), or 0.
std::size_t particle_marker_length(std::string_view text);

}  // namespace tfx
