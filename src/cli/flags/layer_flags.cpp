// Shared pieces of `tfx encoder` and `tfx decoder`: flags, X⁽⁰⁾ from a sentence or a matrix,
// widths from --weights, --show, tables and heatmaps of a layer's steps, --save-weights.
#include "cli/flags/model_size_flags.hpp"
#include "cli/flags/layer_flags.hpp"
#include "cli/flags/weights_heads.hpp"

#include <fmt/format.h>

#include <filesystem>

#include <algorithm>
#include <sstream>

#include "tfx/attention/attention.hpp"
#include "tfx/io/matrix_io.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/positional/positional.hpp"
#include "tfx/model/translator.hpp"
#include "tfx/text/tokenizer.hpp"
#include "cli/commands/train/model_flag.hpp"
#include "cli/flags/shared_flags.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

void add_layer_flags(CLI::App* cmd, LayerFlags& f, const std::string& what) {
  const std::string in = tr("Input");
  f.sentence_opt =
      add_sentence_flag(cmd, f.sentence, tr("run through the layer: word tokens, punctuation kept; a seeded embedding row per token + PE"))
          ->group(in);
  add_x_flag(cmd, f.x_file, tr("X⁽⁰⁾, T×d_model, used as given: no PE added"))->group(in);
  add_lower_flag(cmd, f.lower, "")->group(in);
  const std::string g = tr("Layer");
  f.d_model_opt =
      add_d_model_flag(cmd, f.d_model, tr("1…4096 here; from the weights' shapes with --weights"), SizeBound{{1, 4096}})->group(g);
  f.heads_opt = add_heads_flag(cmd, f.heads, g);
  f.ffn_opt = add_ffn_flag(cmd, f.ffn, tr("dim_feedforward; default 4·d_model"), std::nullopt, false)->group(g);
  f.layers_opt = add_layers_flag(cmd, f.layers, trf("{} layers, weights keyed layers.{{i}}.*", tr_runtime(what)))->group(g);
  cmd->add_flag("--norm-first", f.norm_first, tr("Pre-LN: x + f(LayerNorm(x)) instead of the paper's LayerNorm(x + f(x))"))->group(g);
  add_weights_flag(cmd, f.weights, trf("of nn.Transformer{}Layer", what == "encoder" ? "Encoder" : "Decoder"))->group(g);
  cmd->add_option("--save-weights", f.save_weights, tr("Write the weights used as FILE.safetensors (PyTorch's key names)"))->group(g);
  f.seed_opt = add_seed_flag(cmd, f.seed);
  f.what = what;
  add_random_flag(cmd, f.random)->group(g);
  add_show_flag(cmd, f.show, tr("see the list in the notes"))->group(tr("Output"));
  add_output_flags(cmd, f.out);
  add_figure_flags(cmd, f.fig, false);
}

