// `tfx architecture [--model teaching|DIR|FILE.safetensors] [--sentence TEXT] [--png|--svg]`: the
// Transformer diagram of notes 002 and 004 (the paper's figure 1) with one model's shapes on the
// arrows — the built-in teaching translator (encoder + decoder), a checkpoint folder (BERT:
// encoder only; GPT-2, Llama: decoder only) or a translator written by `tfx train -o` — and the
// same blocks as a table (stack, block, input, output, sizes).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "tfx/model/gguf_model.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "tfx/attention/architecture.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/family.hpp"
#include "tfx/model/translator.hpp"
#include "tfx/text/hf_tokenizer.hpp"
#include "cli/shared_flags.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct ArchitectureOptions {
  std::string model = "teaching";
  std::string sentence;
  OutputFlags out;
  FigureFlags fig;
};

// What the diagram is drawn for: the spec, a name for titles, the tokens of both sides.
struct ArchModel {
  ArchitectureSpec spec;
  std::string name, kind;  // "the teaching translator"; "encoder + decoder" / a note on the missing stack
  std::vector<std::string> source_tokens, target_tokens;
};

std::string arch_join_tokens(const std::vector<std::string>& t) {
  std::string s;
  const std::size_t shown = std::min<std::size_t>(t.size(), 8);
  for (std::size_t i = 0; i < shown; ++i) s += (i ? " " : "") + t[i];
  if (shown < t.size()) s += " …";
  return s;
}

ArchModel arch_translator(const Translator& m, const std::string& name, const std::string& sentence) {
  ArchModel a;
  a.name = name;
  a.kind = m.properties.lecture() ? std::string(tr("encoder + decoder, post-LN (the paper's figure)"))
                                   : trf("encoder + decoder, {} (trained with {})", m.properties.layout(), m.properties.flags());
  const Translation t = translate(m, sentence, 20, "--sentence");
  a.source_tokens = t.source.tokens;
  a.target_tokens.push_back("<bos>");
  for (const auto& w : t.output) a.target_tokens.push_back(w);
  ArchitectureSpec& s = a.spec;
  s.encoder_layers = m.encoder.size();
  s.decoder_layers = m.decoder.size();
  s.cross_attention = true;
  s.d_model = m.d_model;
  s.heads = m.heads;
  s.ffn = m.ffn;
  s.vocab = m.vocab.size();
  s.source_len = a.source_tokens.size();
  s.target_len = a.target_tokens.size();
  return a;
}

ArchModel arch_checkpoint(const std::string& dir, const std::string& sentence) {
  Checkpoint m = [&] {
    try {
      return load_checkpoint(dir);
    } catch (const Error& e) {
      throw Error(fmt::format(N_("--model {}: {}"), dir, e.what()));
    }
  }();
  const ModelConfig& c = m.config;
  if (c.family->image())
    throw usage_error(fmt::format("--model {}: a {} image model; tfx architecture draws text models (teaching, {})", dir, c.model_type,
                                  supported_model_types(false)));
  ArchModel a;
  a.name = std::filesystem::path(dir).filename().string();
  if (a.name.empty()) a.name = std::filesystem::path(dir).parent_path().filename().string();
  if (a.name != c.model_type) a.name += " (" + c.model_type + ")";
  a.kind = c.decoder() ? trf("decoder only: {} has no encoder and no cross-attention", c.model_type)
                       : trf("encoder only: {} has no decoder", c.model_type);
  ArchitectureSpec& s = a.spec;
  (c.decoder() ? s.decoder_layers : s.encoder_layers) = c.layers;
  s.pre_norm = c.family->final_norm;
  s.norm = c.family->norm_name;
  s.positions = c.family->positions_name;
  s.activation = c.family->ffn_name;
  s.d_model = c.d_model;
  s.heads = c.heads;
  s.kv_heads = c.kv_heads;
  s.ffn = c.ffn;
  s.vocab = c.vocab;
  s.output_head = m.head != OutputHead::none;
  try {
    const HfTokenizer tok = load_model_tokenizer(dir);
    a.source_tokens = tok.encode(sentence).readable;
  } catch (const Error& e) {
    throw Error(fmt::format(N_("--model {}: the sentence's length comes from its tokenizer: {}"), dir, e.what()));
  }
  s.source_len = a.source_tokens.size();
  if (s.source_len == 0) throw usage_error(fmt::format(N_("--sentence: the tokenizer of {} gives no tokens"), dir));
  if (const auto limit = c.position_limit(); limit && *limit > 0 && s.source_len > *limit)
    throw usage_error(fmt::format(N_("--sentence: {} tokens, but {} has a table of {} learned positions (max_position_embeddings)"), s.source_len,
                                  c.model_type, *limit));
  return a;
}

