// Fuzz target: the safetensors reader behind encoder/decoder --weights (parse_safetensors):
// header length, JSON header, dtypes F32/F16/BF16, offsets, and the __metadata__ nhead. A parsed
// file must give tensors whose element count matches their shape, and a number of heads in 1…4096.
#include "fuzz_common.hpp"
#include "tfx/model/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using tfx::fuzz::check;
  try {
    tfx::TensorMetadata meta;
    const tfx::TensorMap m = tfx::parse_safetensors(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz", &meta);
    for (const auto& [name, t] : m) {
      std::size_t count = 1;
      for (std::size_t d : t.shape()) count *= d;
      check(t.size() == count);
    }
    const std::optional<std::size_t> heads = tfx::metadata_heads(meta, "fuzz");
    check(!heads || (*heads >= 1 && *heads <= 4096));
  } catch (const tfx::Error&) {
  }
  return 0;
}
