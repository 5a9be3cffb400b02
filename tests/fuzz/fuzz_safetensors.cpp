// Fuzz target: the safetensors reader behind encoder/decoder --weights (parse_safetensors):
// header length, JSON header, dtypes F32/F16/BF16, offsets. A parsed file must give tensors
// whose element count matches their shape.
#include "fuzz_common.hpp"
#include "tfx/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using tfx::fuzz::check;
  try {
    const tfx::TensorMap m = tfx::parse_safetensors(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
    for (const auto& [name, t] : m) {
      std::size_t count = 1;
      for (std::size_t d : t.shape()) count *= d;
      check(t.size() == count);
    }
  } catch (const tfx::Error&) {
  }
  return 0;
}
