#include "tfx/model/translator_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tfx/core/i18n.hpp"

namespace tfx {

void TranslatorTrace::step(const std::string& part, const std::string& what, const std::string& shape, const std::string& key) {
  steps.rows.push_back({static_cast<long long>(++number), part, what, shape, key});
}

void TranslatorTrace::matrix(const std::string& key, const Tensor& t, const std::vector<std::string>& rows,
                             const std::vector<std::string>& cols, const std::string& row_axis, const std::string& col_axis,
                             const std::string& slice_axis) {
  matrices.push_back(Matrix{.name = key, .values = t, .row_labels = rows, .col_labels = cols, .row_axis = row_axis,
                            .col_axis = col_axis, .slice_axis = slice_axis});
}

const Matrix& TranslatorTrace::find(const std::string& name) const {
  return *std::find_if(matrices.begin(), matrices.end(), [&](const Matrix& x) { return x.name == name; });
}

std::vector<std::string> decoder_row_labels(const std::vector<std::string>& inputs, const std::vector<std::string>& predicted) {
  std::vector<std::string> rows;
  for (std::size_t i = 0; i < inputs.size() && i < predicted.size(); ++i) rows.push_back(inputs[i] + " → " + predicted[i]);
  return rows;
}

std::string decoder_rows_axis() { return tr("decoder input → predicted word"); }

namespace {

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
void trace_attention(TranslatorTrace& tc, const std::string& part, const std::string& key, const MultiHeadAttention& a,
                     const std::vector<std::string>& q_tokens, const std::vector<std::string>& k_tokens, bool causal,
                     std::size_t heads, std::size_t d_k, const std::string& q_from, const std::string& kv_from) {
  const std::vector<Tensor> q = split_heads(a.q, heads), k = split_heads(a.k, heads), v = split_heads(a.v, heads);
  const Tensor Q = stack(q), K = stack(k), V = stack(v);
  // a --pe rope model's self-attention rotates Q and K by position (not the cross-attention)
  const bool rope = tc.model.pe == PositionalEncoding::rope && key.find(".self") != std::string::npos;
  if (rope)
    tc.step(part, trf("Q = RoPE(pos, {}·W_Qᵀ + b): rotated by position (--pe rope), {} heads of d_k = {}", q_from, heads, d_k), shape_of(Q),
            key + ".q");
  else
    tc.step(part, trf("Q = {}·W_Qᵀ + b, {} heads of d_k = {}", q_from, heads, d_k), shape_of(Q), key + ".q");
  tc.matrix(key + ".q", Q, q_tokens, {}, "query", "dim", "head");
  tc.step(part, rope ? fmt::format("K = RoPE(pos, {}·W_Kᵀ + b)", kv_from) : fmt::format("K = {}·W_Kᵀ + b", kv_from), shape_of(K), key + ".k");
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

void trace_ffn(TranslatorTrace& tc, const std::string& part, const std::string& key, const FeedForwardSteps& ffn, const SublayerSteps& block,
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

void trace_input(TranslatorTrace& tc, const std::string& part, const std::string& key, const TokenIds& t, const EmbeddedTokens& e,
                 std::size_t V, std::size_t D) {
  tc.step(part, trf("tokens: split at spaces ({})", fmt::format("{}", fmt::join(t.tokens, " · "))),
          fmt::format("[{}]", t.tokens.size()), key + ".tokens");
  std::string ids;
  for (std::size_t i : t.ids) ids += (ids.empty() ? "" : " ") + std::to_string(i);
  tc.step(part, trf("ids: each token's row in the vocabulary ({})", ids), fmt::format("[{}]", t.ids.size()), key + ".ids");
  tc.step(part, trf("e = Embedding(ids): row id of the {}×{} table", V, D), shape_of(e.embedding), key + ".e");
  tc.matrix(key + ".e", e.embedding, t.tokens, {}, "token", "dim");
  if (tc.model.pe == PositionalEncoding::sinusoidal || tc.model.pe == PositionalEncoding::learned) {
    tc.step(part,
            tc.model.pe == PositionalEncoding::learned ? tr("p = P[pos]: rows 0 … T−1 of the learned position table (--pe learned)")
                                                       : tr("p = PE(pos): sin/cos rows 0 … T−1"),
            shape_of(e.pe), key + ".p");
    tc.matrix(key + ".p", e.pe, t.tokens, {}, "token", "dim");
    tc.step(part, "X = e + p", shape_of(e.x), key + ".x");
  } else if (tc.model.pe == PositionalEncoding::rope) {
    tc.step(part, tr("X = e: this model (--pe rope) adds no position here; its self-attention rotates q and k by position (RoPE)"),
            shape_of(e.x), key + ".x");
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

// tokens → ids: each token in a box over its id, an arrow between (the first step, as a drawing).
Diagram trace_tokens_panel(const TokenIds& t, const std::string& title) {
  Diagram d;
  d.title = title;
  const double n = static_cast<double>(t.tokens.size()), w = 1.6, gap = 0.4;
  d.x0 = -0.6, d.x1 = n * (w + gap) - gap + 0.6, d.y0 = -0.3, d.y1 = 3.0;
  d.size = std::max(360.0, 130.0 * n);
  for (std::size_t i = 0; i < t.tokens.size(); ++i) {
    const double x = static_cast<double>(i) * (w + gap);
    d.boxes.push_back({x, 2.0, w, 0.8, t.tokens[i], 0, ""});
    d.arrows.push_back({x + w / 2, 1.9, x + w / 2, 1.05, -1, "", false, 0});
    d.boxes.push_back({x, 0.2, w, 0.8, std::to_string(t.ids[i]), 1, ""});
  }
  d.labels.push_back({d.x0 + 0.3, 2.9, tr("token"), -1});
  d.labels.push_back({d.x0 + 0.3, 0.05, tr("id"), -1});
  return d;
}

}  // namespace

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

TranslatorTrace trace_translator(const Translator& m, const Translation& full, TokenIds target) {
  const std::size_t H = m.heads, D = m.d_model, d_k = D / H;
  target.tokens.insert(target.tokens.begin(), "<bos>");
  target.ids.insert(target.ids.begin(), m.bos);
  const EncoderPass& enc = full.encoder;
  TranslatorTrace tc;
  tc.decoder = translator_decode(m, enc.memory, target.ids);
  const DecoderPass& dec = tc.decoder;
  const std::vector<std::string>& src = full.source.tokens;
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
  tc.target = target.tokens;
  const std::vector<std::string>& tgt = tc.target;
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
  tc.next = m.vocab.tokens[order[0]];
  for (std::size_t i = 0; i < 5; ++i) {
    tc.top.push_back(order[i]);
    tc.top_probability.push_back(prob[order[i]]);
  }
  tc.step(tr("output"), trf("next token = argmax softmax(logits of the last position “{}”) = {} (p = {:.4f})", tgt[last], tc.next,
                            prob[order[0]]),
          "[1]", "next");
  return tc;
}

std::vector<TraceStepFigure> trace_step_figures(const Translator& m, const Translation& full, const TranslatorTrace& tc,
                                                std::size_t head) {
  std::vector<TraceStepFigure> drawn;
  const std::string h = trf(", head {}", head);
  auto add = [&](const std::string& name, Panel p) {
    std::visit([&](auto& panel) { panel.title = fmt::format("{}. {}", drawn.size() + 1, panel.title); }, p);
    drawn.push_back({name, std::move(p)});
  };
  const auto find = [&](const std::string& name) -> const Matrix& { return tc.find(name); };
  const std::vector<std::string>& tgt = tc.target;
  const std::size_t V = m.vocab.size(), last = tgt.size() - 1;
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
    const float* row = tc.decoder.probabilities.data() + i * V;
    predicted.push_back(m.vocab.tokens[static_cast<std::size_t>(std::max_element(row, row + V) - row)]);
  }
  cross.row_labels = decoder_row_labels(tgt, predicted);
  cross.y_label = decoder_rows_axis();
  add("cross-attention", std::move(cross));
  Bars b;
  b.title = trf("next token after “{}”: {}", tgt[last], tc.next);
  b.value_label = tr("probability");
  b.horizontal = true;
  b.annotate = true;
  b.vmin = 0.0;
  b.vmax = 1.0;
  for (std::size_t i = 0; i < 5; ++i) {
    b.labels.push_back(m.vocab.tokens[tc.top[i]]);
    b.values.push_back(tc.top_probability[i]);
  }
  add("next-token", std::move(b));
  return drawn;
}

Figure translation_cross_figure(const Translator& m, const Translation& t, std::size_t layer, bool per_head, const std::string& subtitle) {
  Figure figure;
  std::vector<std::string> rows = t.output;
  if (t.finished) rows.push_back("<eos>");
  auto panel = [&](const Tensor& w, const std::string& title) {
    Heatmap h;
    h.values = Tensor({rows.size(), t.source.tokens.size()});
    for (std::size_t i = 0; i < rows.size(); ++i) std::copy(w.row(i).begin(), w.row(i).end(), h.values.row(i).begin());
    h.title = title;
    h.x_label = m.builtin_corpus ? std::string(tr("source (Korean)")) : std::string(tr("source"));
    // each row: the token the decoder read → the word it chose there (as trace labels them)
    std::vector<std::string> inputs{"<bos>"};
    inputs.insert(inputs.end(), t.output.begin(), t.output.end());
    h.y_label = decoder_rows_axis();
    h.row_labels = decoder_row_labels(inputs, rows);
    h.col_labels = t.source.tokens;
    h.vmin = 0.0;
    h.vmax = 1.0;
    h.value_label = tr("weight");
    h.subtitle = subtitle;
    figure.panels.push_back(std::move(h));
  };
  if (per_head) {
    const MultiHeadAttention& a = t.decoder.layers[layer].cross_attention;
    for (std::size_t h = 0; h < a.heads.size(); ++h) panel(a.heads[h].weights, trf("head {}", h));
    figure.columns = static_cast<int>(a.heads.size());
  } else {
    panel(mean_cross_attention(t.decoder, layer), trf("decoder layer {}, mean of {} heads", layer + 1, m.heads));
  }
  return figure;
}

AttentionPage translation_page(const Translation& t, const std::string& which, const std::string& text, const std::string& english) {
  std::vector<std::string> rows = t.output;
  if (t.finished) rows.push_back("<eos>");
  // every layer × head of one of the three attentions (the table's cross-attention is their mean)
  std::vector<const MultiHeadAttention*> layers_of;
  std::vector<std::string> names, queries = rows, keys = t.source.tokens;
  std::string what;
  if (which == "encoder") {
    for (const auto& l : t.encoder.layers) layers_of.push_back(&l.attention);
    queries = keys = t.source.tokens;
    what = tr("encoder self-attention");
  } else if (which == "decoder") {
    for (const auto& l : t.decoder.layers) layers_of.push_back(&l.self_attention);
    queries = {"<bos>"};
    for (const auto& w : t.output) queries.push_back(w);
    queries.resize(std::min(queries.size(), t.decoder.layers.front().self_attention.heads.front().weights.rows()));
    keys = queries;
    what = tr("decoder masked self-attention");
  } else {
    for (const auto& l : t.decoder.layers) layers_of.push_back(&l.cross_attention);
    what = tr("decoder cross-attention (rows: the step that chose each English word)");
  }
  for (std::size_t l = 0; l < layers_of.size(); ++l)
    names.push_back(trf("{} layer {}", which == "encoder" ? tr("encoder") : tr("decoder"), l + 1));
  return layers_page(trf("Teaching translator: {}", what), fmt::format("{}  →  {}", text, english), queries, keys, names, layers_of,
                     "made by tfx translate");
}

}  // namespace tfx
