// `tfx trace TEXT`: one walk through the whole Transformer on the built-in teaching translator, in
// the lecture's order, every step with its shape: tokens → ids → embedding rows → PE rows → e + p →
// Q, K, V per head → scores → softmax → Z → Concat·W_O → add & norm → FFN → add & norm (each
// encoder layer) → the decoder's masked self-attention, cross-attention over the memory and FFN →
// logits → the next token. The table lists the steps (--show prints chosen matrices), JSON carries
// every matrix with its labels, --png draws one poster with the steps as panels.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/shared_flags.hpp"
#include "cli/decoder_rows.hpp"
#include "cli/translator_domain_notes.hpp"
#include "cli/validators.hpp"
#include "cli/commands/train/model_flag.hpp"
#include "tfx/model/translator.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct TraceOptions {
  std::string text;
  std::string target;
  bool target_given = false;
  std::string show;
  int head = 0;
  CLI::Option* slides_opt = nullptr;
  std::string slides;                 // --slides DIR: one 16:9 figure per step, plus the poster
  std::string slides_format = "png";  // --slides-format png|svg
  OutputFlags out;
  FigureFlags fig;
  CLI::Option* target_opt = nullptr;
};

// The trace being built: the steps table and every matrix, in order.
struct Trace {
  TranslatorProperties model;  // the labels follow the model: pre-LN or post-LN, PE or none, 1/√d_k or none
  Records steps;
  std::vector<Matrix> matrices;
  int number = 0;
  void step(const std::string& part, const std::string& what, const std::string& shape, const std::string& key) {
    steps.rows.push_back({static_cast<long long>(++number), part, what, shape, key});
  }
  void matrix(const std::string& key, const Tensor& t, const std::vector<std::string>& rows, const std::vector<std::string>& cols,
              const std::string& row_axis, const std::string& col_axis, const std::string& slice_axis = "") {
    matrices.push_back(Matrix{.name = key, .values = t, .row_labels = rows, .col_labels = cols, .row_axis = row_axis,
                              .col_axis = col_axis, .slice_axis = slice_axis});
  }
  // what a sublayer reads: x itself (post-LN), or LayerNorm(x) (pre-LN)
  std::string normed(const std::string& x) const { return model.pre_ln ? "LayerNorm(" + x + ")" : x; }
};

std::string shape_of(const Tensor& t) {
  std::string s = "[";
  for (std::size_t i = 0; i < t.rank(); ++i) s += (i ? ", " : "") + std::to_string(t.shape()[i]);
  return s + "]";
}

// H per-head tensors (N, d) stacked as (H, N, d).
Tensor stack(const std::vector<Tensor>& per_head) {
  const std::size_t H = per_head.size(), R = per_head[0].rows(), C = per_head[0].cols();
  Tensor t({H, R, C});
  for (std::size_t h = 0; h < H; ++h) std::copy(per_head[h].values().begin(), per_head[h].values().end(), t.data() + h * R * C);
  return t;
}

template <class Get>
Tensor stack_heads(const MultiHeadAttention& a, Get get) {
  std::vector<Tensor> parts;
  for (const AttentionSteps& h : a.heads) parts.push_back(get(h));
  return stack(parts);
}

