// RoPE on a model's activations (tfx/positional/rope.hpp: rope_tables, rope_rotate_heads): the one
// rotation the checkpoint families call, in both pair layouts.
#include <fmt/format.h>

#include <cmath>

#include "tfx/core/error.hpp"
#include "tfx/positional/rope.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

// θ(t, j) = t·inv_freq_j (float32), cos θ·m and sin θ·m with m the attention factor
RopeTables rope_tables(std::size_t len, const RopeConfig& c) {
  RopeConfig rope = c;
  rope.seq_len = len;
  const std::vector<double> inv = rope_inv_freq(rope);
  const double factor = rope_attention_factor(rope);
  RopeTables r{len, inv.size(), std::vector<float>(len * inv.size()), std::vector<float>(len * inv.size())};
  const std::size_t P = r.pairs;
  for (std::size_t t = 0; t < len; ++t)
    for (std::size_t j = 0; j < P; ++j) {
      const float angle = static_cast<float>(t) * static_cast<float>(inv[j]);  // float32, as HF computes it
      r.cos[t * P + j] = static_cast<float>(std::cos(angle) * factor);
      r.sin[t * P + j] = static_cast<float>(std::sin(angle) * factor);
    }
  return r;
}

// x'_a = x_a·cos − x_b·sin, x'_b = x_b·cos + x_a·sin for each pair (a, b) of each head
void rope_rotate_heads(Tensor& x, std::size_t heads, const RopeTables& t, RopeLayout layout) {
  const std::size_t P = t.pairs, hd = 2 * P, T = x.rows();
  if (x.rank() != 2 || x.cols() != heads * hd || T > t.len)
    throw Error(fmt::format(N_("rope_rotate_heads: x {} is not (≤ {}, {} heads × {})"), x.shape_str(), t.len, heads, hd));
  for (std::size_t r = 0; r < T; ++r)
    for (std::size_t h = 0; h < heads; ++h) {
      float* v = x.data() + r * x.cols() + h * hd;
      for (std::size_t j = 0; j < P; ++j) {
        const std::size_t ia = layout == RopeLayout::half ? j : 2 * j, ib = layout == RopeLayout::half ? j + P : 2 * j + 1;
        const float a = v[ia], b = v[ib], cs = t.cos[r * P + j], sn = t.sin[r * P + j];
        v[ia] = a * cs - b * sn;
        v[ib] = b * cs + a * sn;
      }
    }
}

// dx_a = dy_a·cos + dy_b·sin, dx_b = dy_b·cos − dy_a·sin (the transpose of the forward's rotation)
void rope_rotate_heads_backward(Tensor& dy, std::size_t heads, const RopeTables& t, RopeLayout layout) {
  const std::size_t P = t.pairs, hd = 2 * P, T = dy.rows();
  if (dy.rank() != 2 || dy.cols() != heads * hd || T > t.len)
    throw Error(fmt::format("rope_rotate_heads_backward: dy {} is not (≤ {}, {} heads × {})", dy.shape_str(), t.len, heads, hd));
  for (std::size_t r = 0; r < T; ++r)
    for (std::size_t h = 0; h < heads; ++h) {
      float* v = dy.data() + r * dy.cols() + h * hd;
      for (std::size_t j = 0; j < P; ++j) {
        const std::size_t ia = layout == RopeLayout::half ? j : 2 * j, ib = layout == RopeLayout::half ? j + P : 2 * j + 1;
        const float a = v[ia], b = v[ib], cs = t.cos[r * P + j], sn = t.sin[r * P + j];
        v[ia] = a * cs + b * sn;
        v[ib] = b * cs - a * sn;
      }
    }
}

}  // namespace tfx
