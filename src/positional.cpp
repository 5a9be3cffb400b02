// Sinusoidal positional encodings: values, matrix and formulas.
#include "tfx/positional.hpp"

#include <fmt/format.h>

#include <cmath>

namespace tfx {

// ω_i = base^(−2i/D) = exp(−(2i/D)·ln base)
double pe_frequency(std::size_t pair, std::size_t dim, double base) {
  return std::pow(base, -2.0 * static_cast<double>(pair) / static_cast<double>(dim));
}

// PE(p,2i) = sin(p / base^(2i/D)), PE(p,2i+1) = cos(p / base^(2i/D))
double sinusoidal_value(double pos, std::size_t j, std::size_t dim, double base) {
  const double angle = pos * pe_frequency(j / 2, dim, base);
  return j % 2 == 0 ? std::sin(angle) : std::cos(angle);
}

Tensor sinusoidal_encoding(std::size_t len, std::size_t dim, double base) {
  Tensor pe({len, dim});
  std::vector<double> omega(dim / 2 + 1);
  for (std::size_t i = 0; i < omega.size(); ++i) omega[i] = pe_frequency(i, dim, base);
  for (std::size_t p = 0; p < len; ++p) {
    float* row = pe.data() + p * dim;
    for (std::size_t j = 0; j < dim; ++j) {
      const double angle = static_cast<double>(p) * omega[j / 2];
      row[j] = static_cast<float>(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  }
  return pe;
}

std::string sinusoidal_formula(std::size_t pos, std::size_t j, std::size_t dim, double base) {
  const char* fn = j % 2 == 0 ? "sin" : "cos";
  const std::size_t two_i = j - j % 2;
  const double denom = std::pow(base, static_cast<double>(two_i) / static_cast<double>(dim));
  return fmt::format("{}({} / {:g}^({}/{})) = {}({} / {:g})", fn, pos, base, two_i, dim, fn, pos, denom);
}

}  // namespace tfx
