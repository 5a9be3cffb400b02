// GGUF tokenizers (gguf_model.hpp: gguf_tokenizer) against llama.cpp's own tokenizer tests: the
// `.inp`/`.out` pairs of llama.cpp's models/ggml-vocab-<name>.gguf (committed under
// tests/data/gguf/vocab/; their cases are what test-tokenizer-0 checks, add_special false). The
// vocab files themselves are not committed: tests/reference/fetch_gguf_vocab.sh copies them from a
// llama.cpp checkout into $TFX_GGUF_VOCAB (default ~/.cache/tfx-test/gguf-vocab); without them the
// case says TFX-SKIP. A vocabulary whose kind tfx does not run says which and is counted, not failed.
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "tfx/model/gguf_model.hpp"
#include "tfx/model/mapped_weights.hpp"

using namespace tfx;
namespace fs = std::filesystem;

namespace {

fs::path gguf_vocab_cache() {
  if (const char* d = std::getenv("TFX_GGUF_VOCAB"); d && *d) return d;
  const char* home = std::getenv("HOME");
  return fs::path(home ? home : "/tmp") / ".cache" / "tfx-test" / "gguf-vocab";
}

std::vector<std::string> vocab_cases(const std::string& inp) {
  std::vector<std::string> cases;
  const std::string sep = "\n__ggml_vocab_test__\n";
  std::size_t at = 0;
  for (std::size_t next; (next = inp.find(sep, at)) != std::string::npos; at = next + sep.size()) cases.push_back(inp.substr(at, next - at));
  return cases;
}

std::vector<std::vector<std::size_t>> vocab_ids(const std::string& out) {
  std::vector<std::vector<std::size_t>> rows;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream nums(line);
    std::vector<std::size_t> ids;
    for (std::size_t id; nums >> id;) ids.push_back(id);
    rows.push_back(ids);
  }
  return rows;
}

}  // namespace

// the vocabularies tfx runs (tokenizer.ggml.model gpt2 with the GPT-2 split, llama SentencePiece, bert WordPiece)
TEST_CASE("gguf tokenizer: llama.cpp's ggml-vocab test cases give llama.cpp's ids") {
  const fs::path cache = gguf_vocab_cache();
  const fs::path pairs = fs::path(TFX_SOURCE_DIR) / "tests/data/gguf/vocab";
  std::size_t present = 0;
  for (const std::string name : {"gpt-2", "llama-spm", "phi-3", "bert-bge"}) {
    const fs::path vocab = cache / ("ggml-vocab-" + name + ".gguf");
    if (!fs::exists(vocab)) continue;
    ++present;
    CAPTURE(name);
    const std::vector<std::string> cases = vocab_cases(test::read_file(pairs / (name + ".inp")));
    const std::vector<std::vector<std::size_t>> want = vocab_ids(test::read_file(pairs / (name + ".out")));
    REQUIRE(cases.size() == want.size());
    const HfTokenizer tok = load_model_tokenizer(vocab.string());
    std::size_t passed = 0;
    for (std::size_t k = 0; k < cases.size(); ++k) {
      const std::vector<std::size_t> got = tok.encode(cases[k], false, false).ids;
      if (got == want[k]) ++passed;
      else MESSAGE(name << " case " << k << " differs: '" << cases[k] << "'");
    }
    MESSAGE(name << ": " << passed << " of " << cases.size() << " llama.cpp cases");
    CHECK(passed == cases.size());
  }
  if (present == 0) std::cout << "TFX-SKIP: no ggml-vocab-*.gguf in " << cache.string() << " (tests/reference/fetch_gguf_vocab.sh)\n";
}

TEST_CASE("gguf tokenizer: the tiny gpt2.gguf's tokenizer.ggml.* tokenizes as the folder's vocab.json + merges.txt") {
  const HfTokenizer folder = load_model_tokenizer(std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/gpt2");
  const HfTokenizer file = load_model_tokenizer(std::string(TFX_SOURCE_DIR) + "/tests/data/gguf/gpt2.gguf");
  CHECK(file.kind() == "byte-level BPE");
  CHECK(file.vocab_size() == folder.vocab_size());
  for (const std::string text : {"the cat sat on the mat", "Hello, world!  \n 33 3333", "한국어 ☃ tokens", ""}) {
    CAPTURE(text);
    CHECK(file.encode(text, false, false).ids == folder.encode(text, false, false).ids);
    CHECK(file.encode(text).ids == folder.encode(text).ids);
  }
  // a file without tokenizer.ggml.* says so
  CHECK_THROWS_WITH_AS(load_model_tokenizer(std::string(TFX_SOURCE_DIR) + "/tests/data/gguf/llama.gguf"),
                       doctest::Contains("no metadata tokenizer.ggml.model"), Error);
}
