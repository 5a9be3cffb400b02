// Sinusoidal positional encodings (Vaswani et al. 2017, the lecture's PE), single values with
// their formula, the shift-is-a-rotation property and PE·PEᵀ similarity.
//
// Letters: L = number of positions, D = model dimension (d_model), k = an offset in positions.
// Odd D is supported: column D−1 is then a sine (pair (D−1)/2 has no cosine partner).
#pragma once
#include <cstddef>
#include <string>

#include "tfx/tensor.hpp"

namespace tfx {

// ω_i = base^(−2i/D), the angular frequency of pair i (columns 2i and 2i+1).
double pe_frequency(std::size_t pair, std::size_t dim, double base = 10000.0);

// PE(p, 2i) = sin(p · ω_i), PE(p, 2i+1) = cos(p · ω_i); j is the column (0 ≤ j < D).
double sinusoidal_value(double pos, std::size_t j, std::size_t dim, double base = 10000.0);

// -> (L, D): row p is PE(p). Computed in double, stored as float32.
Tensor sinusoidal_encoding(std::size_t len, std::size_t dim, double base = 10000.0);

// The worked formula for one value, e.g. "sin(1 / 10000^(2/4)) = sin(1 / 100)".
std::string sinusoidal_formula(std::size_t pos, std::size_t j, std::size_t dim, double base = 10000.0);

}  // namespace tfx
