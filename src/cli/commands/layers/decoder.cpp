// `tfx decoder`: the notes' decoder layer step by step — masked (causal) self-attention, Add &
// Norm, cross-attention over the encoder's memory Z, Add & Norm, FFN, Add & Norm — with both
// attention weight tables and figures; seeded weights or a PyTorch state_dict (--weights).
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "tfx/core/memory.hpp"
#include "cli/flags/layer_flags.hpp"
#include "cli/commands/train/model_flag.hpp"
#include "tfx/model/translator.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct DecoderOptions {
  LayerFlags f;
  std::string memory, memory_x;
  CLI::Option* memory_opt = nullptr;
};

const std::vector<std::string> kDecoderShow = {"x",      "memory", "self_weights", "self_attn", "sum1", "norm1", "h1",
                                               "cross_weights", "cross_attn", "sum2", "norm2", "h2", "hidden", "ffn",
                                               "sum3", "norm3", "y"};

void add_decoder_blocks(Result& r, const DecoderLayerSteps& s, const std::vector<std::string>& show, const std::string& prefix,
                        const std::vector<std::string>& tokens, const std::vector<std::string>& memory_tokens) {
  const ShownLayer shown{r, show, prefix, tokens};
  shown.put("x", s.self_block.input);
  shown.attention(s.self_block, s.self_attention, tokens, "norm1", "self_weights", "self_attn", "sum1", "h1");
  shown.attention(s.cross_block, s.cross_attention, memory_tokens, "norm2", "cross_weights", "cross_attn", "sum2", "h2");
  shown.feed_forward(s.ffn_block, s.ffn, "norm3", "sum3");
}

