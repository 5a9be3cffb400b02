// --stats of both tokenize commands (tfx tokenize, tfx model tokenize) and the rows of
// `model tokenize --compare`: what a text costs in a tokenizer — its characters, bytes and words
// per script, tokens per word and per character, bytes per token, [UNK] / byte-fallback tokens,
// tokens holding part of a character, the most frequent tokens. One tally, one presentation.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tfx/io/format.hpp"
#include "tfx/text/hf_tokenizer.hpp"
#include "tfx/text/script_stats.hpp"

namespace tfx {

struct TokenCount {
  long long id = 0;
  std::string token, readable;
  std::size_t count = 0;
};

// The tokens of a text, special tokens left out.
struct TokenTally {
  std::size_t tokens = 0;
  std::size_t unknown = 0;            // [UNK] / <unk>
  bool byte_level = false;            // the next two counts mean something (an HF tokenizer)
  std::size_t byte_fallback = 0;      // <0xXX> tokens (Llama 2's byte fallback)
  std::size_t partial = 0;            // byte-level BPE tokens holding only part of a character
  std::vector<TokenCount> most_frequent;  // at most 10, most frequent first (ties: smaller id first)
};

// The tally of `encs` (encoded with readable forms) in `tok`.
TokenTally tally_tokens(const std::vector<HfEncoding>& encs, const HfTokenizer& tok);
// The tally of plain tokens and their ids (tfx tokenize); `unknown` counted by the caller.
TokenTally tally_tokens(const std::vector<std::string>& tokens, const std::vector<long long>& ids, std::size_t unknown);

// Ratios of a tally over a text: tokens per word / per character, UTF-8 bytes per token (0 when
// the divisor is 0).
struct TokenRatios {
  double per_word = 0, per_character = 0, bytes_per_token = 0;
};
TokenRatios token_ratios(const TokenTally& t, const ScriptCounts& s);

// --stats: a summary line, the per-script table ("stats"), the most frequent tokens, and
// summary.stats in JSON.
void add_token_stats(Result& r, std::string_view text, const TokenTally& t);

}  // namespace tfx
