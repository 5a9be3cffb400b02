// `tfx rope rotate`: one vector before and after the rotation R_pos, pair by pair with each
// pair's angle, the norms (preserved without scaling), and with --complex the same rotation as
// complex multiplication and its difference from the real (2×2 matrix) form.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "cli/flags/shared_flags.hpp"
#include "cli/common.hpp"
#include "tfx/core/memory.hpp"
#include "tfx/figure/pair_panel.hpp"
#include "cli/commands/rope/rope_flags.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/i18n.hpp"

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
  GifFlags gif;
  CLI::Option* vector_opt = nullptr;
};

// At most this many pairs are drawn (the table lists them all).
constexpr std::size_t kMaxDrawnPairs = 8;

// The figure: one panel per pair j (the first kMaxDrawnPairs), the pair (x_a, x_b) before and
// after the rotation as arrows on the unit circle (lengths relative to |x_pair|), the angle
// θ = pos·ω_j as an arc from the first arrow to the second. The --gif frames draw R_m x and
// R_{m+pos} x the same way (labels and title say which); their arc is the gap pos·ω_j between
// two positions (`offset`), which the subtitle names as such rather than θ.
Figure rotation_figure(const std::vector<float>& x, const std::vector<float>& y, const std::vector<double>& inv, double pos,
                       const RopeConfig& c, const std::string& a_label = "x", const std::string& b_label = "R x",
                       const std::string& title = "", bool offset = false) {
  Figure f;
  const std::size_t P = inv.size(), shown = std::min(P, kMaxDrawnPairs);
  f.title = !title.empty() ? title
                           : trf("RoPE rotates pair j by θ = pos · ω_j, pos = {}{}", pos,
                                         shown < P ? trf(" (pairs 0–{} of {})", shown - 1, P) : "");
  f.columns = static_cast<int>(std::min<std::size_t>(shown, 4));
  for (std::size_t j = 0; j < shown; ++j) {
    const auto [a, b] = rope_pair_indices(j, c.dim, c.layout);
    const double len = std::hypot(x[a], x[b]);
    const double theta = pos * inv[j], turns = std::floor(theta / (2 * std::numbers::pi));
    PairArrows p;
    p.title = trf("pair {} (dims {}, {})", j, a, b);
    // θ is the notes' pos·ω (the angle of one position); the GIF's arc is the gap between two positions
    p.subtitle = offset ? trf("ω = {:.4g}, gap (m+{})ω − mω = {:.3f} rad{}", inv[j], pos, theta, turns >= 1 ? trf(" ({:.0f} turns +)", turns) : "")
                        : trf("ω = {:.4g}, θ = {:.3f} rad{}", inv[j], theta, turns >= 1 ? trf(" ({:.0f} turns +)", turns) : "");
    p.zero = !(len > 0);
    if (!p.zero) {
      p.ax = x[a] / len, p.ay = x[b] / len, p.bx = y[a] / len, p.by = y[b] / len;
      p.sweep = theta - turns * 2 * std::numbers::pi;
    }
    p.a_label = a_label, p.b_label = b_label;
    f.panels.push_back(pair_panel(p));
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
      throw usage_error(fmt::format(N_("--vector has {} values but --dim is {}; give exactly D values"), x.size(), dim));
  }
  const RopeConfig c = rope_config(o.rope, dim, single_scaling(o.rope), static_cast<std::size_t>(o.pos) + 1);
  // one result row per pair and its numbers: about 650 bytes a dimension (65536 took 42 MB, 2^24 10 GB)
  check_memory(1024.0 * static_cast<double>(c.dim), fmt::format(N_("--dim {} (a table row per pair)"), c.dim));
  if (x.empty()) x = rope_random_vector(c.dim, o.seed);
  const std::string name = fmt::format("rope_rotate_pos{}_dim{}{}", o.pos, c.dim, rope_name_suffix(c));
  const bool gif_only = check_gif_target(o.gif, name + ".gif", o.out, o.fig);

  const double pos = static_cast<double>(o.pos);
  const RopeRole role = o.key ? RopeRole::key : RopeRole::query;
  const RopeRotation rot = rope_rotation(x, pos, c, role);
  const std::vector<float>& y = rot.rotated;
  // float32 overflow (|x| near 3.4e38, or an XPos key's zeta^(-pos/B) at a large --pos) would print inf
  for (const float v : y)
    if (!std::isfinite(v))
      throw usage_error(fmt::format(N_("the rotated vector at --pos {} overflows float32 (a value became ±inf); use smaller "
                                    "--vector values{}"),
                                    o.pos, c.scaling == RopeScaling::xpos ? " or a smaller --pos" : ""));
  const std::vector<double>& inv = rot.inv_freq;

  Result r;
  r.command = "rope rotate";
  r.params = rope_params(c);
  r.params["pos"] = o.pos;
  if (o.vector_opt->count() == 0) r.params["seed"] = o.seed;
  if (c.scaling == RopeScaling::xpos) r.params["role"] = o.key ? "key" : "query";

  r.blocks.push_back(Text{trf("R_pos x at pos = {}, D = {}: each pair (x_a, x_b) is rotated by theta = pos * inv_freq_j; {}",
                                      o.pos, c.dim, rope_description(c))});
  Records pairs;
  pairs.name = N_("pairs");
  pairs.columns = {N_("j"), N_("dims"), N_("inv_freq"), N_("theta"), N_("cos"), N_("sin"), N_("x_a"), N_("x_b"), N_("x'_a"), N_("x'_b")};
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
  m.name = N_("vectors");
  m.values = Tensor({2, c.dim});
  std::copy(x.begin(), x.end(), m.values.row(0).begin());
  std::copy(y.begin(), y.end(), m.values.row(1).begin());
  m.row_labels = {"x", "R x"};
  m.row_axis = N_("vector");
  m.col_axis = N_("dim");
  r.blocks.push_back(std::move(m));
  r.primary = "vectors";

  r.summary[N_("norm_before")] = rot.norm_before;
  r.summary[N_("norm_after")] = rot.norm_after;
  r.summary[N_("norm_ratio")] = rot.norm_ratio;
  if (o.complex) {
    // the same rotation as z_j · e^{iθ}, and its difference from the real form pair by pair
    const auto& z = rot.complex;
    Records cx;
    cx.name = N_("complex");
    cx.columns = {N_("j"), N_("z_j = x_a + i x_b"), N_("e^(i theta)"), N_("z'_j"), N_("|z'_j - (x'_a + i x'_b)|")};
    const double maxdiff = rot.complex_max_diff;
    for (std::size_t j = 0; j < z.size(); ++j) {
      const auto [a, b] = rope_pair_indices(j, c.dim, c.layout);
      cx.rows.push_back({static_cast<long long>(j), fmt::format("{:.4f}{:+.4f}i", x[a], x[b]),
                         fmt::format("{:.4f}{:+.4f}i", rot.cos[j], rot.sin[j]),
                         fmt::format("{:.4f}{:+.4f}i", z[j].real(), z[j].imag()), rot.complex_diff[j]});
    }
    r.blocks.push_back(Text{tr("Complex form: z'_j = z_j * e^(i theta) (times the pair's scale) equals the 2x2 rotation")});
    r.blocks.push_back(std::move(cx));
    r.summary[N_("complex_max_diff")] = maxdiff;
    r.blocks.push_back(Text{trf("max |complex - real| = {:.3g} (float32 storage of the real form)", maxdiff)});
  }
  if (!gif_only) {
    const Figure figure = rotation_figure(x, y, inv, pos, c);
    present_all(r, o.out, o.fig, &figure, nullptr, name + ".png");
  }
  if (o.gif.requested()) {
    // frame m: x rotated to position m and to m + pos — both turn, pair j by ω_j per position,
    // and the angle between them stays pos·ω_j (what makes q·k depend on the offset alone)
    const RopeConfig cg = rope_config(o.rope, dim, single_scaling(o.rope), static_cast<std::size_t>(o.pos + o.gif.frames));
    std::vector<Figure> frames;
    for (std::int64_t m = 0; m < o.gif.frames; ++m) {
      const RopeRotation a = rope_rotation(x, static_cast<double>(m), cg, role), b = rope_rotation(x, static_cast<double>(m + o.pos), cg, role);
      // (a.inv_freq: cg's own frequencies, which dynamic NTK ties to the longer sequence)
      frames.push_back(rotation_figure(a.rotated, b.rotated, a.inv_freq, pos, cg, "m", fmt::format("m+{}", o.pos),
                                       trf("RoPE: x at m = {} and at m + {} turn together; their angle stays {}·ω_j", m, o.pos, o.pos), true));
    }
    write_gif(frames, o.gif, name + ".gif", o.out, o.fig);
  }
}

}  // namespace

