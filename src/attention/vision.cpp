// ViT patch-embedding shape arithmetic (see include/tfx/vision.hpp).
#include "tfx/attention/vision.hpp"

#include <fmt/format.h>

#include <limits>

#include "tfx/core/error.hpp"

namespace tfx {

namespace {

std::int64_t checked_mul(std::int64_t a, std::int64_t b, const char* what) {
  if (a != 0 && b > std::numeric_limits<std::int64_t>::max() / a)
    throw usage_error(fmt::format("{} overflows: {} × {} is too large", what, a, b));
  return a * b;
}

}  // namespace

// grid = ⌊(side − patch)/patch⌋ + 1, tokens = grid_h·grid_w, patch_dim = C·P², params = D·patch_dim + D
PatchEmbedding patch_embedding(std::int64_t batch, std::int64_t channels, std::int64_t height, std::int64_t width,
                               std::int64_t patch, std::int64_t d_model) {
  if (batch < 1 || channels < 1 || height < 1 || width < 1 || patch < 1 || d_model < 1)
    throw usage_error("patch embedding: batch, channels, height, width, patch and d_model must all be ≥ 1");
  if (patch > height || patch > width)
    throw usage_error(fmt::format("patch {0} is larger than the image ({1}×{2}): no {0}×{0} square fits", patch, height, width), {"patch"});
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

}  // namespace tfx
