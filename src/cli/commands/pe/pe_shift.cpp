// `tfx pe shift`: the lecture's periodicity slide — moving k positions is a rotation:
// PE(p+k) = R(k)·PE(p) with R(k) block-diagonal, 2×2 blocks [[cos kω, sin kω], [−sin kω, cos kω]].
// Builds R(k), rotates every PE(p), reports max |PE(p+k) − R(k)·PE(p)|; --rotation prints R(k).
#include <fmt/format.h>

#include <cmath>
#include <numbers>

#include "cli/common.hpp"
#include "tfx/figure/pair_panel.hpp"
#include "cli/commands/pe/pe_commands.hpp"
#include "tfx/positional/positional.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct PeShiftOptions : PeShape {
  std::int64_t k = 1;
  bool show = false;
  OutputFlags out;
  FigureFlags fig;
  GifFlags gif;
};

// A --gif frame: PE(p) and R(k)·PE(p) pair by pair — each pair (sin pω, cos pω) as the point
// (cos pω, sin pω) on the unit circle, turning by ω per position; R(k) turns it by kω more.
Figure shift_frame(const Tensor& r_k, std::int64_t p, std::int64_t k, std::size_t D, double base, const std::vector<std::size_t>& pairs) {
  Figure f;
  f.title = trf("PE(p) and PE(p + {}) = R({})·PE(p) turn together: the same rotation at every p (p = {})", k, k, p);
  f.columns = static_cast<int>(std::min<std::size_t>(pairs.size(), 4));
  for (const std::size_t m : pairs) {
    const double w = pe_frequency(m, D, base);
    const double s = sinusoidal_value(static_cast<double>(p), 2 * m, D, base), c = sinusoidal_value(static_cast<double>(p), 2 * m + 1, D, base);
    PairArrows a;
    a.title = trf("pair {} (dims {}, {})", m, 2 * m, 2 * m + 1);
    const double angle = static_cast<double>(k) * w;
    a.subtitle = trf("ω = {:.4g}, kω = {:.3f} rad", w, angle);
    a.ax = c, a.ay = s;
    a.bx = r_k(2 * m + 1, 2 * m) * s + r_k(2 * m + 1, 2 * m + 1) * c;  // R(k)·PE(p), cos component
    a.by = r_k(2 * m, 2 * m) * s + r_k(2 * m, 2 * m + 1) * c;          // … sin component
    a.sweep = std::remainder(angle, 2 * std::numbers::pi);
    a.a_label = "p";
    a.b_label = fmt::format("p{:+}", k);
    f.panels.push_back(pair_panel(a));
  }
  return f;
}

