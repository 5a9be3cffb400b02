// RoPE: configuration checks, inverse frequencies under each scaling, angle tables, rotation
// (real and complex forms), rotated-q/k scores, the additive-PE comparison and the decay curve.
// Letters as in include/tfx/rope.hpp: D head dimension, P = D/2 pairs, L positions.
#include "tfx/positional/rope.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numbers>

#include "tfx/core/error.hpp"
#include "tfx/core/memory.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/positional/positional.hpp"
#include "tfx/core/random.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

bool needs_factor(RopeScaling s) {
  return s == RopeScaling::linear || s == RopeScaling::ntk || s == RopeScaling::dynamic || s == RopeScaling::yarn ||
         s == RopeScaling::llama3;
}

bool needs_original_max_pos(RopeScaling s) {
  return s == RopeScaling::dynamic || s == RopeScaling::yarn || s == RopeScaling::llama3;
}

// HF get_mscale: 0.1·ln(f) + 1 for f > 1, else 1.
double yarn_get_mscale(double factor) { return factor <= 1.0 ? 1.0 : 0.1 * std::log(factor) + 1.0; }

// YaRN's inverse dimension formula: the (fractional) pair-dimension index whose wavelength fits
// `rotations` times into L₀: d(r) = D·ln(L₀/(2πr)) / (2·ln base).
double yarn_correction_dim(double rotations, double dim, double base, double original_max_pos) {
  return dim * std::log(original_max_pos / (rotations * kTwoPi)) / (2.0 * std::log(base));
}

}  // namespace

RopeScaling parse_rope_scaling(const std::string& name) {
  return parse_choice<RopeScaling>(kRopeScalingChoices, name, "scaling");
}

const char* rope_scaling_name(RopeScaling s) { return choice_name<RopeScaling>(kRopeScalingChoices, s); }

RopeLayout parse_rope_layout(const std::string& name) {
  return parse_choice<RopeLayout>(kRopeLayoutChoices, name, "layout");
}

const char* rope_layout_name(RopeLayout l) { return choice_name<RopeLayout>(kRopeLayoutChoices, l); }

void validate_rope_config(const RopeConfig& c) {
  const char* s = rope_scaling_name(c.scaling);
  if (c.dim == 0) throw usage_error(N_("dim must be a positive even number (RoPE rotates pairs of dimensions)"), {"dim"});
  if (c.dim % 2 != 0)
    throw usage_error(fmt::format(N_("dim {} is odd; RoPE rotates pairs of dimensions, so D must be even (e.g. dim {})"),
                                  c.dim, c.dim + 1), {"dim"});
  if (!(c.base > 1.0) || !std::isfinite(c.base))
    throw usage_error(fmt::format(N_("{} {:g} must be a finite number > 1 (the lecture uses 10000)"), "base", c.base), {"base"});
  if (c.factor && (!(*c.factor > 0.0) || !std::isfinite(*c.factor)))
    throw usage_error(fmt::format(N_("factor {:g} must be a positive number (the context extension, e.g. factor 4)"), *c.factor), {"factor"});
  if (needs_factor(c.scaling) && !c.factor)
    throw usage_error(fmt::format(N_("scaling {} needs factor F (the context extension ratio, e.g. factor 4)"), s), {"scaling", "factor"});
  if (c.original_max_pos && *c.original_max_pos == 0)
    throw usage_error(N_("original_max_pos must be ≥ 1 (the pre-training context length, e.g. 4096)"), {"original_max_pos"});
  if (needs_original_max_pos(c.scaling) && !c.original_max_pos)
    throw usage_error(fmt::format(N_("scaling {} needs original_max_pos N (the pre-training context length, e.g. 4096)"), s), {"scaling", "original_max_pos"});
  if ((c.scaling == RopeScaling::ntk || c.scaling == RopeScaling::dynamic) && c.dim < 4)
    throw usage_error(fmt::format(N_("scaling {} needs dim ≥ 4 (base' = base·f^(D/(D−2)))"), s), {"scaling", "dim"});
  if (c.scaling == RopeScaling::yarn) {
    if (!(c.beta_slow > 0.0) || !std::isfinite(c.beta_slow))
      throw usage_error(fmt::format(N_("beta_slow {:g} must be a positive number of rotations (default 1)"), c.beta_slow), {"beta_slow"});
    if (!(c.beta_fast > c.beta_slow) || !std::isfinite(c.beta_fast))
      throw usage_error(fmt::format(N_("{} {:g} must be greater than {} {:g} (defaults 32 and 1)"), "beta_fast", c.beta_fast,
                                    "beta_slow", c.beta_slow), {"beta_fast", "beta_slow"});
  }
  if (c.scaling == RopeScaling::llama3) {
    if (!(c.low_freq_factor > 0.0) || !std::isfinite(c.low_freq_factor))
      throw usage_error(fmt::format(N_("low_freq_factor {:g} must be positive (default 1)"), c.low_freq_factor), {"low_freq_factor"});
    if (!(c.high_freq_factor > c.low_freq_factor) || !std::isfinite(c.high_freq_factor))
      throw usage_error(fmt::format(N_("{} {:g} must be greater than {} {:g} (defaults 4 and 1)"), "high_freq_factor",
                                    c.high_freq_factor, "low_freq_factor", c.low_freq_factor), {"high_freq_factor", "low_freq_factor"});
  }
  if (c.scaling == RopeScaling::xpos) {
    if (!(c.xpos_gamma >= 0.0) || !std::isfinite(c.xpos_gamma))
      throw usage_error(fmt::format(N_("xpos_gamma {:g} must be ≥ 0 (default 0.4)"), c.xpos_gamma), {"xpos_gamma"});
    if (!(c.xpos_scale_base > 0.0) || !std::isfinite(c.xpos_scale_base))
      throw usage_error(fmt::format(N_("xpos_scale_base {:g} must be positive (default 512)"), c.xpos_scale_base), {"xpos_scale_base"});
  }
}

