// Fuzz target: the GGUF reader behind every model command given a .gguf file (parse_gguf): header,
// metadata of every value type (nested arrays), tensor infos, alignment, offsets. A parsed file
// must give tensors inside the bytes, on the alignment and not overlapping; the first row of each of
// the first tensors is dequantized (every block type's decoder on arbitrary bytes).
#include <algorithm>
#include <vector>

#include "fuzz_common.hpp"
#include "tfx/model/gguf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using tfx::fuzz::check;
  try {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const tfx::GgufFile f = tfx::parse_gguf(bytes, "fuzz");
    check(f.version == 2 || f.version == 3);
    check(f.alignment > 0 && (f.alignment & (f.alignment - 1)) == 0);
    std::vector<float> row;
    std::size_t decoded = 0;
    for (const tfx::GgufTensor& t : f.tensors) {
      const auto* begin = reinterpret_cast<const unsigned char*>(data);
      check(t.data >= begin && t.data + t.bytes <= begin + size);
      check(t.offset % f.alignment == 0);
      check(t.bytes == tfx::stored_row_bytes(t.type, static_cast<std::size_t>(t.ne[0])) * t.rows());
      if (decoded++ < 4) {
        row.resize(static_cast<std::size_t>(t.ne[0]));
        tfx::dequantize(t.type, t.data, row.data(), row.size());
      }
    }
  } catch (const tfx::Error&) {
  }
  return 0;
}
