// The png format: the command's figure drawn at o.scale (figure/figure_raster) and encoded as PNG.
#include <fmt/format.h>

#include "tfx/core/error.hpp"
#include "tfx/io/encoder.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

std::string serialize_png(const Output& out, const OutputOptions& o) {
  if (!out.figure) throw usage_error(N_("format png: this command draws no figure here; use ") + format_list(false), {"format"});
  return encode_png(render(*out.figure, o.scale));
}

std::pair<int, int> png_size(const std::string& png) {
  // the 8-byte signature, then the IHDR chunk: length, "IHDR", width and height big-endian
  if (png.size() < 24 || png.compare(12, 4, "IHDR") != 0) return {0, 0};
  auto be32 = [&](std::size_t at) {
    int v = 0;
    for (std::size_t k = 0; k < 4; ++k) v = (v << 8) | static_cast<unsigned char>(png[at + k]);
    return v;
  };
  return {be32(16), be32(20)};
}

}  // namespace tfx