void register_rope_rotate(CLI::App* rope) {
  auto [sub, opts] = add_command(*rope, "rotate", tr("One vector before and after rotation R_pos, pair by pair; norms; --complex form"),
                                 run_rope_rotate, tr("Subcommands"));
  add_rope_dim_flag(sub, opts->dim, tr("default: the --vector's length, else 8"));
  add_pos_flag(sub, opts->pos, tr("of the vector"))->capture_default_str();
  opts->vector_opt = sub->add_option("--vector", opts->vector, tr("The vector, D comma-separated numbers, e.g. 1,0,0,1"));
  auto* seed = add_seed_flag(sub, opts->seed, tr("a random vector uniform from −1 to 1 when no --vector"));
  opts->vector_opt->excludes(seed);
  sub->add_flag("--complex", opts->complex, tr("Also compute the rotation as complex multiplication and print the difference"));
  sub->add_flag("--key", opts->key, tr("XPos: treat the vector as a key (scaled by zeta^(-pos/B) instead of zeta^(pos/B))"));
  add_rope_flags(sub, opts->rope);
  add_output_flags(sub, opts->out);
  add_figure_flags(sub, opts->fig, false);
  add_gif_flags(sub, opts->gif, opts->out, tr("x at positions m and m + pos for m = 0 … --frames − 1: the pairs turn, their angle stays"));
  set_examples(sub, {tr("tfx rope rotate --dim 2 --pos 1 --vector 1,0       # (cos 1, sin 1)"),
                     tr("tfx rope rotate --dim 8 --pos 3 --seed 7 --gif     # the pairs turning with m, the angle pos·ω fixed"),
                     tr("tfx rope rotate --dim 8 --pos 3 --png               # each pair's arrows on the unit circle"),
                     tr("tfx rope rotate --dim 4 --pos 3 --vector 1,0,0,1 --complex"),
                     tr("tfx rope rotate --dim 8 --pos 5 --seed 7 --layout half"),
                     tr("tfx rope rotate --dim 8 --pos 100 --scaling yarn --factor 4 --original-max-pos 64")});
}

}  // namespace tfx::cli
