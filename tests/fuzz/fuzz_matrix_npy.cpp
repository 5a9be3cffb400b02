// Fuzz target: the NPY matrix reader behind --q/--k/--v/--x files (parse_npy).
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tfx::fuzz::matrix_target(data, size, [](std::string_view text, const std::string& where) {
    return tfx::parse_npy(text, where);
  });
}