LayerShape layer_shape(const LayerFlags& f, const TensorMap* weights, const TensorMetadata& metadata, std::size_t x_cols) {
  LayerShape s;
  s.heads = static_cast<std::size_t>(f.heads);
  if (weights) {
    const std::size_t stacked = stacked_layers(*weights);
    const bool prefixed = weights->lower_bound("layers.0.") != weights->end() &&
                          weights->lower_bound("layers.0.")->first.rfind("layers.0.", 0) == 0;
    s.layers = stacked;
    if (f.layers_opt->count() && static_cast<std::size_t>(f.layers) != stacked)
      throw usage_error(stacked == 1 ? fmt::format(N_("--layers {}: --weights {} holds 1 layer{}"), f.layers, f.weights,
                                                   prefixed ? "" : " (keys without a layers.{i}. prefix)")
                                     : fmt::format(N_("--layers {}: --weights {} holds {} layers{}"), f.layers, f.weights, stacked,
                                                   prefixed ? "" : " (keys without a layers.{i}. prefix)"));
    const LayerWidths w = layer_widths(*weights, layer_prefix(0, s.layers), "--weights " + f.weights);
    s.d_model = w.d_model;
    s.ffn = w.ffn;
    if (f.d_model_opt->count() && static_cast<std::size_t>(f.d_model) != s.d_model)
      throw usage_error(fmt::format(N_("--d-model {}: --weights {} has d_model = {} (from self_attn.in_proj_weight)"), f.d_model, f.weights,
                                    s.d_model));
    if (f.ffn_opt->count() && static_cast<std::size_t>(f.ffn) != s.ffn)
      throw usage_error(fmt::format(N_("--ffn {}: --weights {} has dim_feedforward = {} (from linear1.weight)"), f.ffn, f.weights, s.ffn));
    const WeightsHeads h = weights_heads(f.heads_opt->count() ? std::optional<std::size_t>(s.heads) : std::nullopt, metadata,
                                         f.weights, s.d_model);
    s.heads = h.heads;
    s.heads_source = h.source;
  } else {
    s.layers = static_cast<std::size_t>(f.layers);
    s.d_model = x_cols && !f.d_model_opt->count() ? x_cols : static_cast<std::size_t>(f.d_model);
    s.ffn = f.ffn ? static_cast<std::size_t>(f.ffn) : 4 * s.d_model;
  }
  if (x_cols && x_cols != s.d_model)
    throw usage_error(fmt::format(N_("--x {} has {} columns but d_model = {}{}"), f.x_file, x_cols, s.d_model,
                                  weights ? " (from --weights)" : " (--d-model)"));
  check_heads_divide(s.heads, s.d_model, "d_model", weights ? " (d_model from --weights)" : "");
  return s;
}

std::vector<std::string> words_outside_translator(const std::string& sentence) {
  const Translator& m = cli_translator();
  std::vector<std::string> missing;
  std::istringstream in(sentence);
  for (std::string w; in >> w;) {
    const auto id = m.vocab.find(w);
    if ((!id || *id < 4) && std::find(missing.begin(), missing.end(), w) == missing.end()) missing.push_back(w);
  }
  return missing;
}

namespace {

// Why a --sentence cannot run on the trained translator ("" = it can).
std::string seeded_reason(const LayerFlags& f) {
  if (f.random) return "--random";
  for (const auto& [opt, name] : {std::pair{f.d_model_opt, "--d-model"}, std::pair{f.heads_opt, "--heads"},
                                  std::pair{f.ffn_opt, "--ffn"}, std::pair{f.layers_opt, "--layers"},
                                  std::pair{f.seed_opt, "--seed"}})
    if (opt && opt->count()) return std::string(name) + " given";
  if (f.norm_first) return "--norm-first given";
  if (f.lower) return "--lower given";
  if (f.sentence.find_first_not_of(" \t\n\r") == std::string::npos) return "no words";
  const std::vector<std::string> missing = words_outside_translator(f.sentence);
  if (!missing.empty())
    return fmt::format(N_("'{}' not in the teaching translator's vocabulary (tfx translate --list-vocab)"), fmt::join(missing, "', '"));
  return "";
}

// The translator's `stack` ("encoder"/"decoder") tensors under nn.TransformerEncoder's keys.
TensorMap translator_stack(const std::string& stack) {
  TensorMap m;
  const std::string prefix = stack + ".";
  for (const auto& [name, t] : cli_translator().tensors)
    if (name.rfind(prefix + "layers.", 0) == 0) m.emplace(name.substr(prefix.size()), t);
  return m;
}

}  // namespace

