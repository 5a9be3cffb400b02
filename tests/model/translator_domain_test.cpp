// The teaching translator's training domain against scripts/train_teaching_model.py's own lists
// (SUBJECTS, NOUNS, VERBS with their objects, copied here as the script writes them): every
// sentence the script can make is in the domain, the corpus holds exactly those, and the issue's
// failing inputs are outside it for the reason the issue names. Standard spellings map to the
// domain's words.
#include "tfx/model/translator_domain.hpp"

#include <utility>

#include "helpers.hpp"

using namespace tfx;

namespace {

const std::vector<std::string> kScriptSubjects = {"나는", "너는", "그는", "그녀는", "우리는", "그들은"};
const std::vector<std::string> kScriptNouns = {"학생", "선생님", "의사", "가수", "요리사", "화가", "기자", "배우", "엔지니어", "경찰"};
// present, past, objects (particle written out as the script's object_particle gives it)
const std::vector<std::tuple<std::string, std::string, std::vector<std::string>>> kScriptVerbs = {
    {"먹는다", "먹었다", {"사과를", "빵을", "밥을"}}, {"마신다", "마셨다", {"물을", "우유를", "커피를"}},
    {"읽는다", "읽었다", {"책을", "신문을", "편지를"}}, {"쓴다", "썼다", {"편지를", "시를"}},
    {"본다", "봤다", {"영화를", "뉴스를"}},           {"부른다", "불렀다", {"노래를"}},
};

}  // namespace

TEST_CASE("translator domain: every sentence the training script can make is inside, and the corpus holds all of them") {
  const TranslatorDomain& d = teaching_domain();
  std::size_t n = 0;
  for (const std::string& s : kScriptSubjects) {
    for (const std::string& noun : kScriptNouns)
      for (const char* cop : {"이다", "이었다"}) {
        const DomainCheck c = check_domain(d, {s, noun, cop});
        CHECK_MESSAGE(c.in_domain, s, " ", noun, " ", cop);
        CHECK((c.seen == "train" || c.seen == "test"));
        ++n;
      }
    for (const auto& [present, past, objects] : kScriptVerbs)
      for (const std::string& obj : objects)
        for (const std::string& verb : {present, past}) {
          const DomainCheck c = check_domain(d, {s, obj, verb});
          CHECK_MESSAGE(c.in_domain, s, " ", obj, " ", verb);
          CHECK((c.seen == "train" || c.seen == "test"));
          ++n;
        }
  }
  CHECK(n == 6 * (10 * 2 + 14 * 2));
  CHECK(d.sentences.size() == n);  // nothing else: the shapes are exactly the script's
  CHECK(check_domain(d, {"나는", "학생", "이다"}).seen == "train");  // the lecture's sentence stays in training
}

TEST_CASE("translator domain: the issue's inputs are outside it, each for its reason") {
  const TranslatorDomain& d = teaching_domain();
  auto reasons = [&](std::vector<std::string> t) {
    const DomainCheck c = check_domain(d, t);
    CHECK_FALSE(c.in_domain);
    CHECK(c.seen.empty());
    std::string all;
    for (const auto& r : c.reasons) all += r + "|";
    return all;
  };
  const std::string english = reasons({"I", "am", "a", "student"});
  CHECK(english.find("'I', 'am', 'a', 'student' are words of the English side") != std::string::npos);
  CHECK(english.find("나는 학생 이다") != std::string::npos);
  CHECK(english.find("three words") == std::string::npos);  // English alone is the reason
  CHECK(reasons({"she", "drank", "coffee"}).find("English side") != std::string::npos);
  CHECK(reasons({"그는", "책을", "마셨다"}).find("'책을' is followed by '읽는다' or '읽었다', never by '마셨다'") != std::string::npos);
  CHECK(reasons({"나는", "학생", "마셨다"}).find("'학생' is followed by '이다' or '이었다', never by '마셨다'") != std::string::npos);
  const std::string copula = reasons({"이다"});
  CHECK(copula.find("this one has 1") != std::string::npos);
  CHECK(copula.find("not '이다'") != std::string::npos);
  CHECK(reasons({"나는"}).find("this one has 1") != std::string::npos);
  CHECK(reasons({"학생", "나는", "이다"}).find("starts with its subject") != std::string::npos);
  CHECK(reasons({"나는", "마셨다", "커피를"}).find("'마셨다' is never a training sentence's second word") != std::string::npos);
  // a sentence of domain words the corpus does not hold would be "new"; this corpus holds them all
  CHECK(check_domain(d, {"그들은", "노래를", "불렀다"}).in_domain);
}

TEST_CASE("translator domain: standard spellings in the vocabulary's spelling") {
  const Vocabulary& v = teaching_translator().vocab;
  const std::pair<const char*, const char*> cases[] = {
      {"학생이다", "학생 이다"},   {"학생입니다", "학생 이다"}, {"학생이었다", "학생 이었다"}, {"의사였다", "의사 이었다"},
      {"의사다", "의사 이다"},     {"입니다", "이다"},          {"저는", "나는"},               {"제가", "나는"},
      {"그가", "그는"},             {"그들이", "그들은"},        {"나", "나는"},                 {"커피", "커피를"},
      {"책", "책을"},               {"커피을", "커피를"},        {"고양이", ""},                 {"마셔요", ""},
  };
  // no structured binding: doctest's message is a lambda, and clang 14 cannot capture a binding
  for (const auto& c : cases) CHECK_MESSAGE(domain_spelling(v, c.first) == c.second, c.first);
  // a word already in the vocabulary has no other spelling to offer
  CHECK(domain_spelling(v, "이다").empty());
  CHECK(domain_spelling(v, "학생").empty());
}

TEST_CASE("translator domain: unknown words with a domain spelling get the respelled sentence, not 'not in the vocabulary'") {
  const Translator& m = teaching_translator();
  auto message = [&](const std::string& text) {
    try {
      translator_tokens(m, text, "TEXT");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string a = message("나는 학생이다");
  CHECK(a.find("try \"나는 학생 이다\"") != std::string::npos);
  CHECK(a.find("not in the vocabulary") == std::string::npos);
  CHECK(message("저는 학생입니다").find("try \"나는 학생 이다\"") != std::string::npos);
  CHECK(message("그가 커피 마셨다").find("try \"그는 커피를 마셨다\"") != std::string::npos);
  const std::string b = message("저는 고양이 이다");  // one word has no respelling: the old error, with the hint there is
  CHECK(b.find("'저는', '고양이' not in the vocabulary") != std::string::npos);
  CHECK(b.find("'저는' → '나는'") != std::string::npos);
}
