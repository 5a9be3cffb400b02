// Synthetic pictures of simple shapes — what `teaching-vit` learns to tell apart and what
// `tfx patches --shapes` shows: a circle, square, triangle, cross, ring or diamond of random size,
// position, angle and colour on a noisy background of another colour, drawn from a seed, with the
// mask of the pixels inside the shape (where attention should fall) and the shape's exact area.
// Geometry in pixel units, pixel (x, y) covering [x, x+1) × [y, y+1); a pixel is inside when its
// centre (x + ½, y + ½) is. The whole shape always lies inside the picture, so the mask's pixel
// count approaches the closed-form area as the picture grows (the error is on the boundary).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "tfx/core/choices.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/core/tensor.hpp"
#include "tfx/figure/figure.hpp"

namespace tfx {

enum class ShapeKind { circle, square, triangle, cross, ring, diamond };
inline constexpr std::size_t kShapeKinds = 6;
// The shapes by name, in class order (the label ids a classifier trained on them uses).
inline constexpr Choice<ShapeKind> kShapeChoices[] = {
    {ShapeKind::circle, "circle", N_("a disc")},
    {ShapeKind::square, "square", N_("axis-aligned")},
    {ShapeKind::triangle, "triangle", N_("equilateral, any angle")},
    {ShapeKind::cross, "cross", N_("a plus sign, turned")},
    {ShapeKind::ring, "ring", N_("a disc with a hole")},
    {ShapeKind::diamond, "diamond", N_("a rhombus, any angle")},
};
std::string_view shape_name(ShapeKind kind);

// Where and how big a shape was drawn (pixels; angle in radians, counter-clockwise on screen):
//   circle   radius a                         area π a²
//   square   half side a (axis-aligned)       area 4 a²
//   triangle equilateral, circumradius a      area (3√3 / 4) a²
//   cross    arms of half length a, half width b (b < a), rotated by angle:  area 8ab − 4b²
//   ring     outer radius a, inner radius b   area π (a² − b²)
//   diamond  half diagonals a (along angle) and b = 0.35–0.6 a (across)       area 2ab
struct ShapeGeometry {
  double cx = 0, cy = 0, a = 0, b = 0, angle = 0;
};

struct ShapePicture {
  ShapeKind kind = ShapeKind::circle;
  ShapeGeometry geometry;
  Image image;                     // size × size RGB: background colour + noise, the shape in its colour + noise
  std::vector<std::uint8_t> mask;  // size·size, row-major, 1 where the pixel's centre is inside the shape
  double area = 0;                 // the closed-form area of the drawn shape, in pixels²
  std::size_t mask_pixels() const;
};

// Picture number `index` of `seed`: the same (kind, size, seed, index) draws the same picture
// (tfx's Generator: the same numbers with every standard library). size ≥ 16 (throws tfx::Error otherwise). The shape spans 30–80 % of the side; its
// colour and the background's differ by at least 96 in some channel and by at least 64 in luma
// (0.299 R + 0.587 G + 0.114 B); noise is uniform ±24 per channel.
ShapePicture draw_shape(ShapeKind kind, int size, std::uint64_t seed, std::uint64_t index = 0);

// The share of each patch's pixels inside the shape: (⌊size/patch⌋, ⌊size/patch⌋), patches in
// reading order as a ViT cuts them (pixels past the last whole patch dropped). What a [CLS]
// attention map that "falls on the shape" is compared with. patch ≥ 1 and ≤ size.
Tensor mask_per_patch(const ShapePicture& p, int patch);

// Whether point (x, y) lies inside the shape of `kind` drawn with `g` (the mask's test).
bool shape_contains(ShapeKind kind, const ShapeGeometry& g, double x, double y);

}  // namespace tfx