// The attention steps of one multi-head attention: Q, K, V per head, scores, (mask), softmax, Z,
// Concat·W_O.
void trace_attention(Trace& tc, const std::string& part, const std::string& key, const MultiHeadAttention& a,
                     const std::vector<std::string>& q_tokens, const std::vector<std::string>& k_tokens, bool causal,
                     std::size_t heads, std::size_t d_k, const std::string& q_from, const std::string& kv_from) {
  const std::vector<Tensor> q = split_heads(a.q, heads), k = split_heads(a.k, heads), v = split_heads(a.v, heads);
  const Tensor Q = stack(q), K = stack(k), V = stack(v);
  tc.step(part, trf("Q = {}·W_Qᵀ + b, {} heads of d_k = {}", q_from, heads, d_k), shape_of(Q), key + ".q");
  tc.matrix(key + ".q", Q, q_tokens, {}, "query", "dim", "head");
  tc.step(part, fmt::format("K = {}·W_Kᵀ + b", kv_from), shape_of(K), key + ".k");
  tc.matrix(key + ".k", K, k_tokens, {}, "key", "dim", "head");
  tc.step(part, fmt::format("V = {}·W_Vᵀ + b", kv_from), shape_of(V), key + ".v");
  tc.matrix(key + ".v", V, k_tokens, {}, "key", "dim", "head");
  const Tensor scores = stack_heads(a, [](const AttentionSteps& h) { return h.scaled; });
  if (tc.model.scale_scores)
    tc.step(part, trf("scores = QKᵀ / √d_k (√{} = {:.4g})", d_k, std::sqrt(static_cast<double>(d_k))), shape_of(scores), key + ".scores");
  else
    tc.step(part, tr("scores = QKᵀ, not divided by √d_k (this model was trained with --no-scale)"), shape_of(scores), key + ".scores");
  tc.matrix(key + ".scores", scores, q_tokens, k_tokens, "query", "key", "head");
  if (causal) {
    const Tensor masked = stack_heads(a, [](const AttentionSteps& h) { return h.masked; });
    tc.step(part, tr("mask: −∞ where key j > query i (a token sees only itself and what came before)"), shape_of(masked),
            key + ".masked");
    tc.matrix(key + ".masked", masked, q_tokens, k_tokens, "query", "key", "head");
  }
  const Tensor weights = stack_heads(a, [](const AttentionSteps& h) { return h.weights; });
  tc.step(part, tr("weights = softmax over each row (rows sum to 1)"), shape_of(weights), key + ".weights");
  tc.matrix(key + ".weights", weights, q_tokens, k_tokens, "query", "key", "head");
  const Tensor z = stack_heads(a, [](const AttentionSteps& h) { return h.output; });
  tc.step(part, tr("Z = weights · V, per head"), shape_of(z), key + ".z");
  tc.matrix(key + ".z", z, q_tokens, {}, "query", "dim", "head");
  tc.step(part, "MultiHead = Concat(Z₀ … Z_H−1)·W_Oᵀ + b", shape_of(a.output), key + ".out");
  tc.matrix(key + ".out", a.output, q_tokens, {}, "token", "dim");
}

void trace_ffn(Trace& tc, const std::string& part, const std::string& key, const FeedForwardSteps& ffn, const SublayerSteps& block,
               const std::vector<std::string>& tokens, const std::string& input, const std::string& output) {
  tc.step(part, trf("FFN hidden = ReLU({}·W₁ᵀ + b₁)", tc.normed(input)), shape_of(ffn.hidden), key + ".ffn_hidden");
  tc.matrix(key + ".ffn_hidden", ffn.hidden, tokens, {}, "token", N_("unit"));
  tc.step(part, tr("FFN = hidden·W₂ᵀ + b₂"), shape_of(ffn.output), key + ".ffn");
  tc.matrix(key + ".ffn", ffn.output, tokens, {}, "token", "dim");
  if (tc.model.pre_ln)
    tc.step(part, trf("residual (pre-LN): {} = {} + FFN(LayerNorm({}))", output, input, input), shape_of(block.output), key + ".y");
  else
    tc.step(part, trf("add & norm: {} = LayerNorm({} + FFN({}))", output, input, input), shape_of(block.output), key + ".y");
  tc.matrix(key + ".y", block.output, tokens, {}, "token", "dim");
}

void trace_input(Trace& tc, const std::string& part, const std::string& key, const TokenIds& t, const EmbeddedTokens& e,
                 std::size_t V, std::size_t D) {
  tc.step(part, trf("tokens: split at spaces ({})", fmt::format("{}", fmt::join(t.tokens, " · "))),
          fmt::format("[{}]", t.tokens.size()), key + ".tokens");
  std::string ids;
  for (std::size_t i : t.ids) ids += (ids.empty() ? "" : " ") + std::to_string(i);
  tc.step(part, trf("ids: each token's row in the vocabulary ({})", ids), fmt::format("[{}]", t.ids.size()), key + ".ids");
  tc.step(part, trf("e = Embedding(ids): row id of the {}×{} table", V, D), shape_of(e.embedding), key + ".e");
  tc.matrix(key + ".e", e.embedding, t.tokens, {}, "token", "dim");
  if (tc.model.positional_encoding) {
    tc.step(part, tr("p = PE(pos): sin/cos rows 0 … T−1"), shape_of(e.pe), key + ".p");
    tc.matrix(key + ".p", e.pe, t.tokens, {}, "token", "dim");
    tc.step(part, "X = e + p", shape_of(e.x), key + ".x");
  } else {
    tc.step(part, tr("X = e: no positional encoding (this model was trained with --no-pe), so X does not depend on word order"),
            shape_of(e.x), key + ".x");
  }
  tc.matrix(key + ".x", e.x, t.tokens, {}, "token", "dim");
}

