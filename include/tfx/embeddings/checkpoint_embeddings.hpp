// A Hugging Face checkpoint folder as a word-vector table (`--embeddings DIR`): its token
// embedding, rows named so that a word finds its word-initial token.
#pragma once
#include <string>

#include "tfx/embeddings/embeddings.hpp"

namespace tfx {

// Loads the checkpoint in `dir` and names the rows of its token embedding (V, d) by its tokenizer:
// GPT-2's "Ġking" and Llama's "▁king" are listed as "king", a piece inside a word ("king" without
// the mark) as "##king" (BERT's own spelling of pieces); ids the tokenizer lacks as "<id N>".
// Without a readable tokenizer every row is "<id N>".
Embeddings checkpoint_embeddings(const std::string& dir);

// True when `path` is a folder holding config.json (a checkpoint rather than a vectors file).
bool checkpoint_folder(const std::string& path);

}  // namespace tfx
