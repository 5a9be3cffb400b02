// Training the lecture's Transformer: its parameters (PyTorch's names and initialisation) and
// train_loss: the translator family's own forward pass (translator_encode_batch /
// translator_decode_batch, the code translate and trace run) over a padded batch, then the
// backward pass composed from the op set's backward functions (tfx/core/ops_backward.hpp) into
// the gradients. Adam, batches and the loop are in train_loop.cpp.
#include "tfx/model/train.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "model/train/block_train.hpp"
#include "tfx/attention/schedule.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/ops_backward.hpp"
#include "tfx/core/random.hpp"
#include "tfx/positional/positional.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/model/translator.hpp"

namespace tfx {


namespace {


// Shapes of every parameter, by name, in named_parameters() order.
std::vector<std::pair<std::string, std::vector<std::size_t>>> tr_parameter_shapes(const TrainConfig& c) {
  const std::size_t V = c.vocab, D = c.d_model, F = c.ffn;
  std::vector<std::pair<std::string, std::vector<std::size_t>>> s;
  s.push_back({"embedding.weight", {V, D}});
  auto mha = [&](const std::string& pre) {
    s.push_back({pre + "in_proj_weight", {3 * D, D}});
    s.push_back({pre + "in_proj_bias", {3 * D}});
    s.push_back({pre + "out_proj.weight", {D, D}});
    s.push_back({pre + "out_proj.bias", {D}});
  };
  auto rest = [&](const std::string& pre, int norms) {
    s.push_back({pre + "linear1.weight", {F, D}});
    s.push_back({pre + "linear1.bias", {F}});
    s.push_back({pre + "linear2.weight", {D, F}});
    s.push_back({pre + "linear2.bias", {D}});
    for (int i = 1; i <= norms; ++i) {
      s.push_back({fmt::format("{}norm{}.weight", pre, i), {D}});
      s.push_back({fmt::format("{}norm{}.bias", pre, i), {D}});
    }
  };
  for (std::size_t l = 0; l < c.layers; ++l) {
    const std::string pre = fmt::format("encoder.layers.{}.", l);
    mha(pre + "self_attn.");
    rest(pre, 2);
  }
  for (std::size_t l = 0; l < c.layers; ++l) {
    const std::string pre = fmt::format("decoder.layers.{}.", l);
    mha(pre + "self_attn.");
    mha(pre + "multihead_attn.");
    rest(pre, 3);
  }
  s.push_back({"generator.weight", {V, D}});
  s.push_back({"generator.bias", {V}});
  // last, so every other parameter draws what it draws without it
  if (c.pe == PositionalEncoding::learned) s.push_back({"position_embedding.weight", {kLearnedPositions, D}});
  return s;
}

}  // namespace

double train_memory_bytes(const TrainConfig& c, std::size_t batch, std::size_t source_len, std::size_t target_len) {
  double params = 0;
  for (const auto& [name, shape] : tr_parameter_shapes(c)) {
    double n = 1;
    for (std::size_t d : shape) n *= double(d);
    params += n;
  }
  const double B = double(batch), S = double(source_len), T = double(target_len), D = double(c.d_model), F = double(c.ffn),
               H = double(c.heads), V = double(c.vocab), L = double(c.layers);
  // floats kept per token of one layer (forward values and, in the backward pass, their gradients)
  const double encoder = B * S * (2 * (12 * D + 2 * F) + 3 * H * S);
  const double decoder = B * T * (2 * (20 * D + 2 * F) + 3 * H * (T + S));
  const double logits = 3 * B * T * V;
  return 4.0 * (4 * params + L * (encoder + decoder) + logits + 4 * B * (S + T) * D);
}

namespace {

void tr_check(const TrainConfig& c, const TensorMap& params, const TrainBatch& b) {
  if (c.vocab < 1 || c.d_model < 1 || c.heads < 1 || c.d_model % c.heads != 0 || c.layers < 1 || c.ffn < 1)
    throw Error(fmt::format(N_("train: d_model {} must be a positive multiple of heads {}, with layers ≥ 1 and ffn ≥ 1"), c.d_model,
                            c.heads));
  for (const auto& [name, shape] : tr_parameter_shapes(c)) {
    const auto it = params.find(name);
    if (it == params.end()) throw Error(fmt::format(N_("train: parameter {} is missing"), name));
    if (it->second.shape() != shape)
      throw Error(fmt::format(N_("train: parameter {} has shape {}, expected {}"), name, it->second.shape_str(), shape_string(shape)));
  }
  if (b.batch == 0 || b.source_len == 0 || b.target_len == 0 || b.source.size() != b.batch * b.source_len ||
      b.target_in.size() != b.batch * b.target_len || b.target_out.size() != b.batch * b.target_len)
    throw Error(N_("train: the batch's id arrays do not match its shape"));
  for (const auto* ids : {&b.source, &b.target_in, &b.target_out})
    for (std::size_t id : *ids)
      if (id >= c.vocab) throw Error(fmt::format(N_("train: token id {} is outside the vocabulary of {}"), id, c.vocab));
}

}  // namespace

std::vector<std::string> train_parameter_names(const TrainConfig& c) {
  std::vector<std::string> names;
  for (const auto& [name, shape] : tr_parameter_shapes(c)) names.push_back(name);
  return names;
}

TensorMap init_train_parameters(const TrainConfig& c, std::uint64_t seed) {
  Generator gen(seed);
  TensorMap m;
  for (const auto& entry : tr_parameter_shapes(c)) {
    const std::string& name = entry.first;
    const std::vector<std::size_t>& shape = entry.second;
    Tensor t(shape);
    const auto ends = [&](const char* suffix) {
      const std::string s(suffix);
      return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
    };
    const bool norm = name.find(".norm") != std::string::npos;
    if (name == "embedding.weight" || name == "position_embedding.weight") {
      for (float& v : t.values()) v = static_cast<float>(gen.normal());
    } else if (norm) {
      if (ends(".weight")) std::fill(t.values().begin(), t.values().end(), 1.0f);
    } else if (ends("in_proj_weight")) {
      const double a = std::sqrt(6.0 / double(shape[0] + shape[1]));  // Xavier-uniform of (3D, D)
      for (float& v : t.values()) v = static_cast<float>(a * gen.uniform_signed());
    } else if (ends("in_proj_bias") || ends("out_proj.bias")) {
      // zeros, as nn.MultiheadAttention._reset_parameters
    } else {
      // nn.Linear: weight and bias U(±1/√fan_in); fan_in = the weight's columns
      const std::size_t in = shape.size() == 2 ? shape[1] : ends("linear2.bias") ? c.ffn : c.d_model;
      const double a = 1.0 / std::sqrt(double(in));
      for (float& v : t.values()) v = static_cast<float>(a * gen.uniform_signed());
    }
    m.emplace(name, std::move(t));
  }
  return m;
}

namespace {

Tensor tr_rows(const Tensor& t, std::size_t r0, std::size_t n) {
  if (t.rank() == 1) return Tensor::from({n}, std::vector<float>(t.data() + r0, t.data() + r0 + n));
  return block_of(t, r0, n, 0, t.cols());
}
// t[r0 + r, c0 + c] += part[r, c] (a vector: t[r0 + r] += part[r])
void tr_add_block(Tensor& t, std::size_t r0, std::size_t c0, const Tensor& part) {
  const std::size_t n = part.rank() == 1 ? part.size() : part.rows(), w = part.rank() == 1 ? 1 : part.cols();
  const std::size_t C = t.rank() == 1 ? 1 : t.cols();
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t c = 0; c < w; ++c) t.data()[(r0 + r) * C + c0 + c] += part.data()[r * w + c];
}

// How many of each sentence's last positions are padding (a pad id before a word is refused: the
// batch is padded at the end, as make_train_batch pads it).
RowBatch tr_padding(const std::vector<std::size_t>& ids, std::size_t B, std::size_t L, std::size_t pad) {
  RowBatch r;
  r.count = B;
  r.pad.assign(B, 0);
  for (std::size_t b = 0; b < B; ++b) {
    std::size_t n = 0;
    while (n < L && ids[b * L + L - 1 - n] == pad) ++n;
    if (n == L) throw Error("train: an attention row has every key masked (an empty sentence?)");
    for (std::size_t t = 0; t + n < L; ++t)
      if (ids[b * L + t] == pad) throw Error("train: a sentence of the batch has padding before its last word");
    r.pad[b] = n;
  }
  return r;
}

// The positions of B sequences of length L, stacked: 0 … L−1, B times (a learned PE's lookup).
std::vector<std::size_t> tr_positions(std::size_t B, std::size_t L) {
  std::vector<std::size_t> pos(B * L);
  for (std::size_t i = 0; i < pos.size(); ++i) pos[i] = i % L;
  return pos;
}

// The gradients of one module's parameters, by name.
struct TrGrads {
  TensorMap* g;
  Tensor& at(const std::string& name) const { return g->at(name); }
};

// Backward of a block: post-LN out = LN(x + f(x)), pre-LN out = x + f(LN(x)). f_back maps the
// gradient at f's output to the gradient at f's input.
template <class F>
Tensor tr_block_backward(const SublayerSteps& s, const LayerNormParams& norm, bool pre_ln, const Tensor& dout, const TrGrads& g,
                         const std::string& name, F f_back) {
  Tensor& dgamma = g.at(name + ".weight");
  Tensor& dbeta = g.at(name + ".bias");
  if (pre_ln) {
    // dx = dout + LN'ᵀ(f'ᵀ(dout))
    const Tensor dn = f_back(dout);
    return add(dout, layer_norm_backward(s.input, norm.weight, dn, dgamma, dbeta));
  }
  // ds = LN'ᵀ(dout); dx = ds + f'ᵀ(ds)
  const Tensor ds = layer_norm_backward(s.sum, norm.weight, dout, dgamma, dbeta);
  return add(ds, f_back(ds));
}

// What f of a block read: LN(x) for pre-LN, x for post-LN.
const Tensor& tr_f_input(const SublayerSteps& s, bool pre_ln) { return pre_ln ? s.normed : s.input; }

// Backward of FFN(x) = ReLU(x·W₁ᵀ + b₁)·W₂ᵀ + b₂
Tensor tr_ffn_backward(const FeedForwardSteps& s, const Tensor& x, const FeedForwardParams& p, const Tensor& dout, const TrGrads& g,
                       const std::string& pre, unsigned threads) {
  Tensor dh = linear_backward(s.hidden, p.w2, dout, g.at(pre + "linear2.weight"), &g.at(pre + "linear2.bias"), threads);
  dh = relu_backward(s.hidden, dh);
  return linear_backward(x, p.w1, dh, g.at(pre + "linear1.weight"), &g.at(pre + "linear1.bias"), threads);
}

// Backward of nn.MultiheadAttention over a batch of B sequences (torch_multi_head_attention_batch):
// the output projection, each sequence's heads (attention_backward), the three input
// projections. Returns the gradients at x_q and at x_kv.
std::pair<Tensor, Tensor> tr_mha_backward(const MultiHeadAttention& a, const Tensor& xq, const Tensor& xkv, const MhaParams& p,
                                          std::size_t H, std::size_t B, const Tensor& dout, const TrGrads& g,
                                          const std::string& pre, unsigned threads, double* score_grad_sq = nullptr,
                                          bool rope = false) {
  const std::size_t D = p.out_proj_weight.rows(), T = xq.rows() / B, S = xkv.rows() / B, dk = D / H;
  // 1. output = Concat·W_Oᵀ + b_O
  const Tensor dconcat = linear_backward(a.concat, p.out_proj_weight, dout, g.at(pre + "out_proj.weight"), &g.at(pre + "out_proj.bias"),
                                         threads);
  // 2. each sequence's heads
  Tensor dq({B * T, D}), dkk({B * S, D}), dv({B * S, D});
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h) {
      const AttentionSteps& st = a.heads.at(b * H + h);
      if (score_grad_sq) {
        // ∂loss/∂s at the softmax's input: ds_j = a_j (dp_j − Σ_k a_k dp_k), dp = dz · Vᵀ
        for (std::size_t t = 0; t < T; ++t) {
          const float* w = st.weights.data() + t * S;
          const float* dz = dconcat.data() + (b * T + t) * D + h * dk;
          std::vector<double> dp(S, 0.0);
          double mean = 0;
          for (std::size_t j = 0; j < S; ++j) {
            const float* v = a.v.data() + (b * S + j) * D + h * dk;
            for (std::size_t e = 0; e < dk; ++e) dp[j] += double(dz[e]) * v[e];
            mean += w[j] * dp[j];
          }
          for (std::size_t j = 0; j < S; ++j) {
            const double ds = w[j] * (dp[j] - mean);
            *score_grad_sq += ds * ds;
          }
        }
      }
      const AttentionGrads gr = attention_backward(block_of(a.q, b * T, T, h * dk, dk), block_of(a.k, b * S, S, h * dk, dk),
                                                   block_of(a.v, b * S, S, h * dk, dk), st.weights,
                                                   block_of(dconcat, b * T, T, h * dk, dk), 1.0 / st.divisor);
      tr_add_block(dq, b * T, h * dk, gr.dq);
      tr_add_block(dkk, b * S, h * dk, gr.dk);
      tr_add_block(dv, b * S, h * dk, gr.dv);
    }
  // RoPE (self-attention of a --pe rope model): q and k were rotated after the projections, so
  // their gradients are rotated back before the projections' backward
  if (rope) {
    rope_rotate_sequences_backward(dq, H, B);
    rope_rotate_sequences_backward(dkk, H, B);
  }
  // 3. Q = x_q·W_Qᵀ + b_Q, K and V from x_kv: rows [0, D), [D, 2D), [2D, 3D) of in_proj
  Tensor& dW = g.at(pre + "in_proj_weight");
  Tensor& db = g.at(pre + "in_proj_bias");
  std::pair<Tensor, Tensor> dx;
  const Tensor* grads[3] = {&dq, &dkk, &dv};
  for (std::size_t i = 0; i < 3; ++i) {
    Tensor dWi({D, D}), dbi({D});
    Tensor dxi = linear_backward(i == 0 ? xq : xkv, tr_rows(p.in_proj_weight, i * D, D), *grads[i], dWi, &dbi, threads);
    tr_add_block(dW, i * D, 0, dWi);
    tr_add_block(db, i * D, 0, dbi);
    if (i == 0)
      dx.first = std::move(dxi);
    else if (i == 1)
      dx.second = std::move(dxi);
    else
      add_inplace(dx.second, dxi);
  }
  return dx;
}

}  // namespace

