// What `tfx encoder` and `tfx decoder` run on and show (the flags: cli/flags/layer_flags.hpp): the
// sentence/matrix → X⁽⁰⁾ step (word tokens → a seeded embedding row per token + sinusoidal PE) and
// one layer's matrices and attention heatmaps.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tfx/attention/transformer.hpp"
#include "tfx/figure/figure.hpp"
#include "tfx/io/format.hpp"

namespace tfx {

// A sequence entering a layer stack.
struct LayerInput {
  std::vector<std::string> tokens;  // row labels: the word tokens, or the file's row labels / 0, 1, …
  Tensor x;                         // X⁽⁰⁾ (T, D)
  std::string description;          // how X⁽⁰⁾ was made
  std::string vocab;                // the vocabulary the ids index ("" = none: seeded rows or a matrix file)
  std::size_t vocab_size = 0;
  std::vector<std::size_t> ids;     // the tokens' ids in `vocab` (= their embedding rows)
};
// From a sentence: word tokens (punctuation kept as tokens), each distinct token a N(0, 1) row
// seeded by --seed and the token's text (nn.Embedding's init), + PE. `flag` names the flag.
LayerInput sentence_input(const std::string& sentence, const std::string& flag, std::size_t D, std::uint64_t seed, bool lower);
// From a matrix file (npy/JSON/CSV), used as given; with `rows_inline` also the rows written in
// the value ("1,2;3,4", read_matrix_arg).
LayerInput matrix_input(const std::string& path, const std::string& flag, bool rows_inline = false);

// A matrix block with token row labels and its shape in the name ("layer 1 H [5, 16]").
Matrix layer_matrix(const std::string& name, const Tensor& t, const std::vector<std::string>& rows,
                    const std::vector<std::string>& cols = {}, const std::string& col_axis = "dim");
// The per-head weights (H, T, S) of one attention, with labels.
Matrix head_weights_matrix(const std::string& name, const MultiHeadAttention& a, const std::vector<std::string>& rows,
                           const std::vector<std::string>& cols);
// One heatmap per head of `a`'s weights.
void add_weight_panels(Figure& fig, const MultiHeadAttention& a, const std::string& what, const std::vector<std::string>& rows,
                       const std::vector<std::string>& cols);

// "I love playing football ." for messages (first 12 tokens).
std::string joined_tokens(const std::vector<std::string>& tokens);

}  // namespace tfx