// ---- the figure: columns of boxes bottom to top, in units of about 60 px at --scale 1

constexpr double kArchBoxW = 5.6, kArchBoxH = 0.8, kArchStep = 1.2, kArchPx = 60;

int arch_color(const std::string& kind) {
  if (kind == "embedding") return 6;
  if (kind == "positions") return 9;
  if (kind == "ffn") return 0;
  if (kind == "attention" || kind == "masked_attention" || kind == "cross_attention") return 1;
  if (kind == "linear") return 4;
  if (kind == "softmax") return 2;
  return 8;  // the norms and residual adds
}

struct ArchColumn {
  double x = 0;
  int residual_side = -1;  // residual connections on the left (−1) or right (+1) of the boxes
  double top = 0;          // the y of the last box's top edge
  double stack_bottom = 0, stack_top = 0;
  double cross_mid = -1;   // the y of the cross-attention box's middle (decoder of a seq2seq model)
  double bg_left = 0, bg_right = 0;
};

// Draws blocks whose stack is one of `stacks` up the column from y; returns the column's geometry.
ArchColumn arch_draw_column(Diagram& d, const std::vector<ArchBlock>& blocks, const std::vector<std::string>& stacks, double x, double y,
                            int residual_side, const std::string& bottom_title, const std::string& bottom_tokens) {
  ArchColumn col;
  col.x = x;
  col.residual_side = residual_side;
  d.labels.push_back({x, y - 0.55, bottom_title, -1, 0, true});
  d.labels.push_back({x, y - 1.0, bottom_tokens, 7, 0, false});
  double prev_top = y - 0.25;  // where the arrow into the next box starts
  double stack_start = -1;
  std::size_t layers = 1;
  std::vector<double> box_bottoms;
  std::vector<const ArchBlock*> shown;
  for (const ArchBlock& b : blocks)
    if (std::find(stacks.begin(), stacks.end(), b.stack) != stacks.end()) shown.push_back(&b);
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const ArchBlock& b = *shown[i];
    const bool in_stack = b.stack == "encoder" || b.stack == "decoder";
    double yb = prev_top + (kArchStep - kArchBoxH);
    if (in_stack && stack_start < 0) {
      yb += 0.35;  // room for the stack's frame
      stack_start = yb - 0.3;
      layers = b.layers;
    }
    if (!in_stack && stack_start >= 0 && col.stack_top == 0) {
      col.stack_bottom = stack_start;
      col.stack_top = prev_top + 0.3;
      yb += 0.35;
    }
    // the arrow into this box with the shape it carries
    d.arrows.push_back({x, prev_top, x, yb, -1, "", false, 0, true});
    // the shape beside the arrow, on the side away from the residual connections
    // (cross-attention: its query; K and V come in from the side as the encoder's memory)
    const std::string carried = b.kind == "cross_attention" ? "Q " + b.output : b.input;
    d.labels.push_back({x - residual_side * 0.15, (prev_top + yb) / 2, carried, 3, residual_side, false});
    d.boxes.push_back({x - kArchBoxW / 2, yb, kArchBoxW, kArchBoxH, b.name, arch_color(b.kind), b.detail});
    box_bottoms.push_back(yb);
    if (b.kind == "cross_attention") col.cross_mid = yb + kArchBoxH / 2;
    // a residual connection: from the input of the sublayer (post-LN) or of its norm (pre-LN) into the add
    if (b.kind == "add_norm" || b.kind == "add") {
      const std::size_t back = b.kind == "add_norm" ? 1 : 2;
      if (i >= back) {
        const double y0 = box_bottoms[i - back] - (kArchStep - kArchBoxH) / 2, ym = yb + kArchBoxH / 2;
        const double xs = x + residual_side * (kArchBoxW / 2 + 0.25), xe = x + residual_side * kArchBoxW / 2;
        d.arrows.push_back({x, y0, xs, y0, 7, "", false, 0, false});
        d.arrows.push_back({xs, y0, xs, ym, 7, "", false, 0, false});
        d.arrows.push_back({xs, ym, xe, ym, 7, "", false, 0, true});
      }
    }
    prev_top = yb + kArchBoxH;
  }
  if (stack_start >= 0 && col.stack_top == 0) {
    col.stack_bottom = stack_start;
    col.stack_top = prev_top + 0.3;
  }
  col.top = prev_top;
  col.bg_left = x - kArchBoxW / 2 - 0.5;
  col.bg_right = x + kArchBoxW / 2 + 0.5;
  if (stack_start >= 0) {
    // the stack's frame behind its boxes (boxes draw in order: put it first) and "N×" beside it
    d.boxes.insert(d.boxes.begin(), Diagram::Box{col.bg_left, col.stack_bottom, col.bg_right - col.bg_left, col.stack_top - col.stack_bottom, "", 7, ""});
    const double lx = residual_side < 0 ? col.bg_left - 0.2 : col.bg_right + 0.2;
    d.labels.push_back({lx, (col.stack_bottom + col.stack_top) / 2, fmt::format("{}×", layers), -1, residual_side < 0 ? 1 : -1, true});
  }
  return col;
}

