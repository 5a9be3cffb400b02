// `tfx patches --shapes` (issue 46): the synthetic pictures teaching-vit learns from, one per
// shape, with their closed-form areas and masks; the same --seed gives the same pictures.
#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "tfx/io/image_file.hpp"

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

TEST_CASE("patches --shapes --save-pictures: each picture's own pixels, the mask's area inside, and a ViT opens them") {
  TempDir d;
  const Run r = run_tfx("patches --shapes ring,circle,ring --image 32 --patch 8 --seed 5 --save-pictures pics --format json", d.path);
  REQUIRE(r.code == 0);
  CHECK(has(r.err, "wrote 3 pictures of 32×32 pixels to pics (ring.png … ring-2.png)"));
  const auto j = json_of(r);
  for (const char* name : {"ring.png", "circle.png", "ring-2.png"}) {
    REQUIRE(std::filesystem::exists(d / "pics" / name));
    const tfx::Image im = tfx::read_image((d / "pics" / name).string());
    CHECK(im.width == 32);
    CHECK(im.height == 32);
  }
  // the circle's pixels: the background is one colour ± 24 of noise and so is the disc; the pixels
  // far from the background's colour (the median corner pixel's) are the disc — about its area
  const tfx::Image c = tfx::read_image((d / "pics" / "circle.png").string());
  const auto at = [&](int x, int y, int ch) { return static_cast<int>(c.rgb[(static_cast<std::size_t>(y) * 32 + x) * 3 + ch]); };
  std::size_t far = 0;
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) {
      int most = 0;
      for (int ch = 0; ch < 3; ++ch) most = std::max(most, std::abs(at(x, y, ch) - at(0, 0, ch)));
      far += most > 48;  // noise: within 48 of the corner for the background, at least 96 − 48 away for the disc
    }
  const double area = j["data"][1]["area"].get<double>();
  MESSAGE("circle: " << far << " pixels far from the corner's colour, closed-form area " << area);
  CHECK(std::abs(double(far) - area) <= 0.1 * area + 6);
  // refused: without --shapes, onto a file
  check_one_line_error(run_tfx("patches --save-pictures pics", d.path), 2, "--save-pictures writes the --shapes pictures");
  write_file(d / "f", "x");
  check_one_line_error(run_tfx("patches --shapes --save-pictures f", d.path), 1, "--save-pictures f: is a file, expected a folder");
}
