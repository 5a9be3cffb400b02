// The families' one forward pass (family.hpp: ForwardOptions, KvCache, taps, interventions) checked
// against properties and hand computations from the file's own tensors (read_safetensors, not the
// typed weights): ablating a head equals zeroing (or averaging) its columns of the output
// projection's input, done here with ops; patching the residual stream with the run's own values
// changes nothing, with another value changes only what comes after it; the lens at the last layer
// is the logits; a cached pass over the prompt's tail equals the whole sequence's rows.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/safetensors.hpp"

using namespace tfx;

namespace {

std::string fw_dir(const std::string& name) { return std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/" + name; }

std::vector<std::size_t> fw_ids(const std::string& name) {
  const TensorMap ref = read_safetensors(fw_dir(name) + "/reference.safetensors");
  std::vector<std::size_t> ids;
  for (float v : ref.at("input_ids").values()) ids.push_back(static_cast<std::size_t>(v));
  return ids;
}

double fw_max_diff(const Tensor& a, const Tensor& b) {
  REQUIRE(a.size() == b.size());
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(static_cast<double>(a[i]) - b[i]));
  return d;
}

// Every tap of a pass, by "name/layer".
struct Taps {
  std::map<std::string, Tensor> got;
  ForwardTap fn() {
    return [this](const char* name, std::size_t layer, const Tensor& v) { got[std::string(name) + "/" + std::to_string(layer)] = v; };
  }
  const Tensor& at(const std::string& name, std::size_t layer) const { return got.at(name + "/" + std::to_string(layer)); }
};

// The output projection of block `layer` applied by hand: z (T, H·hd) → (T, D), from the file's tensors.
Tensor fw_out_projection(const std::string& name, std::size_t layer, const Tensor& z) {
  const TensorMap w = read_safetensors(fw_dir(name) + "/model.safetensors");
  if (name.rfind("gpt2", 0) == 0) {  // Conv1D (in, out) + bias
    const std::string p = "transformer.h." + std::to_string(layer) + ".attn.c_proj.";
    Tensor y = matmul(z, w.at(p + "weight"));
    const Tensor& b = w.at(p + "bias");
    for (std::size_t t = 0; t < y.rows(); ++t)
      for (std::size_t j = 0; j < y.cols(); ++j) y(t, j) += b[j];
    return y;
  }
  if (name == "bert") {
    const std::string p = "bert.encoder.layer." + std::to_string(layer) + ".attention.output.dense.";
    return linear(z, w.at(p + "weight"), w.at(p + "bias"));
  }
  return matmul_bt(z, w.at("model.layers." + std::to_string(layer) + ".self_attn.o_proj.weight"));  // nn.Linear (out, in), no bias
}

}  // namespace

TEST_CASE("forward: ablating a head = its columns of o_proj's input zeroed (or set to their mean) by hand; nothing before it moves") {
  for (const std::string name : {"gpt2", "llama", "bert"}) {
    CAPTURE(name);
    const Checkpoint m = load_checkpoint(fw_dir(name));
    const std::vector<std::size_t> ids = fw_ids(name);
    const std::size_t layer = 1, head = 2, hd = m.config.head_dim;
    Taps plain;
    ForwardOptions o;
    o.tap = plain.fn();
    const ForwardPass f = model_forward(m, ids, o);
    for (const HeadAblation::Mode mode : {HeadAblation::Mode::zero, HeadAblation::Mode::mean}) {
      Taps cut;
      ForwardOptions a;
      a.tap = cut.fn();
      a.ablate = {{layer, head, mode}};
      const ForwardPass g = model_forward(m, ids, a);
      // by hand: the unablated heads' outputs with head 2's columns replaced, through the projection
      Tensor z = plain.at("attn_heads", layer);
      for (std::size_t j = 0; j < hd; ++j) {
        double mean = 0;
        for (std::size_t t = 0; t < z.rows(); ++t) mean += z(t, head * hd + j);
        mean /= static_cast<double>(z.rows());
        for (std::size_t t = 0; t < z.rows(); ++t) z(t, head * hd + j) = mode == HeadAblation::Mode::zero ? 0.0f : static_cast<float>(mean);
      }
      CHECK(fw_max_diff(cut.at("attn_heads", layer), z) == 0);
      CHECK(fw_max_diff(cut.at("attn_out", layer), fw_out_projection(name, layer, z)) <= 1e-5);
      // what comes before the ablation is untouched; what comes after changed
      CHECK(fw_max_diff(g.hidden[layer], f.hidden[layer]) == 0);
      CHECK(fw_max_diff(g.attentions[layer], f.attentions[layer]) == 0);
      CHECK(fw_max_diff(g.hidden.back(), f.hidden.back()) > 1e-4);
    }
  }
}

TEST_CASE("forward: patching the residual stream with the run's own values changes nothing; another value changes only what follows") {
  for (const std::string name : {"gpt2", "llama", "bert"}) {
    CAPTURE(name);
    const Checkpoint m = load_checkpoint(fw_dir(name));
    const std::vector<std::size_t> ids = fw_ids(name);
    const ForwardPass f = model_forward(m, ids);
    const std::size_t layer = 1, t = 3, D = m.config.d_model;
    ForwardOptions same;
    same.patch = {{layer, t, std::vector<float>(f.hidden[layer].data() + t * D, f.hidden[layer].data() + (t + 1) * D)}};
    const ForwardPass g = model_forward(m, ids, same);
    CHECK(fw_max_diff(g.logits, f.logits) == 0);
    // the residual of another position: hidden[layer] reports it, the logits move
    ForwardOptions other;
    other.patch = {{layer, t, std::vector<float>(f.hidden[layer].data() + 0 * D, f.hidden[layer].data() + 1 * D)}};
    const ForwardPass h = model_forward(m, ids, other);
    for (std::size_t j = 0; j < D; ++j) REQUIRE(h.hidden[layer](t, j) == f.hidden[layer](0, j));
    double before = 0, at = 0;
    for (std::size_t p = 0; p < ids.size(); ++p)
      for (std::size_t v = 0; v < f.logits.cols(); ++v) {
        const double d = std::fabs(static_cast<double>(h.logits(p, v)) - f.logits(p, v));
        if (p < t) before = std::max(before, d);
        if (p == t) at = std::max(at, d);
      }
    CHECK(at > 1e-4);
    if (m.config.decoder()) CHECK(before == 0);  // causal: earlier positions never see position t
  }
}