Heatmap panel(const Matrix& m, const std::string& title, std::size_t head = 0, bool weights = false) {
  Heatmap h;
  const Tensor& v = m.values;
  if (v.rank() == 3) {
    const std::size_t R = v.shape()[1], C = v.shape()[2];
    h.values = Tensor({R, C});
    std::copy(v.data() + head * R * C, v.data() + (head + 1) * R * C, h.values.data());
  } else {
    h.values = v;
  }
  h.title = title;
  h.row_labels = m.row_labels;
  h.col_labels = m.col_labels;
  h.y_label = tr_runtime(m.row_axis);  // the English axis keys, in the output language
  h.x_label = tr_runtime(m.col_axis);
  if (weights) {
    h.vmin = 0.0;
    h.vmax = 1.0;
    h.value_label = tr("weight");
  } else {
    h.cmap = Colormap::diverging;
    h.symmetric = true;
  }
  h.annotate = h.values.cols() <= 8;
  // masked cells (−∞) drawn grey
  for (float x : h.values.values())
    if (std::isinf(x)) {
      h.masked.assign(h.values.size(), 0);
      for (std::size_t i = 0; i < h.values.size(); ++i) h.masked[i] = std::isinf(h.values.data()[i]) ? 1 : 0;
      break;
    }
  return h;
}

// A step's figure: its slide's file name (after the number) and its panel.
struct TraceStepFigure {
  std::string name;
  Panel panel;
};

// tokens → ids: each token in a box over its id, an arrow between (the first step, as a drawing).
Diagram trace_tokens_panel(const TokenIds& t, const std::string& title) {
  Diagram d;
  d.title = title;
  const double n = static_cast<double>(t.tokens.size()), w = 1.6, gap = 0.4;
  d.x0 = -0.6, d.x1 = n * (w + gap) - gap + 0.6, d.y0 = -0.3, d.y1 = 3.0;
  d.size = std::max(360.0, 130.0 * n);
  for (std::size_t i = 0; i < t.tokens.size(); ++i) {
    const double x = static_cast<double>(i) * (w + gap);
    d.boxes.push_back({x, 2.0, w, 0.8, t.tokens[i], 0});
    d.arrows.push_back({x + w / 2, 1.9, x + w / 2, 1.05, -1, "", false, 0});
    d.boxes.push_back({x, 0.2, w, 0.8, std::to_string(t.ids[i]), 1});
  }
  d.labels.push_back({d.x0 + 0.3, 2.9, tr("token"), -1});
  d.labels.push_back({d.x0 + 0.3, 0.05, tr("id"), -1});
  return d;
}