double train_loss(const TrainConfig& c, const TensorMap& params, const TrainBatch& batch, TensorMap* grads, unsigned threads,
                  ForwardExtras* extras) {
  tr_check(c, params, batch);
  threads = std::max(1u, threads);
  const std::size_t B = batch.batch, S = batch.source_len, T = batch.target_len, V = c.vocab, H = c.heads;
  std::size_t count = 0;
  for (std::size_t id : batch.target_out) count += id != c.pad;
  if (count == 0) throw Error("train: the batch has no target tokens");
  // a batch of one is its sentence (greedy decoding may have chosen <pad> as a word: it is read as
  // one, as translate reads it); a larger batch is padded at the ends
  const RowBatch sources = B == 1 ? RowBatch{} : tr_padding(batch.source, B, S, c.pad);
  const RowBatch targets = B == 1 ? RowBatch{} : tr_padding(batch.target_in, B, T, c.pad);

  // ---- forward: the translator family's own (translator.hpp), over the batch ----
  TranslatorProperties props;
  props.pre_ln = c.pre_ln;
  props.pe = c.pe;
  props.scale_scores = c.scale_scores;
  const Translator m = translator_weights(params, H, props, "train");
  LayerOptions run;
  run.keep_steps = false;
  run.threads = threads;
  const EncoderPass enc = translator_encode_batch(m, batch.source, sources, run);
  const DecoderPass dec = translator_decode_batch(m, enc.memory, sources, batch.target_in, targets, run, false);

  if (extras) {
    if (extras->want_logits) extras->logits.assign(dec.logits.values().begin(), dec.logits.values().end());
    if (extras->cross_layer >= 0 && static_cast<std::size_t>(extras->cross_layer) < c.layers) {
      const MultiHeadAttention& a = dec.layers[static_cast<std::size_t>(extras->cross_layer)].cross_attention;
      extras->cross_attention.assign(B * T * S, 0.0f);
      for (std::size_t b = 0; b < B; ++b)
        for (std::size_t h = 0; h < H; ++h)
          for (std::size_t i = 0; i < T * S; ++i)
            extras->cross_attention[b * T * S + i] += a.heads[b * H + h].weights[i] / static_cast<float>(H);
    }
    if (extras->want_attention_stats) {
      // mean entropy of the encoder self-attention's rows (a sentence's padded queries left out)
      double sum = 0;
      std::size_t rows = 0;
      for (const EncoderLayerSteps& layer : enc.layers)
        for (std::size_t b = 0; b < B; ++b)
          for (std::size_t h = 0; h < H; ++h) {
            const Tensor& w = layer.attention.heads.at(b * H + h).weights;
            const std::size_t real = S - (sources.pad.empty() ? 0 : sources.pad[b]);
            for (std::size_t t = 0; t < real; ++t, ++rows)
              for (std::size_t j = 0; j < S; ++j) {
                const double a = w.data()[t * S + j];
                if (a > 0) sum -= a * std::log(a);
              }
          }
      extras->attention_entropy = rows ? sum / double(rows) : 0.0;
    }
    if (extras->logits_only && !grads) return 0.0;  // scoring: no loss (its V exponentials per token)
  }

  // ---- loss: label-smoothed cross-entropy over the non-pad targets ----
  const CrossEntropy ce = cross_entropy(dec.logits, batch.target_out, c.label_smoothing, c.pad, grads != nullptr);
  if (!grads) return ce.loss;

  // ---- backward: each op's backward from the op set (ops_backward.hpp), last op first ----
  grads->clear();
  for (const auto& [name, shape] : tr_parameter_shapes(c)) grads->emplace(name, Tensor(shape));
  const TrGrads g{grads};
  const bool pre = c.pre_ln, rope = c.pe == PositionalEncoding::rope;
  Tensor dy = linear_backward(dec.layers.back().ffn_block.output, m.generator_weight, ce.dlogits, g.at("generator.weight"),
                              &g.at("generator.bias"), threads);
  Tensor dmemory({B * S, c.d_model});
  for (std::size_t l = c.layers; l-- > 0;) {
    const std::string p = fmt::format("decoder.layers.{}.", l);
    const DecoderLayerSteps& s = dec.layers[l];
    const DecoderLayerParams& w = m.decoder[l];
    dy = tr_block_backward(s.ffn_block, w.norm3, pre, dy, g, p + "norm3", [&](const Tensor& d) {
      return tr_ffn_backward(s.ffn, tr_f_input(s.ffn_block, pre), w.ffn, d, g, p, threads);
    });
    dy = tr_block_backward(s.cross_block, w.norm2, pre, dy, g, p + "norm2", [&](const Tensor& d) {
      auto [dq, dkv] = tr_mha_backward(s.cross_attention, tr_f_input(s.cross_block, pre), enc.memory, w.cross_attn, H, B, d, g,
                                       p + "multihead_attn.", threads);
      add_inplace(dmemory, dkv);
      return dq;
    });
    dy = tr_block_backward(s.self_block, w.norm1, pre, dy, g, p + "norm1", [&](const Tensor& d) {
      const Tensor& in = tr_f_input(s.self_block, pre);
      auto [dq, dkv] = tr_mha_backward(s.self_attention, in, in, w.self_attn, H, B, d, g, p + "self_attn.", threads, nullptr, rope);
      return add(dq, dkv);
    });
  }
  // X = Embedding(ids) + PE: the sinusoidal PE is a constant; a learned PE is a lookup of rows
  // 0 … T−1, so its gradient is the embedding's scatter-add at those positions
  embedding_backward(batch.target_in, dy, g.at("embedding.weight"));
  if (c.pe == PositionalEncoding::learned) embedding_backward(tr_positions(B, T), dy, g.at("position_embedding.weight"));
  Tensor dx = dmemory;
  double score_grad_sq = 0;
  double* const score_grads = extras && extras->want_attention_stats ? &score_grad_sq : nullptr;
  for (std::size_t l = c.layers; l-- > 0;) {
    const std::string p = fmt::format("encoder.layers.{}.", l);
    const EncoderLayerSteps& s = enc.layers[l];
    const EncoderLayerParams& w = m.encoder[l];
    dx = tr_block_backward(s.ffn_block, w.norm2, pre, dx, g, p + "norm2", [&](const Tensor& d) {
      return tr_ffn_backward(s.ffn, tr_f_input(s.ffn_block, pre), w.ffn, d, g, p, threads);
    });
    dx = tr_block_backward(s.attn_block, w.norm1, pre, dx, g, p + "norm1", [&](const Tensor& d) {
      const Tensor& in = tr_f_input(s.attn_block, pre);
      auto [dq, dkv] = tr_mha_backward(s.attention, in, in, w.self_attn, H, B, d, g, p + "self_attn.", threads, score_grads, rope);
      return add(dq, dkv);
    });
  }
  if (score_grads) extras->score_gradient_norm = std::sqrt(score_grad_sq);
  embedding_backward(batch.source, dx, g.at("embedding.weight"));
  if (c.pe == PositionalEncoding::learned) embedding_backward(tr_positions(B, S), dx, g.at("position_embedding.weight"));
  (void)V;
  return ce.loss;
}

}  // namespace tfx