// inv_freq_j = base^(−2j/D)
std::vector<double> rope_default_inv_freq(std::size_t dim, double base) {
  std::vector<double> inv(dim / 2);
  for (std::size_t j = 0; j < inv.size(); ++j) inv[j] = pe_frequency(j, dim, base);  // the sinusoidal PE's ω_j
  return inv;
}

// ntk:     base' = base · f^(D/(D−2))
// dynamic: base' = base · (f·T/L₀ − (f − 1))^(D/(D−2)),  T = max(seq_len, L₀)
double rope_effective_base(const RopeConfig& c) {
  const double d = static_cast<double>(c.dim);
  if (c.scaling == RopeScaling::ntk) return c.base * std::pow(*c.factor, d / (d - 2.0));
  if (c.scaling == RopeScaling::dynamic) {
    const double l0 = static_cast<double>(*c.original_max_pos);
    const double t = std::max(static_cast<double>(c.seq_len), l0);
    return c.base * std::pow(*c.factor * t / l0 - (*c.factor - 1.0), d / (d - 2.0));
  }
  return c.base;
}

// low = d(β_fast), high = d(β_slow); floor/ceil when truncating; clamp to [0, D−1] (HF clamps to
// dim − 1 although the ramp runs over P = D/2 pair indices).
std::pair<double, double> yarn_correction_range(const RopeConfig& c) {
  const double d = static_cast<double>(c.dim), l0 = static_cast<double>(c.original_max_pos.value_or(0));
  double low = yarn_correction_dim(c.beta_fast, d, c.base, l0);
  double high = yarn_correction_dim(c.beta_slow, d, c.base, l0);
  if (c.yarn_truncate) {
    low = std::floor(low);
    high = std::ceil(high);
  }
  return {std::max(low, 0.0), std::min(high, d - 1.0)};
}

