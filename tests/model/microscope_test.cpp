// The microscope (tfx/model/microscope.hpp) against an independent numpy forward with the same
// interventions (tests/reference/gen_microscope_reference.py → microscope_reference.inc), on the
// tiny checkpoint of every family: the logit lens, a head ablated (zero, mean, several), every head
// ablated alone, activation patching. And the resumed passes the microscope runs equal the whole
// passes they stand for: every head of all_heads_effect = its own full forward with that ablation.
#include <cmath>
#include <algorithm>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "helpers.hpp"
#include "tfx/core/error.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/microscope.hpp"
#include "tfx/model/safetensors.hpp"

using namespace tfx;

namespace {

struct MicroscopeReference {
  const char* name;
  std::size_t single_layer, single_head;
  std::vector<std::pair<std::size_t, std::size_t>> several;
  std::size_t final_id;
  std::vector<std::size_t> lens_top_id;
  std::vector<float> lens_top_p, lens_final_p, lens_last, zero_last, mean_last, several_last, all_zero, all_mean;
  std::vector<std::size_t> corrupt;
  std::size_t clean_answer, corrupt_answer;
  std::vector<float> patch;
};

#include "reference/microscope_reference.inc"

std::string ms_dir(const std::string& name) { return std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/" + name; }

// The checkpoint's input of its reference.safetensors: the token ids, or ViT's pixel values.
struct MsInput {
  Checkpoint m;
  std::vector<std::size_t> ids;
  Tensor pixels;
  MicroscopeRun run_on(const std::vector<std::size_t>& on) const {
    if (m.config.family->image()) return [this](const ForwardOptions& o) { return model_forward_image(m, pixels, o); };
    return [this, on](const ForwardOptions& o) { return model_forward(m, on, o); };
  }
  MicroscopeRun run() const { return run_on(ids); }
};

MsInput ms_input(const std::string& name) {
  MsInput in{load_checkpoint(ms_dir(name)), {}, {}};
  const TensorMap ref = read_safetensors(ms_dir(name) + "/reference.safetensors");
  if (in.m.config.family->image())
    in.pixels = ref.at("pixel_values");
  else
    for (float v : ref.at("input_ids").values()) in.ids.push_back(static_cast<std::size_t>(v));
  return in;
}

double ms_max_diff(std::span<const float> a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(static_cast<double>(a[i]) - b[i]));
  return d;
}

}  // namespace

TEST_CASE("microscope: the logit lens = numpy's softmax(final norm + head) of every layer's stream, every family") {
  for (const MicroscopeReference* r : kMicroscopeReferences) {
    const std::string name = r->name;
    CAPTURE(name);
    const MsInput in = ms_input(name);
    const CleanRun clean = clean_run(in.run());
    const Tensor lens = logit_lens(in.m, clean);
    const std::size_t L1 = lens.dim(0), T = lens.dim(1), V = lens.dim(2);
    REQUIRE(L1 == in.m.config.layers + 1);
    REQUIRE(r->lens_top_p.size() == L1 * T);
    std::vector<float> top_p, final_p, last;
    for (std::size_t l = 0; l < L1; ++l)
      for (std::size_t t = 0; t < T; ++t) {
        const float* row = lens.data() + (l * T + t) * V;
        const std::size_t top = static_cast<std::size_t>(std::max_element(row, row + V) - row);
        CHECK(top == r->lens_top_id[l * T + t]);
        top_p.push_back(row[top]);
        final_p.push_back(row[r->final_id]);
        if (t + 1 == T) last.insert(last.end(), row, row + V);
      }
    CHECK(ms_max_diff(top_p, r->lens_top_p) <= 1e-5);
    CHECK(ms_max_diff(final_p, r->lens_final_p) <= 1e-5);
    CHECK(ms_max_diff(last, r->lens_last) <= 1e-5);
  }
}

