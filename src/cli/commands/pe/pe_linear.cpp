// `tfx pe linear --len 50 --short 10`: note 002's figure of the naive positional code against the
// sinusoidal one. The position itself (p, or p/(L−1) scaled to [0, 1]) depends on the sentence's
// length L: the same position gets another code in a 10-word and a 50-word sentence, and the raw
// index grows without bound; sin/cos columns stay in [−1, 1], are the same at every length, and
// PE(p+k) is a rotation R(k) of PE(p).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "cli/common.hpp"
#include "cli/commands/pe/pe_commands.hpp"
#include "tfx/positional/positional.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct PeLinearOptions : PeShape {  // the lecture's 50 × 128, base 10000
  std::int64_t short_len = 10;
  std::vector<std::string> dims_text{"6,7,30,31"};
  std::int64_t k = 1;
  OutputFlags out;
  FigureFlags fig;
};

void run_pe_linear(const PeLinearOptions& o) {
  if (o.short_len > o.len)
    throw usage_error(fmt::format(N_("--short {} is longer than --len {}: --short is the shorter sentence (e.g. --len 50 --short 10)"),
                                  o.short_len, o.len));
  const auto L = static_cast<std::size_t>(o.len), S = static_cast<std::size_t>(o.short_len), D = static_cast<std::size_t>(o.dim);
  const std::vector<std::int64_t> dims = whole_number_items(o.dims_text);
  if (dims.size() > 8) throw usage_error(fmt::format(N_("--dims: {} columns; at most 8 sin/cos columns beside the linear codes"), dims.size()));
  for (std::int64_t d : dims)
    if (d < 0 || static_cast<std::size_t>(d) >= D)
      throw usage_error(fmt::format(N_("--dims {}: a column of the PE matrix is 0 … {} for --dim {}"), d, D - 1, D));
  if (o.k >= o.len) throw usage_error(fmt::format(N_("--offset {}: the shift must be shorter than --len {}"), o.k, o.len));
  checked_element_count({L, D}, fmt::format("--len {} --dim {}", o.len, o.dim));

  const std::vector<double> long_code = linear_position_code(L), short_code = linear_position_code(S);
  const Tensor pe = sinusoidal_encoding(L, D, o.base);
  // PE(p+k) = R(k)·PE(p): the rotation property the linear code has no counterpart of
  const ShiftCheck shift = check_shift(pe, shift_rotation(o.k, D, o.base), o.k);

  // 1. the table: pos, the raw index, p/(L−1) for both lengths (nan past the short sentence's end), sin/cos columns
  const std::size_t C = 3 + dims.size();
  Tensor t({L, C});
  Matrix m;
  m.name = N_("codes");
  m.col_labels = {"p", fmt::format("pos/{} (L={})", L > 1 ? L - 1 : 1, L), fmt::format("pos/{} (L={})", S > 1 ? S - 1 : 1, S)};
  for (std::int64_t d : dims) m.col_labels.push_back(fmt::format("{}(dim {})", d % 2 == 0 ? "sin" : "cos", d));
  for (std::size_t p = 0; p < L; ++p) {
    t(p, 0) = static_cast<float>(p);
    t(p, 1) = static_cast<float>(long_code[p]);
    t(p, 2) = p < S ? static_cast<float>(short_code[p]) : std::numeric_limits<float>::quiet_NaN();
    for (std::size_t c = 0; c < dims.size(); ++c) t(p, 3 + c) = pe(p, static_cast<std::size_t>(dims[c]));
    m.row_labels.push_back(std::to_string(p));
  }
  m.values = t;
  m.row_axis = N_("pos");
  m.col_axis = N_("code");

  // 2. the same position in both sentences: the short sentence's last word
  const std::size_t q = S - 1;
  Result r;
  r.command = "pe linear";
  r.params = {{"len", L}, {"short", S}, {"dim", D}, {"dims", dims}, {"k", o.k}, {"base", o.base}};
  r.blocks.push_back(Text{trf("Linear code: position p itself, or p/(L−1) so the sentence spans [0, 1]. Sentences of L = {} and L = {} "
                              "words; nan: the {}-word sentence has no such position.",
                              L, S, S)});
  r.blocks.push_back(Text{trf("Position {}: p/(L−1) = {:.4g} in the {}-word sentence but {:.4g} in the {}-word one (the same position, two "
                              "codes); the step between neighbours is 1/{} vs 1/{}. The raw index reaches {} and keeps growing with L.",
                              q, short_code[q], S, long_code[q], L, S > 1 ? S - 1 : 1, L > 1 ? L - 1 : 1, L - 1)});
  r.blocks.push_back(Text{trf("Sinusoidal PE: every value in [−1, 1] and PE(p) the same at every sentence length; PE(p+{0}) = R({0})·PE(p) "
                              "(a rotation of each sin/cos pair) to {1:.1e} over {2} positions.",
                              o.k, shift.max_error, shift.positions)});
  r.blocks.push_back(std::move(m));
  r.primary = "codes";
  r.summary[N_("position")] = q;
  r.summary[N_("linear code, short sentence")] = short_code[q];
  r.summary[N_("linear code, long sentence")] = long_code[q];
  r.summary[N_("largest raw index")] = L - 1;
  float pe_max = 0;
  for (float v : pe.values()) pe_max = std::max(pe_max, std::abs(v));
  r.summary[N_("largest |PE|")] = pe_max;
  r.summary[N_("rotation max error")] = shift.max_error;

  // 3. the figure: the linear codes of both lengths beside the sin/cos columns, positions on x
  Figure fig;
  if (figure_drawn(o.fig, o.out)) {
    LineChart lin;
    lin.title = tr("Linear code p/(L−1): depends on the length L");
    lin.subtitle = trf("position {}: {:.2f} when L = {}, {:.2f} when L = {}", q, short_code[q], S, long_code[q], L);
    lin.x_label = tr("position p");
    lin.y_label = tr("code of position p");
    for (const auto& [n, code] : {std::pair{S, &short_code}, std::pair{L, &long_code}}) {
      Series s;
      s.name = fmt::format("L = {}", n);
      for (std::size_t p = 0; p < n; ++p) s.x.push_back(static_cast<double>(p)), s.y.push_back((*code)[p]);
      lin.series.push_back(std::move(s));
    }
    LineChart waves;
    waves.title = tr("Sinusoidal PE: the same at every length, in [−1, 1]");
    waves.subtitle = trf("d_model = {}; PE(p+k) = R(k)·PE(p), a rotation", D);
    waves.x_label = tr("position p");
    waves.y_label = tr("PE(p, dim)");
    for (std::size_t c = 0; c < dims.size(); ++c) {
      Series s;
      s.name = trf("{} dim {}", dims[c] % 2 == 0 ? "sin" : "cos", dims[c]);
      for (std::size_t p = 0; p < L; ++p) s.x.push_back(static_cast<double>(p)), s.y.push_back(pe(p, static_cast<std::size_t>(dims[c])));
      waves.series.push_back(std::move(s));
    }
    fig.title = tr("Linear vs sinusoidal positional encoding");
    fig.panels.push_back(std::move(lin));
    fig.panels.push_back(std::move(waves));
    fig.columns = 2;
  }
  std::string dn;
  for (std::int64_t d : dims) dn += (dn.empty() ? "" : "-") + std::to_string(d);
  present_all(r, o.out, o.fig, &fig, nullptr, fmt::format("pe_linear_len{}_short{}_dim{}_dims{}.png", L, S, D, dn));
}

}  // namespace

