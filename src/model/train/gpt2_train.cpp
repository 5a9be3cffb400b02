// GPT-2's backward pass beside its forward (the family's, src/model/gpt2.cpp, read through its
// taps), the parameters in GPT2LMHeadModel's names, Adam steps and the loop over a token stream.
// Every backward step is an op of ops_backward.hpp; Conv1D's y = x·W (W (in, out)) is linear's
// y = x·(Wᵀ)ᵀ, so its backward is linear_backward on Wᵀ with the gradient transposed back once
// per step.
#include "tfx/model/gpt2_train.hpp"
#include "tfx/model/sampling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/parallel.hpp"
#include "model/train/block_train.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/ops_backward.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/family.hpp"

namespace tfx {

namespace {

const std::string kPrefix = "transformer.";

std::string g2_layer(std::size_t i, const char* name) { return fmt::format("transformer.h.{}.{}", i, name); }

}  // namespace

std::vector<std::pair<std::string, std::vector<std::size_t>>> gpt2_parameter_shapes(const Gpt2TrainConfig& c) {
  const std::size_t D = c.d_model, F = 4 * D;
  std::vector<std::pair<std::string, std::vector<std::size_t>>> s = {{"transformer.wte.weight", {c.vocab, D}},
                                                                      {"transformer.wpe.weight", {c.context, D}}};
  for (std::size_t i = 0; i < c.layers; ++i) {
    const std::vector<std::pair<const char*, std::vector<std::size_t>>> block = {
        {"ln_1.weight", {D}},        {"ln_1.bias", {D}},          {"attn.c_attn.weight", {D, 3 * D}}, {"attn.c_attn.bias", {3 * D}},
        {"attn.c_proj.weight", {D, D}}, {"attn.c_proj.bias", {D}}, {"ln_2.weight", {D}},               {"ln_2.bias", {D}},
        {"mlp.c_fc.weight", {D, F}}, {"mlp.c_fc.bias", {F}},      {"mlp.c_proj.weight", {F, D}},      {"mlp.c_proj.bias", {D}}};
    for (const auto& [name, shape] : block) s.emplace_back(g2_layer(i, name), shape);
  }
  s.emplace_back("transformer.ln_f.weight", std::vector<std::size_t>{D});
  s.emplace_back("transformer.ln_f.bias", std::vector<std::size_t>{D});
  return s;
}

TensorMap init_gpt2_parameters(const Gpt2TrainConfig& c, std::uint64_t seed) {
  Generator gen(seed);
  TensorMap m;
  const auto ends = [](const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  for (const auto& entry : gpt2_parameter_shapes(c)) {
    const std::string& name = entry.first;
    Tensor t(entry.second);
    const bool norm = name.find("ln_") != std::string::npos;
    if (norm) {
      if (ends(name, ".weight")) std::fill(t.values().begin(), t.values().end(), 1.0f);
    } else if (ends(name, ".weight")) {
      // the residual projections scaled by 1/√(2L), as GPT-2's paper and HF's _init_weights
      const double sd = ends(name, "c_proj.weight") ? 0.02 / std::sqrt(2.0 * double(c.layers)) : 0.02;
      for (float& v : t.values()) v = static_cast<float>(sd * gen.normal());
    }
    m.emplace(name, std::move(t));
  }
  return m;
}

Checkpoint gpt2_checkpoint(const Gpt2TrainConfig& c, const TensorMap& params) {
  Checkpoint m;
  m.dir = "(training)";
  ModelConfig& k = m.config;
  k.model_type = "gpt2";
  k.family = find_family("gpt2");
  k.layers = c.layers;
  k.heads = k.kv_heads = c.heads;
  k.d_model = c.d_model;
  k.head_dim = c.d_model / c.heads;
  k.ffn = 4 * c.d_model;
  k.vocab = c.vocab;
  k.max_positions = c.context;
  k.eps = 1e-5;
  k.activation = "gelu_new";
  for (TensorSlot& s : k.family->tensor_slots(m, m.mapped)) {
    const auto it = params.find(kPrefix + s.name);
    if (it == params.end()) {
      if (s.optional) continue;
      throw Error(fmt::format(N_("train gpt: parameter {} is missing"), kPrefix + s.name));
    }
    if (it->second.shape() != s.shape)
      throw Error(fmt::format(N_("train gpt: parameter {} has shape {}, expected {}"), it->first, it->second.shape_str(),
                              shape_string(s.shape)));
    const Tensor& t = it->second;
    *s.stored = StoredMatrix(t.data(), StoredType::f32, s.shape.size() == 2 ? s.shape[0] : 1, s.shape.back());
    m.parameters += t.size();
    if (s.layer == 0) m.block_parameters += t.size();
  }
  m.head = OutputHead::tied;
  m.has_lm_head = true;
  return m;
}

namespace {

// What the backward pass reads of one block, for the whole batch stacked (B·T rows); the
// attention weights per sequence (H, T, T).
void g2_check(const Gpt2TrainConfig& c, const Gpt2Batch& b) {
  if (c.vocab < 1 || c.d_model < 1 || c.heads < 1 || c.d_model % c.heads != 0 || c.layers < 1 || c.context < 1)
    throw Error(fmt::format(N_("train gpt: d_model {} must be a positive multiple of heads {}, with layers ≥ 1"), c.d_model, c.heads));
  if (b.batch == 0 || b.context == 0 || b.context > c.context || b.ids.size() != b.batch * (b.context + 1))
    throw Error(N_("train gpt: the batch's ids do not match its shape"));
  for (std::size_t id : b.ids)
    if (id >= c.vocab) throw Error(fmt::format(N_("train: token id {} is outside the vocabulary of {}"), id, c.vocab));
}

// Conv1D's backward: y = x·W + b with W (K, M) = linear's with Wt = Wᵀ (M, K); dWt += dyᵀ·x.
Tensor g2_conv1d_backward(const Tensor& x, const Tensor& Wt, const Tensor& dy, Tensor& dWt, Tensor& db, unsigned threads) {
  return linear_backward(x, Wt, dy, dWt, &db, threads);
}

}  // namespace

double gpt2_train_loss(const Gpt2TrainConfig& c, const TensorMap& params, const Gpt2Batch& batch, TensorMap* grads, unsigned threads) {
  g2_check(c, batch);
  threads = std::max(1u, threads);
  const std::size_t B = batch.batch, T = batch.context, D = c.d_model, H = c.heads, hd = D / H, L = c.layers, V = c.vocab;
  const std::size_t N = B * T;
  const Checkpoint m = gpt2_checkpoint(c, params);

  // ---- forward: the family's own pass per sequence, its taps stacked into (B·T, ·) ----
  std::vector<block_train::BlockTaps> blocks(L);
  for (block_train::BlockTaps& s : blocks) {
    for (Tensor* t : {&s.resid_pre, &s.attn_in, &s.q, &s.k, &s.v, &s.heads, &s.resid_mid, &s.mlp_in}) *t = Tensor({N, D});
    s.mlp_pre = Tensor({N, 4 * D});
    s.mlp_act = Tensor({N, 4 * D});
  }
  Tensor resid_final({N, D}), normed_final({N, D}), logits({N, V});
  std::vector<std::size_t> inputs(N), targets(N);
  for (std::size_t b = 0; b < B; ++b) {
    const std::vector<std::size_t> ids(batch.ids.begin() + b * (T + 1), batch.ids.begin() + b * (T + 1) + T);
    for (std::size_t t = 0; t < T; ++t) {
      inputs[b * T + t] = batch.ids[b * (T + 1) + t];
      targets[b * T + t] = batch.ids[b * (T + 1) + t + 1];
    }
    ForwardOptions o;
    o.keep_attentions = grads != nullptr;
    o.keep_hidden = true;
    o.tap = [&](const char* name, std::size_t layer, const Tensor& value) {
      const std::string n(name);
      Tensor* to = layer == L ? (n == "resid_pre" ? &resid_final : nullptr) : blocks[layer].slot(n);
      if (to) put_block(*to, b * T, 0, value);
    };
    ForwardPass f = m.config.family->forward(m, ids, o);
    put_block(normed_final, b * T, 0, f.hidden.back());
    put_block(logits, b * T, 0, f.logits);
    if (grads)
      for (std::size_t l = 0; l < L; ++l) blocks[l].weights.push_back(std::move(f.attentions[l]));
  }

  // ---- loss: the mean cross-entropy of every position's next token ----
  const CrossEntropy ce = cross_entropy(logits, targets, 0.0, V, grads != nullptr);
  if (!grads) return ce.loss;

  // ---- backward: last op first, each op's backward from ops_backward.hpp ----
  grads->clear();
  for (const auto& [name, shape] : gpt2_parameter_shapes(c)) grads->emplace(name, Tensor(shape));
  TensorMap& g = *grads;
  // the tied head: logits = ln_f(x)·wteᵀ
  Tensor dx = linear_backward(normed_final, params.at("transformer.wte.weight"), ce.dlogits, g.at("transformer.wte.weight"), nullptr,
                              threads);
  dx = layer_norm_backward(resid_final, params.at("transformer.ln_f.weight"), dx, g.at("transformer.ln_f.weight"),
                           g.at("transformer.ln_f.bias"));
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  for (std::size_t l = L; l-- > 0;) {
    const block_train::BlockTaps& s = blocks[l];
    const auto P = [&](const char* name) -> const Tensor& { return params.at(g2_layer(l, name)); };
    const auto G = [&](const char* name) -> Tensor& { return g.at(g2_layer(l, name)); };
    // x + mlp(ln_2(x)): c_proj, GELU (tanh), c_fc, ln_2
    Tensor dWt({D, 4 * D});
    Tensor dh = g2_conv1d_backward(s.mlp_act, transpose(P("mlp.c_proj.weight")), dx, dWt, G("mlp.c_proj.bias"), threads);
    add_inplace(G("mlp.c_proj.weight"), transpose(dWt));
    dh = gelu_backward(s.mlp_pre, dh, GeluForm::tanh);
    Tensor dWfc({4 * D, D});
    Tensor dn = g2_conv1d_backward(s.mlp_in, transpose(P("mlp.c_fc.weight")), dh, dWfc, G("mlp.c_fc.bias"), threads);
    add_inplace(G("mlp.c_fc.weight"), transpose(dWfc));
    add_inplace(dx, layer_norm_backward(s.resid_mid, P("ln_2.weight"), dn, G("ln_2.weight"), G("ln_2.bias")));
    // x + attention(ln_1(x)): c_proj, each sequence's heads, c_attn, ln_1
    Tensor dWp({D, D});
    const Tensor dz = g2_conv1d_backward(s.heads, transpose(P("attn.c_proj.weight")), dx, dWp, G("attn.c_proj.bias"), threads);
    add_inplace(G("attn.c_proj.weight"), transpose(dWp));
    const block_train::HeadGrads hg = block_train::heads_attention_backward(s, dz, B, T, H, hd, scale, threads);
    Tensor dqkv({N, 3 * D});  // c_attn's output columns: q, k, v
    put_block(dqkv, 0, 0, hg.dq);
    put_block(dqkv, 0, D, hg.dk);
    put_block(dqkv, 0, 2 * D, hg.dv);
    Tensor dWa({3 * D, D});
    dn = g2_conv1d_backward(s.attn_in, transpose(P("attn.c_attn.weight")), dqkv, dWa, G("attn.c_attn.bias"), threads);
    add_inplace(G("attn.c_attn.weight"), transpose(dWa));
    add_inplace(dx, layer_norm_backward(s.resid_pre, P("ln_1.weight"), dn, G("ln_1.weight"), G("ln_1.bias")));
  }
  // token and position embeddings
  embedding_backward(inputs, dx, g.at("transformer.wte.weight"));
  Tensor& dwpe = g.at("transformer.wpe.weight");
  for (std::size_t r = 0; r < N; ++r)
    for (std::size_t j = 0; j < D; ++j) dwpe.data()[(r % T) * D + j] += dx.data()[r * D + j];
  return ce.loss;
}

double gpt2_learning_rate(std::size_t step, std::size_t steps, double lr, std::size_t warmup) {
  if (step <= warmup && warmup > 0) return lr * double(step) / double(warmup);
  if (steps <= warmup) return lr;
  const double progress = double(step - warmup) / double(steps - warmup);
  return lr / 10 + (lr - lr / 10) * 0.5 * (1 + std::cos(std::numbers::pi * std::min(progress, 1.0)));
}

AdamState gpt2_adam() {
  AdamState a;
  a.beta1 = 0.9;
  a.beta2 = 0.999;
  a.eps = 1e-8;
  return a;
}

double gpt2_train_step(const Gpt2TrainConfig& c, TensorMap& params, AdamState& adam, const Gpt2Batch& batch, double lr,
                       unsigned threads) {
  TensorMap grads;
  const double loss = gpt2_train_loss(c, params, batch, &grads, threads);
  adam_step(adam, params, grads, lr);
  return loss;
}

Gpt2Batch gpt2_random_batch(const std::vector<std::size_t>& tokens, std::size_t batch, std::size_t context, Generator& gen) {
  if (tokens.size() < context + 1) throw Error(fmt::format(N_("train gpt: {} tokens are fewer than the context {} + 1"), tokens.size(), context));
  Gpt2Batch b;
  b.batch = batch;
  b.context = context;
  const std::size_t starts = tokens.size() - context;  // offsets 0 … n − T − 1
  for (std::size_t i = 0; i < batch; ++i) {
    const std::size_t at = std::min(starts - 1, static_cast<std::size_t>(gen.uniform01() * double(starts)));
    b.ids.insert(b.ids.end(), tokens.begin() + static_cast<std::ptrdiff_t>(at), tokens.begin() + static_cast<std::ptrdiff_t>(at + context + 1));
  }
  return b;
}

double gpt2_held_out_loss(const Gpt2TrainConfig& c, const TensorMap& params, const std::vector<std::size_t>& tokens,
                          std::size_t max_windows) {
  const std::size_t T = std::min(c.context, tokens.size() > 1 ? tokens.size() - 1 : 0);
  if (T == 0) return 0;
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t at = 0; at + T + 1 <= tokens.size() && n < max_windows; at += T, ++n) {
    Gpt2Batch b;
    b.batch = 1;
    b.context = T;
    b.ids.assign(tokens.begin() + static_cast<std::ptrdiff_t>(at), tokens.begin() + static_cast<std::ptrdiff_t>(at + T + 1));
    sum += gpt2_train_loss(c, params, b, nullptr);
  }
  return n ? sum / double(n) : 0.0;
}

namespace {
// `count` ids after `prompt` by the family's forward pass: the argmax, or the sampler's draw
std::vector<std::size_t> gpt2_decode(const Gpt2TrainConfig& c, const TensorMap& params, std::vector<std::size_t> prompt,
                                     std::size_t count, Sampler* sampler) {
  const Checkpoint m = gpt2_checkpoint(c, params);
  std::vector<std::size_t> out;
  if (prompt.empty()) return out;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t from = prompt.size() > c.context ? prompt.size() - c.context : 0;
    const std::vector<std::size_t> window(prompt.begin() + static_cast<std::ptrdiff_t>(from), prompt.end());
    ForwardOptions o;
    o.logits = LogitRows::last;
    o.keep_attentions = false;
    o.keep_hidden = false;
    const ForwardPass f = m.config.family->forward(m, window, o);
    const float* z = f.logits.data();
    const std::size_t next = sampler ? sampler->next(std::span<const float>(z, c.vocab))
                                     : static_cast<std::size_t>(std::max_element(z, z + c.vocab) - z);
    out.push_back(next);
    prompt.push_back(next);
  }
  return out;
}
}  // namespace

