// Vision embeddings from the lecture: the ViT patch embedding (an image cut into patches, each
// patch a token), as the shape arithmetic of PyTorch's Conv2d(stride = kernel) route and the
// equivalent unfold + Linear route.
#pragma once
#include <cstdint>

#include "tfx/core/tensor.hpp"
#include "tfx/figure/figure.hpp"

namespace tfx {

// Shapes of the patch embedding of a [batch, channels, height, width] image with square
// patches of side `patch` projected to d_model:
//   Conv2d(channels, d_model, kernel_size = patch, stride = patch): [B, d_model, gh, gw],
//     gh = ⌊(height − patch)/patch⌋ + 1 = ⌊height/patch⌋ (PyTorch drops leftover pixels), gw alike;
//   flatten(2): [B, d_model, gh·gw];  transpose(1, 2): [B, gh·gw, d_model] — gh·gw tokens;
//   unfold route: F.unfold(x, patch, stride = patch) = [B, channels·patch², gh·gw], then
//     Linear(channels·patch², d_model) on the transposed [B, gh·gw, channels·patch²].
// Parameters: d_model·channels·patch² weights + d_model biases (the same for both routes).
struct PatchEmbedding {
  std::int64_t batch = 0, channels = 0, height = 0, width = 0, patch = 0, d_model = 0;
  std::int64_t grid_h = 0, grid_w = 0;  // patches per column / per row
  std::int64_t tokens = 0;              // grid_h · grid_w
  std::int64_t patch_dim = 0;           // channels · patch² (numbers per patch)
  std::int64_t dropped_h = 0, dropped_w = 0;  // pixels beyond the last whole patch
  std::int64_t parameters = 0;          // d_model · patch_dim + d_model
};

// All arguments ≥ 1 and patch ≤ height, width; throws tfx::Error (usage) otherwise, or when a
// count would overflow int64.
PatchEmbedding patch_embedding(std::int64_t batch, std::int64_t channels, std::int64_t height, std::int64_t width,
                               std::int64_t patch, std::int64_t d_model);

// The patches of an RGB picture as the unfold route's rows: row n = the patch at grid row n / gw,
// column n % gw (reading order); its 3·patch² numbers in F.unfold's order — channel, then the
// row inside the patch, then the column: column c·P² + y·P + x holds pixel (gx·P + x, gy·P + y)
// of channel c, scaled to [0, 1] as torchvision's ToTensor does. (N, 3·P²), N = ⌊h/P⌋·⌊w/P⌋.
Tensor unfold_patches(const Image& image, int patch);
// The same rows of a (C, H, W) tensor of pixel values as they are (a ViT's normalized
// pixel_values): (N, C·P²), column c·P² + y·P + x. The Image version equals this over rgb / 255.
Tensor unfold_patches(const Tensor& chw, std::size_t patch);

// A stand-in picture when none is given: red grows to the right, green downwards, so every
// patch has its own colour.
Image gradient_picture(int width, int height);

}  // namespace tfx