void register_pe_linear(CLI::App* pe) {
  auto [cmd, o] = add_command(*pe, "linear",
                              tr("The position itself as the code (p, p/(L−1)) against sin/cos: note 002's linear vs sinusoidal PE"),
                              run_pe_linear);
  add_pe_shape_flags(cmd, *o, tr("the longer sentence's rows"));
  cmd->add_option("--short", o->short_len, tr("Length of the shorter sentence, whose codes are compared with the longer one's"))
      ->capture_default_str()
      ->check(whole_number(1, std::int64_t{1} << 16));
  add_pe_columns_flag(cmd, o->dims_text, tr("the sin/cos columns shown beside the linear codes, 0 … D−1, at most 8"));
  add_offset_flag(cmd, o->k, tr("of the rotation check PE(p+k) = R(k)·PE(p); 1 … 2^20 here, less than --len"))
      ->check(command_bound(1, std::int64_t{1} << 20));
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig, false);
  set_examples(cmd, {tr("tfx pe linear --len 50 --short 10 --png   # note 002's linear vs sinusoidal figure"),
                     tr("tfx pe linear --len 12 --short 4 --dim 8 --dims 0,1"),
                     tr("tfx pe linear --len 50 --format csv -o linear.csv")});
}

}  // namespace tfx::cli
