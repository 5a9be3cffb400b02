// Synthetic shape pictures (tfx/figure/shapes.hpp): each shape's mask covers its closed-form area
// (computed here from the geometry another way: triangle from its side, cross as two bars minus
// their overlap, ring as two discs, diamond from its diagonals); the whole shape is inside the
// picture; the same seed draws the same picture; the colours inside and outside differ.
#include <cmath>
#include <numbers>

#include "helpers.hpp"
#include "tfx/core/error.hpp"
#include "tfx/figure/shapes.hpp"

using namespace tfx;

namespace {

double area_from_geometry(ShapeKind kind, const ShapeGeometry& g) {
  const double pi = std::numbers::pi;
  switch (kind) {
    case ShapeKind::circle: return pi * g.a * g.a;
    case ShapeKind::square: return (2 * g.a) * (2 * g.a);
    case ShapeKind::triangle: {
      const double side = g.a * std::sqrt(3.0);  // circumradius a → side a√3
      return std::sqrt(3.0) / 4 * side * side;
    }
    case ShapeKind::cross: return 2 * (2 * g.a) * (2 * g.b) - (2 * g.b) * (2 * g.b);
    case ShapeKind::ring: return pi * g.a * g.a - pi * g.b * g.b;
    case ShapeKind::diamond: return (2 * g.a) * (2 * g.b) / 2;
  }
  return 0;
}

}  // namespace

TEST_CASE("shapes: each mask covers the shape's closed-form area") {
  for (const auto& c : kShapeChoices)
    for (std::uint64_t index = 0; index < 8; ++index) {
      const ShapePicture p = draw_shape(c.value, 128, 7, index);
      const double exact = area_from_geometry(c.value, p.geometry);
      INFO(c.name << " #" << index << ": mask " << p.mask_pixels() << " px, area " << exact);
      CHECK(p.area == doctest::Approx(exact).epsilon(1e-12));
      // the boundary decides a pixel by its centre: errors cancel along it, a few % at most
      CHECK(std::abs(static_cast<double>(p.mask_pixels()) - exact) <= 0.04 * exact + 4);
      // the shape spans 30–80 % of the side and lies inside the picture (no mask pixel on the edge)
      CHECK(exact >= 0.01 * 128 * 128);
      for (int k = 0; k < 128; ++k) {
        CHECK(p.mask[k] == 0);
        CHECK(p.mask[127 * 128 + k] == 0);
        CHECK(p.mask[k * 128] == 0);
        CHECK(p.mask[k * 128 + 127] == 0);
      }
    }
}

TEST_CASE("shapes: a bigger picture brings the mask closer to the area") {
  // the same geometry scaled: the relative error shrinks like 1/size
  double worst_small = 0, worst_big = 0;
  for (const auto& c : kShapeChoices)
    for (std::uint64_t index = 0; index < 4; ++index) {
      const ShapePicture s = draw_shape(c.value, 48, 3, index), b = draw_shape(c.value, 480, 3, index);
      worst_small = std::max(worst_small, std::abs(double(s.mask_pixels()) - s.area) / s.area);
      worst_big = std::max(worst_big, std::abs(double(b.mask_pixels()) - b.area) / b.area);
    }
  CHECK(worst_big < 0.01);
  CHECK(worst_big < worst_small);
}

TEST_CASE("shapes: the same seed draws the same picture; another index or seed another") {
  for (const auto& c : kShapeChoices) {
    const ShapePicture a = draw_shape(c.value, 64, 42, 3), b = draw_shape(c.value, 64, 42, 3);
    CHECK(a.image.rgb == b.image.rgb);
    CHECK(a.mask == b.mask);
    CHECK(draw_shape(c.value, 64, 42, 4).image.rgb != a.image.rgb);
    CHECK(draw_shape(c.value, 64, 43, 3).image.rgb != a.image.rgb);
  }
}

TEST_CASE("shapes: the shape stands out from the background; the patch shares sum to the mask") {
  for (const auto& c : kShapeChoices) {
    const ShapePicture p = draw_shape(c.value, 64, 11, 0);
    // mean colour inside and outside differ by ≥ 96 − noise in some channel
    double in[3] = {}, out[3] = {};
    std::size_t n_in = 0, n_out = 0;
    for (std::size_t k = 0; k < p.mask.size(); ++k) {
      for (int ch = 0; ch < 3; ++ch) (p.mask[k] ? in : out)[ch] += p.image.rgb[k * 3 + ch];
      (p.mask[k] ? n_in : n_out) += 1;
    }
    double most = 0;
    for (int ch = 0; ch < 3; ++ch) most = std::max(most, std::abs(in[ch] / double(n_in) - out[ch] / double(n_out)));
    CHECK(most > 60);
    // and in luma (0.299 R + 0.587 G + 0.114 B) by ≥ 64 − noise: the shape shows in grey as well
    const auto luma = [](const double* c, double n) { return (0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]) / n; };
    CHECK(std::abs(luma(in, double(n_in)) - luma(out, double(n_out))) > 40);
    const Tensor share = mask_per_patch(p, 8);
    REQUIRE(share.shape() == std::vector<std::size_t>{8, 8});
    double sum = 0;
    for (float v : share.values()) sum += v * 64;
    CHECK(sum == doctest::Approx(double(p.mask_pixels())));
  }
  CHECK_THROWS_AS(draw_shape(ShapeKind::circle, 8, 1), Error);
}
