// `tfx attention`: scaled dot-product attention weight tables, from a sentence (embeddings + PE,
// seeded Xavier projections) or from matrix files (--x, or --q/--k/--v); causal and padding
// masks, cross-attention, multi-head, the step-by-step --show and heatmaps with token labels.
// `tfx attention variance` is in attention_variance.cpp.
#include "tfx/attention.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>
#include <optional>

#include "attention_cli.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "tfx/matrix_io.hpp"

namespace tfx::cli {

namespace {

// The matrices --show can name, in the order they are printed.
enum Step : unsigned {
  kX = 1u << 0,
  kQ = 1u << 1,
  kK = 1u << 2,
  kV = 1u << 3,
  kScores = 1u << 4,
  kScaled = 1u << 5,
  kMasked = 1u << 6,
  kWeights = 1u << 7,
  kOutput = 1u << 8,
};
constexpr unsigned kAllSteps = kScores | kScaled | kMasked | kWeights | kOutput;
constexpr unsigned kDefaultSteps = kWeights | kOutput;

struct AttentionCliOptions {
  std::string sentence, cross;
  std::string x_file, q_file, k_file, v_file;
  std::optional<std::int64_t> dk, dv;
  std::int64_t heads = 1;
  std::uint64_t seed = 42;
  bool identity = false, no_pe = false, causal = false, no_scale = false;
  std::int64_t pad = 0;
  double temperature = 1.0;
  std::string show;
  bool no_pe_given = false, identity_given = false, sentence_given = false, cross_given = false;
  std::shared_ptr<SentenceSource> source;
  OutputFlags out;
  FigureFlags fig;
};

unsigned parse_show(const std::string& text) {
  if (text.empty()) return kDefaultSteps;
  unsigned steps = 0;
  for (const std::string& item : split_items(text)) {
    if (item == "all")
      steps |= kAllSteps;
    else if (item == "x")
      steps |= kX;
    else if (item == "q")
      steps |= kQ;
    else if (item == "k")
      steps |= kK;
    else if (item == "v")
      steps |= kV;
    else if (item == "qkv")
      steps |= kQ | kK | kV;
    else if (item == "scores")
      steps |= kScores;
    else if (item == "scaled")
      steps |= kScaled;
    else if (item == "masked")
      steps |= kMasked;
    else if (item == "weights" || item == "softmax")
      steps |= kWeights;
    else if (item == "output" || item == "z")
      steps |= kOutput;
    else
      throw usage_error(
          fmt::format("--show: unknown matrix '{}' (expected scores, scaled, masked, weights, output, all, "
                      "or x, q, k, v; comma-separated)",
                      item));
  }
  return steps;
}

// Per-head tensors as one matrix: rank 2 for one head, rank 3 (H, rows, cols) for several.
Tensor stack(const std::vector<Tensor>& per_head) {
  if (per_head.size() == 1) return per_head[0];
  const std::size_t R = per_head[0].rows(), C = per_head[0].cols();
  Tensor t({per_head.size(), R, C});
  for (std::size_t h = 0; h < per_head.size(); ++h)
    std::copy(per_head[h].values().begin(), per_head[h].values().end(), t.data() + h * R * C);
  return t;
}

std::string tokens_text(const std::vector<std::string>& tokens) {
  std::string s;
  for (std::size_t i = 0; i < tokens.size() && i < 12; ++i) s += (i ? " " : "") + tokens[i];
  if (tokens.size() > 12) s += " …";
  return s;
}

// "i_love_playing" from tokens, file-name safe and short.
std::string name_part(const std::vector<std::string>& tokens) {
  std::string s;
  for (const auto& t : tokens) {
    if (s.size() > 40) break;
    std::string w;
    for (unsigned char c : t)
      if (std::isalnum(c)) w += static_cast<char>(c);
    if (w.empty()) continue;
    s += (s.empty() ? "" : "_") + w;
  }
  return s.empty() ? "sentence" : s;
}

struct Inputs {
  std::string mode;  // "sentence", "x", "qkv"
  std::vector<std::string> query_labels, key_labels;
  Tensor x_q, x_kv;  // sentence / x modes
  Tensor q, k, v;    // qkv mode
  bool cross = false;
  std::string description;  // the first line of the table
};

Inputs load_inputs(const AttentionCliOptions& o) {
  Inputs in;
  const bool have_qkv = !o.q_file.empty() || !o.k_file.empty() || !o.v_file.empty();
  const int modes = o.sentence_given + !o.x_file.empty() + have_qkv;
  if (modes == 0)
    throw usage_error("give the input: --sentence \"I love playing football\", --x FILE, or --q FILE --k FILE --v FILE");
  if (modes > 1) throw usage_error("give one input: --sentence, --x FILE, or --q/--k/--v FILE (not several)");
  if (o.cross_given && !o.sentence_given) throw usage_error("--cross goes with --sentence (for matrices give --q, --k and --v)");
  if (o.no_pe_given && !o.sentence_given)
    throw usage_error("--no-pe goes with --sentence (a --x/--q/--k/--v matrix is used as given)");
  if (have_qkv) {
    if (o.q_file.empty() || o.k_file.empty() || o.v_file.empty())
      throw usage_error(fmt::format("--q, --k and --v go together (missing: {}{}{})", o.q_file.empty() ? "--q " : "",
                                    o.k_file.empty() ? "--k " : "", o.v_file.empty() ? "--v" : ""));
    if (o.dk || o.dv)
      throw usage_error(
          fmt::format("{} goes with --sentence or --x: with --q/--k/--v, d_k and d_v are the numbers of columns of Q and V",
                      o.dk ? "--dk" : "--dv"));
    LoadedMatrix q = read_matrix_file(o.q_file, "--q"), k = read_matrix_file(o.k_file, "--k"),
                 v = read_matrix_file(o.v_file, "--v");
    if (q.values.cols() != k.values.cols())
      throw Error(fmt::format("--q {} is {} and --k {} is {}: Q and K need the same d_k (number of columns) for QKᵀ", o.q_file,
                              q.values.shape_str(), o.k_file, k.values.shape_str()));
    if (v.values.rows() != k.values.rows())
      throw Error(fmt::format("--v {} has {} rows but --k {} has {}: one value row per key", o.v_file, v.values.rows(), o.k_file,
                              k.values.rows()));
    in.mode = "qkv";
    in.q = std::move(q.values);
    in.k = std::move(k.values);
    in.v = std::move(v.values);
    in.query_labels = q.row_labels;
    in.key_labels = !k.row_labels.empty() ? k.row_labels : v.row_labels;
    in.cross = o.q_file != o.k_file;
    in.description = fmt::format("Attention from matrices: Q {} ({}), K {} ({}), V {} ({})", in.q.shape_str(), o.q_file,
                                 in.k.shape_str(), o.k_file, in.v.shape_str(), o.v_file);
    return in;
  }
  if (!o.x_file.empty()) {
    LoadedMatrix x = read_matrix_file(o.x_file, "--x");
    in.mode = "x";
    in.x_q = std::move(x.values);
    in.x_kv = in.x_q;
    in.query_labels = x.row_labels;
    in.key_labels = x.row_labels;
    in.description = fmt::format("Self-attention over the rows of X {} ({})", in.x_q.shape_str(), o.x_file);
    return in;
  }
  const bool pe = !o.no_pe;
  TokenSequence s = embed_sentence(*o.source, o.sentence, "--sentence", pe);
  in.mode = "sentence";
  in.query_labels = s.tokens;
  in.x_q = std::move(s.x);
  const std::string x_text = pe ? "embedding + PE" : "embedding, no PE";
  if (o.cross_given) {
    TokenSequence c = embed_sentence(*o.source, o.cross, "--cross", pe);
    in.key_labels = c.tokens;
    in.x_kv = std::move(c.x);
    in.cross = true;
    in.description = fmt::format(
        "Cross-attention: queries from \"{}\" ({} tokens), keys and values from \"{}\" ({} tokens); "
        "X = {} ({})",
        tokens_text(in.query_labels), in.query_labels.size(), tokens_text(in.key_labels), in.key_labels.size(), x_text,
        sentence_source_description(*o.source));
  } else {
    in.key_labels = in.query_labels;
    in.x_kv = in.x_q;
    in.description =
        fmt::format("Self-attention over {} tokens \"{}\": X = {} ({}), shape {}", in.query_labels.size(),
                    tokens_text(in.query_labels), x_text, sentence_source_description(*o.source), in.x_q.shape_str());
  }
  return in;
}

// The weights' figure: one heatmap per head, token labels on both axes, masked cells grey.
Heatmap weights_heatmap(const AttentionSteps& st, const Inputs& in, const std::string& title, const std::string& subtitle,
                        const FigureFlags& fig) {
  Heatmap h;
  h.values = st.weights;
  h.title = title;
  h.subtitle = subtitle;
  h.x_label = "key";
  h.y_label = "query";
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

void run_attention(const AttentionCliOptions& o) {
  const unsigned steps = parse_show(o.show);
  Inputs in = load_inputs(o);
  if (steps & kX && in.mode == "qkv") throw usage_error("--show x: with --q/--k/--v there is no X (show q, k or v)");
  const std::size_t H = static_cast<std::size_t>(o.heads);
  AttentionOptions ao;
  ao.scale = !o.no_scale;
  ao.temperature = o.temperature;
  ao.causal = o.causal;
  ao.pad = static_cast<std::size_t>(o.pad);
  ao.threads = 0;  // all cores for the matmuls (each output element is still summed in one fixed order)

  // 1. the weights (sentence and --x: projections; --q/--k/--v: only W_O for several heads)
  MultiHeadAttention mh;
  std::string projection;
  std::size_t d_model = 0;
  if (in.mode == "qkv") {
    if (o.identity_given && H == 1)
      throw usage_error(
          "--identity sets the projections of --sentence/--x (and W_O for --heads > 1); "
          "--q/--k/--v are used as given");
    const std::size_t T = in.q.rows(), S = in.k.rows();
    checked_element_count({H, T, S}, fmt::format("{} queries × {} keys × --heads {}", T, S, H));
    d_model = in.q.cols();
    if (H > 1 && in.q.cols() % H != 0)
      throw usage_error(fmt::format("--heads {} does not divide d_model = {} (the columns of --q and --k); use a divisor of {}",
                                    H, in.q.cols(), in.q.cols()));
    if (H > 1 && in.v.cols() % H != 0)
      throw usage_error(fmt::format("--heads {} does not divide the value width {} (the columns of --v)", H, in.v.cols()));
    Tensor wo;
    if (H > 1) {
      if (o.identity) {
        wo = identity_attention_weights(in.v.cols(), true).wo;
        projection = "Q, K, V as given; W_O = I (--identity)";
      } else {
        wo = xavier_uniform(in.v.cols(), in.v.cols(), o.seed);
        projection = fmt::format("Q, K, V as given; W_O {} Xavier-uniform (seed {})", wo.shape_str(), o.seed);
      }
    } else {
      projection = "Q, K, V as given";
    }
    mh = attend_heads(in.q, in.k, in.v, H, wo, ao);
  } else {
    const std::size_t D = in.x_q.cols(), E = in.x_kv.cols(), T = in.x_q.rows(), S = in.x_kv.rows();
    d_model = D;
    std::size_t dk;
    if (o.dk) {
      dk = static_cast<std::size_t>(*o.dk);
    } else {
      if (D % H != 0)
        throw usage_error(
            fmt::format("--heads {} does not divide d_model = {}: each head gets d_model/H columns "
                        "(use a divisor of {}, or give --dk)",
                        H, D, D));
      dk = D / H;
    }
    const std::size_t dv = o.dv ? static_cast<std::size_t>(*o.dv) : dk;
    checked_element_count({std::max(D, E), H, std::max(dk, dv)},
                          fmt::format("--heads {} --dk {} --dv {} with d_model {}", H, dk, dv, D));
    checked_element_count({H, T, S}, fmt::format("{} queries × {} keys × --heads {}", T, S, H));
    AttentionWeights w;
    const std::string kv = in.cross ? "X_kv" : "X";
    if (o.identity) {
      if (H * dk != D || H * dv != D)
        throw usage_error(
            fmt::format("--identity needs --heads × --dk = --heads × --dv = d_model ({} × {}, {} × {}, d_model {}) so that "
                        "W = I is square",
                        H, dk, H, dv, D));
      w = identity_attention_weights(D, H > 1);
      projection = fmt::format("W_Q = W_K = W_V = I (--identity): Q = X, K = V = {}{}", kv, H > 1 ? "; W_O = I" : "");
    } else {
      w = xavier_attention_weights(D, E, H, dk, dv, H > 1, o.seed);
      projection = fmt::format("Q = X·W_Q, K = {0}·W_K, V = {0}·W_V; {1}{2} Xavier-uniform from seed {3}", kv,
                               dv != dk ? fmt::format("W_Q, W_K {}, W_V {}", w.wq.shape_str(), w.wv.shape_str())
                                        : fmt::format("W_Q, W_K, W_V {}", w.wq.shape_str()),
                               H > 1 ? fmt::format(", W_O {}", w.wo.shape_str()) : "", o.seed);
    }
    mh = multi_head_attention(in.x_q, in.x_kv, w, H, ao);
  }
  const AttentionSteps& first = mh.heads[0];
  const std::size_t dk = mh.q.cols() / H, dv = mh.v.cols() / H;
  const std::size_t T = first.weights.rows(), S = first.weights.cols();
  if (!in.query_labels.empty() && in.query_labels.size() != T) in.query_labels.clear();
  if (!in.key_labels.empty() && in.key_labels.size() != S) in.key_labels.clear();

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
  if (!o.identity && (in.mode != "qkv" || H > 1)) r.params["seed"] = o.seed;
  if (in.mode == "sentence") {
    r.params["pe"] = !o.no_pe;
    r.params["embeddings"] = sentence_source_name(*o.source);
    r.params["tokens"] = in.query_labels;
    if (in.cross) r.params["cross_tokens"] = in.key_labels;
  }
  const std::string divisor_text =
      ao.scale ? (ao.temperature == 1.0 ? fmt::format("√{} = {:.6g}", dk, first.divisor)
                                        : fmt::format("√{}·{:g} = {:.6g}", dk, ao.temperature, first.divisor))
               : (ao.temperature == 1.0 ? std::string("1 (--no-scale)")
                                        : fmt::format("{:g} (--no-scale, --temperature)", ao.temperature));
  r.blocks.push_back(Text{in.description});
  r.blocks.push_back(Text{projection});
  std::string masks;
  if (ao.causal) masks += "; causal mask (query i sees keys j ≤ i)";
  if (ao.pad) masks += fmt::format("; padding mask (the last {} key{} never attended)", ao.pad, ao.pad == 1 ? "" : "s");
  r.blocks.push_back(Text{fmt::format(
      "weights = softmax(QKᵀ / {}){}{}", divisor_text, masks,
      H > 1 ? (dv == dk ? fmt::format("; {} heads of d_k = {} (Q, K, V split into blocks of {} columns)", H, dk, dk)
                        : fmt::format("; {} heads of d_k = {}, d_v = {} (Q, K split into blocks of {} columns, V of {})", H, dk,
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
    if (m.values.rank() == 3) m.slice_axis = "head";
    r.blocks.push_back(std::move(m));
  };
  const std::string heads_note = H > 1 ? " (one table per head)" : "";
  if (steps & kX) add("x", in.x_q, in.query_labels, {}, "token", "dim", "X: one row per query token");
  if (steps & kQ) add("q", mh.q, in.query_labels, {}, "query", "dim", "Q: one row per query");
  if (steps & kK) add("k", mh.k, in.key_labels, {}, "key", "dim", "K: one row per key");
  if (steps & kV) add("v", mh.v, in.key_labels, {}, "key", "dim", "V: one row per key");
  if (steps & kScores)
    add("scores", per_head(&AttentionSteps::scores), in.query_labels, in.key_labels, "query", "key",
        "1. scores = QKᵀ: q_i·k_j for query i (row) and key j (column)" + heads_note);
  if (steps & kScaled)
    add("scaled", per_head(&AttentionSteps::scaled), in.query_labels, in.key_labels, "query", "key",
        fmt::format("2. scaled = QKᵀ / {}", divisor_text) + heads_note);
  const bool has_mask = !first.keep.empty();
  if (steps & kMasked && (has_mask || (o.show.find("masked") != std::string::npos)))
    add("masked", per_head(&AttentionSteps::masked), in.query_labels, in.key_labels, "query", "key",
        has_mask ? "3. masked: −inf where query i may not see key j, so that exp gives 0"
                 : "3. masked: no mask (--causal, --pad), same as scaled");
  std::vector<unsigned char> masked_cells;
  if (has_mask)
    for (std::size_t h = 0; h < H; ++h)
      for (unsigned char k : mh.heads[h].keep) masked_cells.push_back(k ? 0 : 1);
  if (steps & kWeights)
    add("weights", per_head(&AttentionSteps::weights), in.query_labels, in.key_labels, "query", "key",
        "4. weights = softmax over each row: every weight ≥ 0, every row sums to 1" + heads_note, masked_cells);
  if (steps & kOutput) {
    if (H == 1) {
      add("output", mh.output, in.query_labels, {}, "query", "dim",
          "5. Z = weights·V: row i is the average of V's rows weighted by row i of the weights");
    } else {
      add("z", per_head(&AttentionSteps::output), in.query_labels, {}, "query", "dim",
          "5. Z_h = weights_h·V_h, one table per head");
      add("concat", mh.concat, in.query_labels, {}, "query", "dim",
          fmt::format("6. Concat(Z_0 … Z_{}): {}", H - 1, mh.concat.shape_str()));
      add("output", mh.output, in.query_labels, {}, "query", "dim", "7. output = Concat · W_O");
    }
  }
  // csv/npy/json "data": the weights when shown, else the output, else the first matrix named
  if (steps & kWeights)
    r.primary = "weights";
  else if (steps & kOutput)
    r.primary = "output";
  double row_error = 0;
  for (const auto& h : mh.heads)
    for (std::size_t i = 0; i < T; ++i) {
      double sum = 0;
      for (float w : h.weights.row(i)) sum += w;
      row_error = std::max(row_error, std::abs(sum - 1.0));
    }
  r.summary["d_k"] = dk;
  r.summary["divisor"] = first.divisor;
  r.summary["max |row sum - 1|"] = row_error;

  // 3. figures: one heatmap per head
  Figure figure;
  std::vector<Heatmap> views;
  const std::string what = ao.causal ? "masked self-attention" : in.cross ? "cross-attention" : "self-attention";
  const std::string subtitle = fmt::format("softmax(QKᵀ / {}), T = {}, S = {}{}", divisor_text, T, S, masks);
  float top = 0;
  for (const auto& h : mh.heads)
    for (float w : h.weights.values()) top = std::max(top, w);
  for (std::size_t h = 0; h < H; ++h) {
    std::string title = H == 1 ? fmt::format("Attention weights ({})", what) : fmt::format("head {}", h);
    views.push_back(weights_heatmap(mh.heads[h], in, title, H == 1 ? subtitle : "", o.fig));
    views.back().vmax = top > 0 ? static_cast<double>(top) : 1.0;
    figure.panels.push_back(views.back());
  }
  if (H > 1) figure.title = fmt::format("Attention weights ({}), {} heads: {}", what, H, subtitle);
  std::string name = "attention_" + (in.mode == "sentence" ? name_part(in.query_labels) : in.mode);
  if (in.cross && in.mode == "sentence") name += "_x_" + name_part(in.key_labels);
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

  if (H > 1 && o.fig.view) {
    // several heads in the terminal: one view per head, then the figure/table as present_all does
    for (std::size_t h = 0; h < H; ++h) {
      emit(fmt::format("head {}\n", h), "-", false);
      present_view(views[h], o.fig);
    }
    FigureFlags rest = o.fig;
    rest.view = false;
    if (rest.png_requested() || o.out.format_given()) present_all(r, o.out, rest, &figure, nullptr, name + ".png");
  } else {
    present_all(r, o.out, o.fig, &figure, &views[0], name + ".png");
  }
}

}  // namespace

void register_attention(CLI::App& app) {
  auto o = std::make_shared<AttentionCliOptions>();
  CLI::App* cmd =
      app.add_subcommand("attention", "Scaled dot-product attention: weight tables, masks, heads, cross-attention; variance");
  cmd->group("Attention");
  const char* in = "Input";
  auto* sentence =
      cmd->add_option("--sentence", o->sentence, "Words to attend over (lower-cased; X = embedding + PE)")->group(in);
  o->source = add_sentence_source_flags(cmd);
  auto* cross =
      cmd->add_option("--cross", o->cross, "Cross-attention: keys and values from this other sentence (queries from --sentence)")
          ->group(in);
  cmd->add_option("--x", o->x_file, "Self-attention over the rows of X (JSON, CSV or .npy), projected by W_Q, W_K, W_V")
      ->check(non_empty_path("give a JSON, CSV or .npy file"))
      ->group(in);
  cmd->add_option("--q", o->q_file, "Queries Q (T×d_k; JSON, CSV or .npy), used as given")->check(non_empty_path("give a JSON, CSV or .npy file"))->group(in);
  cmd->add_option("--k", o->k_file, "Keys K (S×d_k)")->check(non_empty_path("give a JSON, CSV or .npy file"))->group(in);
  cmd->add_option("--v", o->v_file, "Values V (S×d_v)")->check(non_empty_path("give a JSON, CSV or .npy file"))->group(in);
  const char* g = "Attention";
  cmd->add_option("--dk", o->dk, "Width d_k of each head's Q, K, V projections (default: d_model / --heads)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20))
      ->group(g);
  cmd->add_option("--dv", o->dv, "Width d_v of each head's V projection (default: d_k; the lecture notes d_v need not equal d_k)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20))
      ->group(g);
  cmd->add_option("--heads", o->heads, "Number of heads H: Q, K, V split into H column blocks, then Concat·W_O")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{4096}))
      ->group(g);
  auto* identity = cmd->add_flag("--identity", o->identity, "W_Q = W_K = W_V (= W_O) = I, so Q = K = V = X")->group(g);
  auto* no_pe = cmd->add_flag("--no-pe", o->no_pe, "Sentence mode: X = embeddings only, without the sinusoidal PE")->group(g);
  cmd->add_flag("--causal", o->causal, "Decoder mask: query i attends only to keys j ≤ i (upper triangle masked)")->group(g);
  cmd->add_option("--pad", o->pad, "Padding mask: the last N key positions are never attended to")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40))
      ->group(g);
  cmd->add_flag("--no-scale", o->no_scale, "Leave out the 1/√d_k: softmax(QKᵀ)V")->group(g);
  cmd->add_option("--temperature", o->temperature, "Divide the scores also by T (< 1 sharper, > 1 flatter)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber)
      ->group(g);
  cmd->add_option("--seed", o->seed, "Seed of the one generator drawing W_Q, W_K, W_V, W_O (Xavier uniform)")
      ->capture_default_str()
      ->group(g);
  cmd->add_option("--show", o->show,
                  "Matrices to print, comma-separated: scores (QKᵀ), scaled, masked, weights, output (Z), all; also x, q, k, v "
                  "(default: weights,output; csv/npy write weights if shown, else output, else the first)")
      ->group("Output");
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig);
  set_examples(cmd, {"tfx attention --sentence \"I love playing football\" --dk 8 --seed 1",
                     "tfx attention --sentence \"the cat sat on the mat\" --causal --show all",
                     "tfx attention --sentence \"the king went home\" --cross \"the queen loved the house\" --png",
                     "tfx attention --sentence \"the teacher read the book to the children\" --heads 2 --dk 4 --png heads.png",
                     "tfx attention --q q.csv --k k.csv --v v.json --format json",
                     "tfx attention --x x.npy --identity --show scores,weights",
                     "tfx attention variance --dk 1,8,64,512 --samples 10000"});
  register_attention_variance(cmd);
  cmd->callback([cmd, o, identity, no_pe, sentence, cross] {
    o->sentence_given = sentence->count() > 0;
    o->cross_given = cross->count() > 0;
    if (!cmd->get_subcommands().empty()) return;  // `tfx attention variance` ran instead
    o->identity_given = identity->count() > 0;
    o->no_pe_given = no_pe->count() > 0;
    run_attention(*o);
  });
}

}  // namespace tfx::cli
