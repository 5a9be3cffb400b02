// `tfx layernorm`'s inputs and figure: numbers given as text ("4,2,3,5;2,1,-3,2": rows split at ';',
// values at ','), and the lecture's picture of layer normalization per token.
#pragma once
#include <string>
#include <vector>

#include "tfx/core/tensor.hpp"
#include "tfx/figure/figure.hpp"
#include "tfx/io/matrix_io.hpp"

namespace tfx {

// One row of exactly `dim` numbers, as a (dim) tensor.
Tensor number_vector(const std::string& text, const std::string& flag, std::size_t dim);

// Per token (one row of panels) x, x̂ and y as bars on one value scale; μ and μ ± σ drawn across x,
// 0 and ±1 across x̂ (where x̂ puts them).
Figure layernorm_figure(const Tensor& x, const Tensor& xhat, const Tensor& y, const std::vector<std::string>& tokens,
                        const std::vector<std::string>& features, const std::vector<double>& mu, const std::vector<double>& sigma);

}  // namespace tfx