LayerSetup layer_setup(const LayerFlags& f, const std::string& example) {
  if (f.sentence_opt->count() && f.x_file.empty() && f.weights.empty()) {
    const std::string reason = seeded_reason(f);
    if (reason.empty()) {
      const Translator& m = cli_translator();
      LayerSetup s;
      s.trained = true;
      s.file = translator_stack(f.what);
      s.shape = layer_shape(f, &*s.file, {{"nhead", std::to_string(m.heads)}}, 0);
      s.shape.heads_source = tr("the teaching translator");
      TokenIds t = translator_tokens(m, f.sentence, "--sentence");
      if (f.what == "decoder") {
        t.tokens.insert(t.tokens.begin(), "<bos>");
        t.ids.insert(t.ids.begin(), m.bos);
      }
      s.input.tokens = t.tokens;
      s.input.x = translator_embed(m, t.ids).x;
      s.input.vocab = cli_vocab_name();
      s.input.vocab_size = m.vocab.size();
      s.input.ids = t.ids;
      s.input.description =
          trf("X⁽⁰⁾ = Embedding(tokens) + PE: {} tokens \"{}\", the teaching translator's trained embedding rows{}", t.tokens.size(),
                      joined_tokens(t.tokens), f.what == "decoder" ? tr(" (<bos> first, as in training: row t predicts token t + 1)") : "");
      s.input.description += trf("; ids {} index {} (tfx tokenize, tfx lookup --ids)", fmt::join(t.ids, " "), cli_vocab_label());
      return s;
    }
    LayerSetup s = layer_setup_seeded(f, example);
    s.seeded_reason = reason;
    return s;
  }
  return layer_setup_seeded(f, example);
}

LayerSetup layer_setup_seeded(const LayerFlags& f, const std::string& example) {
  if (f.sentence_opt->count() == 0 && f.x_file.empty())
    throw usage_error(fmt::format(N_("give the input: --sentence \"{}\" or --x FILE"), example));
  if (f.sentence_opt->count() && !f.x_file.empty()) throw usage_error(N_("give one input: --sentence or --x FILE (not both)"));
  LayerSetup s;
  TensorMetadata metadata;
  if (!f.weights.empty()) s.file = read_weights(f.weights, &metadata);
  if (!f.x_file.empty()) s.input = matrix_input(f.x_file, "--x", true);
  s.shape = layer_shape(f, s.file ? &*s.file : nullptr, metadata, f.x_file.empty() ? 0 : s.input.x.cols());
  if (f.sentence_opt->count()) s.input = sentence_input(f.sentence, "--sentence", s.shape.d_model, f.seed, f.lower);
  // the largest tensors a layer forms: the (H, T, T) weights and the (T, F) hidden layer
  const std::size_t T = s.input.x.rows();
  checked_element_count({s.shape.heads, T, T}, fmt::format("{} tokens × {} tokens × --heads {}", T, T, s.shape.heads));
  checked_element_count({T, s.shape.ffn}, fmt::format("{} tokens × FFN width {}", T, s.shape.ffn));
  return s;
}

std::string weights_note(const LayerFlags& f, const LayerSetup& setup) {
  if (setup.trained)
    return trf("weights: the built-in teaching translator's trained {} (tfx translate; scripts/train_teaching_model.py); "
                       "--random for seeded weights",
                       f.what == "decoder" ? tr("decoder") : tr("encoder"));
  if (!f.weights.empty())
    return trf("weights: {} (PyTorch state_dict keys); heads = {} ({})", f.weights, setup.shape.heads, setup.shape.heads_source);
  return trf("weights: seeded (seed {}): Xavier-uniform matrices, biases 0, LayerNorm γ = 1, β = 0{}", f.seed,
                     setup.seeded_reason.empty() || setup.seeded_reason == "--random" ? ""
                                                                                        : tr(" (not the trained translator: ") + setup.seeded_reason + ")");
}

std::string weights_label(const LayerFlags& f, const LayerSetup& setup) {
  if (setup.trained) return tr("trained teaching translator");
  if (!f.weights.empty()) return trf("weights: {}", std::filesystem::path(f.weights).filename().string());
  return trf("random weights, seed {}", f.seed);
}

std::string layer_prefix(std::size_t i, std::size_t layers) { return layers == 1 ? "" : fmt::format("layers.{}.", i); }

