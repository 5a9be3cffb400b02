// Korean particles (korean_particles.hpp) on a table of words whose particles a Korean reader
// knows, written out by hand (not computed): Hangul by its last syllable's final consonant,
// numbers by their Korean reading, Latin words and letters by the documented rule; and the
// markers in translations (i18n.hpp: fill_translation) choosing the form after a value.
#include <string>
#include <vector>

#include "helpers.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/core/korean_particles.hpp"

using namespace tfx;

namespace {

struct Row {
  const char* word;
  const char* topic;   // 은/는
  const char* subject; // 이/가
  const char* object;  // 을/를
  const char* with;    // 과/와
  const char* by;      // 으로/로
};

// Each row as a Korean speaker reads it aloud.
const Row kTable[] = {
    // Hangul: no final / a final / ㄹ final
    {"고양이", "는", "가", "를", "와", "로"},
    {"고양이를", "은", "이", "을", "과", "로"},  // 를: ㄹ final
    {"학생", "은", "이", "을", "과", "으로"},
    {"내장 말뭉치", "는", "가", "를", "와", "로"},
    {"개가", "는", "가", "를", "와", "로"},
    {"책", "은", "이", "을", "과", "으로"},
    {"서울", "은", "이", "을", "과", "로"},
    {"디렉터리", "는", "가", "를", "와", "로"},
    {"'고양이를'", "은", "이", "을", "과", "로"},  // quotes are skipped
    {"“학생”", "은", "이", "을", "과", "으로"},
    // numbers by their reading
    {"0", "은", "이", "을", "과", "으로"},    // 영
    {"1", "은", "이", "을", "과", "로"},      // 일
    {"2", "는", "가", "를", "와", "로"},      // 이
    {"3", "은", "이", "을", "과", "으로"},    // 삼
    {"4", "는", "가", "를", "와", "로"},      // 사
    {"5", "는", "가", "를", "와", "로"},      // 오
    {"6", "은", "이", "을", "과", "으로"},    // 육
    {"7", "은", "이", "을", "과", "로"},      // 칠
    {"8", "은", "이", "을", "과", "로"},      // 팔
    {"9", "는", "가", "를", "와", "로"},      // 구
    {"10", "은", "이", "을", "과", "으로"},   // 십
    {"64", "는", "가", "를", "와", "로"},     // 육십사
    {"100", "은", "이", "을", "과", "으로"},  // 백
    {"1000", "은", "이", "을", "과", "으로"}, // 천
    {"10000", "은", "이", "을", "과", "으로"},// 만
    {"512", "는", "가", "를", "와", "로"},    // 오백십이
    {"3328", "은", "이", "을", "과", "로"},   // 삼천삼백이십팔
    {"0.5", "는", "가", "를", "와", "로"},    // 영 점 오
    {"1.0", "은", "이", "을", "과", "으로"},  // 일 점 영
    {"224×224", "는", "가", "를", "와", "로"},
    {"50%", "는", "가", "를", "와", "로"},    // 퍼센트
    // Latin: acronyms and vowel-less words letter by letter (L, R: ㄹ; M, N: a consonant)
    {"PE", "는", "가", "를", "와", "로"},     // 피이
    {"URL", "은", "이", "을", "과", "로"},    // 유알엘
    {"LLM", "은", "이", "을", "과", "으로"},  // 엘엘엠
    {"CNN", "은", "이", "을", "과", "으로"},  // 씨엔엔
    {"GPT", "는", "가", "를", "와", "로"},    // 지피티
    {"png", "는", "가", "를", "와", "로"},    // 피엔지
    {"x.tsv", "는", "가", "를", "와", "로"},  // 브이
    {"R", "은", "이", "을", "과", "로"},      // 알
    // Latin words by their last letter
    {"king", "은", "이", "을", "과", "으로"},   // 킹
    {"model", "은", "이", "을", "과", "로"},    // 모델
    {"cat", "은", "이", "을", "과", "으로"},    // 캣
    {"tokens", "는", "가", "를", "와", "로"},   // 토큰스
    {"queen", "은", "이", "을", "과", "으로"},  // 퀸
    {"test", "는", "가", "를", "와", "로"},     // 테스트
    {"config.json", "은", "이", "을", "과", "으로"},  // 제이슨
    {"--heads", "는", "가", "를", "와", "로"},  // 헤즈
    {"--d-model", "은", "이", "을", "과", "로"},
    // nothing readable: the vowel forms
    {"", "는", "가", "를", "와", "로"},
    {"→", "는", "가", "를", "와", "로"},
};

}  // namespace

TEST_CASE("korean particles: a table of words read aloud") {
  for (const Row& r : kTable) {
    INFO("word: '" << r.word << "'");
    CHECK(particle_for(r.word, "은(는)") == r.topic);
    CHECK(particle_for(r.word, "는(은)") == r.topic);
    CHECK(particle_for(r.word, "이(가)") == r.subject);
    CHECK(particle_for(r.word, "을(를)") == r.object);
    CHECK(particle_for(r.word, "과(와)") == r.with);
    CHECK(particle_for(r.word, "(으)로") == r.by);
  }
  CHECK(particle_for("학생", "에서").empty());
  CHECK(particle_marker_length("(으)로 학습") == std::string("(으)로").size());
  CHECK(particle_marker_length("로 학습") == 0);
}

TEST_CASE("korean particles: markers after a field in a translation agree with the value") {
  CHECK(fill_translation("{}(으)로 학습", {"내장 말뭉치"}) == "내장 말뭉치로 학습");
  CHECK(fill_translation("{}(으)로 학습", {"my.tsv"}) == "my.tsv로 학습");
  CHECK(fill_translation("'{}'(으)로 시작하지 않습니다", {"개가"}) == "'개가'로 시작하지 않습니다");
  CHECK(fill_translation("'{}'은(는) 온 적이 없습니다", {"고양이를"}) == "'고양이를'은 온 적이 없습니다");
  CHECK(fill_translation("{1}이(가) {0}을(를) 나눔", {"64", "3"}) == "3이 64를 나눔");
  CHECK(fill_translation("{}과(와) {}", {"학생", "책"}) == "학생과 책");
  CHECK(fill_translation("{{}}(으)로 {}", {"x"}) == "{}(으)로 x");  // a literal brace is no field
  CHECK(has_particle_after_field("'{}'은(는)"));
  CHECK_FALSE(has_particle_after_field("{}개"));
  CHECK(format_translation("{:.1f}(으)로, {}은(는)", fmt::make_format_args(2.5, "king")) == "2.5로, king은");
  CHECK(format_translation("{1:>3}이(가) {0}", fmt::make_format_args(1, 10)) == " 10이 1");
}
