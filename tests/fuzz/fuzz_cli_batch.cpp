// Fuzz target: `tfx analogy --queries FILE` (one 'A B C' query per line, questions-words.txt lines
// accepted) over the built-in teaching embedding. Input: the file.
#include "fuzz_cli.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = tfx::fuzz::write_input("batch.txt", data, size);
  tfx::fuzz::run_cli({"analogy", "--queries", path, "--k", "2", "--format", "csv"});
  return 0;
}
