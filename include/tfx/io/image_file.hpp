// Pictures in (tfx patches --image FILE): whatever stb_image reads (PNG, JPEG, BMP, GIF's first
// frame, TGA, PSD, PNM) as 8-bit RGB, with its size checked before any pixel is decoded, and
// resizing as a ViT's image processor does before cutting patches (stb_image_resize).
#pragma once
#include <string>

#include "tfx/figure/figure.hpp"

namespace tfx {

// The largest picture decoded: 16384 pixels a side and 64 megapixels (a 48-bit photo of that
// size is far more than a slide needs); bigger ones are refused with their size.
inline constexpr int kMaxImageSide = 16384;
inline constexpr long long kMaxImagePixels = 64LL << 20;

// The picture at `path` as RGB (alpha dropped over white, grey expanded). Errors name the file:
// missing, unreadable, not an image stb_image knows, too big.
Image read_image(const std::string& path);

// `image` resampled to width × height (Mitchell filter down, cubic up; stb_image_resize).
Image resize_image(const Image& image, int width, int height);

}  // namespace tfx
