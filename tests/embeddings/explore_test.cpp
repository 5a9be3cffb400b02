// The explore library on hand-made tables: vector comparison (3-4-5 triangles), nn.Embedding
// lookup shapes, the mean-difference direction, extreme rows, and the 2-D projection.
#include <cmath>
#include <numbers>

#include "helpers.hpp"
#include "tfx/embeddings/explore.hpp"

using namespace tfx;

namespace {

Embeddings small() {
  // dog/dogs and cat/cats differ by 2 and 4 along the last axis
  return Embeddings::from_rows({"dog", "dogs", "cat", "cats", "zero"},
                               Tensor::from({5, 3}, {1, 0, 0, 1, 0, 2, 0, 1, 0, 0, 1, 4, 0, 0, 0}));
}

}  // namespace

TEST_CASE("compare_vectors: dot, norms, cosine, distance and angle by hand") {
  std::vector<float> a{3, 4}, b{4, 3};
  auto c = compare_vectors(a, b);
  CHECK(c.dot == doctest::Approx(24.0));
  CHECK(c.norm_a == doctest::Approx(5.0));
  CHECK(c.cosine == doctest::Approx(24.0 / 25));
  CHECK(c.euclidean == doctest::Approx(std::sqrt(2.0)));
  CHECK(c.angle_degrees == doctest::Approx(std::acos(24.0 / 25) * 180 / std::numbers::pi));
  std::vector<float> x{1, 0}, y{-2, 0}, z{0, 0};
  CHECK(compare_vectors(x, y).angle_degrees == doctest::Approx(180.0));
  CHECK(compare_vectors(x, z).angle_degrees == doctest::Approx(90.0));  // zero vector: cosine 0
  CHECK_THROWS_AS(compare_vectors(x, std::vector<float>{1, 2, 3}), Error);
}

TEST_CASE("embedding_lookup: (T, D), (B, T, D) and the valid range in errors") {
  Embeddings e = small();
  std::vector<std::size_t> ids{0, 3, 1, 2};
  Tensor one = embedding_lookup(e, ids, 1, false);
  CHECK(one.shape() == std::vector<std::size_t>{4, 3});
  CHECK(one(1, 2) == 4.0f);  // cats
  Tensor two = embedding_lookup(e, ids, 2, false);
  CHECK(two.shape() == std::vector<std::size_t>{2, 2, 3});
  CHECK(two[(1 * 2 + 0) * 3 + 2] == 2.0f);  // batch 1, token 0 = dogs
  std::vector<std::size_t> bad{0, 5};
  try {
    embedding_lookup(e, bad, 1, false);
    FAIL("no error");
  } catch (const Error& err) {
    CHECK(std::string(err.what()).find("valid ids are 0..4") != std::string::npos);
  }
  CHECK_THROWS_AS(embedding_lookup(e, ids, 3, false), Error);  // 4 ids are not 3 equal lists
}

TEST_CASE("mean_difference and direction_scores: the plural axis") {
  Embeddings e = small();
  std::vector<std::size_t> from{0, 2}, to{1, 3};
  auto d = mean_difference(e, from, to);
  CHECK(d == std::vector<float>{0, 0, 3});  // ((0,0,2) + (0,0,4)) / 2
  auto dot = direction_scores(e, d);
  CHECK(dot == std::vector<double>{0, 6, 0, 12, 0});
  auto cos = direction_scores(e, d, true);
  CHECK(cos[1] == doctest::Approx(2 / std::sqrt(5.0)));
  CHECK(cos[4] == 0.0);  // zero row
  auto top = extreme_rows(dot, 2, true);
  CHECK(top[0].first == 3);
  CHECK(top[1].first == 1);
  auto low = extreme_rows(dot, 2, false);
  CHECK(low[0].first == 0);  // ties (0, 2, 4 all score 0) go to the lower row
  CHECK(low[1].first == 2);
  CHECK_THROWS_AS(mean_difference(e, from, std::vector<std::size_t>{1}), Error);
}

TEST_CASE("project_words: three collinear points lie on PC1 with all the variance") {
  // (0,0,0), (1,1,0), (2,2,0): PC1 = (1,1,0)/√2, coordinates −√2, 0, √2
  Embeddings e = Embeddings::from_rows({"a", "b", "c"}, Tensor::from({3, 3}, {0, 0, 0, 1, 1, 0, 2, 2, 0}));
  std::vector<std::size_t> rows{0, 1, 2};
  Pca p = project_words(e, rows, false);
  CHECK(p.explained_ratio[0] == doctest::Approx(1.0));
  CHECK(std::abs(p.coords(0, 0)) == doctest::Approx(std::sqrt(2.0)).epsilon(1e-5));
  CHECK(p.coords(1, 0) == doctest::Approx(0.0).scale(1));
  CHECK_THROWS_AS(project_words(e, std::vector<std::size_t>{0}, false), Error);
}
