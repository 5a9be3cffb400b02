// Private to `tfx embeddings` and `tfx tokenize`: the register functions of `embeddings convert`
// (embeddings_convert.cpp), called by register_embeddings (embeddings.cpp), and of `tokenize train`,
// and the two helpers
// both subcommands word their output with.
#pragma once
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <string>

#include "tfx/embeddings/embeddings.hpp"

namespace tfx::cli {

void register_embeddings_convert(CLI::App* embeddings);
// `tfx tokenize train` (tokenize_train.cpp), called by register_tokenize (tokenize.cpp).
void register_tokenize_train(CLI::App* tokenize);

// A byte count as "12.3 MB".
inline std::string megabytes(double bytes) { return fmt::format("{:.1f} MB", bytes / 1e6); }

// The format of a loaded file as the output names it: "glove", "word2vec-bin (gzip)".
inline std::string format_text(const LoadInfo& info) {
  return std::string(embedding_format_name(info.format)) + (info.gzip ? " (gzip)" : "");
}

}  // namespace tfx::cli
