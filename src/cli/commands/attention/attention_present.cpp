// The presentation of `tfx attention`: the description lines, each matrix --show asks for (one
// table per head), the weights' heatmaps with token labels and masked cells, and the default
// figure name built from the parameters.
#include <fmt/format.h>

#include <filesystem>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "cli/commands/attention/attention_command.hpp"
#include "tfx/figure/attention_html.hpp"
#include "tfx/text/tokenizer.hpp"

namespace tfx::cli {

namespace {

// Per-head tensors as one matrix: rank 2 for one head, rank 3 (H, rows, cols) for several.
Tensor stack(const std::vector<Tensor>& per_head) {
  if (per_head.size() == 1) return per_head[0];
  const std::size_t R = per_head[0].rows(), C = per_head[0].cols();
  Tensor t({per_head.size(), R, C});
  for (std::size_t h = 0; h < per_head.size(); ++h)
    std::copy(per_head[h].values().begin(), per_head[h].values().end(), t.data() + h * R * C);
  return t;
}

// The weights' figure: one heatmap per head, token labels on both axes, masked cells grey.
Heatmap weights_heatmap(const AttentionSteps& st, const AttentionInputs& in, const std::string& title, const std::string& subtitle,
                        const FigureFlags& fig) {
  Heatmap h;
  h.values = st.weights;
  h.title = title;
  h.subtitle = subtitle;
  h.x_label = tr("key");
  h.y_label = tr("query");
  h.value_label = tr("attention weight");
  h.row_labels = in.query_labels;
  h.col_labels = in.key_labels;
  h.cmap = fig.cmap.empty() ? Colormap::viridis : parse_colormap(fig.cmap);
  h.vmin = 0.0;  // weights are ≥ 0; the top of the scale is set by the caller (shared by all heads)
  if (!st.keep.empty()) {
    h.masked.resize(st.keep.size());
    for (std::size_t c = 0; c < st.keep.size(); ++c) h.masked[c] = st.keep[c] ? 0 : 1;
  }
  return h;
}

}  // namespace

// What the weights are, for the titles and the header: "trained teaching translator", "random
// weights, seed 42", the --weights file's name (never its directories), identity; "" for Q, K, V
// given as files with one head (no weights at all).
std::string attention_weights_label(const AttentionCliOptions& o, const AttentionInputs& in, std::size_t heads) {
  if (!in.trained_prefix.empty()) return tr("trained teaching translator");
  if (!o.weights.empty()) return trf("weights: {}", std::filesystem::path(o.weights).filename().string());
  if (in.mode == "qkv" && heads == 1) return "";
  if (o.identity) return tr("identity weights (W = I)");
  return trf("random weights, seed {}", o.seed);
}

void present_attention(const AttentionCliOptions& o, AttentionInputs& in, const AttentionRun& run) {
  const MultiHeadAttention& mh = run.mh;
  const AttentionOptions& ao = run.options;
  const unsigned steps = run.steps;
  const std::size_t H = mh.heads.size(), d_model = run.d_model;
  const std::string& projection = run.projection;
  const AttentionSteps& first = mh.heads[0];
  const std::size_t dk = mh.q.cols() / H, dv = mh.v.cols() / H;
  const std::size_t T = first.weights.rows(), S = first.weights.cols();
  if (!in.query_labels.empty() && in.query_labels.size() != T) in.query_labels.clear();
  if (!in.key_labels.empty() && in.key_labels.size() != S) in.key_labels.clear();

  const bool html_only = !o.html.empty() && check_html_target(o.html, o.out, o.fig);
  // 2. the result: a description, then each asked-for matrix with a line saying what it is
  Result r;
  r.command = "attention";
  r.params = {{"input", in.mode},
              {"heads", H},
              {"d_model", d_model},
              {"d_k", dk},
              {"d_v", dv},
              {"scale", ao.scale},
              {"temperature", ao.temperature},
              {"causal", ao.causal},
              {"pad", ao.pad}};
  if (in.mode == "qkv") r.params["files"] = {{"q", o.q_file}, {"k", o.k_file}, {"v", o.v_file}};
  if (in.mode == "x") r.params["files"] = {{"x", o.x_file}};
  if (in.mode != "qkv") r.params["identity"] = o.identity;
  if (!o.identity && (in.mode != "qkv" || H > 1) && in.trained_prefix.empty()) r.params["seed"] = o.seed;
  if (!in.trained_prefix.empty()) r.params["weights"] = "teaching translator: " + in.trained_prefix.substr(0, in.trained_prefix.size() - 1);
  if (in.mode == "sentence") {
    r.params["pe"] = !o.no_pe;
    r.params["embeddings"] = in.trained_prefix.empty() ? sentence_source_name(*o.source) : "the teaching translator's trained embedding";
    r.params["tokens"] = in.query_labels;
    if (in.cross) r.params["cross_tokens"] = in.key_labels;
    r.params["vocab"] = in.vocab;
    r.params["vocab_size"] = in.vocab_size;
    if (!in.ids.empty()) r.params["ids"] = in.ids;
  }
  const std::string divisor_text =
      ao.scale ? (ao.temperature == 1.0 ? fmt::format("√{} = {:.6g}", dk, first.divisor)
                                        : fmt::format("√{}·{:g} = {:.6g}", dk, ao.temperature, first.divisor))
               : (ao.temperature == 1.0 ? std::string("1 (--no-scale)")
                                        : fmt::format("{:g} (--no-scale, --temperature)", ao.temperature));
  const std::string weights_label = attention_weights_label(o, in, H);
  const std::string label_suffix = weights_label.empty() ? std::string() : " — " + weights_label;
  r.blocks.push_back(Text{in.description + label_suffix});
  r.blocks.push_back(Text{projection});
  std::string masks;
  if (ao.causal) masks += run.causal_note.empty() ? tr("; causal mask (query i sees keys j ≤ i)") : "; " + run.causal_note;
  if (ao.pad) masks += trnf("; padding mask (the last {} key never attended)", "; padding mask (the last {} keys never attended)", ao.pad, ao.pad);
  r.blocks.push_back(Text{trf(
      "weights = softmax(QKᵀ / {}){}{}", divisor_text, masks,
      H > 1 ? (dv == dk ? trf("; {} heads of d_k = {} (Q, K, V split into blocks of {} columns)", H, dk, dk)
                        : trf("; {} heads of d_k = {}, d_v = {} (Q, K split into blocks of {} columns, V of {})", H, dk,
                                      dv, dk, dv))
            : "")});

  auto per_head = [&](auto member) {
    std::vector<Tensor> t;
    for (const auto& h : mh.heads) t.push_back(h.*member);
    return stack(t);
  };
  auto add = [&](const std::string& name, Tensor values, const std::vector<std::string>& rows,
                 const std::vector<std::string>& cols, const std::string& row_axis, const std::string& col_axis,
                 const std::string& text, std::vector<unsigned char> masked = {}) {
    r.blocks.push_back(Text{text});
    Matrix m;
    m.name = name;
    m.values = std::move(values);
    m.row_labels = rows;
    m.col_labels = cols;
    m.row_axis = row_axis;
    m.col_axis = col_axis;
    m.masked = std::move(masked);
    if (m.values.rank() == 3) m.slice_axis = N_("head");
    r.blocks.push_back(std::move(m));
  };
  const std::string heads_note = H > 1 ? tr(" (one table per head)") : "";
  // the steps shown are numbered 1, 2, … in the lecture's order, whichever of them --show picked
  int step = 0;
  auto n = [&step] { return fmt::format("{}. ", ++step); };
  if (steps & kX && in.mode != "qkv") add("x", in.x_q, in.query_labels, {}, "token", tr("dim"), n() + "X: one row per query token");
  if (steps & kW && !run.wq.empty()) {
    const bool torch = !in.trained_prefix.empty() || !o.weights.empty();
    const std::string kv = !in.trained_prefix.empty() && in.cross ? "memory" : in.cross ? "X_kv" : "X";
    const std::string how = torch ? tr(" (nn.MultiheadAttention's in_proj_weight rows for Q, transposed)") : "";
    add("w_q", run.wq, {}, {}, "in", "out", n() + trf("W_Q {}: Q = X·W_Q{}{}", run.wq.shape_str(), torch ? " + b_Q" : "", how));
    add("w_k", run.wk, {}, {}, "in", "out", n() + trf("W_K {}: K = {}·W_K{}", run.wk.shape_str(), kv, torch ? " + b_K" : ""));
    add("w_v", run.wv, {}, {}, "in", "out", n() + trf("W_V {}: V = {}·W_V{}", run.wv.shape_str(), kv, torch ? " + b_V" : ""));
  }
  const bool rope = !run.q_plain.empty();
  if (steps & kQ && rope) add("q_before_rope", run.q_plain, in.query_labels, {}, "query", "dim", n() + tr("Q before RoPE: one row per query"));
  if (steps & kK && rope) add("k_before_rope", run.k_plain, in.key_labels, {}, "key", "dim", n() + tr("K before RoPE: one row per key"));
  if (steps & kQ)
    add("q", mh.q, in.query_labels, {}, "query", "dim", n() + (rope ? tr("Q after RoPE: row i rotated by position i, pair by pair") : tr("Q: one row per query")));
  if (steps & kK)
    add("k", mh.k, in.key_labels, {}, "key", "dim", n() + (rope ? tr("K after RoPE: row j rotated by position j (V is not rotated)") : tr("K: one row per key")));
  if (steps & kV) add("v", mh.v, in.key_labels, {}, "key", "dim", n() + tr("V: one row per key"));
  if (steps & kScores)
    add("scores", per_head(&AttentionSteps::scores), in.query_labels, in.key_labels, "query", "key",
        n() + tr("scores = QKᵀ: q_i·k_j for query i (row) and key j (column)") + heads_note);
  if (steps & kScaled)
    add("scaled", per_head(&AttentionSteps::scaled), in.query_labels, in.key_labels, "query", "key",
        n() + trf("scaled = QKᵀ / {}", divisor_text) + heads_note);
  const bool has_mask = !first.keep.empty();
  if (steps & kMasked && (has_mask || (o.show.find("masked") != std::string::npos)))
    add("masked", per_head(&AttentionSteps::masked), in.query_labels, in.key_labels, "query", "key",
        n() + (has_mask ? tr("masked: −inf where query i may not see key j, so that exp gives 0") : tr("masked: no mask (--causal, --pad), same as scaled")));
  std::vector<unsigned char> masked_cells;
  if (has_mask)
    for (std::size_t h = 0; h < H; ++h)
      for (unsigned char k : mh.heads[h].keep) masked_cells.push_back(k ? 0 : 1);
  if (steps & kWeights)
    add("weights", per_head(&AttentionSteps::weights), in.query_labels, in.key_labels, "query", "key",
        n() + tr("weights = softmax over each row: every weight ≥ 0, every row sums to 1") + heads_note, masked_cells);
  if (steps & kOutput) {
    if (H == 1) {
      add("output", mh.output, in.query_labels, {}, "query", "dim",
          n() + tr("Z = weights·V: row i is the average of V's rows weighted by row i of the weights"));
    } else {
      add("z", per_head(&AttentionSteps::output), in.query_labels, {}, "query", "dim", n() + tr("Z_h = weights_h·V_h, one table per head"));
      add("concat", mh.concat, in.query_labels, {}, "query", "dim", n() + trf("Concat(Z_0 … Z_{}): {}", H - 1, mh.concat.shape_str()));
      if (steps & kW && !run.wo.empty())
        add("w_o", run.wo, {}, {}, "in", "out", n() + trf("W_O {}: output = Concat·W_O", run.wo.shape_str()));
      add("output", mh.output, in.query_labels, {}, "query", "dim", n() + tr("output = Concat · W_O"));
    }
  }
  if (!run.average_weights.empty() && H > 1)
    add("average_weights", run.average_weights, in.query_labels, in.key_labels, "query", "key",
        tr("the weights averaged over the heads (what nn.MultiheadAttention returns with average_attn_weights=True)"));
  if (!o.weights.empty()) {
    r.params["weights"] = o.weights;
    r.params.erase("seed");
  }
  // csv/npy/json "data": the weights when shown, else the output, else the first matrix named
  if (steps & kWeights)
    r.primary = "weights";
  else if (steps & kOutput)
    r.primary = "output";
  r.summary[N_("d_k")] = dk;
  r.summary[N_("divisor")] = first.divisor;
  r.summary[N_("max |row sum - 1|")] = mh.max_row_sum_error;

  // 3. figures: one heatmap per head
  Figure figure;
  std::vector<Heatmap> views;
  const std::string what = ao.causal ? tr("masked self-attention") : in.cross ? tr("cross-attention") : tr("self-attention");
  const std::string subtitle = fmt::format("softmax(QKᵀ / {}), T = {}, S = {}{}", divisor_text, T, S, masks);
  // (each head's T×S weights are copied into a heatmap only when a figure or --view is drawn)
  const bool drawn = figure_drawn(o.fig, o.out);
  if (!drawn) views.emplace_back();
  for (std::size_t h = 0; h < H && drawn; ++h) {
    std::string title = H == 1 ? trf("Attention weights ({})", what) + label_suffix : trf("head {}", h);
    views.push_back(weights_heatmap(mh.heads[h], in, title, H == 1 ? subtitle : "", o.fig));
    views.back().vmax = 1.0;  // weights on 0–1 everywhere (as encoder/decoder), so a flat row looks flat; --vmax changes it
    figure.panels.push_back(views.back());
  }
  if (H > 1) figure.title = trf("Attention weights ({}), {} heads: {}", what, H, subtitle) + label_suffix;
  // default file names from the lower-cased tokens, as the words were looked up
  const auto lower = [](const std::vector<std::string>& v) {
    std::vector<std::string> out;
    for (const std::string& w : v) out.push_back(normalize_case(w, Casing::lower));
    return out;
  };
  std::string name = "attention_" + (in.mode == "sentence" ? name_part(lower(in.query_labels)) : in.mode);
  if (in.cross && in.mode == "sentence") name += "_x_" + name_part(lower(in.key_labels));
  if (in.mode != "qkv") name += fmt::format("_dk{}", dk) + (dv != dk ? fmt::format("_dv{}", dv) : "");
  if (H > 1) name += fmt::format("_h{}", H);
  if (ao.causal) name += "_causal";
  if (ao.pad) name += fmt::format("_pad{}", ao.pad);
  if (!ao.scale) name += "_noscale";
  if (ao.temperature != 1.0) name += fmt::format("_t{:g}", ao.temperature);
  if (o.identity)
    name += "_identity";
  else if (in.mode != "qkv" || H > 1)
    name += fmt::format("_seed{}", o.seed);

  std::string page;
  if (!o.html.empty()) {
    AttentionPage p;
    p.title = trf("Attention weights ({})", what);
    p.subtitle = in.description + label_suffix + " — " + subtitle;
    p.queries = in.query_labels;
    p.keys = in.key_labels;
    for (std::size_t i = 0; p.queries.size() < T; ++i) p.queries.push_back(std::to_string(i));
    for (std::size_t j = 0; p.keys.size() < S; ++j) p.keys.push_back(std::to_string(j));
    p.layer_names = {in.trained_prefix.empty()                  ? what
                     : in.trained_prefix.starts_with("encoder") ? tr("translator encoder layer 1: ") + what
                                                                : tr("translator decoder layer 1: ") + what};
    p.weights.push_back(Tensor({H, T, S}));
    for (std::size_t h = 0; h < H; ++h) {
      std::copy_n(mh.heads[h].weights.data(), T * S, p.weights[0].data() + h * T * S);
      p.head_names.push_back(std::to_string(h));
    }
    p.footer = "made by tfx attention";
    page = attention_html(p);
    if (html_only) {
      write_html(page, o.html, o.out, o.fig);
      return;
    }
  }
  // --view draws every head (the figure's panels) under the figure's title
  present_all(r, o.out, o.fig, &figure, &views[0], name + ".png");
  if (!page.empty()) write_html(page, o.html, o.out, o.fig);
}

}  // namespace tfx::cli
