// The built-in teaching-vit (data/teaching_vit, scripts/train_teaching_vit.sh): opened by name as a
// folder is, it labels shapes drawn with a seed its training never used (≥ 95 %), and its [CLS]
// attention rollout falls on the shape: the rollout's mass on the patches, weighted by how much of
// each patch the shape covers, is at least twice the shape's share of the picture.
#include <cmath>

#include "helpers.hpp"
#include "tfx/figure/shapes.hpp"
#include "tfx/model/builtin_models.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/vit.hpp"

using namespace tfx;
using namespace tfx::test;

TEST_CASE("teaching-vit: labels fresh shapes ≥ 95 % and its [CLS] rollout falls on the shape") {
  const Checkpoint m = load_checkpoint(std::string(kTeachingVit));
  const VitProcessor p = read_vit_processor(std::string(kTeachingVit), m.config);
  REQUIRE(m.config.labels.size() == kShapeKinds);
  const int side = static_cast<int>(m.config.image_size), patch = static_cast<int>(m.config.patch_size);
  const std::size_t n = 600;
  std::size_t right = 0;
  double ratio_sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const ShapePicture pic = draw_shape(kShapeChoices[i % kShapeKinds].value, side, 777, i);  // training used seeds 47 and 48
    const ForwardPass f = model_forward_image(m, vit_pixel_values(pic.image, p));
    const float* z = f.logits.data();
    right += static_cast<std::size_t>(std::max_element(z, z + kShapeKinds) - z) == i % kShapeKinds;
    const Tensor r = attention_rollout(f.attentions);
    const Tensor share = mask_per_patch(pic, patch);
    double mass = 0, on_shape = 0, covered = 0;
    for (std::size_t k = 0; k < share.size(); ++k) {
      mass += r(0, k + 1);
      on_shape += r(0, k + 1) * share[k];
      covered += share[k];
    }
    ratio_sum += (on_shape / mass) / (covered / double(share.size()));
  }
  const double accuracy = double(right) / double(n), ratio = ratio_sum / double(n);
  INFO("accuracy " << accuracy << ", rollout mass on the shape / its share " << ratio);
  CHECK(accuracy >= 0.95);
  CHECK(ratio >= 2.0);
}

TEST_CASE("teaching-vit: model info says it is built in and how it was trained") {
  const Run r = run_tfx("model info teaching-vit");
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "yes: compiled into tfx (data/teaching_vit, scripts/train_teaching_vit.sh)"));
  CHECK(has(r.out, "by tfx train vit on built-in shapes"));
}
