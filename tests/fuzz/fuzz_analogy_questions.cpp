// Fuzz target: the analogy-question reader (Google's questions-words.txt format, used by
// `tfx eval-analogies`). Input: one byte (bit 0: skip invalid lines as gensim does), then the
// file. A parsed set must have sections with names and questions of four non-empty words.
#include "fuzz_common.hpp"
#include "tfx/embeddings/evaluation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  using tfx::fuzz::check;
  try {
    const tfx::AnalogySet set =
        tfx::parse_analogy_set(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1), "fuzz", data[0] & 1);
    check(set.question_count() > 0);
    for (const auto& s : set.sections) {
      check(!s.name.empty());
      for (const auto& q : s.questions) check(!q.a.empty() && !q.b.empty() && !q.c.empty() && !q.expected.empty());
    }
  } catch (const tfx::Error&) {
  }
  return 0;
}
