// `tfx layernorm`: layer normalization step by step (the lecture's table): per token mean and
// standard deviation, the normalized vectors, then the affine y = γ·x̂ + β.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/flags/shared_flags.hpp"
#include "tfx/io/matrix_io.hpp"
#include "tfx/attention/layernorm_steps.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct LayerNormOptions {
  // the lecture's example: two tokens ("thinking", "machines"), 4 features each
  std::string x = "4,2,3,5;2,1,-3,2";
  std::vector<std::string> tokens_text{"thinking,machines"};  // --tokens as given, comma-separated
  std::vector<std::string> tokens;
  std::string gamma = "3,1,-1,-2";
  std::string beta = "1,1,0,2";
  double eps = 1e-5;
  OutputFlags out;
  FigureFlags fig;
};

void run_layernorm(const LayerNormOptions& o) {
  LoadedMatrix in = read_matrix_arg(o.x, "--x");
  Tensor x = std::move(in.values);
  const std::size_t T = x.rows(), D = x.cols();
  if (D < 2) throw usage_error(N_("--x: each token needs at least 2 features to normalize over"));
  // the lecture's γ and β have 4 values: for --x of another width, a default left in place is
  // named as the default (the user gave no --gamma to blame), after a given flag's own check
  const bool default_gamma = o.gamma == LayerNormOptions{}.gamma, default_beta = o.beta == LayerNormOptions{}.beta;
  if (D != 4 && (default_gamma || default_beta)) {
    if (!default_gamma && !o.gamma.empty()) (void)number_vector(o.gamma, "--gamma", D);
    if (!default_beta && !o.beta.empty()) (void)number_vector(o.beta, "--beta", D);
    throw usage_error(fmt::format(N_("--x has {} features per token, but the lecture's default {} has 4 values; give {} with {} values "
                                  "(\"\" for {})"),
                                  D, default_gamma ? "--gamma " + LayerNormOptions{}.gamma : "--beta " + LayerNormOptions{}.beta,
                                  default_gamma && default_beta ? N_("--gamma and --beta") : default_gamma ? "--gamma" : "--beta", D,
                                  default_gamma && default_beta ? "γ = 1, β = 0" : default_gamma ? "γ = 1" : "β = 0"));
  }
  Tensor gamma = o.gamma.empty() ? Tensor() : number_vector(o.gamma, "--gamma", D);
  Tensor beta = o.beta.empty() ? Tensor() : number_vector(o.beta, "--beta", D);
  std::vector<std::string> tokens = o.tokens;
  if (tokens.size() != T) {
    if (o.x != LayerNormOptions{}.x && o.tokens_text == LayerNormOptions{}.tokens_text) {
      // a file's row labels name the tokens, else x0, x1, …
      tokens = in.row_labels;
      if (tokens.size() != T) {
        tokens.clear();
        for (std::size_t t = 0; t < T; ++t) tokens.push_back(fmt::format("x{}", t));
      }
    } else {
      throw usage_error(fmt::format(N_("--tokens: {} names for {} rows of --x"), tokens.size(), T));
    }
  }

  // μ, σ per token; 1. x̂ = (x − μ)/√(σ² + ε); 2. y = γ ⊙ x̂ + β
  LayerNormSteps steps = layer_norm_steps(x, gamma, beta, static_cast<float>(o.eps));
  const Tensor& normalized = steps.normalized;
  const Tensor& y = steps.y;
  // σ = 0 with ε = 0 is 0/0, and huge γ, β or x overflow float32: say so instead of printing nan/inf
  for (std::size_t t = 0; t < T; ++t) {
    const auto n = normalized.row(t), yt = y.row(t);
    const bool finite_n = std::all_of(n.begin(), n.end(), [](float v) { return std::isfinite(v); });
    if (!finite_n && o.eps == 0)
      throw usage_error(fmt::format(N_("--eps 0: token '{}' has σ = 0 (all features equal), so x̂ = 0/0; use --eps > 0 (e.g. 1e-5)"),
                                    tokens[t]));
    if (!finite_n || !std::all_of(yt.begin(), yt.end(), [](float v) { return std::isfinite(v); }))
      throw usage_error(fmt::format(N_("token '{}': the result overflows float32 (a value became ±inf); use smaller --x, --gamma or --beta"),
                                    tokens[t]));
  }

  Result r;
  r.command = "layernorm";
  r.params = {{"x", o.x}, {"tokens", tokens}, {"gamma", o.gamma}, {"beta", o.beta}, {"eps", o.eps}};
  std::vector<std::string> features;
  for (std::size_t j = 0; j < D; ++j) features.push_back(fmt::format("h{}", j + 1));
  auto matrix = [&](std::string name, Tensor t) {
    Matrix m;
    m.name = std::move(name);
    m.values = std::move(t);
    m.row_labels = tokens;
    m.col_labels = features;
    m.row_axis = N_("token");
    m.col_axis = N_("feature");
    return m;
  };
  Records stats;
  stats.name = N_("stats");
  stats.columns = {N_("token"), N_("mean μ"), N_("std σ"), N_("var σ²")};
  for (std::size_t t = 0; t < T; ++t) stats.rows.push_back({tokens[t], steps.mean[t], steps.stddev[t], steps.var[t]});
  r.blocks.push_back(Text{tr("Layer normalization over each token's features: μ = (1/H)Σxᵢ, σ = √((1/H)Σ(xᵢ−μ)²) (population),")});
  r.blocks.push_back(Text{trf("x̂ = (x − μ)/√(σ² + ε) with ε = {:g}, then y = γ ⊙ x̂ + β.", o.eps)});
  r.blocks.push_back(matrix("x", x));
  r.blocks.push_back(std::move(stats));
  r.blocks.push_back(matrix(N_("normalized"), normalized));
  r.blocks.push_back(matrix("y", y));
  // the lecture's own numbers for this example are partly illustrative: say which differ and why
  const LayerNormOptions lecture;
  if (o.x == lecture.x && o.gamma == lecture.gamma && o.beta == lecture.beta)
    r.blocks.push_back(Text{trf("note: the lecture prints μ = 2.5 for thinking, but its values 4, 2, 3, 5 average {:.4g} (a slip); "
                                "σ = 1.11 and 2.06 are the values above, rounded. The lecture's normalized table (0.65, −0.85, "
                                "−1.35, 1.25 for thinking) and its γ·x̂+β table are illustrative: they are not this formula's "
                                "output (that column's mean is {:.4g}, not 0), so the tables above differ from them.",
                                steps.mean[0], (0.65 - 0.85 - 1.35 + 1.25) / 4)});
  r.primary = "y";
  const Figure figure = layernorm_figure(x, normalized, y, tokens, features, steps.mean, steps.stddev);
  present_all(r, o.out, o.fig, &figure, nullptr, fmt::format("layernorm_{}x{}.png", T, D));
}

}  // namespace