std::vector<std::string> parse_layer_show(const std::string& text, const std::vector<std::string>& names,
                                          const std::vector<std::string>& defaults) {
  if (text.empty()) return defaults;
  std::vector<std::string> chosen;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    if (item == "all") return names;
    if (std::find(names.begin(), names.end(), item) == names.end())
      throw usage_error(fmt::format(N_("--show: unknown matrix '{}'; expected {} or all (comma-separated)"), item, fmt::join(names, ", ")));
    chosen.push_back(item);
  }
  return chosen;
}

bool shows(const std::vector<std::string>& chosen, const std::string& name) {
  return std::find(chosen.begin(), chosen.end(), name) != chosen.end();
}

void add_shown(Result& r, const std::vector<std::string>& show, const std::string& prefix, const std::string& name, const Tensor& t,
               const std::vector<std::string>& tokens, const std::string& col_axis) {
  if (shows(show, name) && !t.empty()) r.blocks.push_back(layer_matrix(prefix + name, t, tokens, {}, col_axis));
}

void ShownLayer::attention(const SublayerSteps& block, const MultiHeadAttention& a, const std::vector<std::string>& keys,
                           const char* norm, const char* weights, const char* attn, const char* sum, const char* out,
                           bool qkv) const {
  put(norm, block.normed);
  if (qkv) {
    put("q", a.q);
    put("k", a.k);
    put("v", a.v);
  }
  if (shows(show, weights)) r.blocks.push_back(head_weights_matrix(prefix + weights, a, tokens, keys));
  put(attn, a.output);
  put(sum, block.sum);
  put(out, block.output);
}

void ShownLayer::feed_forward(const SublayerSteps& block, const FeedForwardSteps& ffn, const char* norm, const char* sum) const {
  put(norm, block.normed);
  put("hidden", ffn.hidden, N_("unit"));
  put("ffn", ffn.output);
  put(sum, block.sum);
}

void save_weights(const TensorMap& params, const std::string& path, const std::string& module, std::size_t heads) {
  const std::string bytes = encode_safetensors(params, {{"format", "pt"}, {"module", module}, {"nhead", std::to_string(heads)}});
  emit(bytes, path, true, "--save-weights");
}

std::string dims(std::size_t a, std::size_t b) { return fmt::format("[{}, {}]", a, b); }
std::string dims(std::size_t a, std::size_t b, std::size_t c) { return fmt::format("[{}, {}, {}]", a, b, c); }

Records layer_steps_table(const LayerFlags& f, const LayerInput& in, std::size_t d_model) {
  Records steps;
  steps.name = N_("steps");
  steps.columns = {N_("layer"), N_("step"), N_("shape")};
  steps.rows.push_back({0LL, std::string(f.x_file.empty() ? tr("X⁽⁰⁾ = Embedding(tokens) + PE") : tr("X⁽⁰⁾ = --x, as given")),
                        dims(in.x.rows(), d_model)});
  return steps;
}

nlohmann::json layer_params(const LayerFlags& f, const LayerSetup& setup) {
  const LayerShape& shape = setup.shape;
  nlohmann::json p = {{"layers", shape.layers}, {"d_model", shape.d_model}, {"heads", shape.heads}, {"ffn", shape.ffn},
          {"norm_first", f.norm_first}, {"tokens", setup.input.tokens},
          {"weights", setup.trained ? std::string("teaching translator") : f.weights.empty() ? fmt::format("seeded {}", f.seed) : f.weights}};
  if (!setup.input.vocab.empty()) {
    p["vocab"] = setup.input.vocab;
    p["vocab_size"] = setup.input.vocab_size;
    p["ids"] = setup.input.ids;
  }
  return p;
}

void add_layer_output(Result& r, Records steps, std::size_t notes, const Tensor& y, const std::vector<std::string>& tokens,
                      const LayerFlags& f, const LayerSetup& setup) {
  r.blocks.insert(r.blocks.begin() + static_cast<std::ptrdiff_t>(notes), std::move(steps));
  r.blocks.push_back(layer_matrix("y", y, tokens));
  r.primary = "y";
  r.params = layer_params(f, setup);
  r.summary[N_("output_shape")] = {y.rows(), y.cols()};
}

}  // namespace tfx::cli
