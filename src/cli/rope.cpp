// `tfx rope`: the lecture's step-1 tables θ(pos, j), cos θ, sin θ of shape [L, D/2]; the shared
// RoPE flags (--base, --layout, --scaling and its parameters); registration of the nested
// subcommands rotate, relative, freqs and decay (one file each: rope_<sub>.cpp).
#include <fmt/format.h>

#include <cmath>

#include "commands.hpp"
#include "common.hpp"
#include "rope_flags.hpp"

namespace tfx::cli {

void add_rope_flags(CLI::App* app, RopeFlags& f, bool list) {
  const char* g = "RoPE";
  app->add_option("--base", f.base, "Base of the frequencies: inv_freq_j = base^(-2j/D) (HF rope_theta)")
      ->capture_default_str()
      ->group(g);
  app->add_option("--layout", f.layout, "Pairing: interleaved (x_2j, x_2j+1) as in the lecture/LLaMA, half (x_j, x_j+D/2) as in GPT-NeoX/HF rotate_half")
      ->capture_default_str()
      ->check(CLI::IsMember({"interleaved", "half"}))
      ->group(g);
  app->add_option("--scaling", f.scaling,
                  list ? "Scalings to compare, comma-separated: none,linear,ntk,dynamic,yarn,llama3,xpos (none is always shown)"
                       : "Scaling: none, linear, ntk, dynamic, yarn, llama3 or xpos")
      ->capture_default_str()
      ->group(g);
  app->add_option("--factor", f.factor, "Context extension factor f (linear, ntk, dynamic, yarn, llama3)")->group(g);
  app->add_option("--original-max-pos", f.original_max_pos, "Pre-training context length L0 (dynamic, yarn, llama3)")
      ->check(whole_number(1, std::int64_t{1} << 40))
      ->group(g);
  app->add_option("--beta-fast", f.beta_fast, "YaRN: rotations above which a pair is kept (beta)")->capture_default_str()->group(g);
  app->add_option("--beta-slow", f.beta_slow, "YaRN: rotations below which a pair is interpolated (alpha)")->capture_default_str()->group(g);
  app->add_flag("--yarn-no-truncate", f.yarn_no_truncate, "YaRN: do not floor/ceil the correction range (HF truncate=false)")->group(g);
  app->add_option("--low-freq-factor", f.low_freq_factor, "Llama 3: wavelengths above L0/low are divided by f")->capture_default_str()->group(g);
  app->add_option("--high-freq-factor", f.high_freq_factor, "Llama 3: wavelengths below L0/high are kept")->capture_default_str()->group(g);
  app->add_option("--xpos-gamma", f.xpos_gamma, "XPos: gamma in zeta_j = (2j + gamma*D)/((1 + gamma)*D)")->capture_default_str()->group(g);
  app->add_option("--xpos-scale-base", f.xpos_scale_base, "XPos: B in q*zeta^(n/B), k*zeta^(-n/B)")->capture_default_str()->group(g);
}

namespace {
// --factor or --original-max-pos without a --scaling would be silently ignored (and named in PNG file names)
void unused_scaling_flags(const RopeFlags& f) {
  if (f.factor || f.original_max_pos)
    throw usage_error(fmt::format("{} does nothing without --scaling (linear, ntk, dynamic, yarn or llama3), e.g. --scaling linear --factor 4",
                                  f.factor ? "--factor" : "--original-max-pos"));
}
}  // namespace

RopeScaling single_scaling(const RopeFlags& f) {
  if (f.scaling.find(',') != std::string::npos)
    throw usage_error(fmt::format("--scaling takes one name here, got '{}' (lists are for `rope freqs` and `rope decay`)", f.scaling));
  const RopeScaling s = parse_rope_scaling(f.scaling);
  if (s == RopeScaling::none) unused_scaling_flags(f);
  return s;
}

std::vector<RopeScaling> scaling_list(const RopeFlags& f) {
  std::vector<RopeScaling> out{RopeScaling::none};
  for (const std::string& item : split_items(f.scaling)) {
    if (item.empty()) throw usage_error(fmt::format("--scaling '{}' has an empty item; expected e.g. linear,ntk,yarn", f.scaling));
    const RopeScaling s = parse_rope_scaling(item);
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  if (out.size() == 1) unused_scaling_flags(f);
  return out;
}

RopeConfig rope_config(const RopeFlags& f, std::int64_t dim, RopeScaling scaling, std::size_t seq_len) {
  RopeConfig c;
  c.dim = static_cast<std::size_t>(dim);
  c.base = f.base;
  c.layout = parse_rope_layout(f.layout);
  c.scaling = scaling;
  c.factor = f.factor;
  if (f.original_max_pos) c.original_max_pos = static_cast<std::size_t>(*f.original_max_pos);
  c.seq_len = seq_len;
  c.beta_fast = f.beta_fast;
  c.beta_slow = f.beta_slow;
  c.yarn_truncate = !f.yarn_no_truncate;
  c.low_freq_factor = f.low_freq_factor;
  c.high_freq_factor = f.high_freq_factor;
  c.xpos_gamma = f.xpos_gamma;
  c.xpos_scale_base = f.xpos_scale_base;
  validate_rope_config(c);
  return c;
}

nlohmann::json rope_params(const RopeConfig& c) {
  nlohmann::json j = {{"dim", c.dim}, {"base", c.base}, {"layout", rope_layout_name(c.layout)}, {"scaling", rope_scaling_name(c.scaling)}};
  switch (c.scaling) {
    case RopeScaling::none: break;
    case RopeScaling::linear:
    case RopeScaling::ntk: j["factor"] = *c.factor; break;
    case RopeScaling::dynamic:
      j["factor"] = *c.factor;
      j["original_max_pos"] = *c.original_max_pos;
      j["seq_len"] = c.seq_len;
      break;
    case RopeScaling::yarn:
      j["factor"] = *c.factor;
      j["original_max_pos"] = *c.original_max_pos;
      j["beta_fast"] = c.beta_fast;
      j["beta_slow"] = c.beta_slow;
      j["truncate"] = c.yarn_truncate;
      break;
    case RopeScaling::llama3:
      j["factor"] = *c.factor;
      j["original_max_pos"] = *c.original_max_pos;
      j["low_freq_factor"] = c.low_freq_factor;
      j["high_freq_factor"] = c.high_freq_factor;
      break;
    case RopeScaling::xpos:
      j["xpos_gamma"] = c.xpos_gamma;
      j["xpos_scale_base"] = c.xpos_scale_base;
      break;
  }
  return j;
}

std::string rope_name_suffix(const RopeConfig& c) {
  std::string s;
  if (c.base != 10000.0) s += fmt::format("_base{:g}", c.base);
  if (c.layout == RopeLayout::half) s += "_half";
  if (c.scaling != RopeScaling::none) {
    s += std::string("_") + rope_scaling_name(c.scaling);
    if (c.factor && c.scaling != RopeScaling::xpos) s += fmt::format("_f{:g}", *c.factor);
  }
  return s;
}

std::string rope_description(const RopeConfig& c) {
  std::string s = fmt::format("base {:g}, {} layout", c.base, rope_layout_name(c.layout));
  switch (c.scaling) {
    case RopeScaling::none: break;
    case RopeScaling::linear:
    case RopeScaling::ntk: s += fmt::format(", {} f={:g}", rope_scaling_name(c.scaling), *c.factor); break;
    case RopeScaling::dynamic:
    case RopeScaling::yarn:
    case RopeScaling::llama3:
      s += fmt::format(", {} f={:g} L0={}", rope_scaling_name(c.scaling), *c.factor, *c.original_max_pos);
      break;
    case RopeScaling::xpos: s += fmt::format(", xpos gamma={:g} B={:g}", c.xpos_gamma, c.xpos_scale_base); break;
  }
  return s;
}

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

  Matrix m;
  m.name = o.what;
  m.values = o.what == "theta" ? rope_angles(L, c) : o.what == "cos" ? rope_cos_table(L, c) : rope_sin_table(L, c);
  m.row_axis = "pos";
  m.col_axis = "j";
  Result r;
  r.command = "rope";
  r.params = rope_params(c);
  r.params["len"] = L;
  r.params["what"] = o.what;
  const std::vector<double> inv = rope_inv_freq(c);
  r.summary["inv_freq_first"] = inv.front();
  r.summary["inv_freq_last"] = inv.back();
  if (rope_attention_factor(c) != 1.0) r.summary["attention_factor"] = rope_attention_factor(c);

  const char* formula = o.what == "theta" ? "theta(pos,j) = pos * inv_freq_j"
                        : o.what == "cos" ? "cos theta(pos,j)"
                                          : "sin theta(pos,j)";
  Heatmap h;
  h.values = m.values;
  h.title = fmt::format("RoPE {} table [{}, {}]", o.what, L, P);
  h.subtitle = fmt::format("{}, inv_freq_j = {:g}^(-2j/{}); {}", formula, rope_effective_base(c), c.dim, rope_description(c));
  h.x_label = "pair j";
  h.y_label = "position pos";
  if (o.what == "theta") {
    h.cmap = o.fig.cmap.empty() ? Colormap::viridis : parse_colormap(o.fig.cmap);
  } else {
    h.cmap = o.fig.cmap.empty() ? Colormap::diverging : parse_colormap(o.fig.cmap);
    h.vmin = -1.0;
    h.vmax = 1.0;
  }
  r.blocks.push_back(Text{fmt::format("RoPE step 1: {} for pos = 0..{}, j = 0..{} (D = {}); {}", formula, L - 1, P - 1, c.dim,
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
  CLI::App* rope = app.add_subcommand("rope", "Rotary position embedding: angle/cos/sin tables, rotate, relative, freqs, decay");
  rope->group("Positional encodings");
  rope->add_option("--len", opts->len, "Number of positions L (rows)")->capture_default_str()->check(whole_number(1, std::int64_t{1} << 40));
  rope->add_option("--dim", opts->dim, "Head dimension D (even); the tables have D/2 columns, one per pair")
      ->capture_default_str()
      ->check(whole_number(1, std::int64_t{1} << 24));
  rope->add_option("--what", opts->what, "Table: theta (pos * inv_freq_j), cos or sin")
      ->capture_default_str()
      ->check(CLI::IsMember({"theta", "cos", "sin"}));
  add_rope_flags(rope, opts->rope);
  add_output_flags(rope, opts->out);
  add_figure_flags(rope, opts->fig);
  set_examples(rope, {"tfx rope --len 8 --dim 8 --what theta       # the lecture's step 1: theta(pos, j) = pos / 10000^(2j/D)",
                      "tfx rope --len 50 --dim 128 --what cos --png",
                      "tfx rope --len 16 --dim 8 --what sin --format csv -o sin.csv",
                      "tfx rope --len 4096 --dim 128 --scaling linear --factor 4 --what theta --view",
                      "tfx rope rotate --dim 2 --pos 1 --vector 1,0   # subcommands: rotate, relative, freqs, decay"});
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
      throw usage_error(fmt::format("{}: item {} '{}' is not a number; expected comma-separated numbers like 1,0,0,1", flag, n, item));
    v.push_back(static_cast<float>(x));
  }
  if (v.empty() || text.back() == ',')
    throw usage_error(fmt::format("{} '{}' is empty or ends with a comma; expected comma-separated numbers like 1,0,0,1", flag, text));
  return v;
}


}  // namespace tfx::cli
