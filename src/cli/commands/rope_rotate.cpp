// `tfx rope rotate`: one vector before and after the rotation R_pos, pair by pair with each
// pair's angle, the norms (preserved without scaling), and with --complex the same rotation as
// complex multiplication and its difference from the real (2×2 matrix) form.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "cli/common.hpp"
#include "cli/rope_flags.hpp"
#include "tfx/core/ops.hpp"

namespace tfx::cli {

namespace {

struct RopeRotateOptions {
  std::optional<std::int64_t> dim;
  std::int64_t pos = 1;
  std::string vector;
  std::uint64_t seed = 42;
  bool complex = false;
  bool key = false;
  RopeFlags rope;
  OutputFlags out;
  FigureFlags fig;
  CLI::Option* vector_opt = nullptr;
};

// At most this many pairs are drawn (the table lists them all).
constexpr std::size_t kMaxDrawnPairs = 8;

// The figure: one panel per pair j (the first kMaxDrawnPairs), the pair (x_a, x_b) before and
// after the rotation as arrows on the unit circle (lengths relative to |x_pair|), the angle
// θ = pos·ω_j as an arc from the first arrow to the second.
Figure rotation_figure(const std::vector<float>& x, const std::vector<float>& y, const std::vector<double>& inv, double pos,
                       const RopeConfig& c) {
  Figure f;
  const std::size_t P = inv.size(), shown = std::min(P, kMaxDrawnPairs);
  f.title = fmt::format("RoPE rotates pair j by θ = pos · ω_j, pos = {}{}", pos,
                        shown < P ? fmt::format(" (pairs 0–{} of {})", shown - 1, P) : "");
  f.columns = static_cast<int>(std::min<std::size_t>(shown, 4));
  for (std::size_t j = 0; j < shown; ++j) {
    const auto [a, b] = rope_pair_indices(j, c.dim, c.layout);
    const double len = std::hypot(x[a], x[b]);
    const double ax = len > 0 ? x[a] / len : 0, ay = len > 0 ? x[b] / len : 0;
    const double bx = len > 0 ? y[a] / len : 0, by = len > 0 ? y[b] / len : 0;
    const double theta = pos * inv[j], turns = std::floor(theta / (2 * std::numbers::pi));
    const double reach = std::max({1.0, std::hypot(bx, by)}) * 1.32;
    Diagram d;
    d.title = fmt::format("pair {} (dims {}, {})", j, a, b);
    d.subtitle = fmt::format("ω = {:.4g}, θ = {:.3f} rad{}", inv[j], theta, turns >= 1 ? fmt::format(" ({:.0f} turns +)", turns) : "");
    d.x0 = d.y0 = -reach;
    d.x1 = d.y1 = reach;
    d.size = 250;
    d.axes = true;
    d.circles.push_back({0, 0, 1, true});
    if (len > 0) {
      const double start = std::atan2(ay, ax), sweep = theta - turns * 2 * std::numbers::pi;
      // a small angle's label would sit on the arrows: the subtitle gives it then
      d.arcs.push_back({0, 0, 0.38, start, start + sweep, -1, sweep >= 0.6 ? fmt::format("θ = {:.2f}", sweep) : ""});
      // x's label on its clockwise side, R x's on its counter-clockwise side: apart even when close
      d.arrows.push_back({0, 0, ax, ay, 0, "x", false, -1});
      d.arrows.push_back({0, 0, bx, by, 3, "R x", false, +1});
    } else {
      d.labels.push_back({0, 0.5, "zero pair: nothing to rotate", -1});
    }
    f.panels.push_back(std::move(d));
  }
  return f;
}

void run_rope_rotate(const RopeRotateOptions& o) {
  std::vector<float> x;
  std::int64_t dim = o.dim.value_or(8);
  if (o.vector_opt->count() > 0) {
    x = parse_vector_flag(o.vector, "--vector");
    if (!o.dim) dim = static_cast<std::int64_t>(x.size());
    if (static_cast<std::int64_t>(x.size()) != dim)
      throw usage_error(fmt::format("--vector has {} values but --dim is {}; give exactly D values", x.size(), dim));
  }
  const RopeConfig c = rope_config(o.rope, dim, single_scaling(o.rope), static_cast<std::size_t>(o.pos) + 1);
  if (x.empty()) x = rope_random_vector(c.dim, o.seed);

  const double pos = static_cast<double>(o.pos);
  const RopeRole role = o.key ? RopeRole::key : RopeRole::query;
  const RopeRotation rot = rope_rotation(x, pos, c, role);
  const std::vector<float>& y = rot.rotated;
  // float32 overflow (|x| near 3.4e38, or an XPos key's zeta^(-pos/B) at a large --pos) would print inf
  for (const float v : y)
    if (!std::isfinite(v))
      throw usage_error(fmt::format("the rotated vector at --pos {} overflows float32 (a value became ±inf); use smaller "
                                    "--vector values{}",
                                    o.pos, c.scaling == RopeScaling::xpos ? " or a smaller --pos" : ""));
  const std::vector<double>& inv = rot.inv_freq;

  Result r;
  r.command = "rope rotate";
  r.params = rope_params(c);
  r.params["pos"] = o.pos;
  if (o.vector_opt->count() == 0) r.params["seed"] = o.seed;
  if (c.scaling == RopeScaling::xpos) r.params["role"] = o.key ? "key" : "query";

  r.blocks.push_back(Text{fmt::format("R_pos x at pos = {}, D = {}: each pair (x_a, x_b) is rotated by theta = pos * inv_freq_j; {}",
                                      o.pos, c.dim, rope_description(c))});
  Records pairs;
  pairs.name = "pairs";
  pairs.columns = {"j", "dims", "inv_freq", "theta", "cos", "sin", "x_a", "x_b", "x'_a", "x'_b"};
  const bool scaled = c.scaling == RopeScaling::xpos || rope_attention_factor(c) != 1.0;
  if (scaled) pairs.columns.push_back("scale");
  for (std::size_t j = 0; j < inv.size(); ++j) {
    const auto [a, b] = rope_pair_indices(j, c.dim, c.layout);
    std::vector<Cell> row{static_cast<long long>(j), fmt::format("({},{})", a, b), inv[j], rot.theta[j], rot.cos[j], rot.sin[j],
                          static_cast<double>(x[a]), static_cast<double>(x[b]), static_cast<double>(y[a]), static_cast<double>(y[b])};
    if (scaled) row.push_back(rot.scale[j]);
    pairs.rows.push_back(std::move(row));
  }
  r.blocks.push_back(std::move(pairs));

  Matrix m;
  m.name = "vectors";
  m.values = Tensor({2, c.dim});
  std::copy(x.begin(), x.end(), m.values.row(0).begin());
  std::copy(y.begin(), y.end(), m.values.row(1).begin());
  m.row_labels = {"x", "R x"};
  m.row_axis = "vector";
  m.col_axis = "dim";
  r.blocks.push_back(std::move(m));
  r.primary = "vectors";

  r.summary["norm_before"] = rot.norm_before;
  r.summary["norm_after"] = rot.norm_after;
  r.summary["norm_ratio"] = rot.norm_ratio;
  if (o.complex) {
    // the same rotation as z_j · e^{iθ}, and its difference from the real form pair by pair
    const auto& z = rot.complex;
    Records cx;
    cx.name = "complex";
    cx.columns = {"j", "z_j = x_a + i x_b", "e^(i theta)", "z'_j", "|z'_j - (x'_a + i x'_b)|"};
    const double maxdiff = rot.complex_max_diff;
    for (std::size_t j = 0; j < z.size(); ++j) {
      const auto [a, b] = rope_pair_indices(j, c.dim, c.layout);
      cx.rows.push_back({static_cast<long long>(j), fmt::format("{:.4f}{:+.4f}i", x[a], x[b]),
                         fmt::format("{:.4f}{:+.4f}i", rot.cos[j], rot.sin[j]),
                         fmt::format("{:.4f}{:+.4f}i", z[j].real(), z[j].imag()), rot.complex_diff[j]});
    }
    r.blocks.push_back(Text{"Complex form: z'_j = z_j * e^(i theta) (times the pair's scale) equals the 2x2 rotation"});
    r.blocks.push_back(std::move(cx));
    r.summary["complex_max_diff"] = maxdiff;
    r.blocks.push_back(Text{fmt::format("max |complex - real| = {:.3g} (float32 storage of the real form)", maxdiff)});
  }
  const Figure figure = rotation_figure(x, y, inv, pos, c);
  present_all(r, o.out, o.fig, &figure, nullptr, fmt::format("rope_rotate_pos{}_dim{}{}.png", o.pos, c.dim, rope_name_suffix(c)));
}

}  // namespace

void register_rope_rotate(CLI::App* rope) {
  auto opts = std::make_shared<RopeRotateOptions>();
  CLI::App* sub = rope->add_subcommand("rotate", "One vector before and after rotation R_pos, pair by pair; norms; --complex form");
  sub->group("Subcommands");
  sub->add_option("--dim", opts->dim, "Head dimension D (even; default: the --vector's length, else 8)")
      ->check(whole_number(1, std::int64_t{1} << 16));  // one table row per pair: 2^24 took 10 GB
  sub->add_option("--pos", opts->pos, "Position pos of the vector")->capture_default_str()->check(whole_number(0, std::int64_t{1} << 40));
  opts->vector_opt = sub->add_option("--vector", opts->vector, "The vector, D comma-separated numbers, e.g. 1,0,0,1");
  auto* seed = add_seed_flag(sub, opts->seed, "Seed of a random vector uniform in [-1, 1) (when no --vector)");
  opts->vector_opt->excludes(seed);
  sub->add_flag("--complex", opts->complex, "Also compute the rotation as complex multiplication and print the difference");
  sub->add_flag("--key", opts->key, "XPos: treat the vector as a key (scaled by zeta^(-pos/B) instead of zeta^(pos/B))");
  add_rope_flags(sub, opts->rope);
  add_output_flags(sub, opts->out);
  add_figure_flags(sub, opts->fig, false);
  set_examples(sub, {"tfx rope rotate --dim 2 --pos 1 --vector 1,0       # (cos 1, sin 1)",
                     "tfx rope rotate --dim 8 --pos 3 --png               # each pair's arrows on the unit circle",
                     "tfx rope rotate --dim 4 --pos 3 --vector 1,0,0,1 --complex",
                     "tfx rope rotate --dim 8 --pos 5 --seed 7 --layout half",
                     "tfx rope rotate --dim 8 --pos 100 --scaling yarn --factor 4 --original-max-pos 64"});
  sub->callback([opts] { run_rope_rotate(*opts); });
}

}  // namespace tfx::cli
