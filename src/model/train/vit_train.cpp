// ViT's backward pass beside its forward (the family's, src/model/vit.cpp, read through its taps),
// the parameters in ViTForImageClassification's names and Adam steps over batches of pictures.
// Every backward step is an op of ops_backward.hpp; the patch embedding's Conv2d is the linear map
// over F.unfold's rows (its kernel (D, C, P, P) read as the matrix (D, C·P²)), so its backward is
// linear_backward over the same rows.
#include "tfx/model/vit_train.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>

#include "core/parallel.hpp"
#include "model/train/block_train.hpp"
#include "tfx/attention/vision.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/ops_backward.hpp"
#include "tfx/core/random.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/figure/shapes.hpp"
#include "tfx/model/family.hpp"
#include "tfx/model/gpt2_train.hpp"
#include "tfx/model/vit.hpp"

namespace tfx {

namespace {

const std::string kVitBase = "vit.";

std::string vt_layer(std::size_t i, const char* name) { return fmt::format("vit.encoder.layer.{}.{}", i, name); }

bool vt_ends(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// `t`'s values as a tensor of `shape` (the same number of values)
Tensor vt_reshaped(const Tensor& t, std::vector<std::size_t> shape) {
  Tensor out(std::move(shape));
  assert(out.size() == t.size());
  std::copy_n(t.data(), t.size(), out.data());
  return out;
}

void vt_check(const VitTrainConfig& c) {
  if (c.classes() < 2) throw Error(fmt::format(N_("train vit: {} classes; a classifier needs at least 2"), c.classes()));
  if (c.patch < 1 || c.patch > c.image || c.image % c.patch != 0)
    throw Error(fmt::format(N_("train vit: patch {} does not divide image {}"), c.patch, c.image));
  if (c.d_model < 1 || c.heads < 1 || c.d_model % c.heads != 0 || c.layers < 1)
    throw Error(fmt::format(N_("train vit: d_model {} must be a positive multiple of heads {}, with layers ≥ 1"), c.d_model, c.heads));
}

}  // namespace

std::vector<std::pair<std::string, std::vector<std::size_t>>> vit_parameter_shapes(const VitTrainConfig& c) {
  const std::size_t D = c.d_model, F = 4 * D, T = c.patches() + 1, K = c.classes(), C = c.channels, P = c.patch;
  std::vector<std::pair<std::string, std::vector<std::size_t>>> s = {
      {"vit.embeddings.cls_token", {1, 1, D}},
      {"vit.embeddings.position_embeddings", {1, T, D}},
      {"vit.embeddings.patch_embeddings.projection.weight", {D, C, P, P}},
      {"vit.embeddings.patch_embeddings.projection.bias", {D}}};
  for (std::size_t i = 0; i < c.layers; ++i) {
    const std::vector<std::pair<const char*, std::vector<std::size_t>>> block = {
        {"attention.attention.query.weight", {D, D}}, {"attention.attention.query.bias", {D}},
        {"attention.attention.key.weight", {D, D}},   {"attention.attention.key.bias", {D}},
        {"attention.attention.value.weight", {D, D}}, {"attention.attention.value.bias", {D}},
        {"attention.output.dense.weight", {D, D}},    {"attention.output.dense.bias", {D}},
        {"intermediate.dense.weight", {F, D}},        {"intermediate.dense.bias", {F}},
        {"output.dense.weight", {D, F}},              {"output.dense.bias", {D}},
        {"layernorm_before.weight", {D}},             {"layernorm_before.bias", {D}},
        {"layernorm_after.weight", {D}},              {"layernorm_after.bias", {D}}};
    for (const auto& [name, shape] : block) s.emplace_back(vt_layer(i, name), shape);
  }
  s.emplace_back("vit.layernorm.weight", std::vector<std::size_t>{D});
  s.emplace_back("vit.layernorm.bias", std::vector<std::size_t>{D});
  s.emplace_back("classifier.weight", std::vector<std::size_t>{K, D});
  s.emplace_back("classifier.bias", std::vector<std::size_t>{K});
  return s;
}

TensorMap init_vit_parameters(const VitTrainConfig& c, std::uint64_t seed) {
  vt_check(c);
  Generator gen(seed);
  TensorMap m;
  for (const auto& entry : vit_parameter_shapes(c)) {
    const std::string& name = entry.first;
    Tensor t(entry.second);
    const bool norm = name.find("layernorm") != std::string::npos;
    if (norm) {
      if (vt_ends(name, ".weight")) std::fill(t.values().begin(), t.values().end(), 1.0f);
    } else if (vt_ends(name, ".weight") || vt_ends(name, "cls_token") || vt_ends(name, "position_embeddings")) {
      // nn.init.trunc_normal_(std = initializer_range 0.02): a draw past ±2σ is drawn again
      for (float& v : t.values()) {
        double z = gen.normal();
        while (std::fabs(z) > 2.0) z = gen.normal();
        v = static_cast<float>(0.02 * z);
      }
    }
    m.emplace(name, std::move(t));
  }
  return m;
}

Checkpoint vit_checkpoint(const VitTrainConfig& c, const TensorMap& params) {
  vt_check(c);
  Checkpoint m;
  m.dir = "(training)";
  ModelConfig& k = m.config;
  k.model_type = "vit";
  k.family = find_family("vit");
  k.layers = c.layers;
  k.heads = k.kv_heads = c.heads;
  k.d_model = c.d_model;
  k.head_dim = c.d_model / c.heads;
  k.ffn = 4 * c.d_model;
  k.labels = c.labels;
  k.vocab = c.classes();
  k.image_size = c.image;
  k.patch_size = c.patch;
  k.channels = c.channels;
  k.max_positions = c.patches() + 1;
  k.eps = c.eps;
  k.activation = "gelu";
  const auto at = [&](const std::string& name, const std::vector<std::size_t>& shape) -> const Tensor& {
    const auto it = params.find(name);
    if (it == params.end()) throw Error(fmt::format(N_("train vit: parameter {} is missing"), name));
    if (it->second.shape() != shape)
      throw Error(fmt::format(N_("train vit: parameter {} has shape {}, expected {}"), name, it->second.shape_str(), shape_string(shape)));
    return it->second;
  };
  // the family's slots (a file without the classifier, named without vit.), filled from params
  for (TensorSlot& s : k.family->tensor_slots(m, m.mapped)) {
    const Tensor& t = at(kVitBase + s.name, s.shape);
    if (s.stored) {
      *s.stored = StoredMatrix(t.data(), StoredType::f32, t.size() / s.shape.back(), s.shape.back());
    } else {
      *s.slot = vt_reshaped(t, s.held.empty() ? s.shape : s.held);
    }
    m.parameters += t.size();
    if (s.layer == 0) m.block_parameters += t.size();
  }
  VitWeights& w = std::get<VitWeights>(m.weights);
  w.classifier_w = at("classifier.weight", {c.classes(), c.d_model});
  w.classifier_b = at("classifier.bias", {c.classes()});
  m.parameters += w.classifier_w.size() + w.classifier_b.size();
  m.head = OutputHead::classifier;
  return m;
}

namespace {

// What the backward pass reads of one block, for the whole batch stacked (B·T rows); the
// attention weights per picture (H, T, T).
// dW (a 2-D gradient) added into the parameter's gradient of another shape with as many values
void vt_add_flat(Tensor& into, const Tensor& dW) {
  for (std::size_t i = 0; i < dW.size(); ++i) into.data()[i] += dW.data()[i];
}

}  // namespace

VitLoss vit_train_loss(const VitTrainConfig& c, const TensorMap& params, const VitBatch& batch, TensorMap* grads, unsigned threads) {
  vt_check(c);
  if (batch.pixels.empty() || batch.pixels.size() != batch.labels.size())
    throw Error(N_("train vit: the batch's pictures and labels do not match"));
  for (std::size_t y : batch.labels)
    if (y >= c.classes()) throw Error(fmt::format(N_("train vit: label {} is outside the {} classes"), y, c.classes()));
  threads = std::max(1u, threads);
  const std::size_t B = batch.pixels.size(), T = c.patches() + 1, D = c.d_model, H = c.heads, hd = D / H, L = c.layers,
                    K = c.classes(), N = B * T;
  const float eps = static_cast<float>(c.eps);
  const Checkpoint m = vit_checkpoint(c, params);

  // ---- forward: the family's own pass per picture, its taps stacked into (B·T, ·) ----
  std::vector<block_train::BlockTaps> blocks(L);
  for (block_train::BlockTaps& s : blocks) {
    for (Tensor* t : {&s.resid_pre, &s.attn_in, &s.q, &s.k, &s.v, &s.heads, &s.resid_mid, &s.mlp_in}) *t = Tensor({N, D});
    s.mlp_pre = Tensor({N, 4 * D});
    s.mlp_act = Tensor({N, 4 * D});
  }
  Tensor cls_final({B, D}), cls_normed({B, D}), logits({B, K});
  for (std::size_t b = 0; b < B; ++b) {
    ForwardOptions o;
    o.keep_attentions = grads != nullptr;
    o.keep_hidden = false;
    if (grads)
      o.tap = [&](const char* name, std::size_t layer, const Tensor& value) {
        const std::string n(name);
        if (layer == L) {
          if (n == "resid_pre") put_block(cls_final, b, 0, block_of(value, 0, 1, 0, D));
          else if (n == "final_norm") put_block(cls_normed, b, 0, value);
          return;
        }
        if (Tensor* to = blocks[layer].slot(n)) put_block(*to, b * T, 0, value);
      };
    ForwardPass f = model_forward_image(m, batch.pixels[b], o);
    put_block(logits, b, 0, f.logits);
    if (grads)
      for (std::size_t l = 0; l < L; ++l) blocks[l].weights.push_back(std::move(f.attentions[l]));
  }

  // ---- loss: the mean cross-entropy of the labels ----
  const CrossEntropy ce = cross_entropy(logits, batch.labels, 0.0, K, grads != nullptr);
  VitLoss out;
  out.loss = ce.loss;
  for (std::size_t b = 0; b < B; ++b) {
    const float* z = logits.data() + b * K;
    if (static_cast<std::size_t>(std::max_element(z, z + K) - z) == batch.labels[b]) ++out.correct;
  }
  if (!grads) return out;

  // ---- backward: last op first, each op's backward from ops_backward.hpp ----
  grads->clear();
  for (const auto& [name, shape] : vit_parameter_shapes(c)) grads->emplace(name, Tensor(shape));
  TensorMap& g = *grads;
  // the classifier on the [CLS] row after the final layernorm
  Tensor dcls = linear_backward(cls_normed, params.at("classifier.weight"), ce.dlogits, g.at("classifier.weight"), &g.at("classifier.bias"),
                                threads);
  dcls = layer_norm_backward(cls_final, params.at("vit.layernorm.weight"), dcls, g.at("vit.layernorm.weight"), g.at("vit.layernorm.bias"),
                             eps);
  Tensor dx({N, D});
  for (std::size_t b = 0; b < B; ++b) std::copy_n(dcls.data() + b * D, D, dx.data() + b * T * D);
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  for (std::size_t l = L; l-- > 0;) {
    const block_train::BlockTaps& s = blocks[l];
    const auto P = [&](const char* name) -> const Tensor& { return params.at(vt_layer(l, name)); };
    const auto G = [&](const char* name) -> Tensor& { return g.at(vt_layer(l, name)); };
    // r + output.dense(GELU(intermediate.dense(layernorm_after(r))))
    Tensor dh = linear_backward(s.mlp_act, P("output.dense.weight"), dx, G("output.dense.weight"), &G("output.dense.bias"), threads);
    dh = gelu_backward(s.mlp_pre, dh, GeluForm::erf);
    const Tensor dn = linear_backward(s.mlp_in, P("intermediate.dense.weight"), dh, G("intermediate.dense.weight"),
                                      &G("intermediate.dense.bias"), threads);
    add_inplace(dx, layer_norm_backward(s.resid_mid, P("layernorm_after.weight"), dn, G("layernorm_after.weight"),
                                        G("layernorm_after.bias"), eps));
    // x + attention.output.dense(heads(layernorm_before(x)))
    const Tensor dz = linear_backward(s.heads, P("attention.output.dense.weight"), dx, G("attention.output.dense.weight"),
                                      &G("attention.output.dense.bias"), threads);
    const auto [dq, dk, dv] = block_train::heads_attention_backward(s, dz, B, T, H, hd, scale, threads);
    Tensor da = linear_backward(s.attn_in, P("attention.attention.query.weight"), dq, G("attention.attention.query.weight"),
                                &G("attention.attention.query.bias"), threads);
    add_inplace(da, linear_backward(s.attn_in, P("attention.attention.key.weight"), dk, G("attention.attention.key.weight"),
                                    &G("attention.attention.key.bias"), threads));
    add_inplace(da, linear_backward(s.attn_in, P("attention.attention.value.weight"), dv, G("attention.attention.value.weight"),
                                    &G("attention.attention.value.bias"), threads));
    add_inplace(dx, layer_norm_backward(s.resid_pre, P("layernorm_before.weight"), da, G("layernorm_before.weight"),
                                        G("layernorm_before.bias"), eps));
  }
  // embeddings: [CLS] and positions take their rows' gradients; the patches' rows go back
  // through the patch embedding (a linear map over the unfolded picture)
  const std::size_t NP = T - 1, CPP = c.channels * c.patch * c.patch;
  Tensor& dpos = g.at("vit.embeddings.position_embeddings");
  Tensor& dclst = g.at("vit.embeddings.cls_token");
  Tensor unfolded({B * NP, CPP}), dpatch({B * NP, D});
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t j = 0; j < D; ++j) dpos.data()[t * D + j] += dx.data()[(b * T + t) * D + j];
    for (std::size_t j = 0; j < D; ++j) dclst.data()[j] += dx.data()[b * T * D + j];
    put_block(dpatch, b * NP, 0, block_of(dx, b * T + 1, NP, 0, D));
    put_block(unfolded, b * NP, 0, unfold_patches(batch.pixels[b], c.patch));
  }
  Tensor dWp({D, CPP});
  linear_backward(unfolded, vt_reshaped(params.at("vit.embeddings.patch_embeddings.projection.weight"), {D, CPP}), dpatch, dWp,
                  &g.at("vit.embeddings.patch_embeddings.projection.bias"), threads);
  vt_add_flat(g.at("vit.embeddings.patch_embeddings.projection.weight"), dWp);
  return out;
}

