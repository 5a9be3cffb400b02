// Flags every embedding command shares (--embeddings, --embeddings-format, --limit, --no-cache,
// --ignore-case), added by one helper, and the load they describe. Warnings about the loaded
// file (duplicate words) go to stderr here, once per load.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "tfx/embeddings/embeddings.hpp"

namespace tfx::cli {

struct EmbeddingFlags {
  std::string path;            // --embeddings FILE ("" = $TFX_EMBEDDINGS, else the built-in)
  std::string format = "auto"; // --embeddings-format
  std::int64_t limit = 0;      // --limit N (0 = all)
  bool no_cache = false;       // --no-cache
  bool ignore_case = false;    // --ignore-case
  bool translator = false;     // --translator: the teaching translator's trained embedding table
  bool builtin = false;        // the built-in teaching embedding even when $TFX_EMBEDDINGS is set (lookup --table named-dims)
};

// Adds --embeddings, --embeddings-format, --limit, --no-cache and --ignore-case (group
// "Embeddings").
void add_embedding_flags(CLI::App* app, EmbeddingFlags& flags);

// The source the flags describe (path resolved through $TFX_EMBEDDINGS).
EmbeddingSource embedding_source(const EmbeddingFlags& flags);

// Loads per the flags; prints a one-line warning on stderr when duplicate words were dropped, and
// one when the cache could not be written (a read-only cache directory, a full disk).
Embeddings load_embeddings(const EmbeddingFlags& flags);

// Row of `word` per --ignore-case, or a tfx::Error with close spellings.
std::size_t lookup_word(const Embeddings& e, const std::string& word, const EmbeddingFlags& flags);

}  // namespace tfx::cli
