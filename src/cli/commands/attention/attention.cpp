// `tfx attention`: scaled dot-product attention weight tables, from a sentence (embeddings + PE,
// seeded Xavier projections) or from matrix files (--x, or --q/--k/--v); causal and padding
// masks, cross-attention, multi-head, the step-by-step --show and heatmaps with token labels.
// `tfx attention variance` is in attention_variance.cpp.
#include <fmt/format.h>

#include <algorithm>


#include "cli/commands/attention/attention_command.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/positional/rope_columns.hpp"
#include "cli/commands.hpp"
#include "cli/flags/weights_heads.hpp"
#include "cli/commands/train/model_flag.hpp"
#include "tfx/attention/transformer.hpp"
#include "tfx/model/translator.hpp"
#include "cli/flags/shared_flags.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {
// nn.MultiheadAttention's in_proj_weight [W_Q; W_K; W_V] (3D, D) and out_proj_weight (D, D) as the
// matrices X·W multiplies: W_Q = in_proj_weight[0:D]ᵀ, …
void set_projections(AttentionRun& run, const MhaParams& p, std::size_t D) {
  auto block = [&](std::size_t k) {
    Tensor w({D, D});
    for (std::size_t i = 0; i < D; ++i)
      for (std::size_t j = 0; j < D; ++j) w(j, i) = p.in_proj_weight(k * D + i, j);
    return w;
  };
  run.wq = block(0), run.wk = block(1), run.wv = block(2);
  run.wo = transpose(p.out_proj_weight);
}
}  // namespace

