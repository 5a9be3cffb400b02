// JSON numbers: every float32 is written as the shortest decimal that reads back to the same
// float32 (checked against a search over %.Ng, an independent way to find it); each matrix
// appears once (the primary at the top level, the others under "matrices").
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "helpers.hpp"
#include "tfx/io/format.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

// The shortest "%.Ng" text (N = 1 … 9) that reads back as f — printf's route, not to_chars.
std::string shortest_by_search(float f) {
  char buf[64];
  for (int n = 1; n <= 9; ++n) {
    std::snprintf(buf, sizeof buf, "%.*g", n, static_cast<double>(f));
    if (std::strtof(buf, nullptr) == f) return buf;
  }
  return "?";
}

// The number tokens of a JSON array text, in order.
std::vector<std::string> number_tokens(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') cur += c;
    else if (!cur.empty()) out.push_back(cur), cur.clear();
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

}  // namespace

TEST_CASE("json: every float32 round-trips exactly with the shortest text") {
  std::mt19937 rng(7);
  std::vector<float> values = {0.3322436f, 0.1f, 1.0f / 3, -2.5e-8f, 1e30f, 3.4028235e38f, 1.17549435e-38f, 1e-45f, 0.0f, 123456.79f};
  std::uniform_int_distribution<std::uint32_t> bits;
  while (values.size() < 2000) {
    std::uint32_t b = bits(rng);
    float f;
    std::memcpy(&f, &b, 4);
    if (std::isfinite(f)) values.push_back(f);
  }
  Tensor t({values.size()});
  for (std::size_t i = 0; i < values.size(); ++i) t[i] = values[i];
  Result r;
  r.command = "test";
  r.blocks.push_back(Matrix{"v", t, {}, {}, "", "", {}, ""});
  const std::string text = encode_json(r, {Format::json});
  const auto data_start = text.find("\"data\":[");
  REQUIRE(data_start != std::string::npos);
  const auto tokens = number_tokens(text.substr(data_start + 8, text.find(']', data_start) - data_start - 8));
  REQUIRE(tokens.size() == values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    CAPTURE(tokens[i]);
    CAPTURE(shortest_by_search(values[i]));
    CHECK(std::strtof(tokens[i].c_str(), nullptr) == values[i]);
    // no longer than the shortest %.Ng that round-trips ("90282311680" and "9.028231e+10" are
    // both shortest: 11 characters; a float that is a whole number keeps a ".0")
    std::string t = tokens[i];
    if (t.size() > 2 && t.substr(t.size() - 2) == ".0") t.resize(t.size() - 2);
    CHECK(t.size() <= shortest_by_search(values[i]).size());
  }
  CHECK(text.find("0.3322436,") != std::string::npos);
  CHECK(text.find("0.33224359999999997") == std::string::npos);
}

TEST_CASE("json: doubles widened from float32 in records and summaries are written as the float") {
  Result r;
  r.command = "test";
  Records rec;
  rec.name = "t";
  rec.columns = {"cosine", "exact"};
  rec.rows = {{static_cast<double>(0.3322436f), 0.1}};
  r.blocks.push_back(rec);
  r.summary["max"] = static_cast<double>(0.7f);
  r.summary["pearson"] = 0.123456789012345;
  const std::string text = encode_json(r, {Format::json});
  CAPTURE(text);
  CHECK(has(text, "\"cosine\":0.3322436"));
  CHECK(has(text, "\"exact\":0.1"));
  CHECK(has(text, "\"max\":0.7"));
  CHECK(has(text, "\"pearson\":0.123456789012345"));
}

TEST_CASE("json: each matrix once — the primary at the top level, the others under matrices") {
  Result r;
  r.command = "test";
  r.primary = "weights";
  r.blocks.push_back(Matrix{"scores", Tensor::matrix({{1, 2}}), {}, {}, "", "", {}, ""});
  r.blocks.push_back(Matrix{"weights", Tensor::matrix({{0.25f, 0.75f}}), {"q"}, {"a", "b"}, "query", "key", {}, ""});
  r.blocks.push_back(Records{"stats", {"x"}, {{1.5}}});
  const auto j = nlohmann::json::parse(encode_json(r, {Format::json}));
  CHECK(j["name"] == "weights");
  CHECK(j["data"] == nlohmann::json::parse("[[0.25,0.75]]"));
  CHECK(j["columns"] == nlohmann::json::parse("[\"a\",\"b\"]"));
  CHECK(j["row_axis"] == "query");
  CHECK(j["matrices"].size() == 1);
  CHECK(j["matrices"].contains("scores"));
  CHECK(!j["matrices"].contains("weights"));
  CHECK(j["tables"]["stats"][0]["x"] == 1.5);
}

TEST_CASE("cli: eval ratios: accuracy a fraction, the out-of-vocabulary share named oov_percent") {
  TempDir dir;
  write_file(dir / "q.txt", ": s\nman woman king queen\nman woman zzz yyy\n");
  Run r = run_tfx("eval-analogies q.txt --format json", dir.path);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["summary"]["oov"] == 1);
  CHECK(j["summary"]["questions"] == 2);
  CHECK(j["summary"]["oov_percent"].get<double>() == doctest::Approx(50.0));
  CHECK(!j["summary"].contains("oov_ratio"));
  const double acc = j["summary"]["accuracy"].get<double>();  // correct / answered: a fraction
  CHECK(acc == doctest::Approx(j["summary"]["correct"].get<double>() / j["summary"]["answered"].get<double>()));
  CHECK(acc <= 1.0);
}

TEST_CASE("json: a record table's column order at the top level (the row objects' keys are sorted)") {
  Result r;
  r.command = "test";
  r.blocks.push_back(Records{"steps", {"step", "token", "probability"}, {{1LL, std::string("I"), 0.5}}});
  const std::string text = encode_json(r, {Format::json});
  CAPTURE(text);
  const auto j = nlohmann::json::parse(text);
  CHECK(j["columns"] == nlohmann::json::parse(R"(["step","token","probability"])"));  // as --format csv/table print them
  CHECK(j["data"][0]["token"] == "I");
  CHECK(has(text, R"("data":[{"probability":0.5,"step":1,"token":"I"}])"));  // the objects themselves unchanged
}
