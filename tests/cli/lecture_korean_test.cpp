// The notes' Korean example end to end on the built-in teaching embedding: "나는 학생 이다" and
// "I love playing football." are in its vocabulary (no <unk> warning), the tokens label the
// tables of attention, encoder and decoder, and the constructed Korean rows sit next to their
// English counterparts (the property samples/teaching_embedding.tsv builds in).
#include <nlohmann/json.hpp>

#include <sstream>

#include "helpers.hpp"

using namespace tfx::test;
using V = std::vector<std::string>;

TEST_CASE("lecture, Korean: attention --sentence finds 나는 학생 이다 and the notes' '.' in the teaching embedding") {
  for (const std::string s : {"나는 학생 이다", "I love playing football."}) {
    CAPTURE(s);
    const Run r = run_tfx("attention --sentence " + shell_quote(s));
    CHECK(r.code == 0);
    CHECK(r.err.find("warning") == std::string::npos);
    CHECK(r.err.find("<unk>") == std::string::npos);
  }
  const Run t = run_tfx("attention --sentence '나는 학생 이다'");
  CHECK(has(t.out, "query\\key"));
  CHECK(has(t.out, "학생"));
}

TEST_CASE("lecture, Korean: encoder and decoder label their tables with the notes' tokens and warn about nothing") {
  const Run enc = run_tfx("encoder --sentence '나는 학생 이다' --format json");
  CHECK(enc.err.empty());
  CHECK(json_of(enc)["params"]["tokens"].get<V>() == V{"나는", "학생", "이다"});
  const Run dec = run_tfx("decoder --sentence 'I am a student' --memory '나는 학생 이다'");
  CHECK(dec.code == 0);
  CHECK(dec.err.empty());
  CHECK(has(dec.out, "memory tokens: 나는 학생 이다"));
  // the cross-attention tables' header: queries down, the Korean memory tokens across
  bool header = false;
  std::istringstream lines(dec.out);
  for (std::string line; std::getline(lines, line);)
    header = header || (line.rfind("query\\key", 0) == 0 && line.find("나는") < line.find("학생") && line.find("학생") < line.find("이다") &&
                        line.find("이다") != std::string::npos);
  CHECK(header);
}

TEST_CASE("lecture, Korean: each constructed Korean word's nearest neighbour is its English counterpart") {
  for (const auto& pair : std::vector<std::pair<std::string, std::string>>{{"나는", "i"}, {"학생", "student"}, {"이다", "am"}}) {
    const std::string &ko = pair.first, &en = pair.second;  // (no structured binding: CAPTURE is a lambda, clang 14)
    CAPTURE(ko);
    const auto j = json_of(run_tfx("similar " + ko + " --top 1 --format json"));
    CHECK(j["data"][0]["word"].get<std::string>() == en);
  }
}