Figure arch_figure(const ArchModel& a, const std::vector<ArchBlock>& blocks) {
  const ArchitectureSpec& s = a.spec;
  Diagram d;
  const bool both = s.encoder_layers > 0 && s.decoder_layers > 0;
  const double xe = 0, xd = both ? 9.2 : 0;
  double top = 0, left = xe, right = xd;
  if (s.encoder_layers > 0) {
    std::vector<std::string> st{"input", "encoder"};
    if (!both) st.push_back("head");
    const ArchColumn enc = arch_draw_column(d, blocks, st, xe, 0, -1, tr("Inputs"),
                                            fmt::format("{} (S = {})", arch_join_tokens(a.source_tokens), a.source_tokens.size()));
    top = std::max(top, enc.top);
    left = enc.bg_left - 1.3;
    if (!both) right = enc.bg_right + 0.6;
    if (both) {
      // the encoder's output (memory) → K and V of every decoder layer's cross-attention, drawn after the decoder column
      ArchColumn dec = arch_draw_column(d, blocks, {"output", "decoder", "head"}, xd, 0, +1, tr("Outputs (shifted right)"),
                                        fmt::format("{} (T = {})", arch_join_tokens(a.target_tokens), a.target_tokens.size()));
      top = std::max(top, dec.top);
      right = dec.bg_right + 1.3;
      const double ym = enc.stack_top + 0.45, xm = (enc.bg_right + dec.bg_left) / 2;
      d.arrows.push_back({xe, enc.top, xe, ym, 5, "", false, 0, false});
      d.arrows.push_back({xe, ym, xm, ym, 5, "", false, 0, false});
      d.arrows.push_back({xm, ym, xm, dec.cross_mid, 5, "", false, 0, false});
      d.arrows.push_back({xm, dec.cross_mid, xd - kArchBoxW / 2, dec.cross_mid, 5, "", false, 0, true});
      d.labels.push_back({xe + 0.15, ym + 0.3, trf("memory ({}, {}) → K, V", s.source_len, s.d_model), 5, -1, false});
      top = std::max(top, ym + 0.3);
    }
  } else {
    const ArchColumn dec = arch_draw_column(d, blocks, {"input", "decoder", "head"}, xd, 0, -1, tr("Inputs"),
                                            fmt::format("{} (T = {})", arch_join_tokens(a.source_tokens), a.source_tokens.size()));
    top = dec.top;
    left = dec.bg_left - 1.3;
    right = dec.bg_right + 0.6;
  }
  // the output on top of the last column
  const double xo = both || s.decoder_layers > 0 ? xd : xe;
  const std::size_t n = s.decoder_layers > 0 && both ? s.target_len : s.source_len;
  const std::string out_shape = s.output_head ? fmt::format("({}, {})", n, s.vocab) : fmt::format("({}, {})", n, s.d_model);
  d.arrows.push_back({xo, top, xo, top + 0.55, -1, "", false, 0, true});
  d.labels.push_back({xo, top + 0.85, s.output_head ? trf("Output probabilities {}", out_shape) : trf("Hidden states {}", out_shape), -1, 0, true});
  d.x0 = left;
  d.x1 = right;
  d.y0 = -1.35;
  d.y1 = top + 1.2;
  d.size = kArchPx * std::max(d.x1 - d.x0, d.y1 - d.y0);
  d.title = trf("Transformer architecture: {}", a.name);
  d.subtitle = trf("{}; d_model = {}, {} heads (d_k = {}), FFN {}, vocabulary {}; (rows, columns) on every arrow", a.kind, s.d_model, s.heads,
                   s.d_model / s.heads, s.ffn, s.vocab);
  Figure f;
  f.panels.push_back(std::move(d));
  return f;
}

