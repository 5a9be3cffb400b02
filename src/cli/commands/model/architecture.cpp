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
#include "tfx/attention/architecture_figure.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/family.hpp"
#include "tfx/model/translator.hpp"
#include "tfx/text/hf_tokenizer.hpp"
#include "cli/flags/shared_flags.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct ArchitectureOptions {
  std::string model = "teaching";
  std::string sentence;
  OutputFlags out;
  FigureFlags fig;
};

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
  s.head_dim = c.head_dim;
  s.ffn = c.ffn;
  s.vocab = c.vocab;
  s.output_head = m.head != OutputHead::none;
  s.post_norm_too = c.post_norms;
  s.embed_scaled = c.embed_scaled;
  // what this model's attention adds: a sliding window on some layers or all, Gemma 2's soft cap
  std::vector<std::string> notes;
  if (c.sliding_window) {
    std::size_t sliding = 0;
    for (bool b : c.sliding_layers) sliding += b;
    notes.push_back(sliding == c.layers ? trf("each query sees the last {} keys", *c.sliding_window)
                                        : trf("{} of {} layers see only the last {} keys", sliding, c.layers, *c.sliding_window));
  }
  if (c.attn_softcap > 0) notes.push_back(trf("scores soft-capped at {:g}", c.attn_softcap));
  s.attention_note = fmt::format("{}", fmt::join(notes, "; "));
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

void run_architecture(const ArchitectureOptions& o) {
  ArchModel a;
  const bool teaching = o.model == "teaching";
  const bool dir = !teaching && std::filesystem::is_directory(o.model);
  if (teaching) {
    a = arch_translator(teaching_translator(), tr("the teaching translator"), o.sentence.empty() ? "나는 학생 이다" : o.sentence);
  } else if (dir || is_gguf_file(o.model)) {  // a checkpoint folder, or a GGUF file as every model command takes
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
    rec.rows.push_back({b.stack, b.name, static_cast<long long>(b.layers), b.input, b.output, b.note.empty() ? b.detail : b.detail + "; " + b.note});
  r.blocks.push_back(std::move(rec));
  r.primary = "blocks";
  r.summary[N_("encoder layers")] = s.encoder_layers;
  r.summary[N_("decoder layers")] = s.decoder_layers;
  r.summary[N_("d_model")] = s.d_model;
  r.summary[N_("heads")] = s.heads;
  r.summary[N_("d_k")] = s.head_dim ? s.head_dim : s.d_model / s.heads;
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
  add_sentence_flag(cmd, o->sentence, tr("its length gives the positions; default: 나는 학생 이다; a checkpoint: I am a student"));
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig, false);
  set_examples(cmd, {tr("tfx architecture --png                      # the teaching translator, \"나는 학생 이다\""),
                     tr("tfx architecture --model tests/data/hf_models/bert --png   # encoder only"),
                     tr("tfx architecture --format json")});
}

}  // namespace tfx::cli
