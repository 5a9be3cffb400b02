// Rotary position embedding (RoPE, Su et al. 2021 "RoFormer"; the lecture's RoPE section):
// configuration (layout, scaling), per-pair inverse frequencies under each scaling (PI/linear,
// NTK, dynamic NTK, YaRN, Llama 3, XPos), angle/cos/sin tables, rotation of one vector in the real
// (2×2 matrix) and complex (multiplication by e^{iθ}) forms, attention scores of rotated q/k, the
// additive-sinusoidal comparison, and the RoFormer long-term decay curve.
//
// Letters: D = head dimension (even), P = D/2 pairs, j = pair index (0 ≤ j < P), L = number of
// positions, pos / n / m = a position, f = factor, L₀ = original_max_pos.
//
// Conventions: inverse frequencies follow Hugging Face transformers' modeling_rope_utils.py of
// the 4.5x line in which YaRN's find_correction_range has the `truncate` option (default true);
// XPos follows Sun et al. 2022 ("A Length-Extrapolatable Transformer") and microsoft/torchscale's
// XPOS (ζ_j = (2j + γD)/((1+γ)D), q·ζ^(n/B), k·ζ^(−n/B)). See docs/rope.md.
#pragma once
#include "tfx/core/i18n.hpp"
#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tfx/core/choices.hpp"
#include "tfx/core/tensor.hpp"