VitLoss vit_train_step(const VitTrainConfig& c, TensorMap& params, AdamState& adam, const VitBatch& batch, double lr, unsigned threads) {
  TensorMap grads;
  const VitLoss loss = vit_train_loss(c, params, batch, &grads, threads);
  adam_step(adam, params, grads, lr);
  return loss;
}

std::vector<std::size_t> vit_predict(const VitTrainConfig& c, const TensorMap& params, const std::vector<Tensor>& pixels) {
  const Checkpoint m = vit_checkpoint(c, params);
  std::vector<std::size_t> out;
  for (const Tensor& p : pixels) {
    ForwardOptions o;
    o.keep_attentions = false;
    o.keep_hidden = false;
    const ForwardPass f = model_forward_image(m, p, o);
    const float* z = f.logits.data();
    out.push_back(static_cast<std::size_t>(std::max_element(z, z + c.classes()) - z));
  }
  return out;
}

Tensor vit_train_pixels(const Image& picture, const VitTrainConfig& c) {
  VitProcessor p;
  p.height = p.width = c.image;
  return vit_pixel_values(picture, p);
}

VitBatch vit_shape_batch(const VitTrainConfig& c, std::size_t count, std::uint64_t seed, std::uint64_t first_index) {
  if (c.classes() > kShapeKinds) throw Error(fmt::format(N_("train vit: {} classes; the built-in shapes are {}"), c.classes(), kShapeKinds));
  VitBatch b;
  for (std::uint64_t i = first_index; i < first_index + count; ++i) {
    const std::size_t y = static_cast<std::size_t>(i % c.classes());
    const ShapePicture p = draw_shape(kShapeChoices[y].value, static_cast<int>(c.image), seed, i);
    b.pixels.push_back(vit_train_pixels(p.image, c));
    b.labels.push_back(y);
  }
  return b;
}

std::size_t train_vit(const VitTrainConfig& c, TensorMap& params, const VitTrainOptions& o,
                      const std::function<VitBatch(std::size_t step)>& next_batch, const std::function<bool(const VitStepReport&)>& on_step) {
  AdamState adam = gpt2_adam();
  std::size_t done = 0;
  for (std::size_t step = 1; step <= o.steps; ++step) {
    const VitBatch b = next_batch(step);
    VitStepReport r;
    r.step = step;
    r.learning_rate = gpt2_learning_rate(step, o.steps, o.lr, o.warmup);
    const VitLoss l = vit_train_step(c, params, adam, b, r.learning_rate, o.threads);
    r.loss = l.loss;
    r.correct = l.correct;
    r.pictures = b.pixels.size();
    ++done;
    if (on_step && !on_step(r)) break;
  }
  return done;
}

}  // namespace tfx
