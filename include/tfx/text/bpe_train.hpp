// Learning a byte-level BPE tokenizer from a text, as GPT-2's tokenizer was learned and as Hugging
// Face's `tokenizers` trains one (ByteLevelBPETokenizer: BpeTrainer over the ByteLevel
// pre-tokenizer), and writing it as the tokenizer.json Hugging Face writes:
//   1. the text is cut into lines (each keeps its '\n', as HF's file reader keeps it), each line
//      into words by GPT-2's split pattern, each word's UTF-8 bytes spelled with GPT-2's
//      printable byte characters (a space is Ġ, a newline Ċ);
//   2. the vocabulary starts with the 256 byte characters, in code-point order (ids 0–255);
//   3. repeatedly the most frequent adjacent pair of tokens over all words (each word weighted by
//      how often it occurs) becomes a new token; ties go to the pair with the smaller ids (left
//      first), as HF's trainer breaks them. Pair counts are updated incrementally: a merge
//      touches only the words that hold the pair and changes only the counts of its neighbours.
// The result's ids are the ones HF's Rust engine gives when it loads the written file, and its
// merges those HF's trainer learns from the same text (checked in tests/text/bpe_train_test.cpp
// against tests/reference/gen_bpe_reference.mjs).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tfx/core/progress.hpp"

namespace tfx {

// One merge as the trainer made it.
struct BpeMergeStep {
  std::size_t left = 0, right = 0;  // the ids of the pair
  std::size_t id = 0;               // the merged token's id (an existing one when its spelling was already a token)
  std::uint64_t count = 0;          // the pair's count over the text when it was merged
};

struct BpeTraining {
  std::vector<std::string> vocab;   // id → token in byte-level spelling ("Ġthe"); ids 0–255 the bytes
  std::vector<std::string> bytes;   // id → the bytes it stands for (" the")
  std::vector<BpeMergeStep> steps;  // every merge in the order made
  // The merges as tokenizer.json lists them (rank order): each pair once, at its last step (HF's
  // trainer can merge a pair twice when a pair's occurrences were queued apart; its file keeps the last).
  std::vector<std::pair<std::size_t, std::size_t>> merges;
  std::size_t lines = 0, words = 0, distinct_words = 0;
  std::size_t characters = 0;       // code points of the text
};

// The byte-level BPE of `text` (valid UTF-8, not empty) with exactly `vocab_size` tokens (≥ 256).
// Throws tfx::Error naming `vocab_size` when it is below 256 or more than the text allows (merging
// stops when no pair is left: the message gives the largest reachable size), and a usage error
// naming the byte offset of invalid UTF-8. `progress` hears (merges done, merges to make).
BpeTraining train_byte_level_bpe(std::string_view text, std::size_t vocab_size, const Progress& progress = {});

// The largest vocabulary `text` allows: 256 + the merges made until no pair is left.
std::size_t byte_level_bpe_reachable(std::string_view text);

// The tokenizer.json of a training, as HF writes GPT-2's: model BPE (vocab in id order, merges as
// [left, right] pairs), ByteLevel pre-tokenizer (no prefix space, GPT-2's split), ByteLevel
// post-processor and decoder, no normalizer, no added tokens.
std::string byte_level_bpe_json(const BpeTraining& t);

// What a token holds, for the tokenizer lesson's figure: English letters (Latin, with or without
// its leading space), whole Hangul syllables, bytes that are only part of a character, or
// anything else (digits, punctuation, spaces, other scripts, a mix).
enum class TokenKind { latin, hangul, partial, other };
inline constexpr std::size_t kTokenKinds = 4;
TokenKind token_kind(std::string_view bytes);

}  // namespace tfx
