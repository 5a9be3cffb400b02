// The token listing of `tfx model tokenize`: a row per token — [line], position, token, readable,
// id and, for csv and json, its [start, end) in characters and in bytes of its sequence — and, for
// a document too large to hold as a table, the csv and json files written as the rows are made
// (the same bytes encode_csv and encode_json write for the table; a megabyte of Korean is a
// million rows, which as a JSON document took 3 KB a byte).
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tfx/io/format.hpp"
#include "tfx/text/hf_tokenizer.hpp"

namespace tfx {

struct TokenListing {
  std::vector<std::string_view> sequences;     // the whole text, or each line (--lines)
  const std::vector<HfEncoding>* encodings{};  // one per sequence
  bool lines = false;                          // a line column; the summary's arrays nested per line
  bool offsets = false;                        // the four offset columns (encoded with offsets)
};

// The listing's columns (English: csv headers and json keys stay ASCII).
std::vector<std::string> token_listing_columns(bool lines, bool offsets);

// Every row in order; offsets in characters are counted as Hugging Face's bindings count them,
// in time linear in the sequence.
void for_each_token_row(const TokenListing& l, const std::function<void(std::vector<Cell>&&)>& row);

// CSV: the header and a line per token.
void write_token_csv(const TokenListing& l, const Sink& sink);

// The summary's arrays as one JSON object — tokens, ids, readable and, with offsets, offsets and
// byte_offsets (per line with --lines) — for a result held whole (the table, json with --stats).
nlohmann::json token_summary(const TokenListing& l);

// JSON, as encode_json writes the Result whose primary block is the "tokens" table, with `head`'s
// members (command, params, notes) and the summary's arrays: tokens, ids, readable and, with
// offsets, offsets and byte_offsets (per line with --lines).
void write_token_json(const TokenListing& l, nlohmann::json head, const Sink& sink);

}  // namespace tfx
