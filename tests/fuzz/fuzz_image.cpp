// Fuzz target: a picture through read_image (PNG, JPEG, BMP, GIF, TGA, PNM: the header and
// truncation checks, then stb_image). First byte bit 0 clear: the rest is the file. Set: bytes
// 1–2 (big-endian, a fraction of 65536) choose where the picture after them is cut; when the
// whole picture reads, the cut one must be refused or read the same pixels (stb_image fills a
// missing part black: that would be a wrong answer, not a crash). A picture that reads has the
// size it says, within the limits. A header that states more than 4 megapixels is not decoded: the
// cost is linear in the pixels (a 9-byte GIF may state 16384² and stb fills it: seconds under ASan,
// which libFuzzer reports as a slow unit), and the same code runs at every size below.
#include <stb_image.h>

#include <climits>
#include <cstdlib>
#include <cstring>

#include "fuzz_common.hpp"
#include "tfx/io/image_file.hpp"

namespace {

bool read(const std::uint8_t* data, std::size_t size, tfx::Image& out) {
  int w = 0, h = 0, channels = 0;
  if (size <= static_cast<std::size_t>(INT_MAX) &&
      stbi_info_from_memory(data, static_cast<int>(size), &w, &h, &channels) && static_cast<long long>(w) * std::abs(h) > (4LL << 20))
    return false;
  const std::string path = tfx::fuzz::write_input("picture", data, size);
  try {
    out = tfx::read_image(path);
  } catch (const tfx::Error&) {
    return false;
  }
  tfx::fuzz::check(out.width > 0 && out.height > 0 && out.width <= tfx::kMaxImageSide && out.height <= tfx::kMaxImageSide);
  tfx::fuzz::check(out.rgb.size() == static_cast<std::size_t>(out.width) * static_cast<std::size_t>(out.height) * 3);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  tfx::Image whole;
  if (!(data[0] & 1)) {
    read(data + 1, size - 1, whole);
    return 0;
  }
  if (size < 3) return 0;
  const std::uint8_t* picture = data + 3;
  const std::size_t n = size - 3;
  if (!read(picture, n, whole)) return 0;
  const std::size_t cut = n * ((std::size_t{data[1]} << 8) | data[2]) / 65536;
  tfx::Image part;
  if (read(picture, cut, part))
    tfx::fuzz::check(part.width == whole.width && part.height == whole.height && part.rgb == whole.rgb);
  return 0;
}
