// `tfx patches --shapes` (issue 46): the synthetic pictures teaching-vit learns from, one per
// shape, with their closed-form areas and masks; the same --seed gives the same pictures.
#include <nlohmann/json.hpp>

#include "helpers.hpp"

using namespace tfx::test;

TEST_CASE("patches --shapes: one picture per shape, its area and mask, the same for the same seed") {
  const auto j = json_of(run_tfx("patches --shapes --image 64 --patch 8 --format json"));
  REQUIRE(j["data"].size() == 6);
  const std::vector<std::string> names = {"circle", "square", "triangle", "cross", "ring", "diamond"};
  for (std::size_t k = 0; k < 6; ++k) {
    const auto& row = j["data"][k];
    CHECK(row["shape"] == names[k]);
    const double area = row["area"].get<double>(), mask = row["mask pixels"].get<double>();
    CHECK(std::abs(mask - area) <= 0.06 * area + 4);
    CHECK(row["share"].get<double>() == doctest::Approx(mask / (64.0 * 64.0)));
    CHECK(row["patches touched"].get<int>() >= row["patches mostly inside"].get<int>());
  }
  CHECK(j["summary"]["tokens"] == 64);
  const auto again = json_of(run_tfx("patches --shapes --image 64 --patch 8 --format json"));
  CHECK(again["data"] == j["data"]);
  const auto other = json_of(run_tfx("patches --shapes --image 64 --patch 8 --seed 7 --format json"));
  CHECK(other["data"] != j["data"]);
  const auto two = json_of(run_tfx("patches --shapes ring,circle --image 48 --patch 16 --format json"));
  REQUIRE(two["data"].size() == 2);
  CHECK(two["data"][0]["shape"] == "ring");
  TempDir d;
  const Run r = run_tfx("patches --shapes cross --image 32 --patch 8 --png s.png", d.path);
  check_wrote(r, d / "s.png");
}
