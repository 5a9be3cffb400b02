// Sinusoidal positional encodings (Vaswani et al. 2017, the lecture's PE), single values with
// their formula, the shift-is-a-rotation property and PE·PEᵀ similarity.
//
// Letters: L = number of positions, D = model dimension (d_model), k = an offset in positions.
// Odd D is supported: column D−1 is then a sine (pair (D−1)/2 has no cosine partner).
#pragma once
#include "tfx/core/i18n.hpp"
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tfx/core/choices.hpp"
#include "tfx/core/progress.hpp"
#include "tfx/core/tensor.hpp"

namespace tfx {

// ω_i = base^(−2i/D), the angular frequency of pair i (columns 2i and 2i+1).
double pe_frequency(std::size_t pair, std::size_t dim, double base = 10000.0);

// PE(p, 2i) = sin(p · ω_i), PE(p, 2i+1) = cos(p · ω_i); j is the column (0 ≤ j < D).
double sinusoidal_value(double pos, std::size_t j, std::size_t dim, double base = 10000.0);

// -> (L, D): row p is PE(p). Computed in double, stored as float32.
Tensor sinusoidal_encoding(std::size_t len, std::size_t dim, double base = 10000.0);
// Only the rows at `positions` of that table -> (positions.size(), D): the same values, for a
// summary that shows a few rows of a table too big to compute whole.
Tensor sinusoidal_rows(const std::vector<std::size_t>& positions, std::size_t dim, double base = 10000.0);

// The worked formula for one value, e.g. "sin(1 / 10000^(2/4)) = sin(1 / 100)".
std::string sinusoidal_formula(std::size_t pos, std::size_t j, std::size_t dim, double base = 10000.0);

// ---- The naive alternative note 002 argues against: the position itself as the code

// code(p) = p / (L − 1) for p = 0 … L−1 (the first word 0, the last 1; L = 1: 0) -> (L) in
// double. The same position gets another code in a sentence of another length L, and the step
// between neighbours, 1/(L − 1), shrinks as L grows; the raw index p instead grows without bound.
std::vector<double> linear_position_code(std::size_t len);

// ---- PE·PEᵀ similarity (the lecture's "dot product of position embeddings for all time-steps")

enum class PeMetric { dot, cosine, euclidean };
inline constexpr Choice<PeMetric> kPeMetricChoices[] = {
    {PeMetric::dot, "dot", N_("PE·PEᵀ")},
    {PeMetric::cosine, "cosine", N_("dot / (‖PE(i)‖‖PE(j)‖) = dot/(D/2)")},
    {PeMetric::euclidean, "euclidean", N_("‖PE(i) − PE(j)‖ = √(D − 2·dot): equal offsets, equal distances")},
};
// "dot" | "cosine" | "euclidean"; anything else throws a usage error naming `metric`.
PeMetric parse_pe_metric(const std::string& name);

// pe: (L, D) -> (L, L). dot: S(i, j) = PE(i)·PE(j); cosine: S(i, j) = PE(i)·PE(j) / (‖PE(i)‖‖PE(j)‖)
// (rows normalised first, then one product); euclidean: S(i, j) = ‖PE(i) − PE(j)‖ =
// √(‖PE(i)‖² + ‖PE(j)‖² − 2·PE(i)·PE(j)) from the same product (0 on the diagonal). Uses matmul_bt
// on all hardware threads.
Tensor pe_similarity(const Tensor& pe, PeMetric metric);

// Closed form of the sinusoidal dot product at offset k = j − i for even D:
//   PE(i)·PE(j) = Σ_{pairs m} [sin iω_m sin jω_m + cos iω_m cos jω_m] = Σ_{m < D/2} cos(k·ω_m)
// (depends on k only; the cosine similarity is this divided by ‖PE‖² = D/2).
double pe_dot_closed_form(std::int64_t k, std::size_t dim, double base = 10000.0);
// The same for every offset k = 0 … len−1 at once (ω computed once): -> f with f[k] = Σ cos(k·ω_m).
std::vector<double> pe_dot_closed_form_profile(std::size_t len, std::size_t dim, double base = 10000.0);

// Block means of S = PE·PEᵀ (or cosine) for even D without forming the L×L matrix, for figures
// of any L: S(i, j) = f(j − i) with f the closed form above, so with prefix sums F of f over the
// offsets a block's sum is Σ_i [F(j1 − i) − F(j0 − i)].  -> (⌈L/b⌉, ⌈L/b⌉), b = ⌈L / max_cells⌉
// (returned in *block). Odd D throws (no closed form). Reports progress in block rows.
Tensor pe_similarity_block_means(std::size_t len, std::size_t dim, double base, PeMetric metric, std::size_t max_cells,
                                 std::size_t* block = nullptr, const Progress& progress = {});

// The similarity as a function of the offset k = j − i, for k = −(L−1) … L−1 (index k + L − 1):
// mean, min and max of S along the diagonal j − i = k; spread = max − min. For sinusoidal PE
// (even D) every diagonal is constant up to float rounding.
struct OffsetProfile {
  std::vector<std::int64_t> offset;
  std::vector<double> mean, min, max;
  double max_spread = 0;  // largest max − min over all diagonals
};
// sim: (L, L)
OffsetProfile offset_profile(const Tensor& sim);

// The offset profile of a PE similarity next to the closed form it follows for even D.
struct ClosedFormCheck {
  std::vector<double> closed_form;  // (2L−1), index k + L − 1: Σ cos(k·ω) (dot), that / (D/2) (cosine), √(D − 2 Σ cos(k·ω)) (euclidean)
  double max_error = 0;             // max over diagonals of |min − closed|, |max − closed|; 0 for odd D
};
// prof: offset_profile of the (L, L) similarity of sinusoidal_encoding(L, dim, base) under metric.
ClosedFormCheck pe_closed_form_check(const OffsetProfile& prof, std::size_t dim, double base, PeMetric metric);

// s: (L, L) -> (2L−1): spread (max − min) of each diagonal j − i = d, indexed d + L − 1
// (offset_profile's max − min; used for RoPE's relative-position scores too).
std::vector<double> diagonal_spread(const Tensor& s);

// ---- shift = rotation (the lecture's periodicity slide)
//   [sin((p+k)ω)]   [ cos kω  sin kω] [sin pω]
//   [cos((p+k)ω)] = [−sin kω  cos kω] [cos pω]

// R(k): (D, D) block-diagonal, block m on rows/columns (2m, 2m+1) = [[cos kω_m, sin kω_m],
// [−sin kω_m, cos kω_m]], so PE(p+k) = R(k)·PE(p) for every p. Any integer k (negative = back).
// D must be even (an odd D's last sine column has no cosine partner): usage error otherwise.
Tensor shift_rotation(std::int64_t k, std::size_t dim, double base = 10000.0);

// pe: (L, D), r: (D, D). Rotates every PE(p) (PE·Rᵀ, one product) and compares with PE(p+k):
// max |PE(p+k) − R·PE(p)| over all p with 0 ≤ p, p + k < L, and how many p that is.
struct ShiftCheck {
  double max_error = 0;
  std::size_t positions = 0;
  std::int64_t worst_position = 0;  // p where the error is largest
};
ShiftCheck check_shift(const Tensor& pe, const Tensor& r, std::int64_t k);

}  // namespace tfx
