// Word and id lists on the command line for the embedding explorers: "dog,cat,car" splitting,
// lookups that name the flag in errors, and a note shown when the built-in embedding is used.
#pragma once
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/common.hpp"
#include "cli/flags/embedding_flags.hpp"
#include "tfx/io/format.hpp"

namespace tfx::cli {

// A file-name-safe form of a word ("new york" -> "new_york"), for default figure names.
inline std::string file_safe(std::string_view w) {
  std::string s;
  for (char c : w) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '-') ? c : '_';
  return s;
}

// All items of repeated comma-separated flag values ("--words a,b --words c" -> a, b, c); the
// flag's comma_list() validator has refused empty items ("dog,,cat").
inline std::vector<std::string> split_lists(const std::vector<std::string>& values) { return list_items(values); }

// Rows of `words`; an unknown word throws with close spellings, prefixed by `flag` when given.
inline std::vector<std::size_t> lookup_words(const Embeddings& e, const std::vector<std::string>& words,
                                             const EmbeddingFlags& flags, const std::string& flag = "") {
  std::vector<std::size_t> rows;
  for (const auto& w : words) {
    try {
      rows.push_back(lookup_word(e, w, flags));
    } catch (const Error& err) {
      if (flag.empty()) throw;
      throw Error(flag + ": " + err.what(), err.kind());
    }
  }
  return rows;
}

// The standard parameters of a Result computed from `e`.
inline void embedding_params(Result& r, const Embeddings& e) {
  r.params["embeddings"] = e.name();
  r.params["words"] = e.size();
  r.params["dim"] = e.dim();
}

// One note per word whose vector was built from fastText subwords (it is not in the vocabulary),
// in the order of `rows`, each word once.
inline void subword_notes(Result& r, const Embeddings& e, std::span<const std::size_t> rows) {
  std::vector<std::size_t> seen;
  for (std::size_t i : rows) {
    if (!e.is_subword_row(i) || std::find(seen.begin(), seen.end(), i) != seen.end()) continue;
    seen.push_back(i);
    const auto sw = e.subwords();
    r.blocks.push_back(Text{fmt::format("'{}' is not in the vocabulary: its vector is the mean of its {} character n-gram "
                                        "vectors (n = {}–{}, fastText subwords)",
                                        e.word(i), e.subword_ngrams(i), sw->minn, sw->maxn)});
  }
}

// A note under results computed on the built-in embedding.
inline void builtin_note(Result& r, const Embeddings& e) {
  if (e.info().format == EmbeddingFormat::builtin)
    r.blocks.push_back(Text{tr("the built-in embedding is constructed for teaching; use real vectors with --embeddings FILE")});
}

}  // namespace tfx::cli