namespace tfx {

// interleaved: pair j = (x_{2j}, x_{2j+1}) — the lecture, RoFormer, Meta's LLaMA.
// half:        pair j = (x_j, x_{j+D/2})   — GPT-NeoX, Hugging Face `rotate_half`.
enum class RopeLayout { interleaved, half };
inline constexpr Choice<RopeLayout> kRopeLayoutChoices[] = {
    {RopeLayout::interleaved, "interleaved", N_("(x_2j, x_2j+1) as in the lecture/LLaMA")},
    {RopeLayout::half, "half", N_("(x_j, x_j+D/2) as in GPT-NeoX/HF rotate_half")},
};

enum class RopeScaling { none, linear, ntk, dynamic, yarn, llama3, xpos };
inline constexpr Choice<RopeScaling> kRopeScalingChoices[] = {
    {RopeScaling::none, "none", N_("the default frequencies")},
    {RopeScaling::none, "default", "", Spelling::alias},
    {RopeScaling::linear, "linear", N_("position interpolation: inv_freq / f")},
    {RopeScaling::linear, "pi", "", Spelling::alias},
    {RopeScaling::ntk, "ntk", N_("NTK-aware: base' = base·f^(D/(D−2))")},
    {RopeScaling::dynamic, "dynamic", N_("dynamic NTK: the base grows with the sequence length")},
    {RopeScaling::yarn, "yarn", N_("YaRN: interpolate long wavelengths, keep short ones, scale attention")},
    {RopeScaling::llama3, "llama3", N_("Llama 3.1: by wavelength, kept / blended / divided by f")},
    {RopeScaling::xpos, "xpos", N_("XPos: rotation with a per-pair decay ζ^(n/B)")},
};

// Which side of the score a vector is on; only XPos treats them differently (q·ζ^n, k·ζ^−n).
enum class RopeRole { query, key };

struct RopeConfig {
  std::size_t dim = 0;             // D, even
  double base = 10000.0;           // θ base (HF rope_theta)
  RopeLayout layout = RopeLayout::interleaved;
  RopeScaling scaling = RopeScaling::none;
  std::optional<double> factor;    // f: linear, ntk, dynamic, yarn, llama3
  std::optional<std::size_t> original_max_pos;  // L₀: dynamic, yarn, llama3
  std::size_t seq_len = 0;         // dynamic: the current sequence length (0 = L₀, i.e. no change)
  double beta_fast = 32.0;         // yarn: β (rotations) below which pairs are interpolated
  double beta_slow = 1.0;          // yarn: α (rotations) above which pairs are kept
  bool yarn_truncate = true;       // yarn: floor/ceil the correction range (HF default)
  double low_freq_factor = 1.0;    // llama3
  double high_freq_factor = 4.0;   // llama3
  double xpos_gamma = 0.4;         // xpos: γ
  double xpos_scale_base = 512.0;  // xpos: B
};

// Names of kRopeScalingChoices and kRopeLayoutChoices; anything else throws a usage error naming
// `scaling` or `layout`.
RopeScaling parse_rope_scaling(const std::string& name);
const char* rope_scaling_name(RopeScaling s);
RopeLayout parse_rope_layout(const std::string& name);
const char* rope_layout_name(RopeLayout l);

// Throws a one-line usage error naming the fields (Error::params()) when the configuration cannot
// be computed: odd or zero dim, base ≤ 1, factor ≤ 0 or missing where the scaling needs it,
// original_max_pos missing/zero for dynamic, yarn and llama3, beta_fast ≤ beta_slow,
// low_freq_factor ≥ high_freq_factor, xpos_scale_base ≤ 0, xpos_gamma < 0, NTK with D < 4.
void validate_rope_config(const RopeConfig& c);

// Default RoPE: inv_freq_j = base^(−2j/D), j = 0 … P−1 (the lecture's step 1).
std::vector<double> rope_default_inv_freq(std::size_t dim, double base);

// The effective base for ntk (base·f^(D/(D−2))) and dynamic
// (base·(f·max(T, L₀)/L₀ − (f−1))^(D/(D−2))); `base` for the other scalings.
double rope_effective_base(const RopeConfig& c);

// YaRN's correction range [low, high] in pair indices: d(r) = D·ln(L₀/(2πr)) / (2 ln base),
// low = d(β_fast), high = d(β_slow), floored/ceiled when truncating, clamped to [0, D−1].
std::pair<double, double> yarn_correction_range(const RopeConfig& c);

// inv_freq (P) under c.scaling (validates c first):
//   none, xpos: base^(−2j/D)
//   linear:     base^(−2j/D) / f                                  (position interpolation)
//   ntk, dynamic: effective_base^(−2j/D)
//   yarn:       interp·(1 − e_j) + extrap·e_j, e_j = 1 − ramp_j(low, high), interp = extrap/f
//   llama3:     by wavelength λ_j = 2π/inv_freq_j: λ < L₀/high → kept; λ > L₀/low → /f;
//               between: (1 − s)·inv/f + s·inv, s = (L₀/λ − low)/(high − low)
std::vector<double> rope_inv_freq(const RopeConfig& c);

// Multiplier of cos and sin (HF "attention_factor"): yarn 0.1·ln(f) + 1 when f > 1 (get_mscale),
// else 1. It multiplies both q and k, so scores scale by its square.
double rope_attention_factor(const RopeConfig& c);

// XPos per-pair base ζ_j = (2j + γD) / ((1 + γ)D) (P values).
std::vector<double> xpos_zeta(const RopeConfig& c);

// Magnitude factor of pair j at position pos for `role`: xpos ζ_j^(±pos/B), yarn attention
// factor, 1 otherwise.
double rope_pair_scale(const RopeConfig& c, std::size_t j, double pos, RopeRole role);

// Indices (a, b) of pair j in a D-vector for the layout: interleaved (2j, 2j+1), half (j, j+P).
std::pair<std::size_t, std::size_t> rope_pair_indices(std::size_t j, std::size_t dim, RopeLayout layout);

// perm with half_vector[k] = interleaved_vector[perm[k]]: perm[j] = 2j, perm[j+P] = 2j+1.
std::vector<std::size_t> rope_half_from_interleaved(std::size_t dim);

// θ(pos, j) = pos · inv_freq_j -> (L, P)
Tensor rope_angles(std::size_t len, const RopeConfig& c);
// Which of the three tables (tfx rope --what).
enum class RopeTable { theta, cos, sin };
inline constexpr Choice<RopeTable> kRopeTableChoices[] = {
    {RopeTable::theta, "theta", N_("the angles θ = pos · ω_j")},
    {RopeTable::cos, "cos", N_("cos θ")},
    {RopeTable::sin, "sin", N_("sin θ")},
};
// cos θ(pos, j) -> (L, P) and sin θ(pos, j) -> (L, P) (without the attention factor)
Tensor rope_cos_table(std::size_t len, const RopeConfig& c);
Tensor rope_sin_table(std::size_t len, const RopeConfig& c);

// x: (D) -> R_pos x (D), the real form: per pair
//   [x'_a]   [cos θ  −sin θ] [x_a]
//   [x'_b] = [sin θ   cos θ] [x_b] · scale_j,   θ = θ(pos, j), scale_j = rope_pair_scale(...)
std::vector<float> rope_rotate(std::span<const float> x, double pos, const RopeConfig& c,
                               RopeRole role = RopeRole::query);

// The same rotation as complex multiplication: z_j = x_a + i·x_b, z'_j = z_j · scale_j·e^{iθ}.
std::vector<std::complex<double>> rope_rotate_complex(std::span<const float> x, double pos, const RopeConfig& c,
                                                      RopeRole role = RopeRole::query);

// One vector's rotation with everything `tfx rope rotate` shows, pair by pair (P entries each).
struct RopeRotation {
  std::vector<float> rotated;                         // R_pos x (D), the real form (rope_rotate)
  std::vector<double> inv_freq, theta, cos, sin;      // inv_freq_j, θ = pos·inv_freq_j, cos θ, sin θ
  std::vector<double> scale;                          // rope_pair_scale (1 without XPos/attention factor)
  std::vector<std::complex<double>> complex;          // z'_j of rope_rotate_complex
  std::vector<double> complex_diff;                   // |z'_j − (x'_a + i·x'_b)|: complex vs real form
  double complex_max_diff = 0;
  double norm_before = 0, norm_after = 0;             // ‖x‖, ‖R_pos x‖ (in double)
  double norm_ratio = 1;                              // ‖R_pos x‖ / ‖x‖ (1 for x = 0)
};
// x: (D) -> the rotation R_pos x in both forms, with each pair's angle and scale.
RopeRotation rope_rotation(std::span<const float> x, double pos, const RopeConfig& c, RopeRole role = RopeRole::query);

// x: (D), one vector placed at every position 0 … L−1 -> (L, D): row p = R_p x.
Tensor rope_rotate_positions(std::span<const float> x, std::size_t len, const RopeConfig& c,
                             RopeRole role = RopeRole::query);

// q, k: (D) -> (L, L): s_ij = ⟨R_i q, R_j k⟩ / √D, composed as matmul_bt(R q rows, R k rows)·1/√D.
Tensor rope_relative_scores(std::span<const float> q, std::span<const float> k, std::size_t len, const RopeConfig& c);

// q, k: (D) -> (L, L): s_ij = ⟨q + PE_i, k + PE_j⟩ / √D with sinusoidal PE (positional.hpp).
Tensor additive_pe_scores(std::span<const float> q, std::span<const float> k, std::size_t len, double base = 10000.0);

// The RoFormer long-term decay bound against relative distance m = 0 … L−1 -> (L):
//   (1/P)·Σ_{j=1}^{P} |S_j|,  S_j = Σ_{k<j} w_k(m)·e^{i m θ_k}   (w = ζ_k^(m/B) for xpos, else 1)
std::vector<double> rope_decay_curve(std::size_t len, const RopeConfig& c);

// A reproducible vector of D values uniform in [−1, 1) from `seed` (mt19937_64, 53-bit mantissa,
// identical on every platform).
std::vector<float> rope_random_vector(std::size_t dim, std::uint64_t seed);

// ---- RoPE on a model's activations (the checkpoint families' op, both layouts)

// cos and sin of θ(t, j) = t·inv_freq_j for positions t = 0 … T−1, each times the attention factor
// (YaRN), in float32 as Hugging Face computes them (the angle rounded to float before cos/sin).
// Uses c.seq_len = T (dynamic scaling). cos, sin: (T, P) row-major, P = c.dim / 2.
struct RopeTables {
  std::size_t len = 0, pairs = 0;
  std::vector<float> cos, sin;
};
RopeTables rope_tables(std::size_t len, const RopeConfig& c);

// Rotates every head of x in place: x (T, heads·hd) with hd = 2·t.pairs, row t by position t; pair
// j of a head is (2j, 2j+1) for RopeLayout::interleaved, (j, j + hd/2) for RopeLayout::half (HF's
// rotate_half): x'_a = x_a·cos − x_b·sin, x'_b = x_b·cos + x_a·sin.
void rope_rotate_heads(Tensor& x, std::size_t heads, const RopeTables& t, RopeLayout layout);
// Its backward: the rotation is orthogonal (up to the attention factor m, which scales cos and sin
// alike), so dx = R_tᵀ·dy: each pair rotated back, x'_a = a·cos + b·sin, x'_b = b·cos − a·sin.
// dy: (T, heads·hd) in place -> dx.
void rope_rotate_heads_backward(Tensor& dy, std::size_t heads, const RopeTables& t, RopeLayout layout);

}  // namespace tfx
