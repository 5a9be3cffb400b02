// `tfx rope relative`: fixed q and k placed at every (i, j); the RoPE scores
// s_ij = ⟨R_i q, R_j k⟩/√D are constant along each diagonal j − i, the additive-sinusoidal
// scores ⟨q + PE_i, k + PE_j⟩/√D are not. Both tables, the spread per diagonal, two heatmaps.
#include <fmt/format.h>

#include <algorithm>

#include "cli/common.hpp"
#include "cli/flags/shared_flags.hpp"
#include "tfx/io/matrix_io.hpp"
#include "tfx/core/memory.hpp"
#include "cli/commands/rope/rope_flags.hpp"
#include "tfx/positional/positional.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct RopeRelativeOptions {
  std::int64_t dim = 64;
  std::int64_t len = 16;
  std::uint64_t seed = 42;
  std::string q, k;  // the user's own vectors (comma-separated); empty = random from --seed
  CLI::Option *dim_opt = nullptr, *q_opt = nullptr, *k_opt = nullptr;
  RopeFlags rope;
  OutputFlags out;
  FigureFlags fig;
};

// --q / --k: a matrix (file or rows inline) that must be one row of D numbers.
std::vector<float> one_row(const std::string& value, const char* flag) {
  const LoadedMatrix m = read_matrix_arg(value, flag);
  if (m.values.rows() != 1)
    throw usage_error(fmt::format(N_("{}: expected one row of D numbers (a vector), got {} rows"), flag, m.values.rows()));
  return {m.values.values().begin(), m.values.values().end()};
}

