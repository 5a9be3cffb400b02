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
  check_one_line_error(run_tfx("translate '나는 학생 이다' --decoder-layer 3"), 2, "--decoder-layer 3: the model has 2 decoder layers");
}

TEST_CASE("one vocabulary by default: the ids tokenize prints are the rows lookup shows and the rows trace, attention and encoder use") {
  // the vocabulary as the translator lists it: id = index (an independent listing, not tokenize's)
  const auto vocab = json_of(run_tfx("translate --list-vocab --format json"))["summary"]["tokens"];
  REQUIRE(vocab.size() > 100);
  const std::string label = "the teaching translator's vocabulary (" + std::to_string(vocab.size()) + " tokens)";
  const Run t = run_tfx("tokenize '나는 학생 이다' --format json");
  REQUIRE(t.code == 0);
  const auto tj = json_of(t);
  const auto ids = tj["summary"]["ids"];
  REQUIRE(ids.size() == 3);
  const std::vector<std::string> words = {"나는", "학생", "이다"};
  for (std::size_t i = 0; i < 3; ++i) CHECK(vocab[ids[i].get<std::size_t>()] == words[i]);  // id = index in the vocabulary
  CHECK(tj["params"]["vocab"] == "teaching translator");
  CHECK(tj["params"]["vocab_size"] == vocab.size());
  check_stdout(run_tfx("tokenize '나는 학생 이다'"), 0, "vocabulary: " + label);
  const std::string id_list = std::to_string(ids[0].get<int>()) + "," + std::to_string(ids[1].get<int>()) + "," +
                              std::to_string(ids[2].get<int>());
  // lookup's default table: the same vocabulary, named in the header and the JSON
  const Run by_id = run_tfx("lookup --ids " + id_list + " --format json");
  const Run by_word = run_tfx("lookup --words '나는 학생 이다' --format json");
  REQUIRE(by_id.code == 0);
  REQUIRE(by_word.code == 0);
  const auto lj = json_of(by_id);
  CHECK(lj["params"]["vocab"] == "teaching translator");
  CHECK(lj["params"]["vocab_size"] == vocab.size());
  CHECK(lj["params"]["tokens"] == nlohmann::json(words));
  check_stdout(run_tfx("lookup --ids " + id_list), 0, "ids index " + label);
  const auto rows = lj["data"];
  REQUIRE(rows.size() == 3);
  REQUIRE(rows[0].size() == 64);
  CHECK(json_of(by_word)["data"] == rows);
  // the same rows in trace (e = Embedding(ids)) and in attention's X without PE
  const auto tr = json_of(run_tfx("trace '나는 학생 이다' --format json"));
  CHECK(tr["params"]["vocab_size"] == vocab.size());
  const auto e = tr["matrices"]["src.e"]["data"];
  const auto ax = json_of(run_tfx("attention --sentence '나는 학생 이다' --no-pe --show x --format json"));
  CHECK(ax["params"]["ids"] == ids);
  CHECK(ax["params"]["vocab_size"] == vocab.size());
  REQUIRE(ax["data"].size() == 3);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t d = 0; d < 64; ++d) {
      CHECK(std::fabs(rows[i][d].get<double>() - e[i][d].get<double>()) < 1e-6);
      CHECK(std::fabs(rows[i][d].get<double>() - ax["data"][i][d].get<double>()) < 1e-6);
    }
  // encoder and decoder name the vocabulary and the ids of their tokens
  const auto enc = json_of(run_tfx("encoder --sentence '나는 학생 이다' --format json"));
  CHECK(enc["params"]["ids"] == ids);
  CHECK(enc["params"]["vocab"] == "teaching translator");
  check_stdout(run_tfx("encoder --sentence '나는 학생 이다'"), 0, "index " + label);
  check_stdout(run_tfx("decoder --sentence 'I am a' --memory '나는 학생 이다'"), 0, "index " + label);
  check_stdout(run_tfx("trace '나는 학생 이다'"), 0, "ids index " + label);
  // --translator (the old flag) is the default spelled out
  CHECK(json_of(run_tfx("tokenize '나는 학생 이다' --translator --format json"))["summary"]["ids"] == ids);
  CHECK(json_of(run_tfx("lookup --translator --ids " + id_list + " --format json"))["data"] == rows);
  check_one_line_error(run_tfx("tokenize '나는' --translator --vocab x.txt"), 2, "--translator or --vocab FILE");
  check_one_line_error(run_tfx("lookup --translator --embeddings x.txt --ids 1"), 2, "--translator or --embeddings FILE");
}

