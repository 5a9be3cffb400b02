// Private to the embeddings loader: what the text and binary parsers share — the parsed-block
// type, the limits, the token shown in messages, line numbers, header detection, and assembly
// of parsed blocks into a store (duplicates dropped).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "embeddings_bytes.hpp"
#include "embeddings_store.hpp"
#include "tfx/core/progress.hpp"
#include "tfx/core/show_token.hpp"

namespace tfx {

constexpr std::size_t kMaxDim = 100000;       // the widest real embeddings have a few thousand
constexpr std::size_t kMaxWordBytes = 100000;  // longer "words" mean the file is not what it claims

// The words of the rows parsed by one thread, in file order (their vectors go straight into the
// table's matrix).
struct RowWords {
  std::size_t rows = 0;
  WordList words;
  std::vector<std::uint64_t> line_offsets;  // byte offset of each row's line
};

// 1-based line number of byte offset `off`.
std::size_t line_of(const char* base, std::uint64_t off);

// "123" or "-123" (at most 18 digits).
bool is_integer_token(std::string_view t);

// True for "N D" (two integers), the word2vec/fastText header.
bool first_line_is_header(std::string_view line);

// The "N D" header of a word2vec/fastText file.
struct Header {
  bool present = false;
  long long n = 0, d = 0;
  std::size_t data_begin = 0;  // offset after the header line
};

// A first line of exactly two integers is a word2vec/fastText header; `required` makes its
// absence an error.
Header read_header(const std::string& path, const char* base, std::size_t start, std::size_t size, bool required);

// Where row i of a block came from ("line 12", "row 3"), for the duplicate-word warning.
using RowPlace = std::function<std::string(const RowWords*, std::size_t)>;

// Assembles parsed rows into a store: `matrix` (rows of all blocks, in block order, D floats
// each) becomes the store's vectors without a copy; duplicate words are dropped (the first kept)
// by moving the later rows up. `where(i)` says where row i of a block came from, for the
// duplicate warning. `norms`, when the parser computed them (row_norm of each row, in the same
// order), become the store's norms the same way; otherwise compute_norms reads the matrix again.
std::shared_ptr<Embeddings::Store> assemble(Buffer<float> matrix, std::vector<RowWords*>& blocks, std::size_t D,
                                            const RowPlace& where, Buffer<float>* norms = nullptr);

// Text formats (embeddings_text.cpp): GloVe (start = 0 or after a BOM, no header) and
// word2vec/fastText text (start after the header). D numbers per row; `limit` rows at most (0 = all).
// `progress` gets (bytes parsed, bytes to parse); `count_progress` the same for the pass before,
// which counts the rows. `target`: parse straight into the cache file being written (see CacheTarget).
std::shared_ptr<Embeddings::Store> parse_text(const std::string& path, const Bytes& b, std::size_t start, const Header& h,
                                              std::size_t D, std::size_t limit, const Progress& progress = {},
                                              const CacheTarget* target = nullptr, const Progress& count_progress = {});

// True when the line at `off` reads as text: a word and D numbers (format detection).
bool looks_like_text_row(const char* base, std::size_t off, std::size_t size, std::size_t D);

// GloVe's D: fields − 1 of the most common field count among the first 100 lines from `start`.
std::size_t glove_dimension(const std::string& path, const Bytes& b, std::size_t start);

}  // namespace tfx