void run_rope_relative(const RopeRelativeOptions& o) {
  const auto L = static_cast<std::size_t>(o.len);
  const bool own = o.q_opt->count() > 0;
  if (own != (o.k_opt->count() > 0)) throw usage_error(N_("--q and --k go together: give both vectors (or neither, for random ones)"));
  std::vector<float> q, k;
  std::int64_t dim = o.dim;
  if (own) {
    q = one_row(o.q, "--q");
    k = one_row(o.k, "--k");
    if (q.size() != k.size()) throw usage_error(fmt::format(N_("--q has {} values but --k has {}; q and k need the same length"), q.size(), k.size()));
    if (o.dim_opt->count() && static_cast<std::size_t>(o.dim) != q.size())
      throw usage_error(fmt::format(N_("--q has {} values but --dim is {}; give exactly D values (or leave out --dim)"), q.size(), o.dim));
    dim = static_cast<std::int64_t>(q.size());
  }
  const RopeConfig c = rope_config(o.rope, dim, single_scaling(o.rope), L);
  // q, k and their rotations: about 100 bytes a dimension (2^20 took 100 MB)
  check_memory(128.0 * static_cast<double>(c.dim), fmt::format(N_("--dim {} (q, k and their rotations)"), c.dim));
  checked_element_count({L, L}, fmt::format("--len {} (an L×L score table)", o.len));
  // q and k from one generator stream: q from seed, k from seed + 1
  if (!own) {
    q = rope_random_vector(c.dim, o.seed);
    k = rope_random_vector(c.dim, o.seed + 1);
  }

  Matrix rs;
  rs.name = N_("rope_scores");
  rs.values = rope_relative_scores(q, k, L, c);
  rs.row_axis = N_("i");
  rs.col_axis = N_("j");
  Matrix ps;
  ps.name = N_("additive_pe_scores");
  ps.values = additive_pe_scores(q, k, L, c.base);
  ps.row_axis = N_("i");
  ps.col_axis = N_("j");

  const std::vector<double> rope_spread = diagonal_spread(rs.values), pe_spread = diagonal_spread(ps.values);
  Records diag;
  diag.name = N_("diagonal_spread");
  diag.columns = {N_("j-i"), N_("rope_spread"), N_("additive_pe_spread")};
  for (std::size_t d = 0; d < rope_spread.size(); ++d)
    diag.rows.push_back({static_cast<long long>(d) - static_cast<long long>(L - 1), rope_spread[d], pe_spread[d]});

  Result r;
  r.command = "rope relative";
  r.params = rope_params(c);
  r.params["len"] = L;
  if (own) {
    r.params["q"] = q;
    r.params["k"] = k;
  } else {
    r.params["seed"] = o.seed;
  }
  const std::string qk_from = own ? std::string("--q, --k") : trf("seed {}", o.seed);
  r.blocks.push_back(Text{trf("Fixed q, k ({}) placed at every position: RoPE s_ij = <R_i q, R_j k>/sqrt(D) depends only on "
                                      "j - i; additive s_ij = <q + PE_i, k + PE_j>/sqrt(D) does not. {}",
                                      qk_from, rope_description(c))});
  r.blocks.push_back(rs);
  r.blocks.push_back(ps);
  r.blocks.push_back(std::move(diag));
  r.primary = "rope_scores";
  r.summary[N_("rope_max_diagonal_spread")] = *std::max_element(rope_spread.begin(), rope_spread.end());
  r.summary[N_("additive_pe_max_diagonal_spread")] = *std::max_element(pe_spread.begin(), pe_spread.end());
  r.blocks.push_back(Text{trf("Max spread along a diagonal j - i: RoPE {:.3g} (float32 rounding), additive PE {:.3g}",
                                      r.summary[N_("rope_max_diagonal_spread")].get<double>(),
                                      r.summary[N_("additive_pe_max_diagonal_spread")].get<double>())});

  auto heatmap = [&](const Matrix& m, std::string title, double spread) {
    Heatmap h;
    h.values = m.values;
    h.title = std::move(title);
    h.subtitle = trf("max spread along a diagonal j − i: {:.3g}", spread);
    h.value_label = tr("score s_ij");
    h.x_label = tr("key position j");
    h.y_label = tr("query position i");
    h.cmap = o.fig.cmap.empty() ? Colormap::diverging : parse_colormap(o.fig.cmap);
    h.symmetric = true;
    return h;
  };
  Heatmap hr = heatmap(rs, "RoPE ⟨R_i q, R_j k⟩/√D", r.summary[N_("rope_max_diagonal_spread")].get<double>());
  Heatmap hp = heatmap(ps, tr("Additive PE ⟨q + PE_i, k + PE_j⟩/√D"), r.summary[N_("additive_pe_max_diagonal_spread")].get<double>());
  Figure figure;
  figure.title = trf("Scores of fixed q, k at every (i, j), D = {}, L = {}", c.dim, L);
  figure.panels = {hr, hp};
  figure.columns = 2;
  present_all(r, o.out, o.fig, &figure, &hr, fmt::format("rope_relative_len{}_dim{}{}.png", L, c.dim, rope_name_suffix(c)));
}

}  // namespace

void register_rope_relative(CLI::App* rope) {
  auto [sub, opts] = add_command(*rope, "relative", tr("Scores <R_i q, R_j k>/sqrt(D) depend only on j-i; additive PE scores do not"),
                                 run_rope_relative, tr("Subcommands"));
  opts->dim_opt = add_rope_dim_flag(sub, opts->dim, tr("with --q/--k: their length"));
  add_len_flag(sub, opts->len, tr("the tables are L x L"));
  add_seed_flag(sub, opts->seed);
  opts->q_opt = add_q_flag(sub, opts->q, tr("your own query vector: one row of D numbers, with --k; default: random from --seed"));
  opts->k_opt = add_k_flag(sub, opts->k, tr("your own key vector: one row of D numbers, with --q"));
  add_rope_flags(sub, opts->rope);
  add_presentation_flags(sub, opts->out, opts->fig);
  set_examples(sub, {tr("tfx rope relative --dim 64 --len 16            # spreads: RoPE ~1e-7, additive PE ~1"),
                     tr("tfx rope relative --dim 64 --len 64 --png      # both heatmaps side by side"),
                     tr("tfx rope relative --dim 32 --len 32 --scaling xpos --format json"),
                     tr("tfx rope relative --dim 64 --len 16 --layout half --seed 3"),
                     tr("tfx rope relative --q 1,0,0.5,-1 --k 0,1,1,0.25 --len 8   # your own q and k")});
}

}  // namespace tfx::cli
