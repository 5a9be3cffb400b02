// `tfx pe`: the sinusoidal positional-encoding matrix, or one value with its formula.
#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "cli/flags/shared_flags.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/commands/pe/pe_commands.hpp"
#include "tfx/positional/positional.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct PeOptions : PeShape {
  std::optional<std::int64_t> pos;
  std::optional<std::int64_t> i;
  bool len_given = false;
  OutputFlags out;
  FigureFlags fig;
};

std::string base_suffix(double base) { return base == 10000.0 ? "" : fmt::format("_base{:g}", base); }

Result pe_value_result(const PeOptions& o) {
  const auto p = static_cast<std::size_t>(*o.pos), j = static_cast<std::size_t>(*o.i), d = static_cast<std::size_t>(o.dim);
  const double v = sinusoidal_value(static_cast<double>(p), j, d, o.base);
  Result r;
  r.command = "pe";
  r.params = {{"pos", p}, {"i", j}, {"dim", d}, {"base", o.base}};
  const int prec = o.out.precision < 0 ? 8 : o.out.precision;
  r.blocks.push_back(Text{trf("PE(pos={}, i={}) with d_model={}, base={:g}: i is {} → {}, 2i' = {}", p, j, d, o.base,
                                      j % 2 == 0 ? tr("even") : tr("odd"), j % 2 == 0 ? "sin" : "cos", j - j % 2)});
  r.blocks.push_back(Text{fmt::format("PE({},{}) = {} = {}", p, j, sinusoidal_formula(p, j, d, o.base), format_number(v, prec))});
  r.summary[N_("value")] = v;
  r.summary[N_("formula")] = sinusoidal_formula(p, j, d, o.base);
  return r;
}

void run_pe(const PeOptions& o) {
  if (o.pos || o.i) {
    if (!o.pos || !o.i) throw usage_error(N_("--pos and --i go together: tfx pe --dim 4 --pos 1 --i 2"));
    if (o.len_given && *o.pos >= o.len)
      throw usage_error(fmt::format(N_("--pos {} is outside --len {} (positions 0..{})"), *o.pos, o.len, o.len - 1));
    if (*o.i >= o.dim)
      throw usage_error(fmt::format(N_("--i {} is outside --dim {} (dimensions 0..{})"), *o.i, o.dim, o.dim - 1));
    Result r = pe_value_result(o);
    if (o.out.format == Format::table || o.out.format == Format::md) {
      Result shown = r;
      shown.summary = nlohmann::json::object();  // the text already ends with the value
      present(shown, o.out);
    } else {
      present(r, o.out);
    }
    return;
  }
  const auto L = static_cast<std::size_t>(o.len), D = static_cast<std::size_t>(o.dim);
  // a summary table of a big matrix shows its first and last 8 rows: only those are computed
  // (pe --len 1000000000 --dim 1 prints 16 rows in milliseconds instead of filling 4 GB)
  const bool summary_only = !o.out.full && !o.out.figure_format() && !figure_drawn(o.fig, o.out) && L > 24 &&
                            L * D > (std::size_t{1} << 20) &&
                            (o.out.format == Format::table || o.out.format == Format::md);
  checked_element_count({L, D}, fmt::format("--len {} --dim {}", o.len, o.dim));

  Matrix m;
  m.name = N_("pe");
  if (summary_only) {
    std::vector<std::size_t> rows;
    for (std::size_t p = 0; p < 8; ++p) rows.push_back(p);
    for (std::size_t p = L - 8; p < L; ++p) rows.push_back(p);
    m.values = sinusoidal_rows(rows, D, o.base);
    m.rows_total = L;
  } else {
    m.values = sinusoidal_encoding(L, D, o.base);
  }
  m.row_axis = N_("pos");
  m.col_axis = N_("i");
  Result r;
  r.command = "pe";
  r.params = {{"len", L}, {"dim", D}, {"base", o.base}};

  Heatmap h;
  // the figure's copy of the matrix only when a figure or the terminal view is asked for (a
  // 16384 × 1024 table would otherwise be held three times just to write its .npy)
  if (figure_drawn(o.fig, o.out)) h.values = m.values;
  h.title = trf("Sinusoidal positional encoding, {} positions × {} dimensions", L, D);
  h.subtitle = trf("PE(p,2i) = sin(p/{0:g}^(2i/{1})), PE(p,2i+1) = cos(p/{0:g}^(2i/{1}))", o.base, D);
  h.x_label = tr("embedding dimension i");
  h.y_label = tr("position p");
  h.cmap = o.fig.cmap.empty() ? Colormap::diverging : parse_colormap(o.fig.cmap);
  h.vmin = -1.0;
  h.vmax = 1.0;
  h.value_label = tr("PE value");
  h.col_group = 2;  // sin/cos column pairs: a reduced --view keeps or skips a pair whole
  r.blocks.push_back(std::move(m));
  Figure figure;
  figure.panels.push_back(std::move(h));
  present_all(r, o.out, o.fig, &figure, &std::get<Heatmap>(figure.panels.back()), fmt::format("pe_len{}_dim{}{}.png", L, D, base_suffix(o.base)));
}

}  // namespace

CLI::Option* add_pe_columns_flag(CLI::App* cmd, std::vector<std::string>& columns, const std::string& note) {
  return cmd->add_option("--dims", columns, with_note(tr("Columns of the PE matrix, comma-separated"), note))
      ->capture_default_str()
      ->type_name("INT")
      ->check(comma_list(N_("PE columns"), "4,5,6,7", whole_number(0, std::int64_t{1} << 20)));
}

CLI::Option* add_offset_flag(CLI::App* cmd, std::int64_t& offset, const std::string& note) {
  return cmd->add_option("--offset", offset, with_note(tr("Offset k of PE(p+k) in positions, negative = backwards"), note))
      ->capture_default_str()
      ->check(whole_number(-(std::int64_t{1} << 40) + 1, (std::int64_t{1} << 40) - 1));
}

void register_pe(CLI::App& app) {
  auto opts = std::make_shared<PeOptions>();
  CLI::App* pe = app.add_subcommand("pe", tr("Sinusoidal positional encoding: the PE matrix, one value, sim, shift"));
  pe->group(tr("Positional encodings"));
  auto* len = add_pe_shape_flags(pe, *opts, tr("rows"), tr("columns; odd D ends with a sine column")).len;
  add_pos_flag(pe, opts->pos, tr("of a single value, with --i"));
  pe->add_option("--i", opts->i, tr("Dimension index i of a single value (with --pos); even = sin, odd = cos"))->check(whole_number(0, std::int64_t{1} << 40));
  add_presentation_flags(pe, opts->out, opts->fig);
  set_examples(pe, {tr("tfx pe --len 50 --dim 128 --png        # the lecture's 50×128 figure"),
                    tr("tfx pe --dim 4 --pos 1 --i 2            # PE(1,2) = sin(1/100) = 0.00999983"),
                    tr("tfx pe --len 8 --dim 4 --format csv -o pe.csv"),
                    tr("tfx pe --len 50 --dim 128 --view")});
  register_pe_sim(pe);
  register_pe_shift(pe);
  register_pe_curves(pe);
  register_pe_add(pe);
  register_pe_linear(pe);
  pe->callback([pe, len, opts] {
    if (!pe->get_subcommands().empty()) return;  // `tfx pe sim|shift` ran instead
    opts->len_given = len->count() > 0;
    run_pe(*opts);
  });
}

}  // namespace tfx::cli