void run_pe_shift(const PeShiftOptions& o) {
  // 1. validate: some p must have both p and p + k in 0..L−1
  if (o.k <= -o.len || o.k >= o.len)
    throw usage_error(fmt::format(N_("--offset {} is beyond ±{} (--len {}): no position p has both p and p{:+} in 0..{}"), o.k, o.len - 1, o.len,
                                  o.k, o.len - 1));
  const auto L = static_cast<std::size_t>(o.len), D = static_cast<std::size_t>(o.dim);
  const std::string name = fmt::format("pe_shift_k{}_dim{}", o.k, D);
  const bool gif_only = check_gif_target(o.gif, name + ".gif", o.out, o.fig);
  checked_element_count({L, D}, fmt::format("--len {} --dim {}", o.len, o.dim));
  // 2. compute
  const Tensor r_k = shift_rotation(o.k, D, o.base);
  const Tensor pe = sinusoidal_encoding(L, D, o.base);
  const ShiftCheck c = check_shift(pe, r_k, o.k);

  // 3. result: the blocks' angles (and R(k) itself with --rotation)
  Result r;
  r.command = "pe shift";
  r.params = {{"k", o.k}, {"len", L}, {"dim", D}, {"base", o.base}};
  r.blocks.push_back(Text{tr("PE(p+k) = R(k)·PE(p), R(k) block-diagonal with blocks [[cos kω_m, sin kω_m], [−sin kω_m, cos kω_m]] "
                             "on (sin, cos) pairs (2m, 2m+1)")});
  Records blocks;
  blocks.name = N_("blocks");
  blocks.columns = {N_("m"), N_("omega"), N_("angle_k_omega"), N_("cos"), N_("sin")};
  for (std::size_t m = 0; m < D / 2; ++m) {
    const double w = pe_frequency(m, D, o.base), a = static_cast<double>(o.k) * w;
    blocks.rows.push_back({static_cast<long long>(m), w, a, std::cos(a), std::sin(a)});
  }
  r.blocks.push_back(std::move(blocks));
  const Matrix rm{.name = N_("R"), .values = r_k, .row_axis = N_("row"), .col_axis = N_("col")};
  if (o.show) {
    r.blocks.push_back(rm);
    r.primary = "R";
  }
  r.blocks.push_back(Text{trf("checked {} positions p (p and p{:+} in 0..{}): max |PE(p+k) − R(k)·PE(p)| = {:.3g} (at p = {})",
                                      c.positions, o.k, L - 1, c.max_error, c.worst_position)});
  r.summary[N_("max_error")] = c.max_error;
  r.summary[N_("positions_checked")] = c.positions;
  // 4. figure: R(k) as a heatmap (the block diagonal)
  Heatmap h;
  h.values = r_k;
  h.title = trf("Shift by k = {} as a rotation: R({}) for D = {}", o.k, o.k, D);
  h.subtitle = trf("PE(p+k) = R(k)·PE(p); max error over {} positions {:.2g}", c.positions, c.max_error);
  h.x_label = tr("column");
  h.y_label = tr("row");
  h.value_label = tr("R(k) entry");
  h.row_group = h.col_group = 2;  // 2×2 rotation blocks stay whole in a reduced --view
  h.cmap = o.fig.cmap.empty() ? Colormap::diverging : parse_colormap(o.fig.cmap);
  h.vmin = -1.0;
  h.vmax = 1.0;
  Figure figure;
  figure.panels.push_back(h);
  if (!gif_only) present_all(r, o.out, o.fig, &figure, &h, name + ".png");
  if (o.gif.requested()) {
    // pairs that visibly turn: all of them up to 8, else 4 from the fastest to ω = base^(−1/2)
    const std::size_t P = D / 2;
    std::vector<std::size_t> pairs;
    if (P <= 8) {
      for (std::size_t m = 0; m < P; ++m) pairs.push_back(m);
    } else {
      pairs = {0, P / 8, P / 4, P / 2};
    }
    std::vector<Figure> frames;
    for (std::int64_t p = 0; p < o.gif.frames; ++p) frames.push_back(shift_frame(r_k, p, o.k, D, o.base, pairs));
    write_gif(frames, o.gif, name + ".gif", o.out, o.fig);
  }
}

}  // namespace

void register_pe_shift(CLI::App* pe) {
  auto [cmd, o] = add_command(*pe, "shift", tr("PE(p+k) = R(k)·PE(p): build the rotation R(k), apply it, report the max error"), run_pe_shift);
  add_offset_flag(cmd, o->k, tr("|k| < --len"));
  add_pe_shape_flags(cmd, *o, tr("checked"), tr("even"));
  cmd->add_flag("--rotation", o->show, tr("Print the D×D rotation matrix R(k) itself (and make it the csv/json/npy data)"));
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig);
  add_gif_flags(cmd, o->gif, o->out, tr("PE(p) and PE(p + k) pair by pair for p = 0 … --frames − 1: both turn, R(k) between them stays"));
  set_examples(cmd, {tr("tfx pe shift --offset 3 --dim 8 --rotation  # R(3) and max |PE(p+3) − R(3)·PE(p)|"),
                     tr("tfx pe shift --offset 3 --dim 8 --gif       # the pairs turning with p, the angle kω fixed"),
                     tr("tfx pe shift --offset -5 --dim 128 --len 50"),
                     tr("tfx pe shift --offset 3 --dim 16 --png")});
}

}  // namespace tfx::cli