TEST_CASE("forward: the lens at the last layer is the logits; resid_pre taps are the hidden states") {
  for (const std::string name : {"gpt2", "gpt2_bf16", "llama", "qwen2", "bert"}) {
    CAPTURE(name);
    const Checkpoint m = load_checkpoint(fw_dir(name));
    const std::vector<std::size_t> ids = fw_ids(name);
    Taps taps;
    ForwardOptions o;
    o.tap = taps.fn();
    const ForwardPass f = model_forward(m, ids, o);
    const std::size_t L = m.config.layers;
    for (std::size_t l = 0; l < L; ++l) CHECK(fw_max_diff(taps.at("resid_pre", l), f.hidden[l]) == 0);
    // the residual entering the final norm, through the norm and the head
    CHECK(fw_max_diff(final_norm_and_head(m, taps.at("resid_pre", L)), f.logits) <= 1e-6);
    // an earlier layer reads as a distribution over the vocabulary too
    CHECK(final_norm_and_head(m, f.hidden[0]).shape() == f.logits.shape());
  }
  const Checkpoint legacy = load_checkpoint(fw_dir("bert_legacy"));  // no MLM head: no lens
  CHECK_THROWS_WITH_AS(final_norm_and_head(legacy, Tensor({1, legacy.config.d_model})), doctest::Contains("no output head"), Error);
}

TEST_CASE("forward: ViT's lens at the last layer is its [CLS] logits; a head ablation changes them") {
  const Checkpoint m = load_checkpoint(fw_dir("vit"));
  const TensorMap ref = read_safetensors(fw_dir("vit") + "/reference.safetensors");
  const Tensor& px = ref.at("pixel_values");
  Taps taps;
  ForwardOptions o;
  o.tap = taps.fn();
  const ForwardPass f = model_forward_image(m, px, o);
  const Tensor lens = final_norm_and_head(m, taps.at("resid_pre", m.config.layers));
  for (std::size_t j = 0; j < f.logits.cols(); ++j) CHECK(lens(0, j) == doctest::Approx(f.logits(0, j)).epsilon(1e-6));
  ForwardOptions a;
  a.ablate = {{0, 1, HeadAblation::Mode::zero}};
  CHECK(fw_max_diff(model_forward_image(m, px, a).logits, f.logits) > 1e-5);
}

TEST_CASE("forward: a cached pass over the sequence's tail = the whole sequence's rows (logits, attentions, taps)") {
  for (const std::string name : {"gpt2", "llama", "qwen2"}) {
    CAPTURE(name);
    const Checkpoint m = load_checkpoint(fw_dir(name));
    const std::vector<std::size_t> ids = fw_ids(name);
    const std::size_t T = ids.size(), head = 5;
    const ForwardPass whole = model_forward(m, ids);
    KvCache cache = make_kv_cache(m, T);
    ForwardOptions o;
    o.cache = &cache;
    const ForwardPass first = model_forward(m, std::vector<std::size_t>(ids.begin(), ids.begin() + head), o);
    CHECK(cache.length == head);
    const ForwardPass rest = model_forward(m, std::vector<std::size_t>(ids.begin() + head, ids.end()), o);
    CHECK(cache.length == T);
    REQUIRE(rest.logits.rows() == T - head);
    double d = 0;
    for (std::size_t t = head; t < T; ++t)
      for (std::size_t v = 0; v < rest.logits.cols(); ++v) d = std::max(d, std::fabs(static_cast<double>(rest.logits(t - head, v)) - whole.logits(t, v)));
    CHECK(d <= 1e-5);
    // attentions (H, T − head, T): the rows of the whole pass's (H, T, T)
    const Tensor& a = rest.attentions[1];
    REQUIRE(a.shape() == std::vector<std::size_t>{m.config.heads, T - head, T});
    double da = 0;
    for (std::size_t h = 0; h < m.config.heads; ++h)
      for (std::size_t t = head; t < T; ++t)
        for (std::size_t s = 0; s < T; ++s)
          da = std::max(da, std::fabs(static_cast<double>(a[(h * (T - head) + t - head) * T + s]) - whole.attentions[1][(h * T + t) * T + s]));
    CHECK(da <= 1e-6);
    // a full cache, a patch outside the pass, a head past the model: refused
    CHECK_THROWS_WITH_AS(model_forward(m, std::vector<std::size_t>{1}, o), doctest::Contains("room for"), Error);
    ForwardOptions bad;
    bad.patch = {{0, T, std::vector<float>(m.config.d_model)}};
    CHECK_THROWS_WITH_AS(model_forward(m, ids, bad), doctest::Contains("residual patch: position"), Error);
    bad.patch.clear();
    bad.ablate = {{0, m.config.heads, HeadAblation::Mode::zero}};
    CHECK_THROWS_WITH_AS(model_forward(m, ids, bad), doctest::Contains("head ablation: head"), Error);
  }
}