std::vector<double> rope_inv_freq(const RopeConfig& c) {
  validate_rope_config(c);
  std::vector<double> inv = rope_default_inv_freq(c.dim, c.base);
  const std::size_t P = inv.size();
  switch (c.scaling) {
    case RopeScaling::none:
    case RopeScaling::xpos:
      break;
    case RopeScaling::linear:
      // position interpolation: m·θ/f is the same as m/f·θ
      for (double& v : inv) v /= *c.factor;
      break;
    case RopeScaling::ntk:
    case RopeScaling::dynamic:
      inv = rope_default_inv_freq(c.dim, rope_effective_base(c));
      break;
    case RopeScaling::yarn: {
      // 1. the correction range of pair indices; 2. a linear ramp from 0 (at low) to 1 (at high),
      // with +0.001 when low == high to avoid dividing by zero; 3. blend: pairs below `low`
      // (fast, many rotations) keep their frequency (extrapolation), pairs above `high` are
      // interpolated (÷f), the band between mixes linearly.
      auto [low, high] = yarn_correction_range(c);
      if (low == high) high += 0.001;
      for (std::size_t j = 0; j < P; ++j) {
        const double ramp = std::clamp((static_cast<double>(j) - low) / (high - low), 0.0, 1.0);
        const double extrapolation_weight = 1.0 - ramp;
        const double extrap = inv[j], interp = inv[j] / *c.factor;
        inv[j] = interp * (1.0 - extrapolation_weight) + extrap * extrapolation_weight;
      }
      break;
    }
    case RopeScaling::llama3: {
      const double f = *c.factor, l0 = static_cast<double>(*c.original_max_pos);
      const double low_freq_wavelen = l0 / c.low_freq_factor, high_freq_wavelen = l0 / c.high_freq_factor;
      for (double& v : inv) {
        const double wavelen = kTwoPi / v;
        if (wavelen < high_freq_wavelen) continue;  // high frequency: kept
        if (wavelen > low_freq_wavelen) {           // low frequency: interpolated
          v /= f;
          continue;
        }
        // the band between: s = (L₀/λ − low)/(high − low), (1 − s)·inv/f + s·inv
        const double s = (l0 / wavelen - c.low_freq_factor) / (c.high_freq_factor - c.low_freq_factor);
        v = (1.0 - s) * v / f + s * v;
      }
      break;
    }
  }
  return inv;
}

double rope_attention_factor(const RopeConfig& c) {
  return c.scaling == RopeScaling::yarn && c.factor ? yarn_get_mscale(*c.factor) : 1.0;
}

// ζ_j = (2j + γD) / ((1 + γ)D)
std::vector<double> xpos_zeta(const RopeConfig& c) {
  const double d = static_cast<double>(c.dim);
  std::vector<double> z(c.dim / 2);
  for (std::size_t j = 0; j < z.size(); ++j) z[j] = (2.0 * static_cast<double>(j) + c.xpos_gamma * d) / ((1.0 + c.xpos_gamma) * d);
  return z;
}

double rope_pair_scale(const RopeConfig& c, std::size_t j, double pos, RopeRole role) {
  if (c.scaling == RopeScaling::xpos) {
    const double d = static_cast<double>(c.dim);
    const double zeta = (2.0 * static_cast<double>(j) + c.xpos_gamma * d) / ((1.0 + c.xpos_gamma) * d);
    const double power = (role == RopeRole::query ? pos : -pos) / c.xpos_scale_base;
    return std::pow(zeta, power);
  }
  return rope_attention_factor(c);
}

std::pair<std::size_t, std::size_t> rope_pair_indices(std::size_t j, std::size_t dim, RopeLayout layout) {
  assert(2 * j < dim);
  return layout == RopeLayout::interleaved ? std::pair{2 * j, 2 * j + 1} : std::pair{j, j + dim / 2};
}

std::vector<std::size_t> rope_half_from_interleaved(std::size_t dim) {
  std::vector<std::size_t> perm(dim);
  for (std::size_t j = 0; j < dim / 2; ++j) {
    perm[j] = 2 * j;
    perm[j + dim / 2] = 2 * j + 1;
  }
  return perm;
}

// θ(pos, j) = pos · inv_freq_j
Tensor rope_angles(std::size_t len, const RopeConfig& c) {
  const std::vector<double> inv = rope_inv_freq(c);
  const std::size_t P = inv.size();
  checked_element_count({len, P}, fmt::format("len {} dim {}", len, c.dim), {"len", "dim"});
  Tensor t({len, P});
  for (std::size_t p = 0; p < len; ++p)
    for (std::size_t j = 0; j < P; ++j) t(p, j) = static_cast<float>(static_cast<double>(p) * inv[j]);
  return t;
}

