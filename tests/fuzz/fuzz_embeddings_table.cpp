// Fuzz target: tfx's binary table reader (the embedding cache and `tfx embeddings convert`
// output). The header checksum of the input is recomputed first, so that mutations get past it
// to the layout and word-table checks a hand-made or maliciously edited file meets.
#include <vector>

#include "embeddings/embeddings_store.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<char> image(data, data + size);
  tfx::fix_table_checksum(image.data(), image.size());
  const std::string path = tfx::fuzz::write_input("table.tfxemb", image.data(), image.size());
  tfx::fuzz::load_and_exercise(path, tfx::EmbeddingFormat::tfx_cache, 0);
  return 0;
}
