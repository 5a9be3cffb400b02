// Pieces `tfx encoder` and `tfx decoder` share: their flags, the sentence/matrix → X⁽⁰⁾ step
// (word tokens → a seeded embedding row per token + sinusoidal PE), the layer parameters (seeded,
// or PyTorch state_dict keys from --weights), --save-weights, the presentation of one layer's
// steps (tables chosen by --show, attention heatmaps per head) and of the stack's output.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cli/common.hpp"
#include "tfx/io/format.hpp"
#include "tfx/model/safetensors.hpp"
#include "tfx/attention/layer_input.hpp"
#include "tfx/attention/transformer.hpp"

namespace tfx::cli {

struct LayerFlags {
  std::string sentence, x_file;
  std::int64_t d_model = 16, heads = 2, ffn = 0, layers = 1;  // ffn 0 = 4·d_model
  bool norm_first = false, lower = false;
  std::string show, weights, save_weights;
  std::uint64_t seed = 42;
  bool random = false;  // --random: seeded weights even where the teaching translator could run
  std::string what;     // "encoder" or "decoder"
  CLI::Option *seed_opt = nullptr;
  CLI::Option *d_model_opt = nullptr, *heads_opt = nullptr, *ffn_opt = nullptr, *layers_opt = nullptr, *sentence_opt = nullptr;
  OutputFlags out;
  FigureFlags fig;
};
// --sentence, --x, --d-model, --heads, --ffn, --layers, --norm-first, --show, --weights,
// --save-weights, --lower, --seed and the output/figure flags. `what` is "encoder" or "decoder".
void add_layer_flags(CLI::App* cmd, LayerFlags& f, const std::string& what);

// The widths and layer count in force: from --weights' shapes when given (conflicting flags are a
// usage error) and the heads from --heads or the file's metadata (weights_heads.hpp), else from
// the flags; `x_cols` (0 = unknown) is the width of a --x matrix.
struct LayerShape {
  std::size_t d_model = 0, heads = 0, ffn = 0, layers = 0;
  std::string heads_source;  // with --weights: where the number of heads came from
};
LayerShape layer_shape(const LayerFlags& f, const TensorMap* weights, const TensorMetadata& metadata, std::size_t x_cols);
// The key prefix of layer i: "" for one layer, "layers.{i}." for a stack (as nn.TransformerEncoder).
std::string layer_prefix(std::size_t i, std::size_t layers);

// What every layer command starts from: the --weights file (if any), X⁽⁰⁾, the widths in force.
// Checks that exactly one of --sentence / --x is given (`example` shows a sentence in the message).
//
// A --sentence whose words are all in the built-in teaching translator's vocabulary (the lecture's
// 나는 학생 이다, I am a student), with no --weights, --random or size/seed flag, runs on the
// translator's trained weights (its embedding rows + PE as X⁽⁰⁾, its 2 layers; the decoder's input
// starts with <bos> as in training): `trained` is set and the notes say so. Otherwise seeded weights;
// `seeded_reason` says why when the trained model was not used for a sentence.
struct LayerSetup {
  std::optional<TensorMap> file;
  LayerInput input;
  LayerShape shape;
  bool trained = false;
  std::string seeded_reason;
};
LayerSetup layer_setup(const LayerFlags& f, const std::string& example);
// The same without the trained translator: --weights or seeded weights.
LayerSetup layer_setup_seeded(const LayerFlags& f, const std::string& example);
// The words of `sentence` (split at whitespace) not in the teaching translator's vocabulary.
std::vector<std::string> words_outside_translator(const std::string& sentence);

// The parameters of each layer: `from_file(map, prefix, widths, where)` with --weights, else
// `seeded(D, F, gen)` from one generator seeded with --seed, layer after layer; every layer's
// tensors are also stored in `used` under PyTorch's keys (for --save-weights).
template <class Params, class FromFile, class Seeded>
std::vector<Params> layer_stack_params(const LayerFlags& f, const LayerSetup& s, TensorMap& used, FromFile from_file, Seeded seeded) {
  std::vector<Params> params;
  Generator gen(f.seed);
  for (std::size_t i = 0; i < s.shape.layers; ++i) {
    const std::string prefix = layer_prefix(i, s.shape.layers);
    params.push_back(s.file ? from_file(*s.file, prefix, LayerWidths{s.shape.d_model, s.shape.ffn}, "--weights " + f.weights)
                            : seeded(s.shape.d_model, s.shape.ffn, gen));
    store_params(params.back(), prefix, used);
  }
  return params;
}

// "weights: FILE (PyTorch state_dict keys); heads from …" or the seeded initialisation, for the notes.
std::string weights_note(const LayerFlags& f, const LayerSetup& setup);
// The same in a few words for a figure's title: "trained teaching translator", "random weights,
// seed 42" or "weights: FILE" (the file's name, never its directories).
std::string weights_label(const LayerFlags& f, const LayerSetup& setup);

// --show: which matrices to print. `names` lists every one the command knows, in order.
std::vector<std::string> parse_layer_show(const std::string& text, const std::vector<std::string>& names,
                                          const std::vector<std::string>& defaults);
bool shows(const std::vector<std::string>& chosen, const std::string& name);
// Appends `t` as matrix "<prefix><name>" when --show chose `name` and t is not empty (pre-/post-LN
// leave some steps empty).
void add_shown(Result& r, const std::vector<std::string>& show, const std::string& prefix, const std::string& name, const Tensor& t,
               const std::vector<std::string>& tokens, const std::string& col_axis = "dim");

// One layer's matrices chosen by --show, appended as "<prefix><name>" in the notes' order.
struct ShownLayer {
  Result& r;
  const std::vector<std::string>& show;
  const std::string& prefix;
  const std::vector<std::string>& tokens;  // the rows: the layer's own tokens
  void put(const std::string& name, const Tensor& t, const std::string& axis = "dim") const {
    add_shown(r, show, prefix, name, t, tokens, axis);
  }
  // An attention block: its LayerNorm input (pre-LN), Q, K and V when `qkv`, the per-head weights
  // over `keys`, the attention output, the residual sum (post-LN) and the block's output.
  void attention(const SublayerSteps& block, const MultiHeadAttention& a, const std::vector<std::string>& keys, const char* norm,
                 const char* weights, const char* attn, const char* sum, const char* out, bool qkv = false) const;
  // The feed-forward block: LayerNorm input, hidden units, FFN output, residual sum, output.
  void feed_forward(const SublayerSteps& block, const FeedForwardSteps& ffn, const char* norm, const char* sum) const;
};

// --save-weights FILE: the parameters as a safetensors file PyTorch loads (load_state_dict).
void save_weights(const TensorMap& params, const std::string& path, const std::string& module, std::size_t heads);

// The "steps" table of a layer command (layer | step | shape), its first row X⁽⁰⁾ (T, d_model) as
// --sentence or --x made it; dims() writes a shape in it ("[5, 16]", "[2, 5, 5]").
Records layer_steps_table(const LayerFlags& f, const LayerInput& in, std::size_t d_model);
std::string dims(std::size_t a, std::size_t b);
std::string dims(std::size_t a, std::size_t b, std::size_t c);
// The params every layer command reports: layers, d_model, heads, ffn, norm_first, tokens, weights.
nlohmann::json layer_params(const LayerFlags& f, const LayerSetup& setup);
// A layer command's Result completed: the steps table after its first `notes` blocks (the text
// lines above it), the stack's output y (T, d_model) as the primary block "y", layer_params, and
// y's shape as the summary's output_shape.
void add_layer_output(Result& r, Records steps, std::size_t notes, const Tensor& y, const std::vector<std::string>& tokens,
                      const LayerFlags& f, const LayerSetup& setup);

}  // namespace tfx::cli