namespace {

void run_attention(const AttentionCliOptions& o) {
  const unsigned steps = parse_show(o.show);
  AttentionInputs in = load_attention_inputs(o);
  if (steps & kX && in.mode == "qkv") {
    const auto items = split_items(o.show);
    if (std::find(items.begin(), items.end(), "x") != items.end())
      throw usage_error(N_("--show x: with --q/--k/--v there is no X (show q, k or v)"));
  }
  std::size_t H = static_cast<std::size_t>(o.heads);
  AttentionRun run;
  run.steps = steps;
  AttentionOptions& ao = run.options;
  ao.scale = !o.no_scale;
  ao.temperature = o.temperature;
  ao.causal = o.causal;
  ao.pad = static_cast<std::size_t>(o.pad);
  ao.threads = 0;  // all cores for the matmuls (each output element is still summed in one fixed order)
  // scores, scaled and masked are kept only when --show prints them (three T×S copies otherwise)
  ao.keep_steps = (steps & (kScores | kScaled | kMasked)) != 0;

  // 1. the weights (sentence and --x: projections; --q/--k/--v: only W_O for several heads)
  MultiHeadAttention& mh = run.mh;
  std::string& projection = run.projection;
  std::size_t& d_model = run.d_model;
  if (!in.trained_prefix.empty()) {
    // the teaching translator's trained projections (nn.MultiheadAttention's parameters)
    const Translator& m = cli_translator();
    H = m.heads;
    d_model = m.d_model;
    const MhaParams p = mha_params(m.tensors, in.trained_prefix, d_model, "the teaching translator");
    const bool decoder_self = in.trained_prefix == "decoder.layers.0.self_attn.";
    if (decoder_self && !ao.causal) {
      ao.causal = true;
      run.causal_note = tr("causal mask on: the decoder was trained with it (row t sees tokens 0 … t)");
    }
    mh = torch_multi_head_attention(in.x_q, in.x_kv, p, H, ao);
    set_projections(run, p, d_model);
    run.average_weights = average_head_weights(mh);
    projection = trf("Q = {0}·W_Qᵀ + b_Q, K = {1}·W_Kᵀ + b_K, V = {1}·W_Vᵀ + b_V, output = Concat·W_Oᵀ + b_O: the teaching "
                     "translator's trained {2} (tfx translate; scripts/train_teaching_model.py), heads = {3}; --random for "
                     "seeded weights",
                     in.cross ? "H₁" : "X", in.cross ? "memory" : "X", in.trained_prefix.substr(0, in.trained_prefix.size() - 1),
                     H);
  } else if (!o.weights.empty()) {
    // nn.MultiheadAttention's own parameters: Q = X·W_Qᵀ + b_Q, …, output = Concat·W_Oᵀ + b_O
    if (in.mode == "qkv") throw usage_error(N_("--weights projects X: give --sentence or --x (--q/--k/--v are used as given)"));
    if (o.identity_given || o.dk || o.dv)
      throw usage_error(fmt::format(N_("{} goes without --weights: the weights file sets the projections and their widths"),
                                    o.identity_given ? "--identity" : o.dk ? "--dk" : "--dv"));
    TensorMetadata metadata;
    const TensorMap m = read_weights(o.weights, &metadata);
    const std::string prefix = m.count("in_proj_weight") || !m.count("self_attn.in_proj_weight") ? "" : "self_attn.";
    const auto w = m.find(prefix + "in_proj_weight");
    if (w == m.end() || w->second.rank() != 2)
      throw Error(fmt::format(N_("--weights {}: no tensor 'in_proj_weight' (nn.MultiheadAttention's [3·d_model, d_model])"), o.weights));
    const std::size_t D = w->second.cols();
    const MhaParams p = mha_params(m, prefix, D, "--weights " + o.weights);
    if (in.x_q.cols() != D || in.x_kv.cols() != D)
      throw usage_error(fmt::format(N_("--weights {} has d_model = {} but X is {}{}"), o.weights, D, in.x_q.shape_str(),
                                    in.mode == "sentence" ? " (the embedding's width; use --x with a matching matrix)" : ""));
    const WeightsHeads heads = weights_heads(o.heads_given ? std::optional<std::size_t>(H) : std::nullopt, metadata, o.weights, D);
    H = heads.heads;
    check_heads_divide(H, D, "d_model", " (d_model from --weights)");
    d_model = D;
    mh = torch_multi_head_attention(in.x_q, in.x_kv, p, H, ao);
    set_projections(run, p, D);
    run.average_weights = average_head_weights(mh);
    projection = trf("Q = X·W_Qᵀ + b_Q, K = {0}·W_Kᵀ + b_K, V = {0}·W_Vᵀ + b_V, output = Concat·W_Oᵀ + b_O: nn.MultiheadAttention "
                     "weights from {1}; heads = {2} ({3})",
                     in.cross ? "X_kv" : "X", o.weights, H, heads.source);
  } else if (in.mode == "qkv") {
    if (o.identity_given && H == 1)
      throw usage_error(
          N_("--identity sets the projections of --sentence/--x (and W_O for --heads > 1); "
          "--q/--k/--v are used as given"));
    const std::size_t T = in.q.rows(), S = in.k.rows();
    checked_element_count({H, T, S}, fmt::format("{} queries × {} keys × --heads {}", T, S, H));
    d_model = in.q.cols();
    Tensor wo;
    if (H > 1 && in.v.cols() % H == 0) {  // (a width H does not divide is attend_heads' error)
      if (o.identity) {
        wo = identity_attention_weights(in.v.cols(), true).wo;
        projection = tr("Q, K, V as given; W_O = I (--identity)");
      } else {
        wo = xavier_uniform(in.v.cols(), in.v.cols(), o.seed);
        projection = trf("Q, K, V as given; W_O {} Xavier-uniform (seed {})", wo.shape_str(), o.seed);
      }
    } else {
      projection = tr("Q, K, V as given");
    }
    try {
      if (o.rope) {
        run.q_plain = in.q, run.k_plain = in.k;
        mh = attend_heads(rope_heads(in.q, H, o.rope_base), rope_heads(in.k, H, o.rope_base), in.v, H, wo, ao);
        projection += tr("; RoPE on Q and K (--rope)");
      } else {
        mh = attend_heads(in.q, in.k, in.v, H, wo, ao);
      }
    } catch (const Error& e) {
      if (e.kind() != Error::Kind::data) throw;
      // a shape error: say which files the matrices came from
      throw Error(fmt::format(N_("--q {}, --k {}, --v {}: {}"), o.q_file, o.k_file, o.v_file, e.what()), e.kind(), e.params());
    }
  } else {
    const std::size_t D = in.x_q.cols(), E = in.x_kv.cols(), T = in.x_q.rows(), S = in.x_kv.rows();
    d_model = D;
    const HeadWidths widths =
        attention_head_widths(D, H, static_cast<std::size_t>(o.dk.value_or(0)), static_cast<std::size_t>(o.dv.value_or(0)));
    const std::size_t dk = widths.d_k, dv = widths.d_v;
    checked_element_count({std::max(D, E), H, std::max(dk, dv)},
                          fmt::format("--heads {} --dk {} --dv {} with d_model {}", H, dk, dv, D));
    checked_element_count({H, T, S}, fmt::format("{} queries × {} keys × --heads {}", T, S, H));
    AttentionWeights w;
    const std::string kv = in.cross ? "X_kv" : "X";
    if (o.identity) {
      w = identity_attention_weights(D, H, dk, dv);
      projection = fmt::format("W_Q = W_K = W_V = I (--identity): Q = X, K = V = {}{}", kv, H > 1 ? "; W_O = I" : "");
    } else {
      w = xavier_attention_weights(D, E, H, dk, dv, H > 1, o.seed);
      projection = trf("Q = X·W_Q, K = {0}·W_K, V = {0}·W_V; {1}{2} Xavier-uniform from seed {3}{4}", kv,
                       dv != dk ? fmt::format("W_Q, W_K {}, W_V {}", w.wq.shape_str(), w.wv.shape_str())
                                : fmt::format("W_Q, W_K, W_V {}", w.wq.shape_str()),
                       H > 1 ? fmt::format(", W_O {}", w.wo.shape_str()) : "", o.seed,
                       in.seeded_reason.empty() || in.seeded_reason == "--random" || in.seeded_reason == "-"
                           ? ""
                           : tr(" (not the trained translator: ") + in.seeded_reason + ")");
    }
    if (o.rope) {
      // Q = X W_Q and K = X_kv W_K, then each rotated by its position; V as it is
      run.q_plain = matmul(in.x_q, w.wq, ao.threads);
      run.k_plain = matmul(in.x_kv, w.wk, ao.threads);
      mh = attend_heads(rope_heads(run.q_plain, H, o.rope_base), rope_heads(run.k_plain, H, o.rope_base), matmul(in.x_kv, w.wv, ao.threads), H,
                        w.wo, ao);
      projection += trf("; then RoPE rotates each head's Q and K by position (base {:g}; V is not rotated)", o.rope_base);
    } else {
      mh = multi_head_attention(in.x_q, in.x_kv, w, H, ao);
    }
    run.wq = w.wq, run.wk = w.wk, run.wv = w.wv, run.wo = w.wo;
  }
  present_attention(o, in, run);
}

}  // namespace

