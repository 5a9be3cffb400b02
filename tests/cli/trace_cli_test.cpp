// `tfx trace` end to end: the steps come in the lecture's order with consistent shapes, and the
// JSON matrices obey what each step says (X = e + p, p = the closed-form sinusoid, softmax rows sum
// to 1, masked cells are −∞ exactly above the diagonal, the next token is the argmax of the last
// logits row), so a step that drew the wrong tensor fails here.
#include <nlohmann/json.hpp>

#include <cmath>

#include "helpers.hpp"
#include "png.hpp"

using namespace tfx::test;

namespace {

std::vector<std::string> step_names(const nlohmann::json& j) {
  std::vector<std::string> names;
  for (const auto& row : j["data"]) names.push_back(row["name"]);
  return names;
}

std::size_t index_of(const std::vector<std::string>& v, const std::string& s) {
  return static_cast<std::size_t>(std::find(v.begin(), v.end(), s) - v.begin());
}

}  // namespace

TEST_CASE("trace: 나는 학생 이다 walks tokens → ids → e → p → e + p → Q, K, V → … → logits → next token = student") {
  const Run r = run_tfx("trace '나는 학생 이다' --format json");
  REQUIRE(r.code == 0);
  const nlohmann::json j = json_of(r);
  CHECK(j["summary"]["next_token"] == "student");
  const auto names = step_names(j);
  const std::vector<std::string> order = {"src.tokens", "src.ids", "src.e", "src.p", "src.x", "enc1.self.q", "enc1.self.k",
                                          "enc1.self.v", "enc1.self.scores", "enc1.self.weights", "enc1.self.z", "enc1.self.out",
                                          "enc1.h", "enc1.ffn_hidden", "enc1.ffn", "enc1.y", "enc2.y", "memory", "tgt.x",
                                          "dec1.self.scores", "dec1.self.masked", "dec1.self.weights", "dec1.h1",
                                          "dec1.cross.q", "dec1.cross.k", "dec1.cross.weights", "dec1.h2", "dec1.y", "dec2.y",
                                          "logits", "next"};
  for (std::size_t i = 1; i < order.size(); ++i) {
    CAPTURE(order[i]);
    CHECK(index_of(names, order[i - 1]) < index_of(names, order[i]));
    CHECK(index_of(names, order[i]) < names.size());
  }
  const auto& m = j["matrices"];
  // X = e + p, and p is sin/cos of pos / 10000^(2i/d)
  const auto &e = m["src.e"]["data"], &p = m["src.p"]["data"], &x = m["src.x"]["data"];
  REQUIRE(e.size() == 3);
  REQUIRE(e[0].size() == 64);
  for (std::size_t t = 0; t < 3; ++t)
    for (std::size_t d = 0; d < 64; ++d) {
      CHECK(std::fabs(x[t][d].get<double>() - e[t][d].get<double>() - p[t][d].get<double>()) < 1e-6);
      const double angle = static_cast<double>(t) / std::pow(10000.0, static_cast<double>(d - d % 2) / 64.0);
      CHECK(std::fabs(p[t][d].get<double>() - (d % 2 ? std::cos(angle) : std::sin(angle))) < 1e-6);
    }
  CHECK(m["src.e"]["rows"] == nlohmann::json::array({"나는", "학생", "이다"}));
  // per-head tensors: (heads, T, d_k)
  CHECK(m["enc1.self.q"]["shape"] == nlohmann::json::array({4, 3, 16}));
  CHECK(m["dec1.cross.k"]["shape"] == nlohmann::json::array({4, 3, 16}));  // keys from the 3 source tokens
  CHECK(m["dec1.cross.q"]["shape"] == nlohmann::json::array({4, 4, 16}));  // queries from <bos> I am a
  // softmax rows sum to 1; the decoder's masked scores are −∞ exactly where key > query
  for (const char* w : {"enc1.self.weights", "dec1.self.weights", "dec2.cross.weights"})
    for (const auto& head : m[w]["data"])
      for (const auto& row : head) {
        double sum = 0;
        for (double v : row) sum += v;
        CHECK(std::fabs(sum - 1.0) < 1e-5);
      }
  const auto& masked = m["dec1.self.masked"]["data"][0];
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t k = 0; k < 4; ++k) CHECK((k > i) == masked[i][k].is_null());  // JSON has no −∞: null
  // the next token is the argmax of the last logits row
  const auto& logits = m["logits"]["data"];
  const auto& last = logits[logits.size() - 1];
  std::size_t best = 0;
  for (std::size_t v = 1; v < last.size(); ++v)
    if (last[v].get<double>() > last[best].get<double>()) best = v;
  CHECK(m["logits"]["columns"][best] == "student");
}

TEST_CASE("trace: --target sets the decoder input; the table lists the steps and --show prints a named matrix") {
  const Run r = run_tfx("trace '나는 학생 이다' --target 'I am' --format json");
  REQUIRE(r.code == 0);
  CHECK(json_of(r)["summary"]["next_token"] == "a");
  const Run t = run_tfx("trace '나는 학생 이다' --show enc1.self.weights");
  REQUIRE(t.code == 0);
  CHECK(has(t.out, "enc1.self.weights [4, 3, 3]"));
  CHECK(!has(t.out, "enc1.self.q ["));
  CHECK(has(t.out, "next token = argmax"));
  check_one_line_error(run_tfx("trace '나는 학생 이다' --show nothing"), 2, "--show: no matrix 'nothing'");
  check_one_line_error(run_tfx("trace '나는 학생 이다' --target 'I am a cat'"), 2, "--target: 'cat' not in the vocabulary");
  check_one_line_error(run_tfx("trace '나는 학생 이다' --head 4"), 2, "--head 4: the model has 4 heads");
}

TEST_CASE("trace: --png draws the poster, one panel per step, bigger at --scale 2") {
  TempDir dir;
  REQUIRE(run_tfx("trace '나는 학생 이다' --png a.png", dir.path).code == 0);
  REQUIRE(run_tfx("trace '나는 학생 이다' --png b.png --scale 2", dir.path).code == 0);
  const auto a = decode_png(read_file(dir.path / "a.png")), b = decode_png(read_file(dir.path / "b.png"));
  CHECK(a.w > 1500);
  CHECK(std::abs(b.w - 2 * a.w) <= 4);
}
