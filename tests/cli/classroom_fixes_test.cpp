// Issue 24 §15 and §12, the defects a lecturer met on the way: direction --words skips an unknown
// word with a note; a command that draws nothing offers no png/svg; embeddings info aligns text
// left and numbers right and escapes a cp852 file's bytes; attention labels keep "I".
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "helpers.hpp"

using namespace tfx::test;

TEST_CASE("direction --words: an unknown word is skipped with a note; all unknown is still an error") {
  Run r = run_tfx("direction --from dog,cat,car --to dogs,cats,cars --words dog,zzzz,dogs --format json", {}, "TFX_EMBEDDINGS=");
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["data"].size() == 2);
  CHECK(j["data"][0]["word"] == "dog");
  CHECK(j["data"][1]["word"] == "dogs");
  // the scores are those of a run without the unknown word
  const auto k = nlohmann::json::parse(
      run_tfx("direction --from dog,cat,car --to dogs,cats,cars --words dog,dogs --format json", {}, "TFX_EMBEDDINGS=").out);
  CHECK(j["data"] == k["data"]);
  const std::string notes = j["notes"].dump();
  CHECK(notes.find("skipped 'zzzz'") != std::string::npos);
  Run bad = run_tfx("direction --from dog --to dogs --words zzzz,qqqq", {}, "TFX_EMBEDDINGS=");
  CHECK(bad.code != 0);
  CHECK(bad.err.find("zzzz") != std::string::npos);
  CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
}

TEST_CASE("a command that draws no figure offers no png/svg in --help and refuses them in one line") {
  for (const char* cmd : {"tokenize", "lookup", "analogy", "similarity", "embeddings info", "model info"}) {
    Run help = run_tfx(std::string(cmd) + " --help");
    INFO(cmd);
    REQUIRE(help.code == 0);
    const auto at = help.out.find("--format");
    REQUIRE(at != std::string::npos);
    const std::string line = help.out.substr(at, help.out.find("\n  -", at + 1) - at);
    CHECK(line.find("png") == std::string::npos);
    CHECK(line.find("svg") == std::string::npos);
  }
  Run r = run_tfx("tokenize hello --format png");
  check_stderr(r, 2, "draws no figure");
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  // a command that draws keeps them
  const std::string pe = run_tfx("pe --help").out;
  const auto at = pe.find("--format");
  REQUIRE(at != std::string::npos);
  CHECK(pe.substr(at, pe.find("\n  -", at + 1) - at).find("svg") != std::string::npos);
}

TEST_CASE("embeddings info: text left, numbers right, a cp852 file's bytes escaped as \\xNN") {
  const auto f = shared_data("cp852_fasttext.bin");
  if (f.empty()) return;
  TempDir cache;
  Run r = run_tfx("embeddings info " + shell_quote(f.string()), {}, "XDG_CACHE_HOME=" + cache.path.string());
  REQUIRE(r.code == 0);
  std::istringstream in(r.out);
  std::string line, words, format, first;
  std::size_t value_col = 0;
  while (std::getline(in, line)) {
    if (line.rfind("property", 0) == 0) value_col = line.find("value");
    if (line.rfind("words ", 0) == 0) words = line;
    if (line.rfind("format ", 0) == 0) format = line;
    if (line.rfind("first words", 0) == 0) first = line;
  }
  REQUIRE(value_col > 0);
  // text starts in the value column; the count 171 starts there too (not pushed under a long line)
  CHECK(format.find("fasttext-bin") == value_col);
  CHECK(words.find("171") == value_col);
  // cp852 bytes: "který" is k t e r \xec; nothing that is not UTF-8 reaches the terminal
  CHECK(first.find("kter\\xec") != std::string::npos);
  CHECK(r.out.find('\xec') == std::string::npos);
  CHECK(r.out.find("not UTF-8") != std::string::npos);
}

TEST_CASE("attention masks (issue 24 §18): three conventions, one set of weights, and the inverted mistake") {
  for (const std::string args : {"attention masks", "attention masks --len 5 --pad 2", "attention masks --len 3 --no-causal --pad 1"}) {
    INFO(args);
    Run r = run_tfx(args + " --format json");
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    const std::size_t T = j["params"]["len"].get<std::size_t>(), P = j["params"]["pad"].get<std::size_t>();
    const bool causal = j["params"]["causal"].get<bool>();
    const auto& scores = j["matrices"]["scores"]["data"];
    const auto& mha = j["tables"]["mha_bool"];
    const auto& sdpa = j["tables"]["sdpa_bool"];
    const auto& add = j["tables"]["additive"];
    const auto& wrong = j["tables"]["mha_mask_given_to_sdpa"];
    const auto& w = j["data"];  // the weights
    for (std::size_t i = 0; i < T; ++i) {
      double z = 0, zw = 0;
      bool any_blocked = false;
      for (std::size_t j2 = 0; j2 < T; ++j2) {
        const bool blocked = (causal && j2 > i) || j2 >= T - P;  // the definition, independently
        const std::string key = fmt::format("t{}", j2);
        CHECK(mha[i][key] == (blocked ? "True" : "False"));
        CHECK(sdpa[i][key] == (blocked ? "False" : "True"));
        CHECK(add[i][key] == (blocked ? "-inf" : "0"));
        const double e = std::exp(scores[i][j2].get<double>());
        (blocked ? zw : z) += e;
        any_blocked = any_blocked || blocked;
      }
      for (std::size_t j2 = 0; j2 < T; ++j2) {
        const bool blocked = (causal && j2 > i) || j2 >= T - P;
        const double e = std::exp(scores[i][j2].get<double>());
        CHECK(w[i][j2].get<double>() == doctest::Approx(blocked ? 0.0 : e / z).epsilon(1e-5));
        const auto& cell = wrong[i][fmt::format("t{}", j2)];
        if (!any_blocked) {
          CHECK(cell == "NaN");  // nothing left to attend: PyTorch's softmax of all −inf
        } else {
          CHECK(cell.get<double>() == doctest::Approx(blocked ? e / zw : 0.0).epsilon(1e-5));
        }
      }
    }
  }
  check_one_line_error(run_tfx("attention masks --len 3 --pad 3"), 2);
  check_one_line_error(run_tfx("attention masks --no-causal"), 2);
  check_one_line_error(run_tfx("attention masks --len 0"), 2);
}
