// Reading and resizing pictures (tfx/io/image_file.hpp) through the system's stb_image and
// stb_image_resize.
#include "tfx/io/image_file.hpp"

#include <fmt/format.h>
#include <stb_image.h>
#include <stb_image_resize.h>

#include <memory>

#include "tfx/core/error.hpp"
#include "tfx/io/text_file.hpp"

namespace tfx {

namespace {
// a compressed picture bigger than this is not one a lecture needs (and not read whole)
constexpr std::size_t kMaxImageFile = std::size_t{256} << 20, kMaxImageStream = std::size_t{64} << 20;
}  // namespace

Image read_image(const std::string& path) {
  const std::string bytes = read_input_bytes(path, "image", kMaxImageFile, kMaxImageStream);
  if (bytes.empty()) throw Error(fmt::format("{}: empty file (expected a PNG or JPEG picture)", path));
  const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
  const int len = static_cast<int>(bytes.size());
  int w = 0, h = 0, channels = 0;
  if (!stbi_info_from_memory(data, len, &w, &h, &channels))
    throw Error(fmt::format("{}: not a picture tfx can read (PNG, JPEG, BMP, GIF, TGA, PNM): {}", path, stbi_failure_reason()));
  if (w <= 0 || h <= 0 || w > kMaxImageSide || h > kMaxImageSide || static_cast<long long>(w) * h > kMaxImagePixels)
    throw Error(fmt::format("{}: the picture is {}×{} pixels; at most {} a side and {} megapixels are read", path, w, h, kMaxImageSide,
                            kMaxImagePixels >> 20));
  int cw = 0, ch = 0, cn = 0;
  std::unique_ptr<stbi_uc, void (*)(void*)> pixels(stbi_load_from_memory(data, len, &cw, &ch, &cn, 4), stbi_image_free);
  if (!pixels || cw != w || ch != h)
    throw Error(fmt::format("{}: the picture could not be decoded ({})", path, pixels ? "its size changed" : stbi_failure_reason()));
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
    throw Error(fmt::format("cannot resize a picture to {}×{} pixels (at most {} megapixels)", width, height, kMaxImagePixels >> 20));
  if (image.width == width && image.height == height) return image;
  Image out;
  out.width = width, out.height = height;
  out.rgb.resize(static_cast<std::size_t>(width) * height * 3);
  if (!stbir_resize_uint8(image.rgb.data(), image.width, image.height, 0, out.rgb.data(), width, height, 0, 3))
    throw Error("resizing the picture failed");
  return out;
}

}  // namespace tfx
