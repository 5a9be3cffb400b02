// The inputs of `tfx attention`: which of --sentence (with --cross), --x and --q/--k/--v is
// given, and the matrices and labels it yields. Files through matrix_io, sentences through
// attention_sentence.cpp.
#include <fmt/format.h>

#include "cli/attention_command.hpp"
#include "tfx/io/matrix_io.hpp"

namespace tfx::cli {

namespace {

std::string tokens_text(const std::vector<std::string>& tokens) {
  std::string s;
  for (std::size_t i = 0; i < tokens.size() && i < 12; ++i) s += (i ? " " : "") + tokens[i];
  if (tokens.size() > 12) s += " …";
  return s;
}

}  // namespace

AttentionInputs load_attention_inputs(const AttentionCliOptions& o) {
  AttentionInputs in;
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

}  // namespace tfx::cli
