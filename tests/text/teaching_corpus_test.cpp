// The built-in corpus teaching-gpt learns from (data/teaching_gpt/corpus.txt, written by
// scripts/gen_teaching_corpus.py): the facts are there in both languages, every Korean particle
// agrees with the final consonant of the syllable before it — computed here from the Hangul
// syllable's code point, independently of the generator — and English subjects agree with their verbs.
#include <algorithm>
#include <array>
#include <set>
#include <sstream>

#include "helpers.hpp"

using namespace tfx::test;

namespace {

std::vector<std::string> corpus_lines() {
  std::istringstream in(read_file(std::filesystem::path(TFX_SOURCE_DIR) / "data/teaching_gpt/corpus.txt"));
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

// The code points of a UTF-8 string (the corpus is valid UTF-8; checked below).
std::u32string code_points(const std::string& s) {
  std::u32string out;
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const int n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    char32_t c = n == 1 ? b : n == 2 ? b & 0x1F : n == 3 ? b & 0x0F : b & 0x07;
    for (int k = 1; k < n; ++k) c = (c << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    out.push_back(c);
    i += n;
  }
  return out;
}

bool hangul_syllable(char32_t c) { return c >= 0xAC00 && c <= 0xD7A3; }
// A Hangul syllable is U+AC00 + (initial · 21 + medial) · 28 + final, final 0 = none.
bool has_final_consonant(char32_t c) { return (c - 0xAC00) % 28 != 0; }

}  // namespace

TEST_CASE("teaching corpus: thousands of short English and Korean sentences, at most ~500 KB") {
  const std::string text = read_file(std::filesystem::path(TFX_SOURCE_DIR) / "data/teaching_gpt/corpus.txt");
  CHECK(text.size() <= 512 * 1024);
  const auto lines = corpus_lines();
  CHECK(lines.size() >= 4000);
  std::size_t korean = 0, english = 0;
  for (const std::string& l : lines) {
    const std::u32string cps = code_points(l);
    const bool ko = std::any_of(cps.begin(), cps.end(), hangul_syllable);
    (ko ? korean : english) += 1;
    CHECK(cps.size() < 80);  // short sentences
  }
  CHECK(korean >= 2000);
  CHECK(english >= 2000);
}

TEST_CASE("teaching corpus: the facts appear, in English and in Korean") {
  const auto lines = corpus_lines();
  const std::set<std::string> all(lines.begin(), lines.end());
  // capitals of the world, as an atlas has them
  const std::vector<std::array<const char*, 4>> capitals = {
      {"Paris", "France", "파리", "프랑스"},      {"Seoul", "Korea", "서울", "한국"},    {"Tokyo", "Japan", "도쿄", "일본"},
      {"London", "England", "런던", "영국"},      {"Berlin", "Germany", "베를린", "독일"}, {"Rome", "Italy", "로마", "이탈리아"},
      {"Madrid", "Spain", "마드리드", "스페인"},  {"Beijing", "China", "베이징", "중국"}, {"Cairo", "Egypt", "카이로", "이집트"},
      {"Ottawa", "Canada", "오타와", "캐나다"},
  };
  for (const auto& row : capitals) {
    // named copies, not a structured binding: clang 14 cannot capture a binding in INFO
    const char *city = row[0], *country = row[1], *city_ko = row[2], *country_ko = row[3];
    INFO(city);
    CHECK(all.count(std::string(city) + " is the capital of " + country + ".") == 1);
    CHECK(all.count(std::string("The capital of ") + country + " is " + city + ".") == 1);
    CHECK(all.count(std::string(country_ko) + "의 수도는 " + city_ko + " 이다.") == 1);
  }
  CHECK(all.count("파리는 프랑스의 수도 이다.") == 1);
  CHECK(all.count("서울은 한국의 수도 이다.") == 1);
  // no capital is given a wrong country
  for (const std::string& l : lines)
    for (const auto& [city, country, city_ko, country_ko] : capitals)
      if (l.rfind(std::string(city) + " is the capital of ", 0) == 0) CHECK(l == std::string(city) + " is the capital of " + country + ".");
}

TEST_CASE("teaching corpus: every particle 은/는 이/가 을/를 과/와 agrees with the final consonant before it") {
  // 은 이 을 과 follow a syllable with a final consonant, 는 가 를 와 one without. A word that
  // stands before the copula 이다 is a bare noun (학생 이다, 하노이 이다), not noun + particle.
  const std::u32string after_consonant = U"은이을과", after_vowel = U"는가를와";
  std::size_t checked = 0;
  for (const std::string& line : corpus_lines()) {
    std::vector<std::u32string> words;
    std::u32string w;
    for (char32_t c : code_points(line) + U" ") {
      if (c == U' ') {
        if (!w.empty()) words.push_back(w);
        w.clear();
      } else if (c != U'.' && c != U',' && c != U'!' && c != U'?') {
        w.push_back(c);
      }
    }
    for (std::size_t i = 0; i < words.size(); ++i) {
      const std::u32string& word = words[i];
      if (word.size() < 2 || !hangul_syllable(word.back()) || !hangul_syllable(word[word.size() - 2])) continue;
      if (i + 1 < words.size() && words[i + 1] == U"이다") continue;
      const char32_t particle = word.back(), before = word[word.size() - 2];
      const bool consonant_form = after_consonant.find(particle) != std::u32string::npos;
      const bool vowel_form = after_vowel.find(particle) != std::u32string::npos;
      if (!consonant_form && !vowel_form) continue;
      INFO(line);
      CHECK(has_final_consonant(before) == consonant_form);
      ++checked;
    }
  }
  CHECK(checked > 5000);
}

TEST_CASE("teaching corpus: English subjects agree with their verbs") {
  // he / she take the -s form (or a past tense), they / we / I / you the bare form
  const std::set<std::string> singular = {"He", "She"}, plural = {"They", "We", "You"};
  const std::set<std::string> never_after_singular = {"are", "am", "have", "were", "eat", "go", "drink", "like", "live", "speak"};
  const std::set<std::string> never_after_plural = {"is", "am", "has", "eats", "goes", "drinks", "likes", "lives", "speaks"};
  std::size_t checked = 0;
  for (const std::string& line : corpus_lines()) {
    std::istringstream in(line);
    std::vector<std::string> t;
    for (std::string w; in >> w;) t.push_back(w);
    if (t.size() < 2) continue;
    const std::string& subject = t[0];
    const std::string& verb = t[1];
    if (t.size() > 3 && t[1] == "and") {  // two people: the bare form
      INFO(line);
      CHECK(never_after_plural.count(t[3]) == 0);
      ++checked;
    } else if (singular.count(subject)) {
      INFO(line);
      CHECK(never_after_singular.count(verb) == 0);
      ++checked;
    } else if (plural.count(subject)) {
      INFO(line);
      CHECK(never_after_plural.count(verb) == 0);
      ++checked;
    } else if (subject == "I") {
      INFO(line);
      CHECK((verb != "is" && verb != "are" && verb != "has"));
      ++checked;
    }
  }
  CHECK(checked > 1000);
}
