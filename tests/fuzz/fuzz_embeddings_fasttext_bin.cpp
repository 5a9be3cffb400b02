// Fuzz target: a fastText binary model (--embeddings-format fasttext-bin): header, vocabulary,
// input matrix of words and subword buckets; then vectors of unknown words from their n-grams.
// Input: one byte whose low 3 bits give --limit (0 = all rows), then the file.
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tfx::fuzz::embedding_target(data, size, tfx::EmbeddingFormat::fasttext_bin);
}
