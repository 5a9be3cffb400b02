#include "tfx/attention/layer_input.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <random>

#include "tfx/attention/attention.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/core/memory.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/random.hpp"
#include "tfx/io/matrix_io.hpp"
#include "tfx/positional/positional.hpp"
#include "tfx/text/tokenizer.hpp"

namespace tfx {

namespace {

// FNV-1a of a token's bytes: its embedding row's seed, so a token's row does not depend on the
// sentence around it.
std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace

LayerInput sentence_input(const std::string& sentence, const std::string& flag, std::size_t D, std::uint64_t seed, bool lower) {
  LayerInput in;
  Tokenized t;
  try {
    t = tokenize(sentence, TokenizerMode::word, builtin_vocab(), lower ? Casing::lower : Casing::keep);
  } catch (const Error& e) {
    throw usage_error(fmt::format("{}: {}", flag, e.what()));
  }
  in.tokens = t.tokens;
  const std::size_t T = in.tokens.size();
  checked_element_count({T, D}, fmt::format("{} with {} tokens of width {}", flag, T, D));
  // 1. Embedding(tokens): one N(0, 1) row per token, seeded by (--seed, the token's text)
  in.x = Tensor({T, D});
  for (std::size_t i = 0; i < T; ++i) {
    std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                      static_cast<std::uint32_t>(fnv1a(in.tokens[i])), static_cast<std::uint32_t>(fnv1a(in.tokens[i]) >> 32)};
    Generator gen(seq);
    const Tensor row = standard_normal(1, D, gen);
    std::copy(row.values().begin(), row.values().end(), in.x.row(i).begin());
  }
  // 2. + PE(pos, i)
  in.x = add(in.x, sinusoidal_encoding(T, D));
  in.description = trf("X⁽⁰⁾ = Embedding(tokens) + PE: {} tokens \"{}\", seeded N(0, 1) embedding rows (seed {})", T,
                               joined_tokens(in.tokens), seed);
  return in;
}

LayerInput matrix_input(const std::string& path, const std::string& flag, bool rows_inline) {
  LoadedMatrix m = rows_inline ? read_matrix_arg(path, flag) : read_matrix_file(path, flag);
  LayerInput in;
  in.x = std::move(m.values);
  in.tokens = m.row_labels;
  if (in.tokens.size() != in.x.rows()) {
    in.tokens.clear();
    for (std::size_t i = 0; i < in.x.rows(); ++i) in.tokens.push_back(std::to_string(i));
  }
  in.description = fmt::format("X⁽⁰⁾ from {} {} {}, used as given", flag, path, in.x.shape_str());
  return in;
}

Matrix layer_matrix(const std::string& name, const Tensor& t, const std::vector<std::string>& rows, const std::vector<std::string>& cols,
                    const std::string& col_axis) {
  Matrix m;
  m.name = name;
  m.values = t;
  m.row_labels = rows;
  m.col_labels = cols;
  m.row_axis = N_("token");
  m.col_axis = col_axis;
  return m;
}

Matrix head_weights_matrix(const std::string& name, const MultiHeadAttention& a, const std::vector<std::string>& rows,
                           const std::vector<std::string>& cols) {
  const std::size_t H = a.heads.size(), T = rows.size(), S = cols.size();
  Tensor w({H, T, S});
  std::vector<unsigned char> masked;
  for (std::size_t h = 0; h < H; ++h) {
    std::copy(a.heads[h].weights.values().begin(), a.heads[h].weights.values().end(), w.data() + h * T * S);
    for (std::size_t i = 0; i < T * S && !a.heads[h].keep.empty(); ++i) masked.push_back(a.heads[h].keep[i] ? 0 : 1);
  }
  Matrix m = layer_matrix(name, H == 1 ? w.reshaped({T, S}) : w, rows, cols, "key");
  m.row_axis = N_("query");
  m.slice_axis = N_("head");
  m.masked = std::move(masked);
  return m;
}

void add_weight_panels(Figure& fig, const MultiHeadAttention& a, const std::string& what, const std::vector<std::string>& rows,
                       const std::vector<std::string>& cols) {
  for (std::size_t h = 0; h < a.heads.size(); ++h) {
    Heatmap m;
    m.values = a.heads[h].weights;
    m.title = trf("{}, head {}", what, h);  // 0-based, like the tables' slices and tfx attention
    m.x_label = tr("key");
    m.y_label = tr("query");
    m.row_labels = rows;
    m.col_labels = cols;
    m.vmin = 0.0;
    m.vmax = 1.0;
    m.value_label = tr("weight");
    if (!a.heads[h].keep.empty())
      for (unsigned char k : a.heads[h].keep) m.masked.push_back(k ? 0 : 1);
    fig.panels.push_back(std::move(m));
  }
  fig.columns = static_cast<int>(a.heads.size());
}

std::string joined_tokens(const std::vector<std::string>& tokens) {
  std::string s;
  for (std::size_t i = 0; i < tokens.size() && i < 12; ++i) s += (i ? " " : "") + tokens[i];
  if (tokens.size() > 12) s += " …";
  return s;
}

}  // namespace tfx
