// `tfx translate` end to end: the lecture's sentence, the step table's probabilities (each row of
// the model's softmax sums to at most 1, the chosen token beats its alternatives), the
// cross-attention block (rows are distributions over the source words), JSON, the figure's
// default name (two Korean sentences never share one), --list-vocab, and the errors.
#include <nlohmann/json.hpp>

#include <cmath>

#include "helpers.hpp"
#include "png.hpp"

using namespace tfx::test;

TEST_CASE("translate: 나는 학생 이다 → I am a student, with a step table and the cross-attention in JSON") {
  const Run r = run_tfx("translate '나는 학생 이다' --format json");
  REQUIRE(r.code == 0);
  const nlohmann::json j = json_of(r);
  CHECK(j["summary"]["translation"] == "I am a student");
  CHECK(j["summary"]["source_tokens"] == nlohmann::json::array({"나는", "학생", "이다"}));
  const auto& steps = j["data"];
  REQUIRE(steps.size() == 5);
  CHECK(steps[4]["token"] == "<eos>");
  for (const auto& s : steps) {
    const double p = s["probability"], p2 = s["p(2nd)"], p3 = s["p(3rd)"], p4 = s["p(4th)"];
    CHECK(p >= p2);
    CHECK(p2 >= p3);
    CHECK(p3 >= p4);
    CHECK(p + p2 + p3 + p4 <= 1.0 + 1e-6);
  }
  REQUIRE(j["matrices"].contains("cross_attention"));
  {
    const auto& b = j["matrices"]["cross_attention"];
    CHECK(b["rows"] == nlohmann::json::array({"I", "am", "a", "student", "<eos>"}));
    for (const auto& row : b["data"]) {
      double sum = 0;
      for (double v : row) sum += v;
      CHECK(std::fabs(sum - 1.0) < 1e-5);
    }
  }
}

TEST_CASE("translate: the SOV → SVO example attends verb → verb and object → object in the last layer") {
  const Run r = run_tfx("translate '그녀는 커피를 마셨다' --format json");
  REQUIRE(r.code == 0);
  const nlohmann::json j = json_of(r);
  CHECK(j["summary"]["translation"] == "she drank coffee");
  {
    const auto& w = j["matrices"]["cross_attention"]["data"];
    auto argmax = [](const nlohmann::json& row) {
      std::size_t best = 0;
      for (std::size_t i = 1; i < row.size(); ++i)
        if (row[i].get<double>() > row[best].get<double>()) best = i;
      return best;
    };
    CHECK(argmax(w[0]) == 0);  // she → 그녀는
    CHECK(argmax(w[1]) == 2);  // drank → 마셨다, past the object
    CHECK(argmax(w[2]) == 1);  // coffee → 커피를
  }
}

TEST_CASE("translate: figures get a default name from the Hangul, so two sentences do not overwrite each other") {
  TempDir dir;
  REQUIRE(run_tfx("translate '나는 학생 이다' --png", dir.path).code == 0);
  REQUIRE(run_tfx("translate '그는 선생님 이다' --png", dir.path).code == 0);
  CHECK(std::filesystem::exists(dir.path / "translate_나는_학생_이다.png"));
  CHECK(std::filesystem::exists(dir.path / "translate_그는_선생님_이다.png"));
  const auto png = decode_png(read_file(dir.path / "translate_나는_학생_이다.png"));
  CHECK(png.w > 300);
}

TEST_CASE("translate: --list-vocab lists the ids the model's embedding rows use; unknown words are one-line errors") {
  const Run v = run_tfx("translate --list-vocab --format json");
  REQUIRE(v.code == 0);
  const auto tokens = json_of(v)["summary"]["tokens"];
  CHECK(tokens[0] == "<pad>");
  CHECK(tokens[1] == "<bos>");
  CHECK(tokens.size() > 100);
  check_one_line_error(run_tfx("translate '나는 고양이 이다'"), 2, "'고양이' not in the vocabulary");
  check_one_line_error(run_tfx("translate"), 2, "give the Korean sentence");
  check_one_line_error(run_tfx("translate '나는 학생 이다' --layer 3"), 2, "--layer 3: the model has 2 decoder layers");
}

TEST_CASE("tokenize/lookup --translator: the ids tokenize prints are the rows lookup shows and the e that trace uses") {
  const auto vocab = json_of(run_tfx("translate --list-vocab --format json"))["summary"]["tokens"];
  const Run t = run_tfx("tokenize '나는 학생 이다' --translator --format json");
  REQUIRE(t.code == 0);
  const auto ids = json_of(t)["summary"]["ids"];
  REQUIRE(ids.size() == 3);
  const std::vector<std::string> words = {"나는", "학생", "이다"};
  for (std::size_t i = 0; i < 3; ++i) CHECK(vocab[ids[i].get<std::size_t>()] == words[i]);  // id = index in the vocabulary
  const std::string id_list = std::to_string(ids[0].get<int>()) + "," + std::to_string(ids[1].get<int>()) + "," +
                              std::to_string(ids[2].get<int>());
  const Run by_id = run_tfx("lookup --translator --ids " + id_list + " --format json");
  const Run by_word = run_tfx("lookup --translator --words '나는 학생 이다' --format json");
  REQUIRE(by_id.code == 0);
  REQUIRE(by_word.code == 0);
  const auto rows = json_of(by_id)["data"];
  const auto e = json_of(run_tfx("trace '나는 학생 이다' --format json"))["matrices"]["src.e"]["data"];
  REQUIRE(rows.size() == 3);
  REQUIRE(rows[0].size() == 64);
  CHECK(json_of(by_word)["data"] == rows);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t d = 0; d < 64; ++d) CHECK(std::fabs(rows[i][d].get<double>() - e[i][d].get<double>()) < 1e-6);
  // an unknown word maps to <unk> and is named
  const Run u = run_tfx("tokenize '나는 고양이 이다' --translator");
  check_stdout(u, 0, "not in the vocabulary (id of <unk>): 고양이");
  check_one_line_error(run_tfx("tokenize '나는' --translator --vocab x.txt"), 2, "--translator or --vocab FILE");
  check_one_line_error(run_tfx("lookup --translator --embeddings x.txt --ids 1"), 2, "--translator or --embeddings FILE");
}