// A slide's formula with the shapes it multiplies ("Q = X·W_Q, (3×64)·(64×16) → (3×16), head 0"):
// S source and T target tokens, D = d_model, d_k per head, F = the FFN width, V the vocabulary.
std::string trace_slide_formula(const std::string& step, std::size_t S, std::size_t T, std::size_t D, std::size_t d_k, std::size_t F,
                                std::size_t V, std::size_t head) {
  const auto sh = [](std::size_t a, std::size_t b) { return fmt::format("({}×{})", a, b); };
  const std::string h = trf(", head {}", head);
  if (step == "tokens") return fmt::format("ids = vocab(tokens), ({}) → ({})", S, S);
  if (step == "embedding") return fmt::format("e = Embedding(ids): ({}) · {} → {}", S, sh(V, D), sh(S, D));
  if (step == "pe") return fmt::format("p = PE(pos): PE(pos, 2i) = sin(pos/10000^(2i/{0})), PE(pos, 2i+1) = cos(…), {1}", D, sh(S, D));
  if (step == "x") return fmt::format("X = e + p: {} + {} → {}", sh(S, D), sh(S, D), sh(S, D));
  if (step == "q" || step == "k" || step == "v") {
    const std::string M = step == "q" ? "Q" : step == "k" ? "K" : "V";
    return fmt::format("{0} = X·W_{0}: {1}·{2} → {3}", M, sh(S, D), sh(D, d_k), sh(S, d_k)) + h;
  }
  if (step == "scores") return fmt::format("QKᵀ/√d_k: {}·{} / √{} → {}", sh(S, d_k), sh(d_k, S), d_k, sh(S, S)) + h;
  if (step == "softmax") return fmt::format("A = softmax(QKᵀ/√d_k), Σ_j A_ij = 1: {}", sh(S, S)) + h;
  if (step == "z") return fmt::format("Z = A·V: {}·{} → {}", sh(S, S), sh(S, d_k), sh(S, d_k)) + h;
  if (step == "concat") return fmt::format("Concat(Z₁ … Z_h)·W_O: {}·{} → {}", sh(S, D), sh(D, D), sh(S, D));
  if (step == "add-norm") return fmt::format("H = LayerNorm(X + MultiHead(X)): {} + {} → {}", sh(S, D), sh(S, D), sh(S, D));
  if (step == "ffn") return fmt::format("ReLU(H·W₁ + b₁): {}·{} → {}", sh(S, D), sh(D, F), sh(S, F));
  if (step == "ffn-norm") return fmt::format("Y = LayerNorm(H + ReLU(H·W₁ + b₁)·W₂ + b₂): {}·{} → {}", sh(S, F), sh(F, D), sh(S, D));
  if (step == "memory") return fmt::format("Z = Y (memory): {}", sh(S, D));
  if (step == "decoder-input") return fmt::format("X = e + p: {} + {} → {}", sh(T, D), sh(T, D), sh(T, D));
  if (step == "masked-scores") return fmt::format("QKᵀ/√d_k + M (M_ij = −∞ for j > i): {}·{} → {}", sh(T, d_k), sh(d_k, T), sh(T, T)) + h;
  if (step == "masked-softmax") return fmt::format("A = softmax(QKᵀ/√d_k + M): {}", sh(T, T)) + h;
  if (step == "cross-attention") return fmt::format("A = softmax(Q·K_Zᵀ/√d_k): {}·{} → {}", sh(T, d_k), sh(d_k, S), sh(T, S)) + h;
  if (step == "next-token") return fmt::format("P(next) = softmax(y·W_vocab): ({})·{} → ({})", D, sh(D, V), V);
  return {};
}

// A heatmap much wider than the 16:9 page (the PE slide's 3×64) laid out as stacked slices of
// its columns on one colour scale, so the matrix fills the page instead of a thin strip: about
// √(aspect / (16/9)) slices (at most 3), each titled with its columns.
std::vector<Panel> trace_slide_panels(const Panel& p) {
  const auto* h = std::get_if<Heatmap>(&p);
  if (!h || h->values.rank() != 2) return {p};
  const std::size_t R = h->values.rows(), C = h->values.cols();
  const double aspect = static_cast<double>(C) / static_cast<double>(std::max<std::size_t>(R, 1));
  // at most 3 slices: more would shrink the page's text below what a projector shows
  const auto n = std::min<std::size_t>(3, static_cast<std::size_t>(std::lround(std::sqrt(aspect / (16.0 / 9.0)))));
  if (n < 2 || R > 16) return {p};
  const std::size_t width = (C + n - 1) / n;
  const auto [lo, hi] = heatmap_scale(*h);
  std::vector<Panel> out;
  for (std::size_t c0 = 0; c0 < C; c0 += width) {
    const std::size_t c1 = std::min(C, c0 + width);
    Heatmap part = *h;
    part.values = Tensor({R, c1 - c0});
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t c = c0; c < c1; ++c) part.values(r, c - c0) = h->values(r, c);
    if (!h->masked.empty()) {
      part.masked.clear();
      for (std::size_t r = 0; r < R; ++r)
        for (std::size_t c = c0; c < c1; ++c) part.masked.push_back(h->masked[r * C + c]);
    }
    part.col_labels.clear();
    for (std::size_t c = c0; c < c1; ++c) part.col_labels.push_back(c < h->col_labels.size() ? h->col_labels[c] : std::to_string(c));
    part.vmin = lo, part.vmax = hi, part.symmetric = false;
    part.title = c0 == 0 ? h->title : "";
    const std::string columns = trf("columns {} … {} of {}", c0, c1 - 1, C);
    part.subtitle = c0 == 0 && !h->subtitle.empty() ? h->subtitle + "; " + columns : columns;  // the formula stays on top
    part.source_rows = part.source_cols = 0;
    out.push_back(std::move(part));
  }
  return out;
}

