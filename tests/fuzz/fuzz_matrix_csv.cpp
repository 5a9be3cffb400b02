// Fuzz target: the CSV matrix reader behind --q/--k/--v/--x files (parse_matrix_csv).
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tfx::fuzz::matrix_target(data, size, [](std::string_view text, const std::string& where) {
    return tfx::parse_matrix_csv(text, where);
  });
}
