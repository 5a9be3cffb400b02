// The sentence → X step of `tfx attention` (tokens, embedding lookup, sinusoidal PE), implemented
// in attention_sentence.cpp.
#pragma once
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "tfx/core/tensor.hpp"

namespace tfx::cli {

// A sequence ready for attention: one label and one row of X per token.
struct TokenSequence {
  std::vector<std::string> tokens;  // T tokens as looked up (lower-cased)
  std::vector<std::string> shown;   // the same T tokens as written ("I" stays "I"), for labels
  Tensor x;                         // (T, D)
};

// The word tokens of a sentence (tfx tokenize --mode word --lower): lower-cased, split at
// whitespace, each punctuation mark a token of its own ("Hello, world!" → hello , world !).
// Throws a usage error naming `flag` when no token is left.
std::vector<std::string> sentence_tokens(const std::string& sentence, const std::string& flag);

// The embedding source for sentences (--embeddings FILE, or the built-in teaching embedding)
// and its flags; defined in attention_sentence.cpp.
struct SentenceSource;
std::shared_ptr<SentenceSource> add_sentence_source_flags(CLI::App* app);

// X = embedding(tokens) (+ PE(T, D) when `add_pe`) for `sentence`. Tokens are looked up as
// lower-cased (case-folded with --ignore-case). Out-of-vocabulary words use `<unk>` when the
// table has one, else a zero vector, with a warning on stderr. `flag` names the
// flag the sentence came from in messages.
TokenSequence embed_sentence(const SentenceSource& source, const std::string& sentence, const std::string& flag, bool add_pe);

// Facts about the embedding source for the notes ("the built-in teaching embedding, d_model = 64").
std::string sentence_source_description(const SentenceSource& source);
// Why the sentence's table is not the trained translator's default: "--embeddings given",
// "$TFX_EMBEDDINGS set", "--ignore-case given"…; "" when no table was asked for.
std::string sentence_source_choice(const SentenceSource& source);
// The table's name for the params: its path, or "built-in teaching embedding".
std::string sentence_source_name(const SentenceSource& source);
// The number of words (rows) of the table.
std::size_t sentence_source_words(const SentenceSource& source);

}  // namespace tfx::cli