void run_architecture(const ArchitectureOptions& o) {
  ArchModel a;
  const bool teaching = o.model == "teaching";
  const bool dir = !teaching && std::filesystem::is_directory(o.model);
  if (teaching) {
    a = arch_translator(teaching_translator(), tr("the teaching translator"), o.sentence.empty() ? "나는 학생 이다" : o.sentence);
  } else if (dir) {
    a = arch_checkpoint(o.model, o.sentence.empty() ? "I am a student" : o.sentence);
  } else if (std::filesystem::is_regular_file(o.model)) {
    const Translator m = [&] {
      try {
        return read_translator_file(o.model);
      } catch (const Error& e) {
        if (std::string_view(e.what()).rfind("--model", 0) == 0) throw;
        throw Error(fmt::format(N_("--model {}"), e.what()));
      }
    }();
    a = arch_translator(m, std::filesystem::path(o.model).filename().string(),
                        o.sentence.empty() ? translator_example_sentence(m) : o.sentence);
  } else {
    std::error_code ec;
    const bool exists = std::filesystem::exists(o.model, ec);
    throw Error(fmt::format(N_("--model {}: {}; expected teaching, a checkpoint folder with config.json, "
                            "or a FILE.safetensors written by tfx train -o"),
                            o.model, exists ? N_("neither a folder nor a regular file") : N_("no such folder or file")));
  }
  const std::vector<ArchBlock> blocks = architecture_blocks(a.spec);
  const ArchitectureSpec& s = a.spec;
  Result r;
  r.command = "architecture";
  r.params = {{"model", teaching ? o.model : a.name}, {"sentence", o.sentence}, {"tokens", a.source_tokens}};
  if (!a.target_tokens.empty()) r.params["decoder_input"] = a.target_tokens;
  r.blocks.push_back(Text{fmt::format("{}: {}", a.name, a.kind)});
  r.blocks.push_back(Text{s.encoder_layers > 0 && s.decoder_layers > 0
                              ? trf("Source \"{}\" (S = {}), decoder input \"{}\" (T = {}); shapes are (positions, width).",
                                    arch_join_tokens(a.source_tokens), s.source_len, arch_join_tokens(a.target_tokens), s.target_len)
                              : trf("Input \"{}\" (T = {} tokens); shapes are (positions, width).", arch_join_tokens(a.source_tokens),
                                    s.source_len)});
  Records rec;
  rec.name = N_("blocks");
  rec.columns = {N_("stack"), N_("block"), N_("layers"), N_("input"), N_("output"), N_("sizes")};
  for (const ArchBlock& b : blocks)
    rec.rows.push_back({b.stack, b.name, static_cast<long long>(b.layers), b.input, b.output, b.detail});
  r.blocks.push_back(std::move(rec));
  r.primary = "blocks";
  r.summary[N_("encoder layers")] = s.encoder_layers;
  r.summary[N_("decoder layers")] = s.decoder_layers;
  r.summary[N_("d_model")] = s.d_model;
  r.summary[N_("heads")] = s.heads;
  r.summary[N_("d_k")] = s.d_model / s.heads;
  r.summary[N_("ffn")] = s.ffn;
  r.summary[N_("vocab")] = s.vocab;
  if (s.encoder_layers > 0 && s.decoder_layers > 0) {
    r.summary[N_("S")] = s.source_len;
    r.summary[N_("T")] = s.target_len;
  } else {
    r.summary[N_("positions")] = s.source_len;
  }
  Figure fig;
  if (figure_drawn(o.fig, o.out)) fig = arch_figure(a, blocks);
  std::filesystem::path model_path(o.model);
  if (model_path.filename().empty()) model_path = model_path.parent_path();  // "DIR/"
  std::string stem = teaching ? "teaching" : model_path.stem().string();
  if (stem.empty()) stem = "model";
  present_all(r, o.out, o.fig, &fig, nullptr, fmt::format("architecture_{}.png", stem));
}

}  // namespace

void register_architecture(CLI::App& app) {
  auto [cmd, o] = add_command(app, "architecture",
                              tr("The Transformer diagram (encoder, decoder, attention, add & norm, FFN, linear + softmax) with a model's "
                                 "shapes on the arrows"),
                              run_architecture, tr("Attention"));
  add_model_flag(cmd, o->model)->capture_default_str();
  cmd->add_option("--sentence", o->sentence,
                  tr("The sentence whose length gives the positions (default: 나는 학생 이다; a checkpoint: I am a student)"));
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig, false);
  set_examples(cmd, {tr("tfx architecture --png                      # the teaching translator, \"나는 학생 이다\""),
                     tr("tfx architecture --model tests/data/hf_models/bert --png   # encoder only"),
                     tr("tfx architecture --format json")});
}

}  // namespace tfx::cli
