// rope_tables / rope_rotate_heads (the checkpoint families' RoPE) against rope_rotate, the
// per-vector rotation `tfx rope rotate` shows (computed in double by another path), in both
// layouts, and against each other through the layouts' column permutation.
#include <cmath>

#include "helpers.hpp"
#include "tfx/positional/rope.hpp"

using namespace tfx;

namespace {

Tensor rope_heads_input(std::size_t T, std::size_t cols) {
  Tensor x({T, cols});
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i) + 0.1));
  return x;
}

}  // namespace

TEST_CASE("rope_rotate_heads: every head of every row = rope_rotate of that slice at its position, both layouts") {
  const std::size_t T = 7, heads = 3, hd = 8;
  for (RopeLayout layout : {RopeLayout::half, RopeLayout::interleaved}) {
    RopeConfig c;
    c.dim = hd;
    c.base = 10000;
    c.layout = layout;
    const Tensor x = rope_heads_input(T, heads * hd);
    Tensor y = x;
    rope_rotate_heads(y, heads, rope_tables(T, c), layout);
    double worst = 0;
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t h = 0; h < heads; ++h) {
        const std::span<const float> slice(x.data() + t * heads * hd + h * hd, hd);
        const std::vector<float> want = rope_rotate(slice, static_cast<double>(t), c);
        for (std::size_t k = 0; k < hd; ++k) worst = std::max(worst, std::fabs(static_cast<double>(y(t, h * hd + k)) - want[k]));
      }
    CAPTURE(rope_layout_name(layout));
    CHECK(worst <= 2e-6);
  }
}

TEST_CASE("rope_rotate_heads: the interleaved layout is the half layout on columns permuted by rope_half_from_interleaved") {
  const std::size_t T = 5, hd = 6;
  RopeConfig c;
  c.dim = hd;
  c.base = 500;
  const RopeTables tables = rope_tables(T, c);
  const Tensor x = rope_heads_input(T, hd);
  Tensor inter = x;
  rope_rotate_heads(inter, 1, tables, RopeLayout::interleaved);
  const std::vector<std::size_t> perm = rope_half_from_interleaved(hd);
  Tensor half({T, hd});
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t k = 0; k < hd; ++k) half(t, k) = x(t, perm[k]);
  rope_rotate_heads(half, 1, tables, RopeLayout::half);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t k = 0; k < hd; ++k) CHECK(half(t, k) == inter(t, perm[k]));  // the same float ops, pair by pair
  // position 0 is the identity; a rotation keeps each pair's length
  for (std::size_t k = 0; k < hd; ++k) CHECK(inter(0, k) == x(0, k));
  for (std::size_t j = 0; j < hd / 2; ++j) {
    const double before = std::hypot(x(3, 2 * j), x(3, 2 * j + 1)), after = std::hypot(inter(3, 2 * j), inter(3, 2 * j + 1));
    CHECK(after == doctest::Approx(before).epsilon(1e-6));
  }
  Tensor wrong({T, hd + 2});
  CHECK_THROWS(rope_rotate_heads(wrong, 1, tables, RopeLayout::half));
}
