// Fuzz target: the word-pair similarity reader (WordSim353 / SimLex-999 files, used by
// `tfx eval-similarity`). Input: one byte (bit 0: skip invalid lines as gensim does), then the
// file. A parsed set must hold pairs of non-empty words with finite scores.
#include <cmath>

#include "fuzz_common.hpp"
#include "tfx/embeddings/evaluation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  using tfx::fuzz::check;
  try {
    const tfx::WordPairSet set =
        tfx::parse_word_pairs(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1), "fuzz", data[0] & 1);
    check(!set.pairs.empty());
    for (const auto& p : set.pairs) check(!p.a.empty() && !p.b.empty() && std::isfinite(p.score));
  } catch (const tfx::Error&) {
  }
  return 0;
}
