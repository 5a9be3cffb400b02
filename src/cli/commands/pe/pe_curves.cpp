// `tfx pe curves --dims 4,5,6,7 --len 100`: chosen columns of the sinusoidal PE matrix as curves
// over the positions (the Annotated Transformer's figure of dimensions 4–7): even columns are
// sines, odd ones cosines, each pair 2m, 2m+1 at the wavelength 2π·base^(2m/D).
#include <fmt/format.h>

#include <cmath>
#include <numbers>

#include "cli/common.hpp"
#include "tfx/core/memory.hpp"
#include "cli/commands/pe/pe_commands.hpp"
#include "tfx/positional/positional.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct PeCurvesOptions : PeShape {
  PeCurvesOptions() : PeShape{100, 20, 10000.0} {}
  std::vector<std::string> dims_text{"4,5,6,7"};
  OutputFlags out;
  FigureFlags fig;
};

void run_pe_curves(const PeCurvesOptions& o) {
  const auto L = static_cast<std::size_t>(o.len), D = static_cast<std::size_t>(o.dim);
  const std::vector<std::int64_t> dims = whole_number_items(o.dims_text);
  if (dims.size() > 16) throw usage_error(fmt::format(N_("--dims: {} columns; at most 16 curves in one figure"), dims.size()));
  for (std::int64_t d : dims)
    if (d < 0 || static_cast<std::size_t>(d) >= D)
      throw usage_error(fmt::format(N_("--dims {}: a column of the PE matrix is 0 … {} for --dim {}"), d, D - 1, D));
  checked_element_count({L, dims.size()}, "--len × --dims");
  // a chart point and a table cell per position and curve: about 75 bytes (2^20 positions took 70 MB)
  check_memory(80.0 * static_cast<double>(L) * static_cast<double>(dims.size()), fmt::format("--len {} × {} curves", o.len, dims.size()));
  // the columns asked for, each from its closed form (the matrix itself is not formed: --len may be long)
  Tensor cols({L, dims.size()});
  std::vector<std::string> names;
  Records waves;
  waves.name = N_("wavelengths");
  waves.columns = {N_("dim"), N_("function"), N_("frequency ω"), N_("wavelength 2π/ω")};
  for (std::size_t c = 0; c < dims.size(); ++c) {
    const auto d = static_cast<std::size_t>(dims[c]);
    const double omega = std::pow(o.base, -static_cast<double>(d - d % 2) / static_cast<double>(D));
    const bool sine = d % 2 == 0;
    for (std::size_t p = 0; p < L; ++p) {
      const double a = static_cast<double>(p) * omega;
      cols(p, c) = static_cast<float>(sine ? std::sin(a) : std::cos(a));
    }
    names.push_back(fmt::format("dim {}", d));
    waves.rows.push_back({static_cast<long long>(d), std::string(sine ? "sin(p·ω)" : "cos(p·ω)"), omega, 2 * std::numbers::pi / omega});
  }
  Result r;
  r.command = "pe curves";
  r.params = {{"len", L}, {"dim", D}, {"dims", dims}, {"base", o.base}};
  r.blocks.push_back(Text{trf("PE(p, 2m) = sin(p·ω_m), PE(p, 2m+1) = cos(p·ω_m), ω_m = 1/{:g}^(2m/{}): the columns asked for, "
                                      "over positions p = 0 … {}",
                                      o.base, D, L - 1)});
  r.blocks.push_back(std::move(waves));
  Matrix m;
  m.name = N_("curves");
  m.values = cols;
  for (std::size_t p = 0; p < L; ++p) m.row_labels.push_back(std::to_string(p));
  m.col_labels = names;
  m.row_axis = N_("pos");
  m.col_axis = N_("dim");
  r.blocks.push_back(std::move(m));
  r.primary = "curves";
  LineChart chart;
  chart.title = trf("Positional encoding, dimensions {} (d_model = {})", fmt::join(dims, ", "), D);
  chart.subtitle = tr("even dims sin(p·ω), odd dims cos(p·ω); each pair shares its wavelength");
  chart.x_label = tr("position p");
  chart.y_label = tr("PE(p, dim)");
  for (std::size_t c = 0; c < dims.size(); ++c) {
    Series s;
    s.name = trf("dim {}", dims[c]);  // names[c] for the legend, translated (the matrix keeps names[c])
    for (std::size_t p = 0; p < L; ++p) s.x.push_back(static_cast<double>(p)), s.y.push_back(cols(p, c));
    chart.series.push_back(std::move(s));
  }
  Figure fig;
  fig.panels.push_back(std::move(chart));
  std::string dn;
  for (std::int64_t d : dims) dn += (dn.empty() ? "" : "-") + std::to_string(d);
  present_all(r, o.out, o.fig, &fig, nullptr, fmt::format("pe_curves_len{}_dim{}_dims{}.png", L, D, dn));
}

}  // namespace

void register_pe_curves(CLI::App* pe) {
  auto [cmd, o] = add_command(*pe, "curves", tr("Chosen PE dimensions as curves over the positions (the Annotated Transformer's dims 4–7 figure)"),
                              run_pe_curves);
  add_pe_shape_flags(cmd, *o, tr("positions 0 … L−1"));
  add_pe_columns_flag(cmd, o->dims_text, tr("the curves drawn, 0 … D−1, at most 16"));
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig, false);
  set_examples(cmd, {tr("tfx pe curves --len 100 --dim 20 --dims 4,5,6,7 --png   # the Annotated Transformer's figure"),
                     tr("tfx pe curves --dim 128 --dims 0,2,20,60 --len 200 --png   # fast and slow sines"),
                     tr("tfx pe curves --dims 4,5 --format csv")});
}

}  // namespace tfx::cli