TEST_CASE("one vocabulary: the other vocabularies one flag away, and a word outside the default names both") {
  using V = std::vector<std::string>;
  // --vocab wordpiece: the notes' subword split (I love play ##ing foot ##ball .) in the 113-token vocabulary
  const auto w = json_of(run_tfx("tokenize 'I love playing football.' --vocab wordpiece --format json"));
  CHECK(w["summary"]["tokens"].get<V>() == V{"I", "love", "play", "##ing", "foot", "##ball", "."});
  CHECK(w["params"]["vocab_size"] == 113);
  check_stdout(run_tfx("tokenize 'I love playing football.' --vocab wordpiece"), 0, "vocabulary: built-in WordPiece vocabulary (113 tokens)");
  // --mode without --vocab picks the WordPiece vocabulary; with --vocab translator it is a usage error
  CHECK(json_of(run_tfx("tokenize 'I love playing football.' --mode subword --format json"))["summary"]["tokens"] == w["summary"]["tokens"]);
  check_one_line_error(run_tfx("tokenize hello --vocab translator --mode word"), 2, "--mode goes with a WordPiece vocabulary");
  // --table named-dims: the 531-word embedding with named dimensions; its rows are the ones
  // similarity compares (cosine recomputed here from lookup's rows)
  const auto n = json_of(run_tfx("lookup --words king,queen --table named-dims --format json"));
  CHECK(n["params"]["vocab_size"] == 531);
  CHECK(n["params"]["table"] == "named-dims");
  CHECK(n["columns"][0] == "royalty");
  const auto& a = n["data"][0];
  const auto& b = n["data"][1];
  double dot = 0, na = 0, nb = 0;
  for (std::size_t d = 0; d < a.size(); ++d) {
    dot += a[d].get<double>() * b[d].get<double>();
    na += a[d].get<double>() * a[d].get<double>();
    nb += b[d].get<double>() * b[d].get<double>();
  }
  const auto sim = json_of(run_tfx("similarity king queen --format json"))["data"];
  REQUIRE(sim[0]["measure"] == "cosine");
  const double cosine = sim[0]["value"];
  CHECK(dot / std::sqrt(na * nb) == doctest::Approx(cosine).epsilon(1e-5));
  // outside the default vocabulary: the vocabulary and the other flag are named
  check_stdout(run_tfx("tokenize '나는 고양이 이다'"), 0, "고양이: not in the teaching translator's vocabulary");
  check_stdout(run_tfx("tokenize '나는 고양이 이다'"), 0, "--vocab wordpiece");
  CHECK(json_of(run_tfx("tokenize '나는 고양이 이다' --format json"))["summary"]["unknown"] == nlohmann::json::array({"고양이"}));
  check_one_line_error(run_tfx("lookup --words king"), 1, "--table named-dims");
  check_one_line_error(run_tfx("lookup --words king"), 1, "'king' is not in the vocabulary of the teaching translator's");
  check_one_line_error(run_tfx("lookup --ids 500"), 2, "valid ids are 0..111; --table named-dims");
  check_one_line_error(run_tfx("lookup --ids 1 --table bogus"), 2, "--table");
  check_one_line_error(run_tfx("lookup --ids 1 --table named-dims --embeddings x.txt"), 2, "give one table");
}
