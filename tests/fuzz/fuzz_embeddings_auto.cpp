// Fuzz target: an embedding file whose format is detected from its bytes (the default,
// --embeddings-format auto: GloVe, word2vec text/binary, fastText .vec, tfx table). Input: one
// byte whose low 3 bits give --limit (0 = all rows), then the file.
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tfx::fuzz::embedding_target(data, size, tfx::EmbeddingFormat::detect);
}