std::vector<std::size_t> gpt2_greedy(const Gpt2TrainConfig& c, const TensorMap& params, std::vector<std::size_t> prompt,
                                     std::size_t count) {
  return gpt2_decode(c, params, std::move(prompt), count, nullptr);
}

std::vector<std::size_t> gpt2_sample(const Gpt2TrainConfig& c, const TensorMap& params, std::vector<std::size_t> prompt,
                                     std::size_t count, double temperature, std::uint64_t seed) {
  SamplingOptions o;
  o.greedy = false;
  o.temperature = temperature;
  Sampler sampler(o, seed);
  return gpt2_decode(c, params, std::move(prompt), count, &sampler);
}

std::size_t train_gpt2(const Gpt2TrainConfig& c, TensorMap& params, const std::vector<std::size_t>& train, const Gpt2TrainOptions& o,
                       const std::function<bool(const TrainStepReport&)>& on_step) {
  Generator gen(o.seed + 1);
  AdamState adam = gpt2_adam();
  std::size_t done = 0;
  for (std::size_t step = 1; step <= o.steps; ++step) {
    const Gpt2Batch b = gpt2_random_batch(train, o.batch, c.context, gen);
    const double lr = gpt2_learning_rate(step, o.steps, o.lr, o.warmup);
    TrainStepReport r;
    r.step = step;
    r.learning_rate = lr;
    r.loss = gpt2_train_step(c, params, adam, b, lr, o.threads);
    r.tokens = o.batch * c.context;
    ++done;
    if (on_step && !on_step(r)) break;
  }
  return done;
}

}  // namespace tfx