TEST_CASE("microscope: ablated logits (one head zero or mean, several heads) = numpy's, every family") {
  for (const MicroscopeReference* r : kMicroscopeReferences) {
    const std::string name = r->name;
    CAPTURE(name);
    const MsInput in = ms_input(name);
    const CleanRun clean = clean_run(in.run());
    auto last_row = [&](const std::vector<HeadAblation>& heads) {
      const Tensor z = ablated_logits(in.run(), clean, heads);
      return std::vector<float>(z.row(z.rows() - 1).begin(), z.row(z.rows() - 1).end());
    };
    CHECK(ms_max_diff(last_row({{r->single_layer, r->single_head, HeadAblation::Mode::zero}}), r->zero_last) <= 1e-5);
    CHECK(ms_max_diff(last_row({{r->single_layer, r->single_head, HeadAblation::Mode::mean}}), r->mean_last) <= 1e-5);
    std::vector<HeadAblation> several;
    for (const auto& lh : r->several) several.push_back({lh.first, lh.second, HeadAblation::Mode::zero});
    CHECK(ms_max_diff(last_row(several), r->several_last) <= 1e-5);
  }
}

TEST_CASE("microscope: --all-heads = numpy's (L, H) and = L × H single full ablations, every family") {
  for (const MicroscopeReference* r : kMicroscopeReferences) {
    const std::string name = r->name;
    CAPTURE(name);
    const MsInput in = ms_input(name);
    const CleanRun clean = clean_run(in.run());
    const std::size_t T = clean.residuals[0].rows(), L = in.m.config.layers, H = in.m.config.heads;
    const Tensor zero = all_heads_effect(in.m, in.run(), clean, HeadAblation::Mode::zero, r->final_id, T - 1);
    const Tensor mean = all_heads_effect(in.m, in.run(), clean, HeadAblation::Mode::mean, r->final_id, T - 1);
    CHECK(ms_max_diff(zero.values(), r->all_zero) <= 1e-5);
    CHECK(ms_max_diff(mean.values(), r->all_mean) <= 1e-5);
    // each cell again as a whole pass from the embeddings (no resume)
    const double before = log_probability(answer_row(clean.logits, T - 1), r->final_id);
    double worst = 0;
    for (std::size_t l = 0; l < L; ++l)
      for (std::size_t h = 0; h < H; ++h) {
        ForwardOptions o;
        o.ablate = {{l, h, HeadAblation::Mode::zero}};
        const Tensor z = in.run()(o).logits;
        worst = std::max(worst, std::fabs(log_probability(answer_row(z, T - 1), r->final_id) - before - zero(l, h)));
      }
    CHECK(worst <= 1e-5);
  }
}

TEST_CASE("microscope: activation patching's (L, T) = numpy's; patching a run with itself changes nothing") {
  for (const MicroscopeReference* r : kMicroscopeReferences) {
    const std::string name = r->name;
    if (r->corrupt.empty()) continue;  // ViT: one picture, no patching
    CAPTURE(name);
    const MsInput in = ms_input(name);
    const CleanRun clean = clean_run(in.run());
    const CleanRun corrupt = clean_run(in.run_on(r->corrupt));
    const std::size_t T = in.ids.size();
    const Tensor e = patching_effects(in.run_on(r->corrupt), clean, corrupt, r->clean_answer, r->corrupt_answer, T - 1);
    CHECK(e.dim(0) == in.m.config.layers);
    CHECK(e.dim(1) == T);
    CHECK(ms_max_diff(e.values(), r->patch) <= 1e-5);
    // the clean run patched with itself: every cell is the clean metric
    const Tensor same = patching_effects(in.run(), clean, clean, r->clean_answer, r->corrupt_answer, T - 1);
    const std::span<const float> row = answer_row(clean.logits, T - 1);
    for (float v : same.values()) CHECK(v == doctest::Approx(row[r->clean_answer] - row[r->corrupt_answer]).epsilon(1e-5));
  }
}

TEST_CASE("microscope: a resumed pass is checked (shape, layer, no cache)") {
  const MsInput in = ms_input("gpt2");
  ResumeAt bad{1, Tensor({2, 3})};
  ForwardOptions o;
  o.resume = &bad;
  CHECK_THROWS_AS(model_forward(in.m, in.ids, o), Error);
  ResumeAt far{in.m.config.layers + 1, Tensor({in.ids.size(), in.m.config.d_model})};
  o.resume = &far;
  CHECK_THROWS_AS(model_forward(in.m, in.ids, o), Error);
}
