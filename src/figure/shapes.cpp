// Seeded pictures of simple shapes with their masks (include/tfx/figure/shapes.hpp).
#include "tfx/figure/shapes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "tfx/core/error.hpp"
#include "tfx/core/random.hpp"

namespace tfx {

std::string_view shape_name(ShapeKind kind) { return choice_name<ShapeKind>(kShapeChoices, kind); }

std::size_t ShapePicture::mask_pixels() const {
  return static_cast<std::size_t>(std::count(mask.begin(), mask.end(), std::uint8_t{1}));
}

bool shape_contains(ShapeKind kind, const ShapeGeometry& g, double x, double y) {
  // (u, v): the point in the shape's own frame, rotated back by its angle
  const double dx = x - g.cx, dy = y - g.cy;
  const double c = std::cos(g.angle), s = std::sin(g.angle);
  const double u = dx * c + dy * s, v = -dx * s + dy * c;
  switch (kind) {
    case ShapeKind::circle: return dx * dx + dy * dy <= g.a * g.a;
    case ShapeKind::square: return std::abs(dx) <= g.a && std::abs(dy) <= g.a;
    case ShapeKind::triangle: {
      // an equilateral triangle is where the point is within the inradius a/2 of all three
      // sides: outward normals at 90°, 210° and 330° in the shape's frame (one vertex at −90°)
      for (const double deg : {90.0, 210.0, 330.0}) {
        const double t = deg * std::numbers::pi / 180.0;
        if (u * std::cos(t) + v * std::sin(t) > g.a / 2) return false;
      }
      return true;
    }
    case ShapeKind::cross: return (std::abs(u) <= g.a && std::abs(v) <= g.b) || (std::abs(u) <= g.b && std::abs(v) <= g.a);
    case ShapeKind::ring: {
      const double r2 = dx * dx + dy * dy;
      return r2 <= g.a * g.a && r2 >= g.b * g.b;
    }
    case ShapeKind::diamond: return std::abs(u) / g.a + std::abs(v) / g.b <= 1.0;
  }
  return false;
}

namespace {

double closed_form_area(ShapeKind kind, const ShapeGeometry& g) {
  const double pi = std::numbers::pi;
  switch (kind) {
    case ShapeKind::circle: return pi * g.a * g.a;
    case ShapeKind::square: return 4 * g.a * g.a;
    case ShapeKind::triangle: return 3 * std::sqrt(3.0) / 4 * g.a * g.a;
    case ShapeKind::cross: return 8 * g.a * g.b - 4 * g.b * g.b;
    case ShapeKind::ring: return pi * (g.a * g.a - g.b * g.b);
    case ShapeKind::diamond: return 2 * g.a * g.b;
  }
  return 0;
}

std::uint8_t clamp_byte(double v) { return static_cast<std::uint8_t>(std::clamp(std::lround(v), 0L, 255L)); }

}  // namespace

ShapePicture draw_shape(ShapeKind kind, int size, std::uint64_t seed, std::uint64_t index) {
  if (size < 16) throw Error(fmt::format("shape picture size {}: expected at least 16 pixels", size));
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32), static_cast<std::uint32_t>(index),
                    static_cast<std::uint32_t>(index >> 32), static_cast<std::uint32_t>(kind)};
  Generator gen(seq);
  const double S = size;
  auto between = [&](double lo, double hi) { return lo + (hi - lo) * gen.uniform01(); };
  ShapePicture p;
  p.kind = kind;
  ShapeGeometry& g = p.geometry;
  // 1. size: the shape's extent is 30–80 % of the side
  double reach = 0;  // how far the shape reaches from its centre (x and y alike)
  switch (kind) {
    case ShapeKind::circle:
      g.a = between(0.15, 0.40) * S;
      reach = g.a;
      break;
    case ShapeKind::square:
      g.a = between(0.15, 0.40) * S;
      reach = g.a;
      break;
    case ShapeKind::triangle:
      g.a = between(0.18, 0.45) * S;
      g.angle = between(0, 2 * std::numbers::pi);
      reach = g.a;
      break;
    case ShapeKind::cross:
      g.a = between(0.15, 0.40) * S;
      g.b = between(0.2, 0.4) * g.a;
      g.angle = between(0, std::numbers::pi / 2);
      reach = std::hypot(g.a, g.b);
      break;
    case ShapeKind::ring:
      g.a = between(0.15, 0.40) * S;
      g.b = between(0.45, 0.7) * g.a;
      reach = g.a;
      break;
    case ShapeKind::diamond:
      g.a = between(0.15, 0.40) * S;
      g.b = between(0.35, 0.6) * g.a;  // never near a square (b = a), which a turned square would be
      g.angle = between(0, std::numbers::pi);
      reach = g.a;
      break;
  }
  // 2. position: anywhere the whole shape fits (half a pixel of margin)
  g.cx = between(reach + 0.5, S - reach - 0.5);
  g.cy = between(reach + 0.5, S - reach - 0.5);
  // 3. colours: the shape's differs from the background's by ≥ 96 in some channel and by ≥ 64 in
  //    luma (ITU-R BT.601: the shape shows in grey too, not only as a change of hue)
  const auto luma = [](const std::array<double, 3>& c) { return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]; };
  std::array<double, 3> back{}, fore{};
  for (double& c : back) c = between(0, 255);
  do {
    for (double& c : fore) c = between(0, 255);
  } while (std::max({std::abs(fore[0] - back[0]), std::abs(fore[1] - back[1]), std::abs(fore[2] - back[2])}) < 96 ||
           std::abs(luma(fore) - luma(back)) < 64);
  // 4. the pixels: inside or not by the pixel's centre, then uniform noise ±24 per channel
  p.image.width = p.image.height = size;
  p.image.rgb.resize(static_cast<std::size_t>(size) * size * 3);
  p.mask.assign(static_cast<std::size_t>(size) * size, 0);
  for (int y = 0; y < size; ++y)
    for (int x = 0; x < size; ++x) {
      const std::size_t k = static_cast<std::size_t>(y) * size + x;
      const bool in = shape_contains(kind, g, x + 0.5, y + 0.5);
      p.mask[k] = in ? 1 : 0;
      const auto& col = in ? fore : back;
      for (int c = 0; c < 3; ++c) p.image.rgb[k * 3 + c] = clamp_byte(col[c] + between(-24, 24));
    }
  p.area = closed_form_area(kind, g);
  return p;
}

Tensor mask_per_patch(const ShapePicture& p, int patch) {
  const int size = p.image.width;
  if (patch < 1 || patch > size) throw Error(fmt::format("patch {}: expected 1 to {} (the picture's side)", patch, size));
  const std::size_t grid = static_cast<std::size_t>(size / patch);
  Tensor share({grid, grid});
  for (std::size_t gy = 0; gy < grid; ++gy)
    for (std::size_t gx = 0; gx < grid; ++gx) {
      std::size_t in = 0;
      for (int y = 0; y < patch; ++y)
        for (int x = 0; x < patch; ++x)
          in += p.mask[(gy * static_cast<std::size_t>(patch) + static_cast<std::size_t>(y)) * static_cast<std::size_t>(size) +
                       gx * static_cast<std::size_t>(patch) + static_cast<std::size_t>(x)];
      share(gy, gx) = static_cast<float>(static_cast<double>(in) / (static_cast<double>(patch) * patch));
    }
  return share;
}

}  // namespace tfx