void run_trace(const TraceOptions& o) {
  const Translator& m = cli_translator();
  const std::size_t H = m.heads, D = m.d_model, d_k = D / H;
  if (o.head >= static_cast<int>(H)) throw usage_error(fmt::format(N_("--head {}: the model has {} heads (0 … {})"), o.head, H, H - 1));
  const auto head = static_cast<std::size_t>(o.head);

  // the source through the encoder; the target prefix: --target, else the model's own
  // translation without its last word (so the trace ends by predicting that word)
  const Translation full = translate(m, o.text, 20, "TEXT");
  const DomainCheck domain = check_domain(model_domain(m), full.source.tokens);
  warn_outside_domain(domain);
  TokenIds target;
  if (o.target_opt->count()) {
    if (!o.target.empty()) target = translator_tokens(m, o.target, "--target");
  } else {
    target.tokens = full.output;
    if (!target.tokens.empty()) target.tokens.pop_back();
    for (const std::string& w : target.tokens) target.ids.push_back(*m.vocab.find(w));
  }
  target.tokens.insert(target.tokens.begin(), "<bos>");
  target.ids.insert(target.ids.begin(), m.bos);
  const EncoderPass& enc = full.encoder;
  const DecoderPass dec = translator_decode(m, enc.memory, target.ids);
  const std::vector<std::string>& src = full.source.tokens;

  Trace tc;
  tc.model = m.properties;
  tc.steps.name = N_("steps");
  tc.steps.columns = {N_("#"), N_("part"), N_("step"), N_("shape"), N_("name")};
  trace_input(tc, tr("encoder input"), "src", full.source, enc.input, m.vocab.size(), D);
  for (std::size_t l = 0; l < enc.layers.size(); ++l) {
    const std::string part = trf("encoder layer {}", l + 1), key = fmt::format("enc{}", l + 1);
    const std::string X = l == 0 ? "X" : fmt::format("Y{}", l);
    trace_attention(tc, part, key + ".self", enc.layers[l].attention, src, src, false, H, d_k, tc.normed(X), tc.normed(X));
    tc.step(part, m.properties.pre_ln ? trf("residual (pre-LN): H = {} + MultiHead(LayerNorm({}))", X, X)
                                      : trf("add & norm: H = LayerNorm({} + MultiHead({}))", X, X),
            shape_of(enc.layers[l].attn_block.output), key + ".h");
    tc.matrix(key + ".h", enc.layers[l].attn_block.output, src, {}, "token", "dim");
    trace_ffn(tc, part, key, enc.layers[l].ffn, enc.layers[l].ffn_block, src, "H", fmt::format("Y{}", l + 1));
  }
  tc.step(tr("encoder output"), tr("memory Z = the last encoder layer's Y: what the decoder's cross-attention reads"),
          shape_of(enc.memory), "memory");
  tc.matrix("memory", enc.memory, src, {}, "token", "dim");
  trace_input(tc, tr("decoder input"), "tgt", target, dec.input, m.vocab.size(), D);
  const std::vector<std::string>& tgt = target.tokens;
  for (std::size_t l = 0; l < dec.layers.size(); ++l) {
    const std::string part = trf("decoder layer {}", l + 1), key = fmt::format("dec{}", l + 1);
    const DecoderLayerSteps& s = dec.layers[l];
    const std::string X = l == 0 ? "X" : fmt::format("Y{}", l);
    trace_attention(tc, part, key + ".self", s.self_attention, tgt, tgt, true, H, d_k, tc.normed(X), tc.normed(X));
    tc.step(part, m.properties.pre_ln ? trf("residual (pre-LN): H₁ = {} + MaskedMultiHead(LayerNorm({}))", X, X)
                                      : trf("add & norm: H₁ = LayerNorm({} + MaskedMultiHead({}))", X, X),
            shape_of(s.self_block.output), key + ".h1");
    tc.matrix(key + ".h1", s.self_block.output, tgt, {}, "token", "dim");
    trace_attention(tc, part + tr(", cross"), key + ".cross", s.cross_attention, tgt, src, false, H, d_k, tc.normed("H₁"), "Z");
    tc.step(part, m.properties.pre_ln ? tr("residual (pre-LN): H₂ = H₁ + MultiHead(LayerNorm(H₁), Z, Z)")
                                      : tr("add & norm: H₂ = LayerNorm(H₁ + MultiHead(H₁, Z, Z))"),
            shape_of(s.cross_block.output), key + ".h2");
    tc.matrix(key + ".h2", s.cross_block.output, tgt, {}, "token", "dim");
    trace_ffn(tc, part, key, s.ffn, s.ffn_block, tgt, "H₂", fmt::format("Y{}", l + 1));
  }
  tc.step(tr("output"), tr("logits = Y·W_outᵀ + b: one score per vocabulary token"), shape_of(dec.logits), "logits");
  tc.matrix("logits", dec.logits, tgt, m.vocab.tokens, "token", "vocabulary");
  // the next token: softmax of the last row
  const std::size_t V = m.vocab.size(), last = tgt.size() - 1;
  const float* prob = dec.probabilities.data() + last * V;
  std::vector<std::size_t> order(V);
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + 5, order.end(),
                    [&](std::size_t a, std::size_t b) { return prob[a] != prob[b] ? prob[a] > prob[b] : a < b; });
  const std::string next = m.vocab.tokens[order[0]];
  tc.step(tr("output"), trf("next token = argmax softmax(logits of the last position “{}”) = {} (p = {:.4f})", tgt[last], next,
                            prob[order[0]]),
          "[1]", "next");

  Result r;
  r.command = "trace";
  r.params = {{"text", o.text}, {"target", tgt}, {"model", m.name}, {"head", head}, {"vocab", cli_vocab_name()},
              {"vocab_size", m.vocab.size()}};
  if (m.properties.lecture())
    r.blocks.push_back(Text{trf("The Transformer step by step on {} (d_model {}, {} heads of d_k {}, {} + {} layers, "
                                        "post-LN): source “{}”, decoder input “{}” → next token “{}”",
                                        tr_runtime(m.name), D, H, d_k, m.encoder.size(), m.decoder.size(), o.text,
                                        fmt::format("{}", fmt::join(tgt, " ")), next)});
  else
    r.blocks.push_back(Text{trf("The Transformer step by step on {} (d_model {}, {} heads of d_k {}, {} + {} layers, "
                                "{}; trained with {}): source “{}”, decoder input “{}” → next token “{}”",
                                tr_runtime(m.name), D, H, d_k, m.encoder.size(), m.decoder.size(), m.properties.layout(),
                                m.properties.flags(), o.text, fmt::format("{}", fmt::join(tgt, " ")), next)});
  if (!m.properties.lecture()) r.params["trained_with"] = m.properties.flags();
  r.blocks.push_back(Text{trf("ids index {} (tfx tokenize prints them; tfx lookup --ids shows their embedding rows)", cli_vocab_label())});
  r.blocks.push_back(Text{domain_line(domain)});
  if (!full.finished)
    r.blocks.push_back(Text{tr("the model's own translation stopped at the limit of 20 tokens without <eos>")});
  r.blocks.push_back(tc.steps);
  Records top;
  top.name = N_("next");
  top.columns = {N_("rank"), N_("token"), N_("probability")};
  for (std::size_t i = 0; i < 5; ++i) top.rows.push_back({static_cast<long long>(i + 1), m.vocab.tokens[order[i]], double(prob[order[i]])});
  r.blocks.push_back(top);
  // matrices: JSON and npy carry every one; tables print the ones --show names
  const bool machine = o.out.format == Format::json;
  std::vector<std::string> shown;
  if (!o.show.empty()) {
    std::stringstream ss(o.show);
    for (std::string item; std::getline(ss, item, ',');) {
      const bool known = item == "all" || std::any_of(tc.matrices.begin(), tc.matrices.end(), [&](const Matrix& x) { return x.name == item; });
      if (!known) throw usage_error(fmt::format(N_("--show: no matrix '{}'; the steps table's name column lists them (or all)"), item));
      shown.push_back(item);
    }
  }
  for (const Matrix& x : tc.matrices)
    if (machine || std::find(shown.begin(), shown.end(), "all") != shown.end() ||
        std::find(shown.begin(), shown.end(), x.name) != shown.end())
      r.blocks.push_back(x);
  if (!machine && shown.empty())
    r.blocks.push_back(Text{tr("--show NAME[,NAME…] prints a step's matrix (names in the last column; all for every one); "
                               "--format json carries them all with their labels; --png draws the poster")});
  r.primary = "steps";
  r.summary[N_("next_token")] = next;
  r.summary[N_("next_probability")] = prob[order[0]];
  r.summary[N_("translation")] = fmt::format("{}", fmt::join(full.output, " "));
  r.summary[N_("steps")] = tc.number;
  add_domain_summary(r, domain);

  // the steps drawn: each a panel of the poster and a slide of its own (--slides), in order
  std::vector<TraceStepFigure> drawn;
  const bool slides = o.slides_opt->count() > 0;
  Figure figure;
  if (slides || figure_drawn(o.fig, o.out)) {
    auto find = [&](const std::string& name) -> const Matrix& {
      return *std::find_if(tc.matrices.begin(), tc.matrices.end(), [&](const Matrix& x) { return x.name == name; });
    };
    const std::string h = trf(", head {}", head);
    auto add = [&](const std::string& name, Panel p) {
      std::visit([&](auto& panel) { panel.title = fmt::format("{}. {}", drawn.size() + 1, panel.title); }, p);
      drawn.push_back({name, std::move(p)});
    };
    add("tokens", trace_tokens_panel(full.source, tr("tokens → ids (rows of the embedding table)")));
    add("embedding", panel(find("src.e"), tr("e = Embedding(tokens)")));
    add("pe", panel(find("src.p"), tr("p = PE(position)")));
    add("x", panel(find("src.x"), "X = e + p"));
    add("q", panel(find("enc1.self.q"), "Q = X·W_Q" + h, head));
    add("k", panel(find("enc1.self.k"), "K = X·W_K" + h, head));
    add("v", panel(find("enc1.self.v"), "V = X·W_V" + h, head));
    add("scores", panel(find("enc1.self.scores"), "QKᵀ/√d_k" + h, head));
    add("softmax", panel(find("enc1.self.weights"), "softmax" + h, head, true));
    add("z", panel(find("enc1.self.z"), tr("Z = weights·V") + h, head));
    add("concat", panel(find("enc1.self.out"), "Concat(Z)·W_O"));
    add("add-norm", panel(find("enc1.h"), "H = LayerNorm(X + MultiHead)"));
    add("ffn", panel(find("enc1.ffn_hidden"), "ReLU(H·W₁)"));
    add("ffn-norm", panel(find("enc1.y"), "Y = LayerNorm(H + FFN)"));
    add("memory", panel(find("memory"), trf("memory Z (after {} layers)", m.encoder.size())));
    add("decoder-input", panel(find("tgt.x"), tr("decoder X = e + p")));
    add("masked-scores", panel(find("dec1.self.masked"), tr("masked scores") + h, head));
    add("masked-softmax", panel(find("dec1.self.weights"), tr("masked softmax") + h, head, true));
    const std::string last_layer = fmt::format("dec{}", m.decoder.size());
    Heatmap cross = panel(find(last_layer + ".cross.weights"), trf("cross-attention, layer {}", m.decoder.size()) + h, head, true);
    // rows as translate --png labels them: the token read → the word predicted at that position
    std::vector<std::string> predicted;
    for (std::size_t i = 0; i < tgt.size(); ++i) {
      const float* row = dec.probabilities.data() + i * V;
      predicted.push_back(m.vocab.tokens[static_cast<std::size_t>(std::max_element(row, row + V) - row)]);
    }
    cross.row_labels = decoder_row_labels(tgt, predicted);
    cross.y_label = decoder_rows_axis();
    add("cross-attention", std::move(cross));
    Bars b;
    b.title = trf("next token after “{}”: {}", tgt[last], next);
    b.value_label = tr("probability");
    b.horizontal = true;
    b.annotate = true;
    b.vmin = 0.0;
    b.vmax = 1.0;
    for (std::size_t i = 0; i < 5; ++i) {
      b.labels.push_back(m.vocab.tokens[order[i]]);
      b.values.push_back(prob[order[i]]);
    }
    add("next-token", std::move(b));
    for (const TraceStepFigure& d : drawn) figure.panels.push_back(d.panel);
    figure.columns = 4;
    figure.title = trf("Inside the Transformer: {} → … {} → {}", o.text, tgt[last], next) + " (" + translator_weights_label() + ")" + domain_title_suffix(domain);
    if (!domain.in_domain)
      if (auto* first = std::get_if<Diagram>(&figure.panels.front())) first->subtitle = domain.reasons.front();
  }
  if (slides) {
    // 00-poster, then 01-tokens … one 16:9 page per step, under the poster's title
    std::vector<Slide> pages;
    pages.push_back({"00-poster", figure});
    // the poster again in parts of four steps, each a 16:9 page legible on a projector (the whole
    // poster is 3328 pixels wide): 00a-poster … 00e-poster
    for (std::size_t first = 0, part = 0; first < drawn.size(); first += 4, ++part) {
      Figure f;
      f.title = trf("{} ({}/{})", figure.title, part + 1, (drawn.size() + 3) / 4);
      for (std::size_t i = first; i < std::min(drawn.size(), first + 4); ++i) f.panels.push_back(drawn[i].panel);
      f.columns = 2;
      f.page_width = kSlideWidth;
      f.page_height = kSlideHeight;
      pages.push_back({fmt::format("00{}-poster", static_cast<char>('a' + part)), std::move(f)});
    }
    const std::size_t S = src.size(), T = tgt.size(), F = m.ffn, V = m.vocab.size();
    for (std::size_t i = 0; i < drawn.size(); ++i) {
      Figure f;
      f.title = figure.title;
      // each step's formula with the shapes it multiplies, under the step's title; a wide matrix
      // in stacked slices so it fills the page
      Panel step = drawn[i].panel;
      const std::string formula = trace_slide_formula(drawn[i].name, S, T, D, d_k, F, V, head);
      std::visit([&](auto& p) { p.subtitle = domain.in_domain ? formula : domain.reasons.front() + " — " + formula; }, step);
      f.panels = trace_slide_panels(step);
      if (f.panels.size() > 1) f.columns = 1;
      f.page_width = kSlideWidth;
      f.page_height = kSlideHeight;
      pages.push_back({fmt::format("{:02}-{}", i + 1, drawn[i].name), std::move(f)});
    }
    write_slides(pages, o.slides, parse_format(o.slides_format), o.out, o.fig);
    // only the slides asked for: no table (as with --png)
    if (!o.out.format_given() && !o.fig.png_requested() && !o.fig.view) return;
  }
  present_all(r, o.out, o.fig, &figure, nullptr, default_figure_name("trace", o.text));
}

}  // namespace

