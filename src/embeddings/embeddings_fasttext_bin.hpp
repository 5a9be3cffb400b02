// Private to the embeddings loaders: fastText's binary model format (.bin). A byte-buffer parser
// apart from any file, so a fuzz target can call it directly.
#pragma once
#include <cstddef>
#include <memory>
#include <string>

#include "embeddings_store.hpp"
#include "tfx/core/progress.hpp"

namespace tfx {

// True when data[0, size) starts like a fastText .bin model: the magic 793712314, or the oldest
// layout (no magic) whose training arguments are all plausible (dim, loss, model, minn/maxn, t).
bool looks_like_fasttext_bin(const char* data, std::size_t size);

// Parses a whole fastText .bin model held in data[0, size): the header (oldest layout, or magic +
// version 11/12), the training arguments, the dictionary and the input matrix (the output
// matrix is skipped). The store holds the vocabulary with the composed word vectors (the mean of
// the word's own row and its n-gram bucket rows, as fastText and gensim compute them), the
// bucket rows and minn/maxn. `name` starts every error message. Throws tfx::Error for a
// truncated or malformed model and refuses quantized (.ftz) and supervised models, saying what
// they are; never reads outside the buffer and allocates only what the buffer's size can hold.
// `progress` gets (bytes, size) from the calling thread as the words are composed.
std::shared_ptr<Embeddings::Store> parse_fasttext_bin(const char* data, std::size_t size, const std::string& name,
                                                      const Progress& progress = {});

}  // namespace tfx