void register_layernorm(CLI::App& app) {
  auto o = std::make_shared<LayerNormOptions>();
  CLI::App* cmd = app.add_subcommand("layernorm", tr("Layer normalization step by step: μ, σ, normalized, γ·x̂+β (lecture's table)"));
  cmd->group(tr("Training"));
  add_x_flag(cmd, o->x, tr("the token vectors, one a row; default: the lecture's thinking/machines example"))->capture_default_str();
  cmd->add_option("--tokens", o->tokens_text, tr("Row names (comma-separated)"))
      ->capture_default_str()
      ->check(comma_list(N_("token names"), "thinking,machines"));
  cmd->add_option("--gamma", o->gamma, tr("Per-feature gain γ (empty string = 1)"))->capture_default_str();
  cmd->add_option("--beta", o->beta, tr("Per-feature bias β (empty string = 0)"))->capture_default_str();
  cmd->add_option("--eps", o->eps, tr("ε added to σ² (PyTorch's default 1e-5)"))->capture_default_str()->check(non_negative_number());
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig, false);
  set_examples(cmd, {tr("tfx layernorm                                  # the lecture's thinking/machines table"),
                     tr("tfx layernorm --png                            # x, x̂ and y as bars, μ and σ marked"),
                     tr("tfx layernorm --x \"1,2,3;4,6,8\" --gamma \"\" --beta \"\""),
                     tr("tfx layernorm --format json")});
  cmd->callback([o] {
    o->tokens = list_items(o->tokens_text);
    run_layernorm(*o);
  });
}

}  // namespace tfx::cli
