// The microscope's views of `tfx model attention` (model_attention_views.hpp): --sink and --neurons,
// computed by the library (tfx/model/attention_views.hpp), shown as tables, npy and figures; and the
// KV cache table of `model info --cache` and `model generate --cache`.
#include "cli/commands/model/model_attention_views.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/model/attention_figures.hpp"
#include "tfx/model/attention_views.hpp"
#include "tfx/model/family.hpp"

namespace tfx::cli {

void run_model_sink(const ModelInput& in, const LoadedInput& l, const OutputFlags& out, const FigureFlags& fig) {
  const ModelConfig& c = l.model.config;
  if (l.picture)
    throw usage_error(N_("--sink reads a text: an image model's first token is its [CLS], which cannot be removed; use a text model"));
  if (l.ids.size() < 2)
    throw usage_error(fmt::format(N_("--sink: the input has {} token; it needs at least 2 (the share on the first token, and again without it)"),
                                  l.ids.size()));
  const AttentionSinks s = attention_sinks(l.model, l.ids);
  const std::string first = l.tokens[0], second = l.tokens[1];
  Result r;
  r.command = "model attention";
  r.params = model_params(in, l);
  r.params["sink"] = true;
  r.blocks.push_back(Text{trf("{}: {} tokens; for every layer and head the attention weight on position 0 (“{}”), averaged over the {} "
                              "queries{}; then the same for the text without its first token, where “{}” is at position 0",
                              family_name(c), l.ids.size(), first, l.ids.size(),
                              c.decoder() ? tr(" (causal: query 0 sees only position 0)") : "", second)});
  Matrix a;
  a.name = N_("sink");
  a.values = s.share;
  a.row_labels = numbered("L", c.layers);
  a.col_labels = numbered("H", c.heads);
  a.row_axis = N_("layer");
  a.col_axis = N_("head");
  Matrix b = a;
  b.name = N_("sink_without_first");
  b.values = s.share_without_first;
  r.blocks.push_back(std::move(a));
  r.blocks.push_back(std::move(b));
  r.primary = "sink";
  r.summary[N_("mean share on position 0")] = s.mean;
  r.summary[N_("mean share on position 0 without the first token")] = s.mean_without_first;
  // uniform weights as the baseline: 1/T on position 0 (encoder), 1/(i+1) for query i (causal), averaged over the queries
  const auto uniform = [&](std::size_t T) {
    double u = 0;
    for (std::size_t i = 0; i < T; ++i) u += c.decoder() ? 1.0 / static_cast<double>(i + 1) : 1.0 / static_cast<double>(T);
    return u / static_cast<double>(T);
  };
  r.blocks.push_back(Text{trf("mean over every layer and head: {:.3f} with “{}” first, {:.3f} with “{}” first (uniform attention would "
                              "give {:.3f} and {:.3f})",
                              s.mean, first, s.mean_without_first, second, uniform(l.ids.size()), uniform(l.ids.size() - 1))});
  Figure f;
  if (figure_drawn(fig, out)) {
    f = attention_sink_figure(s, first, second, trf("{} — attention sinks: the share of attention on position 0", model_folder_name(in.dir)));
  }
  const std::string name = fmt::format("model_attention_sink_{}.png", name_part({model_folder_name(in.dir), in.text}));
  note_random_weights(r, c);
  note_random_weights(f, c);
  present_all(r, out, fig, f.panels.empty() ? nullptr : &f, nullptr, name);
}

void run_model_neurons(const ModelInput& in, const LoadedInput& l, std::size_t layer, std::size_t head, const std::string& query,
                       const OutputFlags& out, const FigureFlags& fig) {
  const ModelConfig& c = l.model.config;
  const std::size_t T = l.positions();
  const std::optional<unsigned long long> qi = model_whole_number(query);
  if (!qi) throw usage_error(fmt::format(N_("--query {}: expected a token position from 0"), query));
  if (*qi >= T) throw usage_error(fmt::format(N_("--query {}: the input has {} tokens (0 … {})"), query, T, T - 1));
  const std::size_t q = static_cast<std::size_t>(*qi);
  const LayerQk taps = layer_qk(l.model, l.ids, l.pixels, layer);
  const NeuronView v = neuron_view(taps.q, taps.k, c.heads, c.kv_heads, head, q, c.decoder(), c.attention_rule(layer));
  const std::size_t n = v.scores.size(), hd = v.head_dim;
  const std::vector<std::string> keys(l.tokens.begin(), l.tokens.begin() + static_cast<std::ptrdiff_t>(n));
  Result r;
  r.command = "model attention";
  r.params = model_params(in, l);
  r.params["layer"] = layer;
  r.params["head"] = head;
  r.params["query"] = q;
  r.params["neurons"] = true;
  r.blocks.push_back(Text{trf("{}: layer {} head {}, query {} (“{}”) against {} keys{}: q and each k (head_dim {}{}), their elementwise "
                              "product q∘k, whose sum × 1/√{} is the score, and the softmax of the scores",
                              family_name(c), layer, head, q, l.tokens[q], n, c.decoder() ? tr(" (causal: keys 0 … the query)") : "", hd,
                              c.uses_rope() ? tr("; after RoPE") : "", hd)});
  // what this model does beyond q·k/√hd (Gemma 2/3, Mistral): said, so the numbers can be followed
  const AttentionRule rule = c.attention_rule(layer);
  if (rule.scale > 0)
    r.blocks.push_back(Text{trf("This model scales the sum by {:.6g} = 1/√{:g} (query_pre_attn_scalar), not 1/√{}.", v.scale,
                                1.0 / (v.scale * v.scale), hd)});
  if (rule.softcap > 0) r.blocks.push_back(Text{trf("Each score is then soft-capped: {0:g}·tanh(s / {0:g}).", rule.softcap)});
  if (rule.window > 0 && q + 1 > rule.window)
    r.blocks.push_back(Text{trf("Layer {} slides: the query sees only the last {} keys ({} … {}); the others get weight 0.", layer, rule.window,
                                q + 1 - rule.window, q)});
  Matrix mq;
  mq.name = N_("q");
  mq.values = Tensor::from({1, hd}, v.q);
  mq.row_labels = {l.tokens[q]};
  mq.row_axis = N_("query");
  mq.col_axis = N_("dim");
  Matrix mk;
  mk.name = N_("k");
  mk.values = v.k;
  mk.row_labels = keys;
  mk.row_axis = N_("key");
  mk.col_axis = N_("dim");
  Matrix mqk = mk;
  mqk.name = N_("qk");
  mqk.values = v.qk;
  Records sc;
  sc.name = N_("scores");
  sc.columns = {N_("key"), N_("token"), N_("sum(q*k)"), N_("score = sum/sqrt(d_k)"), N_("softmax"), N_("model's weight")};
  for (std::size_t j = 0; j < n; ++j)
    sc.rows.push_back({static_cast<long long>(j), keys[j], v.sums[j], v.scores[j], v.weights[j],
                       static_cast<double>(taps.attentions[(head * T + q) * T + j])});
  const bool npy = out.format == Format::npy || (out.output.size() > 4 && out.output.ends_with(".npy"));
  r.blocks.push_back(std::move(sc));
  r.blocks.push_back(std::move(mq));
  r.blocks.push_back(std::move(mk));
  r.blocks.push_back(std::move(mqk));
  r.primary = npy ? "qk" : "scores";
  Figure f;
  if (figure_drawn(fig, out)) {
    f = neuron_view_figure(v, keys, l.tokens[q], trf("{} — neuron view, layer {} head {}, query {} “{}”", model_folder_name(in.dir), layer, head, q, l.tokens[q]));
  }
  const std::string name = fmt::format("model_attention_neurons_{}_L{}_H{}_Q{}.png", name_part({model_folder_name(in.dir), in.text}), layer, head, q);
  note_random_weights(r, c);
  note_random_weights(f, c);
  present_all(r, out, fig, f.panels.empty() ? nullptr : &f, nullptr, name);
}

}  // namespace tfx::cli
