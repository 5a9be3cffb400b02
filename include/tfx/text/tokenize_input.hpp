// The text the tokenize commands read: TEXT on the command line, or a whole document from
// --file FILE ("-" = standard input), read with its size checked against the memory budget
// before a byte is read, FIFOs and devices bounded, and UTF-8 checked with the byte offset (and
// line) of the first bad sequence.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tfx {

// Bytes of memory tokenizing one byte of text may take (ids, token strings, the text as code
// points, the word cache): what the budget check multiplies a file's size by.
inline constexpr std::size_t kTokenizeBytesPerByte = 24;

// The document in `file` ("-" = standard input). Missing, a directory, a FIFO nothing writes to,
// more than the memory budget allows (a regular file's size is checked before reading; a pipe or
// device while reading, at most 256 MiB), or not UTF-8 → tfx::Error naming FILE and what was
// expected.
std::string read_document(const std::string& file);

// TEXT or --file's document: exactly one of them must be given (a usage error otherwise).
std::string document_text(const std::string& text, bool text_given, const std::string& file);

// The lines of `text` for --lines: split at '\n', a '\r' before it dropped; no sequence after a
// final newline.
std::vector<std::string_view> document_lines(std::string_view text);

// "byte N (line L, column C)" of offset `at` in `text`.
std::string byte_position(std::string_view text, std::size_t at);

}  // namespace tfx