namespace {

// cos or sin of θ(pos, j), evaluated in double from the double angle (not from the float table).
Tensor trig_table(std::size_t len, const RopeConfig& c, bool cosine) {
  const std::vector<double> inv = rope_inv_freq(c);
  const std::size_t P = inv.size();
  checked_element_count({len, P}, fmt::format("len {} dim {}", len, c.dim), {"len", "dim"});
  Tensor t({len, P});
  for (std::size_t p = 0; p < len; ++p)
    for (std::size_t j = 0; j < P; ++j) {
      const double a = static_cast<double>(p) * inv[j];
      t(p, j) = static_cast<float>(cosine ? std::cos(a) : std::sin(a));
    }
  return t;
}

void check_vector_length(std::span<const float> x, const RopeConfig& c, const char* what) {
  if (x.size() != c.dim)
    throw usage_error(fmt::format(N_("{} has {} values but dim is {}"), what, x.size(), c.dim), {"dim"});
}

}  // namespace

Tensor rope_cos_table(std::size_t len, const RopeConfig& c) { return trig_table(len, c, true); }
Tensor rope_sin_table(std::size_t len, const RopeConfig& c) { return trig_table(len, c, false); }

namespace {

// x'_a = (x_a cos θ − x_b sin θ)·s,  x'_b = (x_a sin θ + x_b cos θ)·s, θ = pos·inv_j
void rotate_pairs(std::span<const float> x, double pos, const RopeConfig& c, const std::vector<double>& inv, RopeRole role,
                  std::span<float> out) {
  for (std::size_t j = 0; j < inv.size(); ++j) {
    const auto [a, b] = rope_pair_indices(j, c.dim, c.layout);
    const double theta = pos * inv[j], s = rope_pair_scale(c, j, pos, role);
    const double co = std::cos(theta), si = std::sin(theta);
    out[a] = static_cast<float>((x[a] * co - x[b] * si) * s);
    out[b] = static_cast<float>((x[a] * si + x[b] * co) * s);
  }
}

}  // namespace

std::vector<float> rope_rotate(std::span<const float> x, double pos, const RopeConfig& c, RopeRole role) {
  const std::vector<double> inv = rope_inv_freq(c);
  check_vector_length(x, c, "the vector");
  std::vector<float> out(x.size());
  rotate_pairs(x, pos, c, inv, role, out);
  return out;
}

// z'_j = (x_a + i·x_b) · s·e^{iθ}
std::vector<std::complex<double>> rope_rotate_complex(std::span<const float> x, double pos, const RopeConfig& c,
                                                      RopeRole role) {
  const std::vector<double> inv = rope_inv_freq(c);
  check_vector_length(x, c, "the vector");
  std::vector<std::complex<double>> z(inv.size());
  for (std::size_t j = 0; j < inv.size(); ++j) {
    const auto [a, b] = rope_pair_indices(j, c.dim, c.layout);
    z[j] = std::complex<double>(x[a], x[b]) * std::polar(rope_pair_scale(c, j, pos, role), pos * inv[j]);
  }
  return z;
}

RopeRotation rope_rotation(std::span<const float> x, double pos, const RopeConfig& c, RopeRole role) {
  RopeRotation r;
  r.rotated = rope_rotate(x, pos, c, role);
  r.complex = rope_rotate_complex(x, pos, c, role);
  r.inv_freq = rope_inv_freq(c);
  for (std::size_t j = 0; j < r.inv_freq.size(); ++j) {
    const auto [a, b] = rope_pair_indices(j, c.dim, c.layout);
    const double theta = pos * r.inv_freq[j];
    r.theta.push_back(theta);
    r.cos.push_back(std::cos(theta));
    r.sin.push_back(std::sin(theta));
    r.scale.push_back(rope_pair_scale(c, j, pos, role));
    r.complex_diff.push_back(std::abs(r.complex[j] - std::complex<double>(r.rotated[a], r.rotated[b])));
    r.complex_max_diff = std::max(r.complex_max_diff, r.complex_diff.back());
  }
  r.norm_before = norm(x);
  r.norm_after = norm(r.rotated);
  r.norm_ratio = r.norm_before > 0 ? r.norm_after / r.norm_before : 1.0;
  return r;
}