void register_attention(CLI::App& app) {
  auto o = std::make_shared<AttentionCliOptions>();
  CLI::App* cmd =
      app.add_subcommand("attention", tr("Scaled dot-product attention: weight tables, masks, heads, cross-attention; variance"));
  cmd->group(tr("Attention"));
  const char* in = tr("Input");
  auto* sentence =
      add_sentence_flag(cmd, o->sentence, tr("the words to attend over, lower-cased; X = embedding + PE"))->group(in);
  o->source = add_sentence_source_flags(cmd);
  auto* cross =
      cmd->add_option("--cross", o->cross, tr("Cross-attention: keys and values from this other sentence (queries from --sentence)"))
          ->group(in);
  add_x_flag(cmd, o->x_file, tr("self-attention over its rows, projected by W_Q, W_K, W_V"))->group(in);
  add_q_flag(cmd, o->q_file, tr("T×d_k, used as given"))->group(in);
  add_k_flag(cmd, o->k_file, tr("S×d_k"))->group(in);
  cmd->add_option("--v", o->v_file, tr("Values V (S×d_v): a JSON, CSV or .npy file, or the rows inline as 1,0;0,1 with ';' between rows"))
      ->type_name("FILE|ROWS")
      ->option_text("FILE|ROWS")
      ->check(non_empty_path(N_("give a JSON, CSV or .npy file, or the rows inline like 1,0;0,1")))
      ->group(in);
  const char* g = tr("Attention");
  add_dk_flag(cmd, o->dk, tr("and of V unless --dv; default: d_model / --heads; at most 1048576 here"), std::int64_t{1} << 20)->group(g);
  cmd->add_option("--dv", o->dv, tr("Width d_v of each head's V projection (default: d_k; the lecture notes d_v need not equal d_k)"))
      ->check(whole_number(1, std::int64_t{1} << 20))
      ->group(g);
  auto* heads = add_heads_flag(cmd, o->heads, g);
  auto* identity = cmd->add_flag("--identity", o->identity, tr("W_Q = W_K = W_V (= W_O) = I, so Q = K = V = X"))->group(g);
  auto* no_pe = add_no_pe_flag(cmd, o->no_pe)->group(g);
  cmd->add_flag("--causal", o->causal, tr("Decoder mask: query i attends only to keys j ≤ i (upper triangle masked)"))->group(g);
  add_pad_flag(cmd, o->pad, "")->group(g);
  add_no_scale_flag(cmd, o->no_scale)->group(g);
  add_temperature_flag(cmd, o->temperature)->default_str("1")->group(g);
  add_weights_flag(cmd, o->weights,
                   tr("of nn.MultiheadAttention: in_proj_weight, in_proj_bias, out_proj.weight, out_proj.bias; the output and "
                      "head-averaged weights then equal PyTorch's"))
      ->group(g);
  auto* seed = add_seed_flag(cmd, o->seed, tr("it draws W_Q, W_K, W_V, W_O, Xavier uniform"))->group(g);
  add_random_flag(cmd, o->random)->group(g);
  add_show_flag(cmd, o->show,
                tr("scores (QKᵀ), scaled, masked, weights, output (Z); also x, w (W_Q, W_K, W_V: Q = X·W_Q), q, k, v; default: "
                   "weights,output; csv/npy write weights if shown, else output, else the first"))
      ->group(tr("Output"));
  add_model_flag(cmd);
  add_presentation_flags(cmd, o->out, o->fig);
  add_html_flag(cmd, o->html, o->out);
  cmd->add_flag("--rope", o->rope,
                tr("Rotate each head's Q and K by position (RoPE, RoFormer's pairs) before the scores; V is not rotated. With --sentence, "
                   "X has no additive PE then (--pe to add it anyway is not offered: RoPE replaces it)"))
      ->group(g);
  cmd->add_option("--rope-base", o->rope_base, tr("RoPE's base θ (θ_j = pos · base^(−2j/d_k))"))->capture_default_str()->check(positive_number())->group(g);
  set_examples(cmd, {tr("tfx attention --sentence \"I love playing football\" --dk 8 --seed 1"),
                     tr("tfx attention --sentence \"the cat sat on the mat\" --causal --show all"),
                     tr("tfx attention --sentence \"the king went home\" --cross \"the queen loved the house\" --png"),
                     tr("tfx attention --sentence \"the teacher read the book to the children\" --heads 2 --dk 4 --png heads.png"),
                     tr("tfx attention --q q.csv --k k.csv --v v.json --format json"),
                     tr("tfx attention --x x.npy --identity --show scores,weights"),
                     tr("tfx attention --x x.npy --heads 2 --weights mha.safetensors   # torch.nn.MultiheadAttention's state_dict"),
                     tr("tfx attention variance --dk 1,8,64,512 --samples 10000")});
  register_attention_variance(cmd);
  register_attention_masks(cmd);
  cmd->callback([cmd, o, identity, heads, no_pe, sentence, cross, seed] {
    o->sentence_given = sentence->count() > 0;
    o->cross_given = cross->count() > 0;
    if (!cmd->get_subcommands().empty()) return;  // `tfx attention variance` ran instead
    o->identity_given = identity->count() > 0;
    o->heads_given = heads->count() > 0;
    o->no_pe_given = no_pe->count() > 0;
    o->seed_given = seed->count() > 0;
    run_attention(*o);
  });
}

}  // namespace tfx::cli