void run_decoder(const DecoderOptions& o) {
  const LayerFlags& f = o.f;
  if (!o.memory_opt->count() && o.memory_x.empty())
    throw usage_error(N_("give the encoder's memory Z: --memory \"나는 학생 이다\" or --memory-x FILE"));
  if (o.memory_opt->count() && !o.memory_x.empty()) throw usage_error(N_("give one memory: --memory or --memory-x FILE (not both)"));
  const std::vector<std::string> show = parse_layer_show(f.show, kDecoderShow, {"self_weights", "cross_weights"});

  // 1. weights file, inputs, widths
  const LayerSetup setup = layer_setup(f, "I am a student");
  const LayerInput& in = setup.input;
  const LayerShape& shape = setup.shape;
  // the trained translator (--model FILE) runs as it was trained: pre-LN and scaling are its properties
  LayerOptions lo;
  lo.norm_first = f.norm_first || (setup.trained && cli_translator().properties.pre_ln);
  lo.scale_scores = !setup.trained || cli_translator().properties.scale_scores;
  const bool pre = lo.norm_first;
  const std::size_t D = shape.d_model;
  LayerInput mem;
  std::string memory_note;
  if (!o.memory_x.empty()) {
    mem = matrix_input(o.memory_x, "--memory-x");
    if (mem.x.cols() != D)
      throw usage_error(fmt::format(N_("--memory-x {} has {} columns but d_model = {}"), o.memory_x, mem.x.cols(), D));
    memory_note = trf("memory Z from --memory-x {} {}, used as given", o.memory_x, mem.x.shape_str());
  } else if (setup.trained && o.memory.find_first_not_of(" \t\n\r") != std::string::npos) {
    // Z = the teaching translator's trained encoder over the source sentence
    const Translator& m = cli_translator();
    const TokenIds src = translator_tokens(m, o.memory, "--memory");
    const EncoderPass enc = translator_encode(m, src.ids);
    mem.x = enc.memory;
    mem.tokens = src.tokens;
    memory_note = trf("memory Z = the teaching translator's trained {}-layer encoder over \"{}\" {}: what tfx translate "
                      "decodes from",
                      m.encoder.size(), joined_tokens(mem.tokens), mem.x.shape_str());
  } else {
    // Z = a seeded encoder stack of the same widths over the memory sentence
    mem = sentence_input(o.memory, "--memory", D, f.seed, f.lower);
    Generator enc_gen(f.seed + 1);
    for (std::size_t i = 0; i < shape.layers; ++i)
      mem.x = encoder_layer(mem.x, seeded_encoder_layer(D, shape.ffn, enc_gen), shape.heads, f.norm_first).ffn_block.output;
    memory_note = trf("memory Z = a seeded {}-layer encoder (seed {}) over \"{}\" {}; tfx encoder … -o z.json, then "
                      "--memory-x z.json, uses any other (JSON and CSV keep the tokens as labels)",
                      shape.layers, f.seed + 1, joined_tokens(mem.tokens), mem.x.shape_str());
  }

  // 2. parameters per layer (the file's, or seeded)
  TensorMap used;
  const auto params = layer_stack_params<DecoderLayerParams>(f, setup, used, decoder_layer_params, seeded_decoder_layer);

  // 3. the stack, every layer attending to the same memory Z
  Result r;
  r.command = "decoder";
  r.blocks.push_back(Text{trnf("Decoder, {} layer, {}; d_model = {}, heads = {} (d_k = {}), FFN width {}",
                                       "Decoder, {} layers, {}; d_model = {}, heads = {} (d_k = {}), FFN width {}", shape.layers, shape.layers,
                                      pre ? tr("pre-LN (--norm-first)") : tr("post-LN (the paper, PyTorch's default)"), D,
                                      shape.heads, D / shape.heads, shape.ffn)});
  r.blocks.push_back(Text{tr("tokens: ") + joined_tokens(in.tokens) + tr("   memory tokens: ") + joined_tokens(mem.tokens)});
  r.blocks.push_back(Text{in.description});
  r.blocks.push_back(Text{memory_note});
  r.blocks.push_back(Text{weights_note(f, setup)});
  const std::size_t T = in.x.rows(), S = mem.x.rows();
  // every layer's self- and cross-attention weights are kept for the output, one layer's scores beside them
  check_memory(4.0 * (static_cast<double>(T) * static_cast<double>(T) + static_cast<double>(T) * static_cast<double>(S)) *
                   static_cast<double>(shape.layers * shape.heads + 3 * shape.heads + 1),
               fmt::format("the decoder over {} × {} positions ({} layer{} × {} heads)", T, S, shape.layers,
                           shape.layers == 1 ? "" : "s", shape.heads));
  Records steps = layer_steps_table(f, in, D);
  steps.rows.push_back({0LL, std::string(tr("Z = encoder output (memory)")), dims(S, D)});
  Tensor x = in.x;
  Figure figure;
  for (std::size_t i = 0; i < shape.layers; ++i) {
    const DecoderLayerSteps s = decoder_layer(x, mem.x, params[i], shape.heads, lo, RowBatch{}, RowBatch{});
    const auto L = static_cast<long long>(i + 1);
    steps.rows.push_back({L, std::string(tr("masked self-attention weights (query i sees j ≤ i)")), dims(shape.heads, T, T)});
    steps.rows.push_back({L, std::string(pre ? "H₁ = X + MaskedMultiHead(LayerNorm₁(X))" : "H₁ = LayerNorm₁(X + MaskedMultiHead(X))"), dims(T, D)});
    steps.rows.push_back({L, std::string(tr("cross-attention weights (queries H₁, keys/values Z)")), dims(shape.heads, T, S)});
    steps.rows.push_back({L, std::string(pre ? "H₂ = H₁ + MultiHead(LayerNorm₂(H₁), Z, Z)" : "H₂ = LayerNorm₂(H₁ + MultiHead(H₁, Z, Z))"), dims(T, D)});
    steps.rows.push_back({L, std::string("ReLU(H₂·W₁ᵀ + b₁)"), dims(T, shape.ffn)});
    steps.rows.push_back({L, std::string(pre ? "Y = H₂ + FFN(LayerNorm₃(H₂))" : "Y = LayerNorm₃(H₂ + FFN(H₂))"), dims(T, D)});
    const std::string prefix = shape.layers == 1 ? "" : fmt::format("layer{}.", i + 1);
    if (i == 0 && shows(show, "memory")) r.blocks.push_back(layer_matrix("memory", mem.x, mem.tokens));
    add_decoder_blocks(r, s, show, prefix, in.tokens, mem.tokens);
    const bool one = shape.layers == 1;
    add_weight_panels(figure, s.self_attention,
                      one ? std::string(tr("masked self-attention")) : trf("layer {} masked self-attention", i + 1), in.tokens,
                      in.tokens);
    add_weight_panels(figure, s.cross_attention, one ? std::string(tr("cross-attention")) : trf("layer {} cross-attention", i + 1),
                      in.tokens, mem.tokens);
    x = s.ffn_block.output;
  }
  add_layer_output(r, std::move(steps), 5, x, in.tokens, f, setup);
  r.params["memory_tokens"] = mem.tokens;
  figure.title = trf("Decoder attention weights: “{}” over memory “{}”", joined_tokens(in.tokens), joined_tokens(mem.tokens)) + " — " + weights_label(f, setup);

  if (!f.save_weights.empty())
    save_weights(used, f.save_weights, shape.layers == 1 ? "TransformerDecoderLayer" : "TransformerDecoder", shape.heads);
  present_all(r, f.out, f.fig, &figure, nullptr, fmt::format("decoder_{}x{}_mem{}_h{}.png", T, D, S, shape.heads));
}

}  // namespace

void register_decoder(CLI::App& app) {
  auto [cmd, o] = add_command(app, "decoder", tr("One Transformer decoder layer step by step: masked self-attention, cross-attention, FFN"),
                              run_decoder, tr("Attention"));
  add_layer_flags(cmd, o->f, "decoder");
  add_model_flag(cmd);
  o->memory_opt = cmd->add_option("--memory", o->memory, tr("The source sentence the encoder read: Z = a seeded encoder over it"))->group(tr("Input"));
  cmd->add_option("--memory-x", o->memory_x, tr("The encoder's output Z as a matrix file (S×d_model), e.g. from tfx encoder --format npy"))
      ->group(tr("Input"));
  set_examples(cmd, {tr("tfx decoder --sentence \"I am a student\" --memory \"나는 학생 이다\""),
                     tr("tfx decoder --sentence \"I am a student\" --memory \"나는 학생 이다\" --png"),
                     tr("tfx decoder --x x.npy --memory-x z.npy --weights decoder_layer.safetensors --heads 2")});
}

}  // namespace tfx::cli
