// `tfx encoder`: the notes' encoder layer step by step — X⁽⁰⁾ = Embedding + PE,
// H = LayerNorm(MultiHead(X) + X), Y = LayerNorm(FFN(H) + H) — stacked --layers times, post-LN
// (or --norm-first), with seeded weights or a PyTorch state_dict (--weights), which
// --save-weights writes back out.
#include <fmt/format.h>

#include "tfx/attention/attention_page.hpp"
#include "cli/commands.hpp"
#include "tfx/core/memory.hpp"
#include "cli/flags/layer_flags.hpp"
#include "cli/commands/train/model_flag.hpp"

namespace tfx::cli {

namespace {

struct EncoderOptions {
  LayerFlags f;
  std::string html;    // --html FILE: every layer × head of the self-attention, offline page
  std::string memory;  // --memory or --memory-x given: only to say that they belong to the decoder
};

const std::vector<std::string> kEncoderShow = {"x", "q", "k", "v", "weights", "attn", "sum1", "norm1", "h", "hidden", "ffn", "sum2", "norm2", "y"};

// The matrices of one layer chosen by --show, named "<prefix><name>".
void add_encoder_blocks(Result& r, const EncoderLayerSteps& s, const std::vector<std::string>& show, const std::string& prefix,
                        const std::vector<std::string>& tokens) {
  const ShownLayer shown{r, show, prefix, tokens};
  shown.put("x", s.attn_block.input);
  shown.attention(s.attn_block, s.attention, tokens, "norm1", "weights", "attn", "sum1", "h", true);
  shown.feed_forward(s.ffn_block, s.ffn, "norm2", "sum2");
}

void run_encoder(const EncoderOptions& o) {
  const LayerFlags& f = o.f;
  if (!o.memory.empty()) throw usage_error(o.memory + " goes with tfx decoder (the encoder attends to its own input only)");
  const std::vector<std::string> show = parse_layer_show(f.show, kEncoderShow, {"weights"});
  const bool html_only = !o.html.empty() && check_html_target(o.html, f.out, f.fig);

  // 1. weights file, input, widths; 2. parameters per layer (the file's, or seeded)
  const LayerSetup setup = layer_setup(f, "I love playing football.");
  const LayerInput& in = setup.input;
  const LayerShape& shape = setup.shape;
  // the trained translator (--model FILE) runs as it was trained: pre-LN and scaling are its properties
  LayerOptions lo;
  lo.norm_first = f.norm_first || (setup.trained && cli_translator().properties.pre_ln);
  lo.scale_scores = !setup.trained || cli_translator().properties.scale_scores;
  const bool pre = lo.norm_first;
  TensorMap used;
  const auto params = layer_stack_params<EncoderLayerParams>(f, setup, used, encoder_layer_params, seeded_encoder_layer);

  // 3. the stack: X⁽ᵏ⁺¹⁾ = Y⁽ᵏ⁾
  Result r;
  r.command = "encoder";
  const char* norm = pre ? tr("pre-LN (--norm-first): H = X + MultiHead(LayerNorm(X)), Y = H + FFN(LayerNorm(H))")
                                  : tr("post-LN (the paper, PyTorch's default): H = LayerNorm(MultiHead(X) + X), Y = LayerNorm(FFN(H) + H)");
  r.blocks.push_back(Text{trnf("Encoder, {} layer, {}; d_model = {}, heads = {} (d_k = {}), FFN width {}",
                                       "Encoder, {} layers, {}; d_model = {}, heads = {} (d_k = {}), FFN width {}", shape.layers, shape.layers, norm, shape.d_model, shape.heads, shape.d_model / shape.heads,
                                      shape.ffn)});
  r.blocks.push_back(Text{tr("tokens: ") + joined_tokens(in.tokens)});
  r.blocks.push_back(Text{in.description});
  r.blocks.push_back(Text{weights_note(f, setup)});
  const std::size_t T = in.x.rows(), D = shape.d_model;
  // every layer's head weights (T, T) are kept for the output, one layer's scores beside them
  check_memory(4.0 * static_cast<double>(T) * static_cast<double>(T) *
                   static_cast<double>(shape.layers * shape.heads + 3 * shape.heads + 1),
               fmt::format("the encoder over {} positions ({} layer{} × {} heads)", T, shape.layers,
                           shape.layers == 1 ? "" : "s", shape.heads));
  Records steps = layer_steps_table(f, in, D);
  Tensor x = in.x;
  Figure figure;
  std::vector<MultiHeadAttention> attentions;  // for --html
  for (std::size_t i = 0; i < shape.layers; ++i) {
    const EncoderLayerSteps s = encoder_layer(x, params[i], shape.heads, lo, RowBatch{});
    if (!o.html.empty()) attentions.push_back(s.attention);
    const auto L = static_cast<long long>(i + 1);
    steps.rows.push_back({L, trf("Q, K, V = X·W_Q,K,Vᵀ + b, {} heads of d_k = {}", shape.heads, D / shape.heads), dims(T, D)});
    steps.rows.push_back({L, std::string(tr("weights = softmax(QKᵀ/√d_k) per head")), dims(shape.heads, T, T)});
    steps.rows.push_back({L, std::string(tr("MultiHead(X) = Concat(heads)·W_Oᵀ + b_O")), dims(T, D)});
    steps.rows.push_back({L, std::string(pre ? "H = X + MultiHead(LayerNorm₁(X))" : "H = LayerNorm₁(X + MultiHead(X))"), dims(T, D)});
    steps.rows.push_back({L, std::string("ReLU(H·W₁ᵀ + b₁)"), dims(T, shape.ffn)});
    steps.rows.push_back({L, std::string(pre ? "Y = H + FFN(LayerNorm₂(H))" : "Y = LayerNorm₂(H + FFN(H))"), dims(T, D)});
    add_encoder_blocks(r, s, show, shape.layers == 1 ? "" : fmt::format("layer{}.", i + 1), in.tokens);
    add_weight_panels(figure, s.attention, shape.layers == 1 ? std::string(tr("self-attention")) : trf("layer {} self-attention", i + 1),
                      in.tokens, in.tokens);
    x = s.ffn_block.output;
  }
  add_layer_output(r, std::move(steps), 4, x, in.tokens, f, setup);
  figure.title = trf("Encoder self-attention weights: “{}”", joined_tokens(in.tokens)) + " — " + weights_label(f, setup);

  // 4. outputs: --save-weights, the figure, the tables
  if (!f.save_weights.empty()) save_weights(used, f.save_weights, shape.layers == 1 ? "TransformerEncoderLayer" : "TransformerEncoder", shape.heads);
  std::string page;
  if (!o.html.empty()) {
    std::vector<const MultiHeadAttention*> layers_of;
    std::vector<std::string> names;
    for (std::size_t i = 0; i < attentions.size(); ++i) {
      layers_of.push_back(&attentions[i]);
      names.push_back(trf("layer {}", i + 1));
    }
    page = attention_html(layers_page(trf("Encoder self-attention: “{}”", joined_tokens(in.tokens)), weights_note(f, setup), in.tokens,
                                      in.tokens, names, layers_of, "made by tfx encoder"));
    if (html_only) {
      write_html(page, o.html, f.out, f.fig);
      return;
    }
  }
  present_all(r, f.out, f.fig, &figure, nullptr, fmt::format("encoder_{}x{}_h{}.png", T, D, shape.heads));
  if (!page.empty()) write_html(page, o.html, f.out, f.fig);
}

}  // namespace

void register_encoder(CLI::App& app) {
  auto [cmd, o] = add_command(app, "encoder", tr("One Transformer encoder layer (or --layers N) step by step: MultiHead, Add & Norm, FFN"),
                              run_encoder, tr("Attention"));
  add_layer_flags(cmd, o->f, "encoder");
  add_html_flag(cmd, o->html, o->f.out);
  add_model_flag(cmd);
  // only for the message: --memory and --memory-x are tfx decoder's
  for (const char* flag : {"--memory", "--memory-x"})
    cmd->add_option_function<std::string>(flag, [opts = o, flag](const std::string&) { opts->memory = flag; })->group("");  // init-capture: clang 14 cannot capture a structured binding
  set_examples(cmd, {tr("tfx encoder --sentence \"I love playing football.\""),
                     tr("tfx encoder --sentence \"나는 학생 이다\" --show all"),
                     tr("tfx encoder --sentence \"I am a student\" --layers 2 --norm-first --png"),
                     tr("tfx encoder --x x.npy --weights encoder_layer.safetensors --heads 2   # PyTorch's state_dict"),
                     tr("tfx encoder --sentence \"I am a student\" --save-weights enc.safetensors"),
                     tr("tfx encoder --sentence \"I am a student\" --layers 2 --html encoder.html   # head view + model view, offline")});
}

}  // namespace tfx::cli
