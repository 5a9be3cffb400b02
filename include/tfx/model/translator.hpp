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
#include <string_view>
#include <utility>
#include <vector>

#include "tfx/attention/transformer.hpp"
#include "tfx/core/choices.hpp"
#include "tfx/model/safetensors.hpp"
#include "tfx/text/tokenizer.hpp"

namespace tfx {

// The pairs a translator was trained and tested on: split ("train"/"test"), the source
// sentence (`korean`, the built-in corpus's source language), the target sentence and the gold
// alignment (for each target token the index of its source token, −1 for none, e.g. a/an/the;
// empty when unknown).
struct TranslationPair {
  std::string split, korean, english;
  std::vector<int> alignment;
};

// How a translator knows where a word is (tfx train --pe; the extrapolation experiment):
//   sinusoidal  X = Embedding(ids) + PE, the lecture's fixed sin/cos table (any length)
//   learned     X = Embedding(ids) + P[0 … T−1], a trained table P (max_len, D),
//               position_embedding.weight (rows never reached in training stay as initialized)
//   rope        X = Embedding(ids); q and k of every self-attention (encoder and decoder, not the
//               cross-attention) rotated by their position (RoPE: interleaved pairs, base 10000)
//   none        X = Embedding(ids): no position at all (--no-pe)
enum class PositionalEncoding { sinusoidal, learned, rope, none };
inline constexpr Choice<PositionalEncoding> kPositionalEncodingChoices[] = {
    {PositionalEncoding::sinusoidal, "sinusoidal", N_("the lecture's fixed sin/cos table added to the embeddings")},
    {PositionalEncoding::learned, "learned", N_("a trained table of positions added to the embeddings")},
    {PositionalEncoding::rope, "rope", N_("q and k of the self-attention rotated by position (RoPE)")},
    {PositionalEncoding::none, "none", N_("no positional encoding (as --no-pe)")},
};
const char* positional_encoding_name(PositionalEncoding pe);
// A name of kPositionalEncodingChoices; anything else is a usage error naming `flag` and the choices.
PositionalEncoding parse_positional_encoding(const std::string& name, const std::string& flag);
// Rows of a learned PE table tfx train makes: the longest sentence of a --pairs file (kMaxPairWords,
// train.hpp) with <bos> and <eos>.
inline constexpr std::size_t kLearnedPositions = 66;

// What a translator is besides its weights: the experiment it was trained as (tfx train --pre-ln,
// --pe, --no-pe, --no-scale). Stored with its weights (the safetensors metadata: norm_first,
// positional_encoding, scale_scores); the built-in model is all defaults, the lecture's model.
struct TranslatorProperties {
  bool pre_ln = false;  // norm_first: x + f(LayerNorm(x)) instead of LayerNorm(x + f(x))
  PositionalEncoding pe = PositionalEncoding::sinusoidal;
  bool scale_scores = true;  // false: attention scores QKᵀ without 1/√d_k
  bool lecture() const { return !pre_ln && pe == PositionalEncoding::sinusoidal && scale_scores; }
  // "post-LN" or "pre-LN", then ", learned PE", ", RoPE", ", no PE", ", no 1/√d_k" as they apply
  std::string layout() const;
  // the tfx train flags that make this model ("--pre-ln --no-pe", "--pe rope"), "" for the lecture's model
  std::string flags() const;
};

struct Translator {
  std::string name;  // "the built-in teaching translator" or the weights' path
  Vocabulary vocab;  // id → token; ids are the embedding's rows
  Tensor embedding;  // (V, D), shared by the source and the target side
  Tensor position_embedding;  // (max_len, D): the learned PE table (properties.pe learned), else empty
  std::vector<EncoderLayerParams> encoder;
  std::vector<DecoderLayerParams> decoder;
  Tensor generator_weight, generator_bias;  // logits = y·Wᵀ + b   (V, D), (V)
  std::size_t d_model = 0, heads = 0, ffn = 0;
  std::size_t pad = 0, bos = 1, eos = 2, unk = 3;
  TranslatorProperties properties;
  // The pairs it was trained and tested on (the built-in corpus for the built-in model; a model
  // file's own, stored with it by tfx train), for the domain check; empty when unknown.
  std::vector<TranslationPair> pairs;
  bool builtin_corpus = true;  // pairs are the built-in Korean → English corpus
  TensorMap tensors;  // every tensor by its PyTorch name (for --save-weights and the layer commands)
  std::size_t parameter_count() const;
};

// The model compiled into tfx (parsed once, on first use).
const Translator& teaching_translator();
// A translator from a state_dict with the names above and a vocabulary (<pad> <bos> <eos> <unk>
// first). Every tensor's name and shape is checked (tfx::Error prefixed with `where`).
Translator load_translator(const TensorMap& tensors, Vocabulary vocab, std::size_t heads, const std::string& where,
                           const TranslatorProperties& properties = {});
// The typed weights alone (no vocabulary, `tensors` not kept): what training runs the forward on.
Translator translator_weights(const TensorMap& tensors, std::size_t heads, const TranslatorProperties& properties,
                              const std::string& where);

// A model written by `tfx train -o FILE.safetensors`: its weights, its properties and its
// training pairs from the file's metadata, its vocabulary from FILE.vocab.txt beside it
// (translator_vocab_path). Errors name the file.
Translator read_translator_file(const std::string& path);
// The vocabulary file beside a model: FILE.safetensors → FILE.vocab.txt (else FILE + ".vocab.txt").
std::string translator_vocab_path(const std::string& model);
// The fingerprint of a vocabulary file's bytes (FNV-1a, 64 bits, as 16 hex digits) that tfx train
// stores in the weights' metadata under kVocabFingerprintKey: read_translator_file refuses a
// vocabulary whose fingerprint differs (the two files come from different saves). Models without
// the key load as before.
inline constexpr const char* kVocabFingerprintKey = "vocab_fnv1a64";
std::string vocab_fingerprint(std::string_view bytes);
// The metadata tfx train writes with a model (read back by read_translator_file): the shape
// (d_model, nhead, layers, dim_feedforward), the properties, and the training pairs (`pairs`,
// corpus.tsv's lines: split, source, target, alignment) with `corpus` "built-in" or the file.
TensorMetadata translator_metadata(std::size_t d_model, std::size_t heads, std::size_t layers, std::size_t ffn,
                                   const TranslatorProperties& properties, const std::vector<TranslationPair>& pairs,
                                   bool builtin_corpus);
// The pairs as corpus.tsv writes them (header line, then split TAB source TAB target TAB
// alignment) and back.
std::string pairs_tsv(const std::vector<TranslationPair>& pairs);
std::vector<TranslationPair> parse_pairs_tsv(std::string_view text);

// The built-in model's pairs (data/teaching_model/corpus.tsv).
const std::vector<TranslationPair>& teaching_corpus();
// The built-in English → Korean corpus of the word-order experiment (tfx train --corpus en-ko;
// data/teaching_model/corpus_en_ko.tsv, written by scripts/gen_en_ko_corpus.py): "the dog bites
// the man" → 개가 남자를 문다. Its source side (English) is in `korean`, its target in `english`:
// the fields are corpus.tsv's columns (source, target).
const std::vector<TranslationPair>& teaching_corpus_en_ko();
// The built-in corpus of the extrapolation experiment (tfx train --corpus lengths --train-max-len N;
// data/teaching_model/corpus_lengths.tsv, written by scripts/gen_lengths_corpus.py): lists of
// animals, English → Korean word for word ("dog cat bird" → 개 고양이 새), training lists of 1 to
// 12 words, held-out lists of 1 to 18. Source in `korean`, target in `english`, as en-ko.
const std::vector<TranslationPair>& teaching_corpus_lengths();
// A sentence the model was trained on (its first training pair's source; "나는 학생 이다" when it
// carries no pairs): what a command shows when not given one.
std::string translator_example_sentence(const Translator& m);

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
// The same for B sequences of equal length stacked in ids (PE restarts at each); with
// properties.pe learned, pe = the table's rows 0 … T−1 (a sequence longer than the table is an
// error); with rope or none, pe is 0 and x = e.
EmbeddedTokens translator_embed_batch(const Translator& m, const std::vector<std::size_t>& ids, std::size_t batch);

// The encoder: every layer's steps; memory = the last layer's output.
struct EncoderPass {
  EmbeddedTokens input;
  std::vector<EncoderLayerSteps> layers;
  Tensor memory;  // (S, D)
};
EncoderPass translator_encode(const Translator& m, const std::vector<std::size_t>& source_ids);

// The encoder over a batch: ids (B·S) of B sentences padded at their ends (`sources` says how
// far), every layer's steps over all rows. `run` gives keep_steps and threads; the layer's
// properties (pre-LN, scaling) are the model's. translator_encode is this with B = 1.
EncoderPass translator_encode_batch(const Translator& m, const std::vector<std::size_t>& ids, const RowBatch& sources,
                                    const LayerOptions& run);

// The decoder over target ids (starting with <bos>), teacher-forced: every layer's steps and
// the logits of every position (T, V); row t predicts token t + 1.
struct DecoderPass {
  EmbeddedTokens input;
  std::vector<DecoderLayerSteps> layers;
  Tensor logits;         // (T, V)
  Tensor probabilities;  // softmax of each row (T, V)
};
DecoderPass translator_decode(const Translator& m, const Tensor& memory, const std::vector<std::size_t>& target_ids);
// The same over a batch (ids (B·T), memory (B·S, D)); probabilities only when asked for.
DecoderPass translator_decode_batch(const Translator& m, const Tensor& memory, const RowBatch& sources,
                                    const std::vector<std::size_t>& ids, const RowBatch& targets, const LayerOptions& run,
                                    bool probabilities);

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
