// Sinusoidal positional encodings: values, matrix, formulas, PE·PEᵀ similarity with its offset
// profile, and the shift rotation R(k).
#include "tfx/positional/positional.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/parallel.hpp"
#include "tfx/core/memory.hpp"
#include "tfx/core/vmath.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/i18n.hpp"

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
  // rows split between the threads; each pair's sine and cosine share one angle
  const unsigned T = std::min<std::size_t>(worker_threads(len * dim), std::max<std::size_t>(len, 1));
  // 1. the angles p·ω_i in double; 2. their sines and cosines as pairs, SLEEF's vectorized
  //    sincos (1.0 ULP in double, then rounded to float: what std::sin/cos give, ±1 float ULP)
  const std::size_t pairs = dim / 2;
  parallel_for_threads(T, [&](unsigned t, unsigned n) {
    std::vector<double> angle(pairs);
    for (std::size_t p = len * t / n; p < len * (t + 1) / n; ++p) {
      float* row = pe.data() + p * dim;
      for (std::size_t i = 0; i < pairs; ++i) angle[i] = static_cast<double>(p) * omega[i];
      vmath::sincos_pairs(angle.data(), row, pairs);
      if (dim % 2) row[dim - 1] = static_cast<float>(std::sin(static_cast<double>(p) * omega[pairs]));  // odd D: a last sine
    }
  });
  return pe;
}

// code(p) = p / (L − 1); a one-word sentence has only p = 0 (code 0)
std::vector<double> linear_position_code(std::size_t len) {
  std::vector<double> code(len, 0.0);
  if (len < 2) return code;
  const double last = static_cast<double>(len - 1);
  for (std::size_t p = 0; p < len; ++p) code[p] = static_cast<double>(p) / last;
  return code;
}

