// RoPE over the heads of a projection (`tfx attention --rope`): each head's block of q (T, H·d_k)
// rotated at its row's position (RoFormer's interleaved pairs, θ = pos · base^(−2j/d_k)); V is never
// rotated. d_k must be even (a usage error naming --rope otherwise).
#pragma once
#include <cstddef>

#include "tfx/core/tensor.hpp"

namespace tfx {

Tensor rope_heads(const Tensor& q, std::size_t heads, double base);

}  // namespace tfx