Tensor rope_rotate_positions(std::span<const float> x, std::size_t len, const RopeConfig& c, RopeRole role) {
  const std::vector<double> inv = rope_inv_freq(c);
  check_vector_length(x, c, "the vector");
  checked_element_count({len, c.dim}, fmt::format("len {} dim {}", len, c.dim), {"len", "dim"});
  Tensor t({len, c.dim});
  for (std::size_t p = 0; p < len; ++p) rotate_pairs(x, static_cast<double>(p), c, inv, role, t.row(p));
  return t;
}

// s = (R q)(R k)ᵀ / √D
Tensor rope_relative_scores(std::span<const float> q, std::span<const float> k, std::size_t len, const RopeConfig& c) {
  validate_rope_config(c);
  check_vector_length(q, c, "q");
  check_vector_length(k, c, "k");
  checked_element_count({len, len}, fmt::format("len {} (an L×L score table)", len), {"len"});
  // the command keeps this table, the additive-PE one beside it and their figures' copies
  check_memory(4.0 * 4.0 * static_cast<double>(len) * static_cast<double>(len),
               fmt::format("RoPE relative scores for len {} (L × L tables)", len));
  const Tensor rq = rope_rotate_positions(q, len, c, RopeRole::query);
  const Tensor rk = rope_rotate_positions(k, len, c, RopeRole::key);
  return scale(matmul_bt(rq, rk), static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.dim))));
}

// s = (q + PE)(k + PE)ᵀ / √D, q and k repeated on every row
Tensor additive_pe_scores(std::span<const float> q, std::span<const float> k, std::size_t len, double base) {
  assert(q.size() == k.size());
  const std::size_t D = q.size();
  checked_element_count({len, len}, fmt::format("len {} (an L×L score table)", len), {"len"});
  const Tensor pe = sinusoidal_encoding(len, D, base);
  Tensor qs({len, D}), ks({len, D});
  for (std::size_t p = 0; p < len; ++p) {
    std::copy(q.begin(), q.end(), qs.row(p).begin());
    std::copy(k.begin(), k.end(), ks.row(p).begin());
  }
  return scale(matmul_bt(add(qs, pe), add(ks, pe)), static_cast<float>(1.0 / std::sqrt(static_cast<double>(D))));
}

// (1/P)·Σ_{j=1}^{P} |S_j|,  S_j = Σ_{k<j} w_k(m)·e^{i m θ_k}  (partial sums, accumulated in order)
std::vector<double> rope_decay_curve(std::size_t len, const RopeConfig& c) {
  const std::vector<double> inv = rope_inv_freq(c);
  const std::size_t P = inv.size();
  checked_element_count({len, P}, fmt::format("len {} dim {} (decay work)", len, c.dim), {"len", "dim"});
  const std::vector<double> zeta = c.scaling == RopeScaling::xpos ? xpos_zeta(c) : std::vector<double>{};
  std::vector<double> curve(len);
  for (std::size_t m = 0; m < len; ++m) {
    const double md = static_cast<double>(m);
    std::complex<double> partial = 0.0;
    double total = 0.0;
    for (std::size_t k = 0; k < P; ++k) {
      const double w = zeta.empty() ? 1.0 : std::pow(zeta[k], md / c.xpos_scale_base);
      partial += std::polar(w, md * inv[k]);
      total += std::abs(partial);  // |S_{k+1}|
    }
    curve[m] = total / static_cast<double>(P);
  }
  return curve;
}

std::vector<float> rope_random_vector(std::size_t dim, std::uint64_t seed) {
  Generator gen(seed);
  std::vector<float> v(dim);
  for (float& x : v) x = static_cast<float>(gen.uniform_signed());
  return v;
}

}  // namespace tfx
