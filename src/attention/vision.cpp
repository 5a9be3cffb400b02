// ViT patch-embedding shape arithmetic (see include/tfx/vision.hpp).
#include "tfx/attention/vision.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {

std::int64_t checked_mul(std::int64_t a, std::int64_t b, const char* what) {
  if (a != 0 && b > std::numeric_limits<std::int64_t>::max() / a)
    throw usage_error(fmt::format(N_("{} overflows: {} × {} is too large"), what, a, b));
  return a * b;
}

}  // namespace

// grid = ⌊(side − patch)/patch⌋ + 1, tokens = grid_h·grid_w, patch_dim = C·P², params = D·patch_dim + D
PatchEmbedding patch_embedding(std::int64_t batch, std::int64_t channels, std::int64_t height, std::int64_t width,
                               std::int64_t patch, std::int64_t d_model) {
  if (batch < 1 || channels < 1 || height < 1 || width < 1 || patch < 1 || d_model < 1)
    throw usage_error(N_("patch embedding: batch, channels, height, width, patch and d_model must all be ≥ 1"));
  if (patch > height || patch > width)
    throw usage_error(fmt::format(N_("patch {0} is larger than the image ({1}×{2}): no {0}×{0} square fits"), patch, height, width), {"patch"});
  PatchEmbedding p;
  p.batch = batch, p.channels = channels, p.height = height, p.width = width, p.patch = patch, p.d_model = d_model;
  p.grid_h = (height - patch) / patch + 1;
  p.grid_w = (width - patch) / patch + 1;
  p.dropped_h = height - p.grid_h * patch;
  p.dropped_w = width - p.grid_w * patch;
  p.tokens = checked_mul(p.grid_h, p.grid_w, "tokens");
  p.patch_dim = checked_mul(channels, checked_mul(patch, patch, "patch²"), "channels·patch²");
  p.parameters = checked_mul(d_model, p.patch_dim + 1, "parameter count");
  return p;
}

Tensor unfold_patches(const Image& image, int patch) {
  if (patch <= 0 || patch > image.width || patch > image.height)
    throw Error(fmt::format(N_("patch side {} does not fit a {}×{} picture"), patch, image.width, image.height));
  const int gw = image.width / patch, gh = image.height / patch;
  const std::size_t P2 = static_cast<std::size_t>(patch) * patch;
  Tensor out({static_cast<std::size_t>(gw) * gh, 3 * P2});
  for (int gy = 0; gy < gh; ++gy)
    for (int gx = 0; gx < gw; ++gx) {
      const std::size_t n = static_cast<std::size_t>(gy) * gw + gx;
      for (int y = 0; y < patch; ++y)
        for (int x = 0; x < patch; ++x) {
          const Rgb px = image.at(gx * patch + x, gy * patch + y);
          const std::size_t k = static_cast<std::size_t>(y) * patch + x;
          out(n, k) = px.r / 255.0f;
          out(n, P2 + k) = px.g / 255.0f;
          out(n, 2 * P2 + k) = px.b / 255.0f;
        }
    }
  return out;
}

Tensor unfold_patches(const Tensor& chw, std::size_t patch) {
  if (chw.rank() != 3 || patch == 0 || patch > chw.dim(1) || patch > chw.dim(2))
    throw Error(fmt::format(N_("patch side {} does not fit pixel values {} (C, H, W)"), patch, chw.shape_str()));
  const std::size_t C = chw.dim(0), H = chw.dim(1), W = chw.dim(2), gw = W / patch, gh = H / patch, P2 = patch * patch;
  Tensor out({gw * gh, C * P2});
  for (std::size_t gy = 0; gy < gh; ++gy)
    for (std::size_t gx = 0; gx < gw; ++gx)
      for (std::size_t c = 0; c < C; ++c)
        for (std::size_t y = 0; y < patch; ++y)
          std::copy_n(chw.data() + (c * H + gy * patch + y) * W + gx * patch, patch, out.data() + (gy * gw + gx) * C * P2 + c * P2 + y * patch);
  return out;
}

Image gradient_picture(int width, int height) {
  Image im;
  im.width = width, im.height = height;
  im.rgb.resize(static_cast<std::size_t>(width) * height * 3);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const std::size_t k = (static_cast<std::size_t>(y) * width + x) * 3;
      im.rgb[k] = static_cast<std::uint8_t>(40 + 215 * x / std::max(1, width - 1));
      im.rgb[k + 1] = static_cast<std::uint8_t>(40 + 215 * y / std::max(1, height - 1));
      im.rgb[k + 2] = 150;
    }
  return im;
}

}  // namespace tfx
