// Reading and resizing pictures (tfx/io/image_file.hpp) through the system's stb_image and
// stb_image_resize.
#include "tfx/io/image_file.hpp"

#include <fmt/format.h>
#include <stb_image.h>
#include <stb_image_resize.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string_view>

#include "tfx/core/error.hpp"
#include "tfx/io/text_file.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {
// a compressed picture bigger than this is not one a lecture needs (and not read whole)
constexpr std::size_t kMaxImageFile = std::size_t{256} << 20, kMaxImageStream = std::size_t{64} << 20;

// stb_image copies a PNM's pixels and an uncompressed TGA's rows in one read whose failure it
// ignores, so a truncated file decoded from uninitialised memory (other output on every run):
// the pixel bytes those formats need must be in the file. Returns "" or what is missing.
std::string imgf_short_data(std::string_view b, int w, int h) {
  const auto at = [&](std::size_t i) -> unsigned { return i < b.size() ? static_cast<unsigned char>(b[i]) : 0u; };
  const std::uint64_t pixels = static_cast<std::uint64_t>(w) * static_cast<std::uint64_t>(h);
  if (b.size() >= 2 && b[0] == 'P' && (b[1] == '5' || b[1] == '6')) {
    // the header as stbi__pnm_info reads it: whitespace and # comments, width, height, maxval, one byte
    std::size_t pos = 2;
    char c = static_cast<char>(at(pos++));
    const auto eof = [&] { return pos > b.size(); };
    const auto next = [&] { c = static_cast<char>(at(pos++)); };
    const auto skip = [&] {
      for (;;) {
        while (!eof() && (c == ' ' || (c >= '\t' && c <= '\r'))) next();
        if (eof() || c != '#') break;
        while (!eof() && c != '\n' && c != '\r') next();
      }
    };
    const auto integer = [&] {
      std::uint64_t v = 0;
      while (!eof() && c >= '0' && c <= '9') v = std::min<std::uint64_t>(v * 10 + static_cast<unsigned>(c - '0'), 1u << 30), next();
      return v;
    };
    skip();
    integer();
    skip();
    integer();
    skip();
    const std::uint64_t maxv = integer();
    const std::uint64_t need = pixels * (b[1] == '6' ? 3 : 1) * (maxv > 255 ? 2 : 1), have = pos <= b.size() ? b.size() - pos : 0;
    if (have < need) return fmt::format("the PNM pixel data is {} bytes, {}×{} pixels need {}", have, w, h, need);
    return "";
  }
  // TGA: no magic; stb took it for one when no other format matched. Types 1–3 are uncompressed.
  const unsigned type = at(2);
  if (b.size() >= 18 && (type == 1 || type == 2 || type == 3) && at(1) <= 1) {
    const std::uint64_t id = at(0), cmap_len = at(5) | (at(6) << 8), cmap_bits = at(7), bits = at(16);
    const std::uint64_t need = 18 + id + (at(1) ? cmap_len * ((cmap_bits + 7) / 8) : 0) + pixels * ((bits + 7) / 8);
    if (b.size() < need) return fmt::format("the TGA file is {} bytes, its header and {}×{} pixels need {}", b.size(), w, h, need);
  }
  return "";
}

}  // namespace

Image read_image(const std::string& path) {
  const std::string bytes = read_input_bytes(path, "image", kMaxImageFile, kMaxImageStream);
  if (bytes.empty()) throw Error(fmt::format(N_("{}: empty file (expected a PNG or JPEG picture)"), path));
  const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
  const int len = static_cast<int>(bytes.size());
  int w = 0, h = 0, channels = 0;
  if (!stbi_info_from_memory(data, len, &w, &h, &channels))
    throw Error(fmt::format(N_("{}: not a picture tfx can read (PNG, JPEG, BMP, GIF, TGA, PNM): {}"), path, stbi_failure_reason()));
  if (w <= 0 || h <= 0)
    throw Error(fmt::format(N_("{}: the picture has no pixels ({}×{} in its header): truncated or empty"), path, w, h));
  // stb_image reads these too, but they are no pictures a lecture gives (and its flat HDR path
  // ignores short reads): only the formats named above
  const std::string_view head(bytes.data(), std::min<std::size_t>(bytes.size(), 10));
  if (head.rfind("#?RADIANCE", 0) == 0 || head.rfind("#?RGBE", 0) == 0 || head.rfind("8BPS", 0) == 0 || head.rfind("\x53\x80\xF6\x34", 0) == 0)
    throw Error(fmt::format(N_("{}: an HDR, PSD or PIC picture; tfx reads PNG, JPEG, BMP, GIF, TGA and PNM"), path));
  if (const std::string why = imgf_short_data(bytes, w, h); !why.empty())
    throw Error(fmt::format(N_("{}: the picture is truncated: {}"), path, why));
  if (w > kMaxImageSide || h > kMaxImageSide || static_cast<long long>(w) * h > kMaxImagePixels)
    throw Error(fmt::format(N_("{}: the picture is {}×{} pixels; at most {} a side and {} megapixels are read"), path, w, h, kMaxImageSide,
                            kMaxImagePixels >> 20));
  int cw = 0, ch = 0, cn = 0;
  std::unique_ptr<stbi_uc, void (*)(void*)> pixels(stbi_load_from_memory(data, len, &cw, &ch, &cn, 4), stbi_image_free);
  if (!pixels || cw != w || ch != h)
    throw Error(fmt::format(N_("{}: the picture could not be decoded ({})"), path, pixels ? "its size changed" : stbi_failure_reason()));
  Image out;
  out.width = w, out.height = h;
  out.rgb.resize(static_cast<std::size_t>(w) * h * 3);
  const stbi_uc* p = pixels.get();
  for (std::size_t k = 0; k < static_cast<std::size_t>(w) * h; ++k) {
    const unsigned a = p[4 * k + 3];  // transparent pixels over white, as a slide shows them
    for (int c = 0; c < 3; ++c) out.rgb[3 * k + c] = static_cast<std::uint8_t>((p[4 * k + c] * a + 255 * (255 - a) + 127) / 255);
  }
  return out;
}

Image resize_image(const Image& image, int width, int height) {
  if (width <= 0 || height <= 0 || static_cast<long long>(width) * height > kMaxImagePixels)
    throw Error(fmt::format(N_("cannot resize a picture to {}×{} pixels (at most {} megapixels)"), width, height, kMaxImagePixels >> 20));
  if (image.width == width && image.height == height) return image;
  Image out;
  out.width = width, out.height = height;
  out.rgb.resize(static_cast<std::size_t>(width) * height * 3);
  if (!stbir_resize_uint8(image.rgb.data(), image.width, image.height, 0, out.rgb.data(), width, height, 0, 3))
    throw Error(N_("resizing the picture failed"));
  return out;
}

}  // namespace tfx
