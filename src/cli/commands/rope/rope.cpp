// `tfx rope`: the lecture's step-1 tables θ(pos, j), cos θ, sin θ of shape [L, D/2]; the shared
// RoPE flags (--base, --layout, --scaling and its parameters); registration of the nested
// subcommands rotate, relative, freqs and decay (one file each: rope_<sub>.cpp).
#include <fmt/format.h>

#include <cmath>

#include "cli/flags/flag_names.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "tfx/core/memory.hpp"
#include "cli/commands/rope/rope_flags.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct RopeTableOptions {
  std::int64_t len = 50;
  std::int64_t dim = 128;
  std::string what = "cos";
  RopeFlags rope;
  OutputFlags out;
  FigureFlags fig;
};

void run_rope_table(const RopeTableOptions& o) {
  const auto L = static_cast<std::size_t>(o.len);
  const RopeConfig c = rope_config(o.rope, o.dim, single_scaling(o.rope), L);
  const std::size_t P = c.dim / 2;
  checked_element_count({L, P}, fmt::format("--len {} --dim {}", o.len, o.dim));
  // the inverse frequencies and per-pair columns beside the L × D/2 table: about 24 bytes a pair
  check_memory(32.0 * static_cast<double>(P), fmt::format("--dim {} (the frequencies per pair)", o.dim));

  const RopeTable what = parse_choice<RopeTable>(kRopeTableChoices, o.what, "what");
  const bool theta = what == RopeTable::theta, cosine = what == RopeTable::cos;
  Matrix m{.name = o.what,
           .values = theta ? rope_angles(L, c) : cosine ? rope_cos_table(L, c) : rope_sin_table(L, c),
           .row_axis = N_("pos"),
           .col_axis = N_("j")};
  Result r;
  r.command = "rope";
  r.params = rope_params(c);
  r.params["len"] = L;
  r.params["what"] = o.what;
  const std::vector<double> inv = rope_inv_freq(c);
  r.summary[N_("inv_freq_first")] = inv.front();
  r.summary[N_("inv_freq_last")] = inv.back();
  if (rope_attention_factor(c) != 1.0) r.summary[N_("attention_factor")] = rope_attention_factor(c);

  const char* formula = theta ? "theta(pos,j) = pos * inv_freq_j" : cosine ? "cos theta(pos,j)" : "sin theta(pos,j)";
  // the figure writes the symbols: θ, ω_j, the superscript exponent
  const char* symbol = theta ? "θ(pos, j) = pos · ω_j" : cosine ? "cos θ(pos, j)" : "sin θ(pos, j)";
  Heatmap h;
  h.values = m.values;
  h.title = trf("RoPE {} table [{}, {}]", theta ? "θ" : cosine ? "cos θ" : "sin θ", L, P);
  h.subtitle = fmt::format("{}, ω_j = {:g}^(−2j/{}); {}", symbol, rope_effective_base(c), c.dim, rope_description(c));
  h.x_label = tr("pair j");
  h.y_label = tr("position pos");
  h.value_label = theta ? tr("θ (radians)") : cosine ? "cos θ" : "sin θ";
  if (theta) {
    h.cmap = o.fig.cmap.empty() ? Colormap::viridis : parse_colormap(o.fig.cmap);
  } else {
    h.cmap = o.fig.cmap.empty() ? Colormap::diverging : parse_colormap(o.fig.cmap);
    h.vmin = -1.0;
    h.vmax = 1.0;
  }
  r.blocks.push_back(Text{trf("RoPE step 1: {} for pos = 0..{}, j = 0..{} (D = {}); {}", formula, L - 1, P - 1, c.dim,
                                      rope_description(c))});
  r.blocks.push_back(std::move(m));
  r.primary = o.what;
  Figure figure;
  figure.panels.push_back(h);
  present_all(r, o.out, o.fig, &figure, &h, fmt::format("rope_{}_len{}_dim{}{}.png", o.what, L, c.dim, rope_name_suffix(c)));
}

}  // namespace

void register_rope(CLI::App& app) {
  auto opts = std::make_shared<RopeTableOptions>();
  CLI::App* rope = app.add_subcommand("rope", tr("Rotary position embedding: angle/cos/sin tables, rotate, relative, freqs, decay"));
  rope->group(tr("Positional encodings"));
  add_len_flag(rope, opts->len, tr("rows"));
  add_rope_dim_flag(rope, opts->dim, tr("the tables have D/2 columns, one per pair"));
  rope->add_option("--what", opts->what, trf("Table: {}", choice_list<RopeTable>(kRopeTableChoices, true)))
      ->capture_default_str()
      ->check(one_of<RopeTable>(kRopeTableChoices));
  add_rope_flags(rope, opts->rope);
  add_output_flags(rope, opts->out);
  add_figure_flags(rope, opts->fig);
  set_examples(rope, {tr("tfx rope --len 8 --dim 8 --what theta       # the lecture's step 1: theta(pos, j) = pos / 10000^(2j/D)"),
                      tr("tfx rope --len 50 --dim 128 --what cos --png"),
                      tr("tfx rope --len 16 --dim 8 --what sin --format csv -o sin.csv"),
                      tr("tfx rope --len 4096 --dim 128 --scaling linear --factor 4 --what theta --view"),
                      tr("tfx rope rotate --dim 2 --pos 1 --vector 1,0   # subcommands: rotate, relative, freqs, decay")});
  register_rope_rotate(rope);
  register_rope_relative(rope);
  register_rope_freqs(rope);
  register_rope_decay(rope);
  rope->callback([rope, opts] {
    if (!rope->get_subcommands().empty()) return;  // `tfx rope rotate|relative|freqs|decay` ran instead
    run_rope_table(*opts);
  });
}

// "1,0,0,1" -> {1, 0, 0, 1}; every item must be a finite number.
std::vector<float> parse_vector_flag(const std::string& text, const std::string& flag) {
  std::vector<float> v;
  std::stringstream ss(text);
  std::string item;
  std::size_t n = 0;
  while (std::getline(ss, item, ',')) {
    ++n;
    std::size_t used = 0;
    double x = 0;
    bool ok = true;
    try {
      x = std::stod(item, &used);
    } catch (const std::exception&) {
      ok = false;
    }
    while (ok && used < item.size() && std::isspace(static_cast<unsigned char>(item[used]))) ++used;
    if (!ok || used != item.size() || !std::isfinite(x))
      throw usage_error(fmt::format(N_("{}: item {} '{}' is not a number; expected comma-separated numbers like 1,0,0,1"), flag, n, item));
    v.push_back(static_cast<float>(x));
  }
  if (v.empty() || text.back() == ',')
    throw usage_error(fmt::format(N_("{} '{}' is empty or ends with a comma; expected comma-separated numbers like 1,0,0,1"), flag, text));
  return v;
}


}  // namespace tfx::cli
