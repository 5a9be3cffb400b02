// Tests of include/tfx/embeddings.hpp: loading every format and quirk, the cache, the built-in
// teaching embedding, most_similar/cosmul against values computed here in double precision from
// the file's own numbers, close spellings; and `tfx analogy` / `tfx embeddings` end to end.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "helpers.hpp"
#include "tfx/embeddings.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

// Loads `text` written to a temp file (no cache).
Embeddings load_text(const TempDir& dir, const std::string& name, const std::string& text,
                     EmbeddingFormat f = EmbeddingFormat::detect) {
  write_file(dir / name, text);
  EmbeddingSource s;
  s.path = (dir / name).string();
  s.format = f;
  s.use_cache = false;
  return load_embeddings(s);
}

}  // namespace

TEST_CASE("built-in teaching embedding: the lecture's analogies") {
  const Embeddings& e = builtin_embedding();
  CHECK(e.size() >= 300);
  for (const char* w : {"king", "queen", "man", "woman", "prince", "princess", "dog", "dogs", "cat", "cats", "car", "cars",
                        "apple", "apples", "france", "paris", "germany", "berlin", "italy", "rome", "japan", "tokyo",
                        "korea", "seoul", "walk", "walked", "i", "love", "playing", "football", "the", "a", "is", "sat",
                        "on", "mat", "thinking", "machines", "<unk>"})
    CHECK_MESSAGE(e.find(w).has_value(), w);
  auto best = [&](const char* a, const char* b, const char* c) {
    auto r = analogy(e, *e.find(a), *e.find(b), *e.find(c), 1);
    return std::string(e.word(r.at(0).index));
  };
  CHECK(best("king", "man", "woman") == "queen");
  CHECK(best("paris", "france", "germany") == "berlin");
  CHECK(best("tokyo", "japan", "korea") == "seoul");
  CHECK(best("dogs", "dog", "cat") == "cats");
  CHECK(best("walked", "walk", "go") == "went");
  CHECK(best("bigger", "big", "small") == "smaller");
}

TEST_CASE("GloVe text: hand-built geometry, 3CosAdd and 3CosMul computed here in double") {
  TempDir dir;
  const std::vector<std::vector<double>> v = {{1, 0, 0}, {0, 2, 0}, {0, 0, 3}, {1, 1, 0}, {1, 0, 1}, {-1, 0.5, 2}};
  const std::vector<std::string> w = {"a", "b", "c", "d", "e", "f"};
  std::string text;
  for (std::size_t i = 0; i < v.size(); ++i) text += w[i] + " " + std::to_string(v[i][0]) + " " + std::to_string(v[i][1]) + " " + std::to_string(v[i][2]) + "\n";
  Embeddings e = load_text(dir, "g.txt", text);
  REQUIRE(e.size() == 6);
  REQUIRE(e.dim() == 3);
  auto unit = [](std::vector<double> x) {
    double n = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    for (auto& y : x) y /= n;
    return x;
  };
  auto cosd = [&](const std::vector<double>& x, const std::vector<double>& y) {
    auto a = unit(x), b = unit(y);
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  };
  // add: m = unit(a) − unit(b) + unit(c)
  std::vector<double> m(3);
  for (int j = 0; j < 3; ++j) m[j] = unit(v[0])[j] - unit(v[1])[j] + unit(v[2])[j];
  auto r = analogy(e, 0, 1, 2, 3);
  REQUIRE(r.size() == 3);
  std::vector<std::pair<double, std::size_t>> want;
  for (std::size_t i = 3; i < 6; ++i) want.push_back({cosd(v[i], m), i});
  std::sort(want.begin(), want.end(), [](auto& x, auto& y) { return x.first > y.first; });
  for (int k = 0; k < 3; ++k) {
    CHECK(r[k].index == want[k].second);
    CHECK(r[k].score == doctest::Approx(want[k].first).epsilon(1e-6));
  }
  // mul: Π (1+cos)/2 over a, c / ((1+cos(w,b))/2 + 1e-6)
  auto rm = analogy(e, 0, 1, 2, 3, AnalogyMethod::mul);
  want.clear();
  for (std::size_t i = 3; i < 6; ++i)
    want.push_back({(1 + cosd(v[i], v[0])) / 2 * (1 + cosd(v[i], v[2])) / 2 / ((1 + cosd(v[i], v[1])) / 2 + 1e-6), i});
  std::sort(want.begin(), want.end(), [](auto& x, auto& y) { return x.first > y.first; });
  for (int k = 0; k < 3; ++k) {
    CHECK(rm[k].index == want[k].second);
    CHECK(rm[k].score == doctest::Approx(want[k].first).epsilon(1e-6));
  }
}
