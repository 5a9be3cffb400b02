// The teaching translator: a small Korean→English Transformer in exactly the lecture's shape
// (token embedding + sinusoidal PE, post-LN encoder and decoder layers as PyTorch's
// nn.TransformerEncoderLayer / nn.TransformerDecoderLayer compute them, a causal mask,
// cross-attention, an output projection), trained by scripts/train_teaching_model.py on the
// lecture's sentences (나는 학생 이다 → I am a student) and compiled into tfx
// (data/teaching_model/). One word-level vocabulary serves both languages: a sentence is split
// at whitespace, a Korean word keeps its particle (커피를), and token id = embedding row.
//
// Tensor names are PyTorch's state_dict names: embedding.weight (V, D),
// encoder.layers.{i}.*, decoder.layers.{i}.* (transformer.hpp's layer parameters),
// generator.weight (V, D), generator.bias (V).
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "tfx/attention/transformer.hpp"
#include "tfx/model/safetensors.hpp"
#include "tfx/text/tokenizer.hpp"

namespace tfx {

struct Translator {
  std::string name;  // "the built-in teaching translator" or the weights' path
  Vocabulary vocab;  // id → token; ids are the embedding's rows
  Tensor embedding;  // (V, D), shared by the source and the target side
  std::vector<EncoderLayerParams> encoder;
  std::vector<DecoderLayerParams> decoder;
  Tensor generator_weight, generator_bias;  // logits = y·Wᵀ + b   (V, D), (V)
  std::size_t d_model = 0, heads = 0, ffn = 0;
  std::size_t pad = 0, bos = 1, eos = 2, unk = 3;
  TensorMap tensors;  // every tensor by its PyTorch name (for --save-weights and the layer commands)
  std::size_t parameter_count() const;
};

// The model compiled into tfx (parsed once, on first use).
const Translator& teaching_translator();
// A translator from a state_dict with the names above and a vocabulary (<pad> <bos> <eos> <unk>
// first). Every tensor's name and shape is checked (tfx::Error prefixed with `where`).
Translator load_translator(const TensorMap& tensors, Vocabulary vocab, std::size_t heads, const std::string& where);

// The pairs the model was trained and tested on: split ("train"/"test"), Korean, English and
// the gold alignment (for each English token the index of its Korean token, −1 for a/an/the).
struct TranslationPair {
  std::string split, korean, english;
  std::vector<int> alignment;
};
const std::vector<TranslationPair>& teaching_corpus();

// The sentence's tokens (split at whitespace) and their ids. Words outside the vocabulary throw
// a usage error naming every one of them and how to list the vocabulary; `flag` names the input.
struct TokenIds {
  std::vector<std::string> tokens;
  std::vector<std::size_t> ids;
};
TokenIds translator_tokens(const Translator& m, const std::string& text, const std::string& flag);

// X = Embedding(ids) + PE (no √d_model scaling, as the lecture writes it) and its two parts.
struct EmbeddedTokens {
  Tensor embedding;  // the embedding rows e       (T, D)
  Tensor pe;         // the positional encoding p  (T, D)
  Tensor x;          // e + p                      (T, D)
};
EmbeddedTokens translator_embed(const Translator& m, const std::vector<std::size_t>& ids);

// The encoder: every layer's steps; memory = the last layer's output.
struct EncoderPass {
  EmbeddedTokens input;
  std::vector<EncoderLayerSteps> layers;
  Tensor memory;  // (S, D)
};
EncoderPass translator_encode(const Translator& m, const std::vector<std::size_t>& source_ids);

// The decoder over target ids (starting with <bos>), teacher-forced: every layer's steps and
// the logits of every position (T, V); row t predicts token t + 1.
struct DecoderPass {
  EmbeddedTokens input;
  std::vector<DecoderLayerSteps> layers;
  Tensor logits;         // (T, V)
  Tensor probabilities;  // softmax of each row (T, V)
};
DecoderPass translator_decode(const Translator& m, const Tensor& memory, const std::vector<std::size_t>& target_ids);

// Greedy decoding: at each step the most probable next token, until <eos> or `max_tokens`.
struct TranslationStep {
  std::string token;  // the chosen token ("<eos>" at the end)
  double probability = 0;
  std::vector<std::pair<std::string, double>> alternatives;  // the next best three
};
struct Translation {
  TokenIds source;
  std::vector<std::string> output;  // the English tokens, without <bos>/<eos>
  std::vector<TranslationStep> steps;
  bool finished = true;  // false when max_tokens was reached before <eos>
  EncoderPass encoder;
  DecoderPass decoder;  // the final teacher-forced pass over <bos> + output: its cross-attention
                        // row t is what the model looked at when it chose output token t
};
Translation translate(const Translator& m, const std::string& text, std::size_t max_tokens = 20,
                      const std::string& flag = "TEXT");

// Head-averaged cross-attention of decoder layer `layer` (T, S), rows = target positions.
Tensor mean_cross_attention(const DecoderPass& pass, std::size_t layer);

}  // namespace tfx
