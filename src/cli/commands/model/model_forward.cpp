// `tfx model info | attention | hidden | logits | next | fill`: a Hugging Face checkpoint folder
// (tfx/model/checkpoint.hpp) run on TEXT through its own tokenizer (tfx/text/hf_tokenizer.hpp):
// what the model is, its attention weights (one head, one layer's heads, or every layer × head as
// one "model view" figure), hidden states, logits and predictions, as HF's outputs number them.
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>

#include "cli/commands/model/model.hpp"
#include "cli/common.hpp"
#include "cli/validators.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/figure/attention_html.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/text/hf_tokenizer.hpp"

namespace tfx::cli {

namespace {

// DIR TEXT and what they give: the checkpoint, its tokenizer, the tokens of TEXT.
struct ModelInput {
  std::string dir, text, ids;  // --ids: token ids instead of TEXT
  bool no_special = false;
};

struct LoadedInput {
  Checkpoint model;
  std::optional<HfTokenizer> tokenizer;
  std::vector<std::size_t> ids;
  std::vector<std::string> tokens;  // readable
};

void add_model_input(CLI::App* cmd, ModelInput& in, bool text = true) {
  cmd->add_option("DIR", in.dir, tr("Checkpoint folder: config.json, model.safetensors (or shards), tokenizer files"))->required();
  if (!text) return;
  cmd->add_option("TEXT", in.text, tr("The text the model reads (through the checkpoint's own tokenizer)"));
  cmd->add_option("--ids", in.ids, tr("Token ids instead of TEXT, comma-separated (no tokenizer needed)"))
      ->check(comma_list("ids", "15496,11,616"));
  cmd->add_flag("--no-special", in.no_special, tr("Leave out the special tokens the tokenizer adds ([CLS] … [SEP], <s>)"));
}

// A flag's whole number from 0 in decimal digits ("12"); nullopt for "", "-1", "1.5", "x" or a
// number past unsigned long long.
std::optional<unsigned long long> model_whole_number(const std::string& s) {
  std::size_t pos = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(s, &pos);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (s.empty() || pos != s.size() || s[0] == '-') return std::nullopt;
  return v;
}

LoadedInput load_input(const ModelInput& in) {
  if (in.text.empty() == in.ids.empty())
    throw usage_error("give the TEXT (tokenized by the checkpoint's tokenizer) or --ids 1,2,3, not both");
  LoadedInput l{load_checkpoint(in.dir), std::nullopt, {}, {}};
  if (!in.ids.empty()) {
    for (const std::string& item : split_items(in.ids)) {
      const std::optional<unsigned long long> v = model_whole_number(item);
      if (!v) throw usage_error(fmt::format("--ids: '{}' is not a token id", item));
      l.ids.push_back(static_cast<std::size_t>(*v));
    }
    std::error_code ec;
    try {
      l.tokenizer = HfTokenizer::load(in.dir);
    } catch (const Error&) {
      // ids work without a tokenizer; tokens are then shown by number
    }
    for (std::size_t id : l.ids) {
      const std::string t = l.tokenizer ? l.tokenizer->id_to_token(id) : "";
      l.tokens.push_back(t.empty() ? std::to_string(id) : t);
    }
  } else {
    l.tokenizer = HfTokenizer::load(in.dir);
    const HfEncoding e = l.tokenizer->encode(in.text, !in.no_special);
    if (e.ids.empty()) throw usage_error(fmt::format("TEXT '{}' gives no tokens", in.text));
    l.ids = e.ids;
    l.tokens = e.readable;
  }
  const ModelConfig& c = l.model.config;
  if (c.uses_rope() && l.ids.size() > c.max_positions)
    std::fprintf(stderr, "%s\n",
                 trf("tfx: warning: {} tokens are past max_position_embeddings {}: RoPE runs on, but the model never saw such positions",
                     l.ids.size(), c.max_positions)
                     .c_str());
  if (c.sliding_window && l.ids.size() > *c.sliding_window)
    std::fprintf(stderr, "%s\n",
                 trf("tfx: warning: {} tokens exceed mistral's sliding window of {}: HF would restrict each query to the last {} keys; "
                     "tfx attends to all of them",
                     l.ids.size(), *c.sliding_window, *c.sliding_window)
                     .c_str());
  return l;
}

std::string family_name(const ModelConfig& c) {
  if (c.model_type == "bert") return tr("BERT (encoder, post-LN, learned positions)");
  if (c.model_type == "gpt2") return tr("GPT-2 (decoder, pre-LN, learned positions)");
  return trf("{} (decoder, RMSNorm, RoPE{})", c.model_type, c.kv_heads != c.heads ? tr(", grouped-query attention") : "");
}

nlohmann::json model_params(const ModelInput& in, const LoadedInput& l) {
  return {{"model", in.dir}, {"model_type", l.model.config.model_type}, {"tokens", l.tokens}, {"ids", l.ids}};
}

std::vector<std::string> split_words_of(const std::string& text) {
  std::vector<std::string> out;
  std::string w;
  for (char ch : text + " ") {
    if (ch == ' ' || ch == '\t' || ch == '\n' || ch == ',') {
      if (!w.empty()) out.push_back(w);
      w.clear();
    } else {
      w += ch;
    }
  }
  return out;
}

std::string bytes_text(std::size_t b) {
  if (b >= (std::size_t{1} << 30)) return fmt::format("{:.2f} GiB", static_cast<double>(b) / (1 << 30));
  if (b >= (std::size_t{1} << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(b) / (1 << 20));
  return fmt::format("{:.1f} KiB", static_cast<double>(b) / 1024);
}

// ---------------------------------------------------------------- info
struct InfoOptions {
  ModelInput in;
  OutputFlags out;
};

void run_info(const InfoOptions& o) {
  const Checkpoint m = load_checkpoint(o.in.dir);
  const ModelConfig& c = m.config;
  Result r;
  r.command = "model info";
  r.params = {{"model", o.in.dir}};
  Records rec;
  rec.name = N_("info");
  rec.columns = {N_("property"), N_("value")};
  auto row = [&](const std::string& k, const std::string& v, const nlohmann::json& j) {
    (void)j;
    rec.rows.push_back({k, v});
  };
  row("family", family_name(c), c.model_type);
  row("layers", std::to_string(c.layers), c.layers);
  row("heads", std::to_string(c.heads), c.heads);
  row("kv_heads", std::to_string(c.kv_heads), c.kv_heads);
  row("d_model", std::to_string(c.d_model), c.d_model);
  row("head_dim", std::to_string(c.head_dim), c.head_dim);
  row("ffn",
      fmt::format("{} ({})", c.ffn,
                  c.uses_rope() ? "SwiGLU" : c.activation == "gelu_new" ? tr("GELU, tanh form") : tr("GELU, erf form")),
      c.ffn);
  row("vocabulary", std::to_string(c.vocab), c.vocab);
  row("positions", fmt::format("{} ({})", c.max_positions, c.uses_rope() ? "RoPE" : tr("learned table")), c.max_positions);
  if (c.uses_rope()) {
    std::string s = trf("θ = {:g}, rotate-half layout, {} pairs", c.rope.base, c.head_dim / 2);
    if (c.rope.scaling != RopeScaling::none)
      s += trf("; scaling {} × {:g} (original {} positions)", rope_scaling_name(c.rope.scaling), c.rope.factor.value_or(1.0),
               c.rope.original_max_pos.value_or(c.max_positions));
    row("rope", s, {{"theta", c.rope.base}, {"scaling", rope_scaling_name(c.rope.scaling)}, {"factor", c.rope.factor.value_or(1.0)}});
  }
  if (c.sliding_window) row("sliding_window", std::to_string(*c.sliding_window), *c.sliding_window);
  const std::size_t total = m.parameter_count(), block = block_parameter_count(m);
  row("parameters_per_block", fmt::format("{} ({:.2f} M)", block, static_cast<double>(block) / 1e6), block);
  row("parameters", trf("{} ({:.2f} M; {} blocks = {:.1f} %)", total, static_cast<double>(total) / 1e6, c.layers,
                        100.0 * static_cast<double>(block * c.layers) / static_cast<double>(total)),
      total);
  row("output_head", c.model_type == "bert" ? (m.has_lm_head ? tr("MLM head (tied to the word embeddings)") : tr("none (BertModel)"))
                     : c.tied_head && !m.tensors.count("lm_head.weight") ? tr("tied to the token embedding")
                                                                          : tr("lm_head (untied)"),
      m.has_lm_head);
  row("dtype", m.dtype, m.dtype);
  row("bytes", trnf("{} in {} file", "{} in {} files", m.files.size(), bytes_text(m.file_bytes), m.files.size()), m.file_bytes);
  std::string tok = tr("none (give --ids)");
  try {
    const HfTokenizer t = HfTokenizer::load(o.in.dir);
    tok = trf("{}, {} tokens ({})", t.kind(), t.vocab_size(), std::filesystem::path(t.source()).filename().string());
    if (t.vocab_size() > c.vocab) tok += trf(" — more ids than the embedding's {} rows!", c.vocab);
  } catch (const Error& e) {
    tok = std::string(tr("not readable: ")) + e.what();
  }
  row("tokenizer", tok, tok);
  r.blocks.push_back(Text{fmt::format("{}: {}", o.in.dir, family_name(c))});
  r.blocks.push_back(std::move(rec));
  r.primary = "info";
  present(r, o.out);
}

// ---------------------------------------------------------------- attention
struct AttentionOptions2 {
  ModelInput in;
  std::string layer = "all", head = "all";
  std::string html;  // --html FILE
  OutputFlags out;
  FigureFlags fig;
};

std::optional<std::size_t> pick(const std::string& v, std::size_t n, const char* flag, const char* what) {
  if (v == "all") return std::nullopt;
  const std::optional<unsigned long long> k = model_whole_number(v);
  if (!k) throw usage_error(fmt::format("{} {}: expected a {} number from 0 or all", flag, v, what));
  if (*k >= n) throw usage_error(fmt::format("{} {}: the model has {} {}s (0 … {})", flag, v, n, what, n - 1));
  return static_cast<std::size_t>(*k);
}

Heatmap attention_heatmap(const Tensor& w, const std::vector<std::string>& tokens, const std::string& title, bool labels) {
  Heatmap h;
  h.values = w;
  h.title = title;
  h.x_label = tr("key");
  h.y_label = tr("query");
  if (labels) h.row_labels = h.col_labels = tokens;
  h.vmin = 0;
  h.vmax = 1;
  h.value_label = tr("attention weight");
  return h;
}

// The --html page: every layer and head when they fit in one page (it opens on --layer/--head),
// else only the ones asked for.
std::string attention_page(const AttentionOptions2& o, const LoadedInput& l, const ForwardPass& f, std::optional<std::size_t> layer,
                           std::optional<std::size_t> head) {
  const ModelConfig& c = l.model.config;
  const std::size_t T = l.ids.size();
  const bool whole = c.layers * c.heads * T * T <= kMaxHtmlWeights;
  AttentionPage p;
  std::string dir_name = std::filesystem::path(o.in.dir).filename().string();
  if (dir_name.empty()) dir_name = std::filesystem::path(o.in.dir).parent_path().filename().string();
  p.title = trf("{} — attention", dir_name);
  p.subtitle = trf("{}: {} tokens; weights after softmax, layers and heads numbered from 0 as in Hugging Face's outputs{}",
                           family_name(c), T, c.decoder() ? tr("; causal: a query sees only the keys up to itself") : "");
  p.queries = p.keys = l.tokens;
  for (std::size_t li = 0; li < c.layers; ++li) {
    if (!whole && layer && *layer != li) continue;
    p.layer_names.push_back(trf("layer {}", li));
    if (whole || !head) {
      p.weights.push_back(f.attentions[li]);
    } else {
      Tensor one({1, T, T});
      std::copy_n(f.attentions[li].data() + *head * T * T, T * T, one.data());
      p.weights.push_back(std::move(one));
    }
  }
  for (std::size_t hi = 0; hi < c.heads; ++hi)
    if (whole || !head || *head == hi) p.head_names.push_back(std::to_string(hi));
  if (whole) {
    p.first_layer = layer.value_or(0);
    p.first_head = head;
  }
  p.footer = trf("made by tfx model attention {} ({} {})", o.in.dir, c.model_type,
                 o.in.text.empty() ? "--ids " + o.in.ids : "\"" + o.in.text + "\"");
  return attention_html(p);
}

void run_attention(const AttentionOptions2& o) {
  const LoadedInput l = load_input(o.in);
  const ModelConfig& c = l.model.config;
  const std::optional<std::size_t> layer = pick(o.layer, c.layers, "--layer", "layer");
  const std::optional<std::size_t> head = pick(o.head, c.heads, "--head", "head");
  const bool html_only = !o.html.empty() && check_html_target(o.html, o.out, o.fig);
  ForwardPass f = model_forward(l.model, l.ids, false);
  f.hidden.clear();  // not shown here: memory back before the output is encoded
  const std::size_t T = l.ids.size(), H = c.heads;
  std::string page;
  if (!o.html.empty()) {
    page = attention_page(o, l, f, layer, head);
    if (html_only) {
      write_html(page, o.html, o.out, o.fig);
      return;
    }
  }
  // the requested block of the (layers, heads, T, T) weights
  std::vector<std::size_t> layers, heads;
  for (std::size_t i = 0; i < c.layers; ++i)
    if (!layer || *layer == i) layers.push_back(i);
  for (std::size_t i = 0; i < H; ++i)
    if (!head || *head == i) heads.push_back(i);
  std::vector<std::size_t> shape;
  if (layers.size() > 1) shape.push_back(layers.size());
  if (heads.size() > 1) shape.push_back(heads.size());
  shape.push_back(T);
  shape.push_back(T);
  Tensor w(shape);
  std::size_t k = 0;
  const bool keep = figure_drawn(o.fig, o.out);  // the figures below read f.attentions again
  for (std::size_t li : layers) {
    for (std::size_t hi : heads) {
      const float* src = f.attentions[li].data() + hi * T * T;
      std::copy(src, src + T * T, w.data() + k * T * T);
      ++k;
    }
    if (!keep) f.attentions[li] = Tensor();  // one copy of the weights at a time (a 12 × 12 × T² model)
  }
  Result r;
  r.command = "model attention";
  r.params = model_params(o.in, l);
  r.params["layer"] = o.layer;
  r.params["head"] = o.head;
  r.blocks.push_back(Text{trf("{}: {} tokens; attention weights after softmax{}, layers and heads numbered from 0 as in Hugging "
                                      "Face's outputs; rows are queries, columns keys",
                                      family_name(c), T, c.decoder() ? tr(" (causal: row i sees keys 0 … i)") : "")});
  Matrix m;
  m.name = N_("attentions");
  m.row_labels = m.col_labels = l.tokens;
  m.row_axis = N_("query");
  m.col_axis = N_("key");
  const bool npy = o.out.format == Format::npy || (o.out.output.size() > 4 && o.out.output.ends_with(".npy"));
  m.slice_axis = shape.size() == 4 ? N_("layer·heads+head") : layers.size() > 1 ? N_("layer") : N_("head");
  // npy keeps the 4-D (layers, heads, T, T); a table shows one (T, T) slice per layer and head
  m.values = shape.size() == 4 && !npy ? w.reshaped({layers.size() * heads.size(), T, T}) : std::move(w);
  r.blocks.push_back(std::move(m));
  r.primary = "attentions";
  r.summary[N_("shape")] = shape;
  // figures: one head a labelled heatmap; one layer's heads a grid; every layer × head the model view
  Figure fig;
  std::optional<Heatmap> view;
  if (figure_drawn(o.fig, o.out)) {
    const bool one = layers.size() == 1 && heads.size() == 1;
    const bool thumbnails = layers.size() > 1 && heads.size() > 1;
    for (std::size_t li : layers)
      for (std::size_t hi : heads) {
        Tensor one_w({T, T});
        std::copy_n(f.attentions[li].data() + hi * T * T, T * T, one_w.data());
        Heatmap h = attention_heatmap(
            one_w, l.tokens,
            one ? trf("{} — attention, layer {} head {}", std::filesystem::path(o.in.dir).filename().string(), li, hi)
                : fmt::format("L{} H{}", li, hi),
            !thumbnails);
        if (thumbnails) h.annotate = false;
        fig.panels.push_back(h);
        if (!view) view = h;
      }
    fig.columns = static_cast<int>(heads.size());
    fig.title = one ? ""
                    : thumbnails ? trf("Model view: {} layers (rows) × {} heads (columns)", layers.size(), heads.size())
                                 : layers.size() == 1 ? trf("Layer {}: {} heads", layers[0], heads.size())
                                                      : trf("Head {} in {} layers", heads[0], layers.size());
  }
  std::string dir_name = std::filesystem::path(o.in.dir).filename().string();
  if (dir_name.empty()) dir_name = std::filesystem::path(o.in.dir).parent_path().filename().string();
  std::vector<std::string> words;
  for (const std::string& item : split_words_of(o.in.text.empty() ? "ids " + o.in.ids : o.in.text)) words.push_back(item);
  const std::string name = fmt::format("model_attention_{}_{}_L{}_H{}.png", name_part({dir_name}), name_part(words), o.layer, o.head);
  present_all(r, o.out, o.fig, fig.panels.empty() ? nullptr : &fig, view ? &*view : nullptr, name);
  if (!page.empty()) write_html(page, o.html, o.out, o.fig);
}

// ---------------------------------------------------------------- hidden / logits
struct TensorOptions {
  ModelInput in;
  OutputFlags out;
};

void run_hidden(const TensorOptions& o) {
  const LoadedInput l = load_input(o.in);
  const ModelConfig& c = l.model.config;
  const ForwardPass f = model_forward(l.model, l.ids, false);
  const std::size_t L = f.hidden.size(), T = l.ids.size(), D = c.d_model;
  Tensor h({L, T, D});
  for (std::size_t i = 0; i < L; ++i) std::copy(f.hidden[i].values().begin(), f.hidden[i].values().end(), h.data() + i * T * D);
  Result r;
  r.command = "model hidden";
  r.params = model_params(o.in, l);
  r.blocks.push_back(Text{trf("hidden states ({}, {}, {}) as Hugging Face's output_hidden_states: [0] the embedding output, then "
                                      "each layer's output{}",
                                      L, T, D, c.model_type == "bert" ? "" : tr(" (the last after the final norm)"))});
  // ‖h‖ per layer and token: how the residual stream grows
  Tensor norms({L, T});
  for (std::size_t i = 0; i < L; ++i)
    for (std::size_t t = 0; t < T; ++t) norms(i, t) = static_cast<float>(norm(f.hidden[i].row(t)));
  std::vector<std::string> layer_labels;
  for (std::size_t i = 0; i < L; ++i) layer_labels.push_back(i == 0 ? "embeddings" : fmt::format("layer {}", i - 1));
  Matrix n;
  n.name = N_("norms"), n.values = norms, n.row_labels = layer_labels, n.col_labels = l.tokens, n.row_axis = N_("state"), n.col_axis = N_("token");
  r.blocks.push_back(n);
  Matrix m;
  m.name = N_("hidden_states"), m.values = h, m.row_labels = l.tokens, m.row_axis = N_("token"), m.col_axis = N_("dim");
  m.slice_axis = N_("state");
  r.blocks.push_back(m);
  r.primary = "hidden_states";
  r.summary[N_("shape")] = {L, T, D};
  present(r, o.out);
}

void run_logits(const TensorOptions& o) {
  const LoadedInput l = load_input(o.in);
  const ForwardPass f = model_forward(l.model, l.ids, true);
  if (f.logits.empty()) throw usage_error(fmt::format("{}: this BERT checkpoint has no MLM head (cls.predictions.*), so no logits", o.in.dir));
  Result r;
  r.command = "model logits";
  r.params = model_params(o.in, l);
  r.blocks.push_back(Text{trf("logits ({}, {}): row t scores every token of the vocabulary {}", f.logits.rows(), f.logits.cols(),
                                      l.model.config.decoder() ? tr("as the token after position t") : tr("for position t (masked LM)"))});
  Matrix m;
  m.name = N_("logits"), m.values = f.logits, m.row_labels = l.tokens, m.row_axis = N_("token"), m.col_axis = N_("vocabulary id");
  r.blocks.push_back(m);
  r.primary = "logits";
  present(r, o.out);
}

// ---------------------------------------------------------------- next / fill
struct PredictOptions {
  ModelInput in;
  std::int64_t k = 10;
  OutputFlags out;
};

std::string readable_token(const LoadedInput& l, std::size_t id) {
  return l.tokenizer ? l.tokenizer->readable(id) : std::to_string(id);
}

Records top_records(const LoadedInput& l, std::span<const float> logits, std::size_t k, const std::string& name) {
  // softmax in double over the row, then the k best
  double mx = -INFINITY;
  for (float v : logits) mx = std::max(mx, static_cast<double>(v));
  double sum = 0;
  for (float v : logits) sum += std::exp(static_cast<double>(v) - mx);
  Records rec;
  rec.name = name;
  rec.columns = {N_("rank"), N_("token"), N_("id"), N_("probability"), N_("logit")};
  long long rank = 1;
  for (const auto& [id, v] : top_k(logits, k))
    rec.rows.push_back({rank++, readable_token(l, id), static_cast<long long>(id), std::exp(static_cast<double>(v) - mx) / sum,
                        static_cast<double>(v)});
  return rec;
}

void run_next(const PredictOptions& o) {
  const LoadedInput l = load_input(o.in);
  if (!l.model.config.decoder())
    throw usage_error(fmt::format("{} is an encoder ({}): it does not predict a next token; tfx model fill predicts [MASK]", o.in.dir,
                                  l.model.config.model_type));
  const ForwardPass f = model_forward(l.model, l.ids, true);
  Result r;
  r.command = "model next";
  r.params = model_params(o.in, l);
  r.params["k"] = o.k;
  r.blocks.push_back(Text{trf("the next token after \"{}\": softmax of the last position's logits (greedy picks rank 1)",
                                      fmt::join(l.tokens, " "))});
  r.blocks.push_back(top_records(l, f.logits.row(f.logits.rows() - 1), static_cast<std::size_t>(o.k), "next"));
  r.primary = "next";
  present(r, o.out);
}

void run_fill(const PredictOptions& o) {
  const LoadedInput l = load_input(o.in);
  if (l.model.config.model_type != "bert")
    throw usage_error(fmt::format("{} is a {} decoder: fill predicts BERT's [MASK]; use tfx model next", o.in.dir, l.model.config.model_type));
  if (!l.model.has_lm_head) throw usage_error(fmt::format("{}: this BERT checkpoint has no MLM head (cls.predictions.*), so fill cannot predict", o.in.dir));
  const std::optional<std::size_t> mask = l.tokenizer ? l.tokenizer->mask_id() : std::nullopt;
  std::vector<std::size_t> positions;
  for (std::size_t t = 0; t < l.ids.size(); ++t)
    if (mask && l.ids[t] == *mask) positions.push_back(t);
  if (positions.empty())
    throw usage_error(fmt::format("TEXT has no mask token{}; write it where the word is missing: \"the {} sat on the mat.\"",
                                  mask ? " " + l.tokenizer->mask_token() : "", mask ? l.tokenizer->mask_token() : "[MASK]"));
  const ForwardPass f = model_forward(l.model, l.ids, true);
  Result r;
  r.command = "model fill";
  r.params = model_params(o.in, l);
  r.params["k"] = o.k;
  Records all;
  all.name = N_("fill");
  all.columns = {N_("position"), N_("rank"), N_("token"), N_("id"), N_("probability"), N_("logit")};
  for (std::size_t p : positions) {
    const Records rec = top_records(l, f.logits.row(p), static_cast<std::size_t>(o.k), "fill");
    for (const auto& row : rec.rows) {
      std::vector<Cell> c = {static_cast<long long>(p)};
      c.insert(c.end(), row.begin(), row.end());
      all.rows.push_back(c);
    }
  }
  r.blocks.push_back(Text{trnf("the masked position {}: softmax of the MLM head's logits", "the masked positions {}: softmax of the MLM head's logits",
                                       positions.size(), fmt::join(positions, ", "))});
  r.blocks.push_back(std::move(all));
  r.primary = "fill";
  present(r, o.out);
}

}  // namespace

void register_model_forward(CLI::App& model) {
  {
    auto [cmd, o] = add_command(model, "info", tr("What the checkpoint is: family, layers, heads, widths, RoPE, parameters, dtype, tokenizer"), run_info);
    add_model_input(cmd, o->in, false);
    add_output_flags(cmd, o->out, false);
    set_examples(cmd, {tr("tfx model info gpt2/"), tr("tfx model info Llama-3.2-1B/ --format json")});
  }
  {
    auto [cmd, o] = add_command(model, "attention", tr("Attention weights of every layer and head (HF's output_attentions), as tables, npy and figures"),
                                run_attention);
    add_model_input(cmd, o->in);
    cmd->add_option("--layer", o->layer, tr("Layer, from 0, or all"))->capture_default_str();
    cmd->add_option("--head", o->head, tr("Head, from 0, or all"))->capture_default_str();
    add_output_flags(cmd, o->out);
    add_figure_flags(cmd, o->fig);
    add_html_flag(cmd, o->html);
    set_examples(cmd, {tr("tfx model attention bert-base-uncased/ \"the cat sat on the mat\" --layer 5 --head 3 --png"),
                       tr("tfx model attention gpt2/ \"The cat sat on the mat\" --png           # the model view: every layer × head"),
                       tr("tfx model attention gpt2/ \"The cat sat\" --format npy -o att.npy   # (layers, heads, T, T) float32"),
                       tr("tfx model attention gpt2/ \"The cat sat on the mat\" --html cat.html  # head view + model view, offline")});
  }
  {
    auto [cmd, o] = add_command(model, "hidden", tr("Hidden states (layers + 1, T, d) as HF's output_hidden_states, and their norms"), run_hidden);
    add_model_input(cmd, o->in);
    add_output_flags(cmd, o->out, false);
    set_examples(cmd, {tr("tfx model hidden gpt2/ \"The cat sat\" --format npy -o hidden.npy")});
  }
  {
    auto [cmd, o] = add_command(model, "logits", tr("Logits (T, vocabulary) of the LM or MLM head"), run_logits);
    add_model_input(cmd, o->in);
    add_output_flags(cmd, o->out, false);
    set_examples(cmd, {tr("tfx model logits gpt2/ \"The cat sat\" --format npy -o logits.npy")});
  }
  {
    auto [cmd, o] = add_command(model, "next", tr("The next token's top-k with probabilities (GPT-2, Llama family)"), run_next);
    add_model_input(cmd, o->in);
    cmd->add_option("-k,--top", o->k, tr("How many tokens"))->capture_default_str()->check(whole_number(1, 1000));
    add_output_flags(cmd, o->out, false);
    set_examples(cmd, {tr("tfx model next gpt2/ \"The capital of France is\" -k 5")});
  }
  {
    auto [cmd, o] = add_command(model, "fill", tr("Masked-LM top-k for each [MASK] (BERT with its MLM head)"), run_fill);
    add_model_input(cmd, o->in);
    cmd->add_option("-k,--top", o->k, tr("How many tokens per mask"))->capture_default_str()->check(whole_number(1, 1000));
    add_output_flags(cmd, o->out, false);
    set_examples(cmd, {tr("tfx model fill bert-base-uncased/ \"the [MASK] sat on the mat.\" -k 10")});
  }
}

}  // namespace tfx::cli