void register_trace(CLI::App& app) {
  auto [cmd, o] = add_command(app, "trace", tr("The whole Transformer step by step on the teaching translator: tokens → … → the next token, every shape"),
                              run_trace, tr("Attention"));
  cmd->add_option("TEXT", o->text, tr("A Korean sentence of the translator's domain (\"나는 학생 이다\")"))->required();
  o->target_opt = add_target_flag(cmd, o->target,
                                  tr("the decoder's input after <bos>, English words; \"\" = <bos> alone; default: the model's "
                                     "translation without its last word, so the trace ends by predicting it"));
  cmd->add_option("--head", o->head, tr("The head the poster draws (0-based)"))->capture_default_str()->check(whole_number(0, 64));
  cmd->add_option("--show", o->show, tr("Matrices to print in the table output, by the steps' names (comma-separated, or all)"));
  o->slides_opt = cmd->add_option("--slides", o->slides,
                  tr("Write every step drawn as a 16:9 slide of its own (1920×1080 at --scale 1), with its formula and shapes, into "
                     "folder DIR, created if missing: 00-poster (the whole poster), 00a-poster … 00e-poster (the poster in 16:9 "
                     "parts), 01-tokens, 02-embedding, … 20-next-token"))
      ->type_name("DIR")
      ->group(tr("Figures"));
  cmd->add_option("--slides-format", o->slides_format, tr("The --slides files: png or svg"))
      ->capture_default_str()
      ->check(CLI::IsMember(format_names_of(kind_bit(FormatKind::figure))))
      ->group(tr("Figures"));
  add_model_flag(cmd);
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig, false);
  set_examples(cmd, {tr("tfx trace \"나는 학생 이다\"                          # … <bos> I am a → student"),
                     tr("tfx trace \"나는 학생 이다\" --show enc1.self.weights"),
                     tr("tfx trace \"나는 학생 이다\" --target \"I am\"            # → a"),
                     tr("tfx trace \"나는 학생 이다\" --png --scale 2           # the poster, for a projector"),
                     tr("tfx trace \"나는 학생 이다\" --slides slides/           # one 1920×1080 slide per step"),
                     tr("tfx trace \"그녀는 커피를 마셨다\" --format json")});
}

}  // namespace tfx::cli