Tensor sinusoidal_rows(const std::vector<std::size_t>& positions, std::size_t dim, double base) {
  Tensor pe({positions.size(), dim});
  const std::size_t pairs = dim / 2;
  std::vector<double> omega(pairs + 1), angle(pairs);
  for (std::size_t i = 0; i < omega.size(); ++i) omega[i] = pe_frequency(i, dim, base);
  for (std::size_t r = 0; r < positions.size(); ++r) {
    const double p = static_cast<double>(positions[r]);
    float* row = pe.data() + r * dim;
    for (std::size_t i = 0; i < pairs; ++i) angle[i] = p * omega[i];
    vmath::sincos_pairs(angle.data(), row, pairs);
    if (dim % 2) row[dim - 1] = static_cast<float>(std::sin(p * omega[pairs]));
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

namespace tfx {

PeMetric parse_pe_metric(const std::string& name) { return parse_choice<PeMetric>(kPeMetricChoices, name, "metric"); }

Tensor pe_similarity(const Tensor& pe, PeMetric metric) {
  check_memory(2.0 * 4.0 * static_cast<double>(pe.rows()) * static_cast<double>(pe.rows()),
               fmt::format("PE·PEᵀ for len {} (an L × L table)", pe.rows()));
  if (metric == PeMetric::dot) return matmul_bt(pe, pe, 0);
  if (metric == PeMetric::euclidean) {
    // ‖a − b‖² = ‖a‖² + ‖b‖² − 2a·b with the norms in double; exactly 0 for i = j
    Tensor g = matmul_bt(pe, pe, 0);
    const std::size_t L = pe.rows();
    std::vector<double> n2(L);
    for (std::size_t i = 0; i < L; ++i) {
      const double n = norm(pe.row(i));
      n2[i] = n * n;
    }
    for (std::size_t i = 0; i < L; ++i)
      for (std::size_t j = 0; j < L; ++j)
        g(i, j) = i == j ? 0.0f : static_cast<float>(std::sqrt(std::max(0.0, n2[i] + n2[j] - 2.0 * static_cast<double>(g(i, j)))));
    return g;
  }
  // cosine: divide each row by its norm (a zero row stays zero), then one product
  Tensor unit = pe;
  for (std::size_t i = 0; i < unit.rows(); ++i) {
    const double n = norm(unit.row(i));
    if (n > 0)
      for (float& v : unit.row(i)) v = static_cast<float>(v / n);
  }
  return matmul_bt(unit, unit, 0);
}

// Σ_{m < D/2} cos(k · ω_m)
double pe_dot_closed_form(std::int64_t k, std::size_t dim, double base) {
  double s = 0;
  for (std::size_t m = 0; m < dim / 2; ++m) s += std::cos(static_cast<double>(k) * pe_frequency(m, dim, base));
  return s;
}

std::vector<double> pe_dot_closed_form_profile(std::size_t len, std::size_t dim, double base) {
  std::vector<double> omega(dim / 2), f(len);
  for (std::size_t m = 0; m < dim / 2; ++m) omega[m] = pe_frequency(m, dim, base);
  for (std::size_t k = 0; k < len; ++k) {
    double s = 0;
    for (double w : omega) s += std::cos(static_cast<double>(k) * w);
    f[k] = s;
  }
  return f;
}

Tensor pe_similarity_block_means(std::size_t len, std::size_t dim, double base, PeMetric metric, std::size_t max_cells,
                                 std::size_t* block, const Progress& progress) {
  if (dim % 2 != 0) throw usage_error(fmt::format(N_("dim {}: block means from the closed form need an even dimension"), dim), {"dim"});
  const std::size_t L = len, b = std::max<std::size_t>(1, (L + max_cells - 1) / std::max<std::size_t>(max_cells, 1));
  const std::size_t n = (L + b - 1) / b;
  if (block) *block = b;
  // 1. f(k) for k = 0 … L−1 (even in k), prefix sums F over offsets −(L−1) … L−1
  std::vector<double> f = pe_dot_closed_form_profile(L, dim, base);
  if (metric == PeMetric::cosine)
    for (double& v : f) v /= static_cast<double>(dim / 2);
  if (metric == PeMetric::euclidean)
    for (double& v : f) v = std::sqrt(std::max(0.0, static_cast<double>(dim) - 2.0 * v));
  std::vector<double> F(2 * L, 0.0);  // F[t] = Σ_{offset index < t} f, offset index = k + L − 1
  for (std::size_t t = 0; t + 1 < 2 * L; ++t) {
    const auto k = static_cast<std::int64_t>(t) - static_cast<std::int64_t>(L - 1);
    F[t + 1] = F[t] + f[static_cast<std::size_t>(std::abs(k))];
  }
  // 2. block (r, c): rows i in [i0, i1), columns j in [j0, j1): Σ_i F[j1 − i + L − 1] − F[j0 − i + L − 1]
  Tensor out({n, n});
  ProgressTicker tick(progress, n);
  for (std::size_t r = 0; r < n; ++r) {
    tick(r);
    const std::size_t i0 = r * b, i1 = std::min(L, i0 + b);
    for (std::size_t c = 0; c < n; ++c) {
      const std::size_t j0 = c * b, j1 = std::min(L, j0 + b);
      double s = 0;
      for (std::size_t i = i0; i < i1; ++i) s += F[j1 + L - 1 - i] - F[j0 + L - 1 - i];
      out(r, c) = static_cast<float>(s / static_cast<double>((i1 - i0) * (j1 - j0)));
    }
  }
  tick(n);
  return out;
}

OffsetProfile offset_profile(const Tensor& sim) {
  const std::size_t L = sim.rows();
  OffsetProfile p;
  if (L == 0) return p;
  std::vector<double> sum(2 * L - 1, 0.0);
  p.min.assign(2 * L - 1, INFINITY);
  p.max.assign(2 * L - 1, -INFINITY);
  // row by row (sequential memory): entry (i, j) belongs to diagonal n = j − i + L − 1
  for (std::size_t i = 0; i < L; ++i) {
    const float* row = sim.data() + i * L;
    const std::size_t base = L - 1 - i;
    for (std::size_t j = 0; j < L; ++j) {
      const double v = row[j];
      sum[base + j] += v;
      p.min[base + j] = std::min(p.min[base + j], v);
      p.max[base + j] = std::max(p.max[base + j], v);
    }
  }
  for (std::size_t n = 0; n < 2 * L - 1; ++n) {
    const auto k = static_cast<std::int64_t>(n) - static_cast<std::int64_t>(L - 1);
    p.offset.push_back(k);
    p.mean.push_back(sum[n] / static_cast<double>(L - static_cast<std::size_t>(std::abs(k))));
    p.max_spread = std::max(p.max_spread, p.max[n] - p.min[n]);
  }
  return p;
}

ClosedFormCheck pe_closed_form_check(const OffsetProfile& prof, std::size_t dim, double base, PeMetric metric) {
  ClosedFormCheck c;
  const std::size_t L = (prof.offset.size() + 1) / 2;
  if (L == 0) return c;
  // closed form: Σ cos(kω) (dot) or Σ cos(kω) / (D/2) (cosine); exact only for even D
  const double norm2 = metric == PeMetric::cosine ? static_cast<double>(dim / 2) : 1.0;
  const std::vector<double> f = pe_dot_closed_form_profile(L, dim, base);  // k = 0 … L−1, even in k
  c.closed_form.resize(prof.offset.size());                               // index n: offset k = n − (L − 1)
  for (std::size_t n = 0; n < c.closed_form.size(); ++n) {
    const double dot = f[static_cast<std::size_t>(std::abs(prof.offset[n]))];
    c.closed_form[n] = metric == PeMetric::euclidean ? std::sqrt(std::max(0.0, static_cast<double>(dim) - 2.0 * dot)) : dot / norm2;
  }
  if (dim % 2 == 0)
    for (std::size_t n = 0; n < prof.offset.size(); ++n)
      c.max_error = std::max({c.max_error, std::abs(prof.min[n] - c.closed_form[n]), std::abs(prof.max[n] - c.closed_form[n])});
  return c;
}

std::vector<double> diagonal_spread(const Tensor& s) {
  const OffsetProfile p = offset_profile(s);
  std::vector<double> spread(p.offset.size());
  for (std::size_t d = 0; d < spread.size(); ++d) spread[d] = p.max[d] - p.min[d];
  return spread;
}

// block m: [[cos kω_m, sin kω_m], [−sin kω_m, cos kω_m]] at (2m, 2m)
Tensor shift_rotation(std::int64_t k, std::size_t dim, double base) {
  if (dim % 2 != 0)
    throw usage_error(fmt::format(N_("dim {}: the shift rotation needs an even dimension (column {} is a sine without a cosine partner)"),
                                  dim, dim - 1), {"dim"});
  checked_element_count({dim, dim}, fmt::format("dim {}", dim), {"dim"});
  Tensor r({dim, dim});
  for (std::size_t m = 0; m < dim / 2; ++m) {
    const double a = static_cast<double>(k) * pe_frequency(m, dim, base);
    r(2 * m, 2 * m) = static_cast<float>(std::cos(a));
    r(2 * m, 2 * m + 1) = static_cast<float>(std::sin(a));
    r(2 * m + 1, 2 * m) = static_cast<float>(-std::sin(a));
    r(2 * m + 1, 2 * m + 1) = static_cast<float>(std::cos(a));
  }
  return r;
}

ShiftCheck check_shift(const Tensor& pe, const Tensor& r, std::int64_t k) {
  // rotated(p, :) = R·PE(p) = (PE·Rᵀ)(p, :)
  const Tensor rotated = matmul_bt(pe, r, 0);
  const auto L = static_cast<std::int64_t>(pe.rows());
  ShiftCheck c;
  for (std::int64_t p = std::max<std::int64_t>(0, -k); p < std::min(L, L - k); ++p) {
    const auto src = static_cast<std::size_t>(p), dst = static_cast<std::size_t>(p + k);
    for (std::size_t j = 0; j < pe.cols(); ++j) {
      const double e = std::abs(static_cast<double>(pe(dst, j)) - rotated(src, j));
      if (e > c.max_error) c.max_error = e, c.worst_position = p;
    }
    ++c.positions;
  }
  return c;
}

}  // namespace tfx
