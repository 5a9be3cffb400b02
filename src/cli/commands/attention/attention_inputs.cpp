// The inputs of `tfx attention`: which of --sentence (with --cross), --x and --q/--k/--v is
// given, and the matrices and labels it yields. Files through matrix_io, sentences through
// attention_sentence.cpp.
#include <fmt/format.h>

#include "cli/commands/attention/attention_command.hpp"
#include "cli/flags/layer_flags.hpp"
#include "cli/commands/train/model_flag.hpp"
#include "tfx/io/matrix_io.hpp"
#include "tfx/model/translator.hpp"
#include "tfx/core/i18n.hpp"

#include <sstream>

namespace tfx::cli {

namespace {

std::string tokens_text(const std::vector<std::string>& tokens) {
  std::string s;
  for (std::size_t i = 0; i < tokens.size() && i < 12; ++i) s += (i ? " " : "") + tokens[i];
  if (tokens.size() > 12) s += " …";
  return s;
}

bool korean_words(const std::string& sentence) {
  std::istringstream in(sentence);
  bool korean = false, english = false;
  for (std::string w; in >> w;) (static_cast<unsigned char>(w[0]) >= 0x80 ? korean : english) = true;
  return korean && !english;
}
bool english_words(const std::string& sentence) {
  std::istringstream in(sentence);
  bool any = false;
  for (std::string w; in >> w;) {
    if (static_cast<unsigned char>(w[0]) >= 0x80) return false;
    any = true;
  }
  return any;
}

// Why --sentence (and --cross) cannot run on the teaching translator's trained layer-1
// attention ("" = they can): a flag that asks for something else, or a word it does not know.
std::string seeded_reason(const AttentionCliOptions& o) {
  // the words first: an English sentence the translator does not know (the lecture's "the cat sat
  // on the mat") is simply not its domain and gets no note; a Korean one names the unknown words
  for (const std::string* text : {&o.sentence, o.cross_given ? &o.cross : nullptr}) {
    if (!text) continue;
    const std::vector<std::string> missing = words_outside_translator(*text);
    if (!missing.empty())
      return english_words(*text) ? "-"
                                  : trf("'{}' not in the teaching translator's vocabulary (tfx translate --list-vocab)",
                                        fmt::format("{}", fmt::join(missing, "', '")));
  }
  if (o.cross_given) {
    if (!english_words(o.sentence) || !korean_words(o.cross))
      return tr("its cross-attention has English queries (--sentence) over Korean keys (--cross)");
  } else if (!korean_words(o.sentence) && !english_words(o.sentence)) {
    return tr("the sentence mixes Korean and English words");
  }
  if (o.random) return "--random";
  if (o.rope) return tr("--rope given (the translator was trained with sinusoidal PE)");
  if (!o.weights.empty()) return "-";  // the file's weights are the point
  if (o.identity_given) return tr("--identity given");
  if (o.dk || o.dv) return o.dk ? tr("--dk given") : tr("--dv given");
  if (o.seed_given) return tr("--seed given");
  if (o.heads_given && o.heads != static_cast<std::int64_t>(cli_translator().heads))
    return trf("--heads {} given (the translator has {})", o.heads, cli_translator().heads);
  if (std::string why = sentence_source_choice(*o.source); !why.empty()) return why;
  return "";
}

// X and the layer whose trained projections make Q, K, V: the encoder's first self-attention for
// Korean (X = e + p), the decoder's first masked self-attention for English (<bos> first, X = e +
// p), and for --cross the decoder's first cross-attention, whose queries are that layer's H₁ and
// whose keys and values are the encoder's output (memory), exactly as in translation.
AttentionInputs trained_inputs(const AttentionCliOptions& o) {
  const Translator& m = cli_translator();
  AttentionInputs in;
  in.mode = "sentence";
  const bool pe = !o.no_pe;
  const auto embed = [&](const TokenIds& t) {
    const EmbeddedTokens e = translator_embed(m, t.ids);
    return pe ? e.x : e.embedding;
  };
  const std::string x_text = pe ? tr("its embedding rows + PE") : tr("its embedding rows, no PE (--no-pe)");
  if (o.cross_given) {
    TokenIds tgt = translator_tokens(m, o.sentence, "--sentence");
    const TokenIds src = translator_tokens(m, o.cross, "--cross");
    tgt.tokens.insert(tgt.tokens.begin(), "<bos>");
    tgt.ids.insert(tgt.ids.begin(), m.bos);
    const Tensor memory = translator_encode(m, src.ids).memory;
    const DecoderPass pass = translator_decode(m, memory, tgt.ids);
    in.query_labels = tgt.tokens;
    in.key_labels = src.tokens;
    in.x_q = pass.layers[0].self_block.output;  // H₁
    in.x_kv = memory;
    in.cross = true;
    in.vocab = cli_vocab_name();
    in.vocab_size = m.vocab.size();
    in.ids = tgt.ids;
    in.trained_prefix = "decoder.layers.0.multihead_attn.";
    in.description = trf(
        "Cross-attention of the teaching translator's decoder layer 1: queries from H₁ of \"{}\" ({} tokens, <bos> first: row t "
        "chooses token t + 1), keys and values from the encoder's output (memory) for \"{}\" ({} tokens)",
        tokens_text(in.query_labels), in.query_labels.size(), tokens_text(in.key_labels), in.key_labels.size());
    if (!pe) in.description += tr("; --no-pe has no effect on cross-attention's inputs here");
    in.description += trf("; ids index {}", cli_vocab_label());
    return in;
  }
  TokenIds t = translator_tokens(m, o.sentence, "--sentence");
  const bool korean = korean_words(o.sentence);
  if (!korean) {
    t.tokens.insert(t.tokens.begin(), "<bos>");
    t.ids.insert(t.ids.begin(), m.bos);
  }
  in.query_labels = t.tokens;
  in.key_labels = t.tokens;
  in.x_q = embed(t);
  in.x_kv = in.x_q;
  in.trained_prefix = korean ? "encoder.layers.0.self_attn." : "decoder.layers.0.self_attn.";
  in.description = trf("Self-attention of the teaching translator's {} layer 1 over {} tokens \"{}\": X = {}, shape {}{}",
                       korean ? tr("encoder") : tr("decoder"), in.query_labels.size(), tokens_text(in.query_labels), x_text,
                       in.x_q.shape_str(), korean ? "" : tr(" (<bos> first, as the decoder reads it)"));
  in.vocab = cli_vocab_name();
  in.vocab_size = m.vocab.size();
  in.ids = t.ids;
  in.description += trf("; ids {} index {} (tfx tokenize, tfx lookup --ids)", fmt::join(t.ids, " "), cli_vocab_label());
  return in;
}

}  // namespace

AttentionInputs load_attention_inputs(const AttentionCliOptions& o) {
  AttentionInputs in;
  const bool have_qkv = !o.q_file.empty() || !o.k_file.empty() || !o.v_file.empty();
  const int modes = o.sentence_given + !o.x_file.empty() + have_qkv;
  if (modes == 0)
    throw usage_error(N_("give the input: --sentence \"I love playing football\", --x FILE, or --q FILE --k FILE --v FILE"));
  if (modes > 1) throw usage_error(N_("give one input: --sentence, --x FILE, or --q/--k/--v FILE (not several)"));
  if (o.cross_given && !o.sentence_given) throw usage_error(N_("--cross goes with --sentence (for matrices give --q, --k and --v)"));
  if (o.no_pe_given && !o.sentence_given)
    throw usage_error(N_("--no-pe goes with --sentence (a --x/--q/--k/--v matrix is used as given)"));
  if (have_qkv) {
    if (o.q_file.empty() || o.k_file.empty() || o.v_file.empty())
      throw usage_error(fmt::format(N_("--q, --k and --v go together (missing: {}{}{})"), o.q_file.empty() ? "--q " : "",
                                    o.k_file.empty() ? "--k " : "", o.v_file.empty() ? "--v" : ""));
    if (o.dk || o.dv)
      throw usage_error(
          fmt::format(N_("{} goes with --sentence or --x: with --q/--k/--v, d_k and d_v are the numbers of columns of Q and V"),
                      o.dk ? "--dk" : "--dv"));
    LoadedMatrix q = read_matrix_arg(o.q_file, "--q"), k = read_matrix_arg(o.k_file, "--k"),
                 v = read_matrix_arg(o.v_file, "--v");
    in.mode = "qkv";
    in.q = std::move(q.values);
    in.k = std::move(k.values);
    in.v = std::move(v.values);
    in.query_labels = q.row_labels;
    in.key_labels = !k.row_labels.empty() ? k.row_labels : v.row_labels;
    in.cross = o.q_file != o.k_file;
    in.description = trf("Attention from matrices: Q {} ({}), K {} ({}), V {} ({})", in.q.shape_str(), o.q_file,
                         in.k.shape_str(), o.k_file, in.v.shape_str(), o.v_file);
    return in;
  }
  if (!o.x_file.empty()) {
    LoadedMatrix x = read_matrix_arg(o.x_file, "--x");
    in.mode = "x";
    in.x_q = std::move(x.values);
    in.x_kv = in.x_q;
    in.query_labels = x.row_labels;
    in.key_labels = x.row_labels;
    in.description = trf("Self-attention over the rows of X {} ({})", in.x_q.shape_str(), o.x_file);
    return in;
  }
  const std::string reason = seeded_reason(o);
  if (reason.empty()) return trained_inputs(o);
  in.seeded_reason = reason;
  const bool pe = !o.no_pe && !o.rope;  // RoPE gives the positions instead of an added PE
  TokenSequence s = embed_sentence(*o.source, o.sentence, "--sentence", pe);
  in.mode = "sentence";
  in.vocab = sentence_source_name(*o.source);
  in.vocab_size = sentence_source_words(*o.source);
  in.query_labels = s.shown;
  in.x_q = std::move(s.x);
  const std::string x_text = pe       ? tr("embedding + PE")
                             : o.rope ? tr("embedding, no PE (--rope gives the positions)")
                                      : tr("embedding, no PE");
  if (o.cross_given) {
    TokenSequence c = embed_sentence(*o.source, o.cross, "--cross", pe);
    in.key_labels = c.shown;
    in.x_kv = std::move(c.x);
    in.cross = true;
    in.description = trf(
        "Cross-attention: queries from \"{}\" ({} tokens), keys and values from \"{}\" ({} tokens); "
        "X = {} ({})",
        tokens_text(in.query_labels), in.query_labels.size(), tokens_text(in.key_labels), in.key_labels.size(), x_text,
        sentence_source_description(*o.source));
  } else {
    in.key_labels = in.query_labels;
    in.x_kv = in.x_q;
    in.description =
        trf("Self-attention over {} tokens \"{}\": X = {} ({}), shape {}", in.query_labels.size(),
                    tokens_text(in.query_labels), x_text, sentence_source_description(*o.source), in.x_q.shape_str());
  }
  return in;
}

unsigned parse_show(const std::string& text) {
  if (text.empty()) return kDefaultSteps;
  unsigned steps = 0;
  for (const std::string& item : split_items(text)) {
    if (item == "all")
      steps |= kAllSteps;
    else if (item == "x")
      steps |= kX;
    else if (item == "w" || item == "weights_qkv" || item == "projections")
      steps |= kW;
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
          fmt::format(N_("--show: unknown matrix '{}' (expected scores, scaled, masked, weights, output, all, "
                      "or x, w, q, k, v; comma-separated)"),
                      item));
  }
  return steps;
}

}  // namespace tfx::cli
