// `tfx pe add --sentence "I love you"`: the input of the first layer, e′ = e + p (notes 000, 001):
// each token's embedding row e, its position's PE row p and their sum side by side, labelled by
// token; and the magnitudes ‖e‖, ‖p‖ (= √(D/2) for every position), ‖e + p‖ and how much of the
// direction of e survives (cos(e, e + p)), with and without the original paper's √d_model scaling
// of e (note 004's question: why does adding p not drown the meaning?).
#include <fmt/format.h>

#include <cmath>
#include <span>
#include <utility>

#include "cli/flags/shared_flags.hpp"
#include "cli/flags/attention_sentence.hpp"
#include "cli/common.hpp"
#include "cli/commands/pe/pe_commands.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/positional/positional.hpp"

namespace tfx::cli {

namespace {

struct PeAddOptions {
  std::string sentence = "I love you";
  bool scale = false;  // --scale-embedding: e·√d_model before adding (Vaswani et al. §3.4)
  std::shared_ptr<SentenceSource> source;
  OutputFlags out;
  FigureFlags fig;
};

void run_pe_add(const PeAddOptions& o) {
  TokenSequence seq = embed_sentence(*o.source, o.sentence, "--sentence", false);
  const std::size_t T = seq.tokens.size(), D = seq.x.cols();
  const Tensor p = sinusoidal_encoding(T, D);
  const double root = std::sqrt(static_cast<double>(D));
  Tensor e = seq.x;
  if (o.scale)
    for (float& v : e.values()) v = static_cast<float>(v * root);
  const Tensor sum = add(e, p);

  Result r;
  r.command = "pe add";
  r.params = {{"sentence", o.sentence}, {"tokens", seq.shown}, {"dim", D}, {"scale_embedding", o.scale}};
  r.blocks.push_back(Text{trf("e′ = {} + p for {} tokens \"{}\": e = the embedding row of each token ({}), p = PE(position), D = {}",
                                      o.scale ? fmt::format("√{}·e", D) : "e", T, fmt::join(seq.shown, " "),
                                      sentence_source_description(*o.source), D)});
  Records norms;
  norms.name = N_("norms");
  norms.columns = {N_("pos"), N_("token"), N_("‖e‖"), N_("‖√D·e‖"), N_("‖p‖"), o.scale ? N_("‖√D·e + p‖") : N_("‖e + p‖"), N_("cos(e, e + p)"), N_("cos(√D·e, √D·e + p)")};
  for (std::size_t t = 0; t < T; ++t) {
    const std::span<const float> er = std::as_const(seq.x).row(t), pr = p.row(t);
    const double ee = dot(er, er), pp = dot(pr, pr), ep = dot(er, pr);
    const double ne = std::sqrt(ee), np = std::sqrt(pp);
    // cos(a·e, a·e + p) = (a‖e‖² + e·p) / (‖e‖ ‖a·e + p‖), ‖a·e + p‖ = √(a²‖e‖² + 2a e·p + ‖p‖²)
    auto keep = [&](double a) {
      const double n = std::sqrt(a * a * ee + 2 * a * ep + pp);
      return ne > 0 && n > 0 ? (a * ee + ep) / (ne * n) : 0.0;
    };
    const double a = o.scale ? root : 1.0;
    norms.rows.push_back({static_cast<long long>(t), seq.shown[t], ne, root * ne, np, std::sqrt(a * a * ee + 2 * a * ep + pp), keep(1.0),
                          keep(root)});
  }
  r.blocks.push_back(Text{trf("‖p‖ = √(D/2) = {:.4g} for every position (each sin/cos pair has length 1); the more of ‖e‖ "
                                      "beside it, the more of e's direction survives in e + p. The original paper multiplies e by √d_model "
                                      "= {:.4g} before adding (--scale-embedding).",
                                      std::sqrt(static_cast<double>(D) / 2), root)});
  r.blocks.push_back(std::move(norms));
  auto matrix = [&](std::string name, const Tensor& m) {
    Matrix x;
    x.name = std::move(name);
    x.values = m;
    x.row_labels = seq.shown;
    x.row_axis = N_("token");
    x.col_axis = N_("dim");
    return x;
  };
  r.blocks.push_back(matrix(o.scale ? "scaled_e" : "e", e));
  r.blocks.push_back(matrix("p", p));
  r.blocks.push_back(matrix("e_plus_p", sum));
  r.primary = "e_plus_p";

  // figure: e, p and e + p as heatmaps on one symmetric scale, tokens down the side
  double top = 0;
  const Tensor& ec = e;
  for (const Tensor* m : {&ec, &p, &sum})
    for (float v : m->values()) top = std::max(top, static_cast<double>(std::abs(v)));
  Figure fig;
  fig.title = fmt::format("e′ = {} + p: \"{}\" (D = {})", o.scale ? "√D·e" : "e", fmt::join(seq.shown, " "), D);
  fig.columns = 3;  // each a column of vectors (dimensions down, tokens across), side by side
  auto map = [&](const Tensor& m, std::string title) {
    Heatmap h;
    h.values = transpose(m);  // one column per token, as the notes draw vectors
    h.title = std::move(title);
    h.col_labels = seq.shown;
    h.x_label = tr("token");
    h.y_label = tr("dimension");
    h.col_group = 1;
    h.row_group = 2;
    h.cmap = o.fig.cmap.empty() ? Colormap::diverging : parse_colormap(o.fig.cmap);
    h.symmetric = true;
    h.vmin = -top;
    h.vmax = top;
    h.annotate = false;
    h.value_label = tr("value");
    return h;
  };
  fig.panels.push_back(map(e, o.scale ? tr("√D·e (embedding)") : tr("e (embedding)")));
  fig.panels.push_back(map(p, tr("p (positional encoding)")));
  fig.panels.push_back(map(sum, o.scale ? "√D·e + p" : "e + p"));
  std::vector<std::string> lower;
  for (const auto& w : seq.tokens) lower.push_back(w);
  present_all(r, o.out, o.fig, &fig, &std::get<Heatmap>(fig.panels[2]),
              fmt::format("pe_add_{}{}.png", name_part(lower), o.scale ? "_scaled" : ""));
}

}  // namespace

void register_pe_add(CLI::App* pe) {
  auto [cmd, o] = add_command(*pe, "add", tr("e′ = e + p: each token's embedding, its PE row and their sum, with ‖e‖, ‖p‖ and √d_model scaling"), run_pe_add);
  add_sentence_flag(cmd, o->sentence, tr("its words looked up lower-cased in the embedding"))->capture_default_str();
  cmd->add_flag("--scale-embedding", o->scale, tr("Multiply e by √d_model before adding p, as the original Transformer does"));
  o->source = add_sentence_source_flags(cmd);
  add_presentation_flags(cmd, o->out, o->fig);
  set_examples(cmd, {tr("tfx pe add --sentence \"I love you\"                 # e, p, e + p and their norms"),
                     tr("tfx pe add --sentence \"I love you\" --png"),
                     tr("tfx pe add --sentence \"the cat sat\" --scale-embedding   # e·√d_model + p, as in the paper")});
}

}  // namespace tfx::cli
