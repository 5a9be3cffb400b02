// ViT's weights as tfx holds them after loading (HF's ViTModel / ViTForImageClassification names
// in src/model/vit.cpp, the one place they are spelled), and ViTImageProcessor's preprocessing
// (preprocessor_config.json) that turns a picture into the pixel values the forward pass reads.
// Shapes with D = hidden_size, F = intermediate_size, C = num_channels, P = patch_size,
// N = (image_size / P)² patches, L = the number of labels (id2label); nn.Linear weights (out, in).
#pragma once
#include <array>
#include <string>
#include <vector>

#include "tfx/core/stored.hpp"
#include "tfx/core/tensor.hpp"
#include "tfx/figure/figure.hpp"

namespace tfx {

struct ModelConfig;

struct VitLayerWeights {
  Tensor ln1_w, ln1_b;                  // layernorm_before (D)
  Tensor q_w, q_b, k_w, k_b, v_w, v_b;  // attention.attention.{query,key,value} (D, D), (D)
  Tensor o_w, o_b;                      // attention.output.dense (D, D), (D)
  Tensor ln2_w, ln2_b;                  // layernorm_after (D)
  Tensor ffn_in_w, ffn_in_b;            // intermediate.dense (F, D), (F)
  Tensor ffn_out_w, ffn_out_b;          // output.dense (D, F), (D)
};

// A ViT is small beside a language model: its weights are float32 copies (Tensor), but for the
// position table, a view into the mapped file as the other families hold theirs (tfx pe sim --model).
struct VitWeights {
  Tensor cls;              // embeddings.cls_token, stored (1, 1, D), held (1, D)
  StoredMatrix position;   // embeddings.position_embeddings, stored (1, N + 1, D): a view of (N + 1) × D
  Tensor patch_w, patch_b; // patch_embeddings.projection: Conv2d weight stored (D, C, P, P), held as the
                           // GEMM matrix (D, C·P²) over F.unfold's rows; bias (D)
  std::vector<VitLayerWeights> layers;
  Tensor final_w, final_b;          // layernorm (D), after the last block
  Tensor classifier_w, classifier_b;  // classifier (L, D), (L); empty for a ViTModel
};

// preprocessor_config.json as ViTImageProcessor reads it (its defaults when the file is absent):
// resize to height × width (PIL bilinear, resample 2), rescale by rescale_factor, normalize per
// channel: (v·rescale − mean) / std.
struct VitProcessor {
  std::size_t height = 224, width = 224;
  bool do_resize = true, do_rescale = true, do_normalize = true;
  double rescale_factor = 1.0 / 255.0;
  std::array<double, 3> mean{0.5, 0.5, 0.5}, std{0.5, 0.5, 0.5};
  bool from_file = false;  // false: the folder has no preprocessor_config.json (the defaults above,
                           // with size = config.json's image_size)
};

// DIR/preprocessor_config.json for the checkpoint `c` (a ViT). Errors (tfx::Error) name the file and
// key: a size other than image_size, a resample other than bilinear, a mean/std that is not 3
// positive numbers.
VitProcessor read_vit_processor(const std::string& dir, const ModelConfig& c);

// The picture as ViTImageProcessor's pixel_values (C = 3, height, width): resized when its size
// differs (PIL's bilinear filter in 8 bits, as Image.resize(…, BILINEAR) does: a triangle of
// support max(1, in/out) source pixels, fixed-point coefficients, horizontal pass first, each
// pass rounded to 8 bits), v·rescale_factor, then (v − mean_c) / std_c. A picture of another size
// with do_resize false is a tfx::Error.
Tensor vit_pixel_values(const Image& picture, const VitProcessor& p);
// The 8-bit picture the model sees before rescaling (the resize alone), for figures.
Image vit_resized_picture(const Image& picture, const VitProcessor& p);

// Attention rollout (Abnar & Zuidema 2020) over `attentions` (layers of (H, T, T)):
//   Â_l = rownorm(½·mean_h A_l + ½·I),  R = Â_{L−1} ⋯ Â_1 Â_0,
// returned whole (T, T); row 0 is how much each token, through all layers, flows into [CLS].
Tensor attention_rollout(const std::vector<Tensor>& attentions);

}  // namespace tfx
