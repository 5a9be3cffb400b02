// Encoder and decoder layers (PyTorch's computation, eval mode) composed from matmul_bt, add,
// layer_norm and attend_heads; their parameters by PyTorch state_dict name; seeded parameters.
#include "tfx/attention/transformer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "tfx/core/ops.hpp"
#include "tfx/positional/rope.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {

// Rows [r0, r0 + n) of a (R, C) matrix, or elements [r0, r0 + n) of a vector.
Tensor slice_rows(const Tensor& t, std::size_t r0, std::size_t n) {
  const std::size_t C = t.rank() == 1 ? 1 : t.cols();
  std::vector<float> v(t.values().begin() + static_cast<std::ptrdiff_t>(r0 * C),
                       t.values().begin() + static_cast<std::ptrdiff_t>((r0 + n) * C));
  return Tensor::from(t.rank() == 1 ? std::vector<std::size_t>{n} : std::vector<std::size_t>{n, C}, std::move(v));
}

// b: (M) as a (N, M) matrix of N equal rows, so the bias is added with add().
Tensor repeat_row(const Tensor& b, std::size_t N) {
  Tensor r({N, b.size()});
  for (std::size_t i = 0; i < N; ++i) std::copy(b.values().begin(), b.values().end(), r.row(i).begin());
  return r;
}

LayerNormParams norm_params(const TensorMap& m, const std::string& name, std::size_t D, const std::string& where) {
  return {expect_tensor(m, name + ".weight", {D}, where), expect_tensor(m, name + ".bias", {D}, where)};
}

FeedForwardParams ffn_params(const TensorMap& m, const std::string& prefix, const LayerWidths& w, const std::string& where) {
  const std::size_t D = w.d_model, F = w.ffn;
  return {expect_tensor(m, prefix + "linear1.weight", {F, D}, where), expect_tensor(m, prefix + "linear1.bias", {F}, where),
          expect_tensor(m, prefix + "linear2.weight", {D, F}, where), expect_tensor(m, prefix + "linear2.bias", {D}, where)};
}

void store_ffn(const FeedForwardParams& p, const std::string& prefix, TensorMap& m) {
  m[prefix + "linear1.weight"] = p.w1;
  m[prefix + "linear1.bias"] = p.b1;
  m[prefix + "linear2.weight"] = p.w2;
  m[prefix + "linear2.bias"] = p.b2;
}

void store_norm(const LayerNormParams& p, const std::string& name, TensorMap& m) {
  m[name + ".weight"] = p.weight;
  m[name + ".bias"] = p.bias;
}

FeedForwardParams seeded_ffn(std::size_t D, std::size_t F, Generator& gen) {
  FeedForwardParams p;
  p.w1 = xavier_uniform(F, D, gen);
  p.b1 = Tensor({F});
  p.w2 = xavier_uniform(D, F, gen);
  p.b2 = Tensor({D});
  return p;
}

LayerNormParams unit_norm(std::size_t D) { return {Tensor({D}, 1.0f), Tensor({D})}; }

// FFN(x) = ReLU(x·W₁ᵀ + b₁)·W₂ᵀ + b₂
FeedForwardSteps feed_forward_threads(const Tensor& x, const FeedForwardParams& p, unsigned threads) {
  FeedForwardSteps s;
  s.hidden = relu(linear(x, p.w1, p.b1, threads));
  s.output = linear(s.hidden, p.w2, p.b2, threads);
  return s;
}

// One residual block around f: post-LN LayerNorm(x + f(x)), pre-LN x + f(LayerNorm(x)).
template <class F>
SublayerSteps residual_block(const Tensor& x, const LayerNormParams& norm, bool norm_first, float eps, F f) {
  SublayerSteps s;
  s.input = x;
  if (norm_first) {
    s.normed = layer_norm(x, norm.weight, norm.bias, eps);
    s.output = add(x, f(s.normed));
  } else {
    s.sum = add(x, f(x));
    s.output = layer_norm(s.sum, norm.weight, norm.bias, eps);
  }
  return s;
}

}  // namespace

LayerWidths layer_widths(const TensorMap& m, const std::string& prefix, const std::string& where) {
  const std::string in = prefix + "self_attn.in_proj_weight", l1 = prefix + "linear1.weight";
  auto it = m.find(in);
  if (it == m.end() || it->second.rank() != 2 || it->second.dim(0) != 3 * it->second.dim(1) || it->second.dim(1) == 0)
    throw Error(fmt::format(N_("{}: {} tensor '{}' of shape [3·d_model, d_model]"), where, it == m.end() ? "no" : "expected", in) +
                (it == m.end() ? "" : fmt::format(N_(", got {}"), it->second.shape_str())));
  auto jt = m.find(l1);
  if (jt == m.end() || jt->second.rank() != 2 || jt->second.dim(0) == 0)
    throw Error(fmt::format(N_("{}: {} tensor '{}' of shape [dim_feedforward, d_model]"), where, jt == m.end() ? "no" : "expected", l1) +
                (jt == m.end() ? "" : fmt::format(N_(", got {}"), jt->second.shape_str())));
  return {it->second.dim(1), jt->second.dim(0)};
}

MhaParams mha_params(const TensorMap& m, const std::string& prefix, std::size_t D, const std::string& where) {
  return {expect_tensor(m, prefix + "in_proj_weight", {3 * D, D}, where), expect_tensor(m, prefix + "in_proj_bias", {3 * D}, where),
          expect_tensor(m, prefix + "out_proj.weight", {D, D}, where), expect_tensor(m, prefix + "out_proj.bias", {D}, where)};
}

EncoderLayerParams encoder_layer_params(const TensorMap& m, const std::string& prefix, const LayerWidths& w, const std::string& where) {
  EncoderLayerParams p;
  p.self_attn = mha_params(m, prefix + "self_attn.", w.d_model, where);
  p.ffn = ffn_params(m, prefix, w, where);
  p.norm1 = norm_params(m, prefix + "norm1", w.d_model, where);
  p.norm2 = norm_params(m, prefix + "norm2", w.d_model, where);
  return p;
}

DecoderLayerParams decoder_layer_params(const TensorMap& m, const std::string& prefix, const LayerWidths& w, const std::string& where) {
  DecoderLayerParams p;
  p.self_attn = mha_params(m, prefix + "self_attn.", w.d_model, where);
  p.cross_attn = mha_params(m, prefix + "multihead_attn.", w.d_model, where);
  p.ffn = ffn_params(m, prefix, w, where);
  p.norm1 = norm_params(m, prefix + "norm1", w.d_model, where);
  p.norm2 = norm_params(m, prefix + "norm2", w.d_model, where);
  p.norm3 = norm_params(m, prefix + "norm3", w.d_model, where);
  return p;
}

std::size_t stacked_layers(const TensorMap& m) {
  std::size_t n = 0;
  while (true) {
    const std::string prefix = fmt::format("layers.{}.", n);
    auto it = m.lower_bound(prefix);
    if (it == m.end() || it->first.compare(0, prefix.size(), prefix) != 0) break;
    ++n;
  }
  return n == 0 ? 1 : n;
}

void store_params(const MhaParams& p, const std::string& prefix, TensorMap& m) {
  m[prefix + "in_proj_weight"] = p.in_proj_weight;
  m[prefix + "in_proj_bias"] = p.in_proj_bias;
  m[prefix + "out_proj.weight"] = p.out_proj_weight;
  m[prefix + "out_proj.bias"] = p.out_proj_bias;
}

void store_params(const EncoderLayerParams& p, const std::string& prefix, TensorMap& m) {
  store_params(p.self_attn, prefix + "self_attn.", m);
  store_ffn(p.ffn, prefix, m);
  store_norm(p.norm1, prefix + "norm1", m);
  store_norm(p.norm2, prefix + "norm2", m);
}

void store_params(const DecoderLayerParams& p, const std::string& prefix, TensorMap& m) {
  store_params(p.self_attn, prefix + "self_attn.", m);
  store_params(p.cross_attn, prefix + "multihead_attn.", m);
  store_ffn(p.ffn, prefix, m);
  store_norm(p.norm1, prefix + "norm1", m);
  store_norm(p.norm2, prefix + "norm2", m);
  store_norm(p.norm3, prefix + "norm3", m);
}

MhaParams seeded_mha(std::size_t D, Generator& gen) {
  MhaParams p;
  p.in_proj_weight = xavier_uniform(3 * D, D, gen);  // bound √(6 / (D + 3D)), as xavier_uniform_ on (3D, D)
  p.in_proj_bias = Tensor({3 * D});
  p.out_proj_weight = xavier_uniform(D, D, gen);
  p.out_proj_bias = Tensor({D});
  return p;
}

EncoderLayerParams seeded_encoder_layer(std::size_t D, std::size_t F, Generator& gen) {
  EncoderLayerParams p;
  p.self_attn = seeded_mha(D, gen);
  p.ffn = seeded_ffn(D, F, gen);
  p.norm1 = p.norm2 = unit_norm(D);
  return p;
}

DecoderLayerParams seeded_decoder_layer(std::size_t D, std::size_t F, Generator& gen) {
  DecoderLayerParams p;
  p.self_attn = seeded_mha(D, gen);
  p.cross_attn = seeded_mha(D, gen);
  p.ffn = seeded_ffn(D, F, gen);
  p.norm1 = p.norm2 = p.norm3 = unit_norm(D);
  return p;
}

namespace {

// Each sequence's rows rotated (forward) or rotated back (backward) by position.
void tm_rope_sequences(Tensor& x, std::size_t heads, std::size_t sequences, bool backward) {
  const std::size_t N = x.rows(), D = x.cols(), T = sequences ? N / sequences : 0;
  if (sequences == 0 || T * sequences != N || heads == 0 || D % heads != 0 || (D / heads) % 2 != 0)
    throw Error(fmt::format("RoPE: {} rows are not {} sequences of {} heads of an even width", x.shape_str(), sequences, heads));
  RopeConfig c;
  c.dim = D / heads;
  const RopeTables t = rope_tables(T, c);
  for (std::size_t b = 0; b < sequences; ++b) {
    Tensor part = slice_rows(x, b * T, T);
    if (backward)
      rope_rotate_heads_backward(part, heads, t, RopeLayout::interleaved);
    else
      rope_rotate_heads(part, heads, t, RopeLayout::interleaved);
    std::copy(part.values().begin(), part.values().end(), x.data() + b * T * D);
  }
}

}  // namespace

void rope_rotate_sequences(Tensor& x, std::size_t heads, std::size_t sequences) { tm_rope_sequences(x, heads, sequences, false); }
void rope_rotate_sequences_backward(Tensor& dy, std::size_t heads, std::size_t sequences) {
  tm_rope_sequences(dy, heads, sequences, true);
}

MultiHeadAttention torch_multi_head_attention(const Tensor& x_q, const Tensor& x_kv, const MhaParams& p, std::size_t heads,
                                              const AttentionOptions& o) {
  const std::size_t D = p.out_proj_weight.rows();
  if (x_q.cols() != D || x_kv.cols() != D)
    throw Error(fmt::format(N_("multi-head attention: inputs {} and {} need d_model = {} columns (in_proj_weight {})"), x_q.shape_str(),
                            x_kv.shape_str(), D, p.in_proj_weight.shape_str()));
  check_heads_divide(heads, D);
  // 1. the three projections: rows [0, D), [D, 2D), [2D, 3D) of in_proj
  Tensor q = linear(x_q, slice_rows(p.in_proj_weight, 0, D), slice_rows(p.in_proj_bias, 0, D));
  Tensor k = linear(x_kv, slice_rows(p.in_proj_weight, D, D), slice_rows(p.in_proj_bias, D, D));
  if (o.rope) {
    rope_rotate_sequences(q, heads, 1);
    rope_rotate_sequences(k, heads, 1);
  }
  const Tensor v = linear(x_kv, slice_rows(p.in_proj_weight, 2 * D, D), slice_rows(p.in_proj_bias, 2 * D, D));
  // 2. per-head attention and Concat·W_Oᵀ (attend_heads multiplies by its W as x·W), then + b_O
  MultiHeadAttention a = attend_heads(q, k, v, heads, transpose(p.out_proj_weight), o);
  a.output = add(a.output, repeat_row(p.out_proj_bias, a.output.rows()));
  return a;
}

MultiHeadAttention torch_multi_head_attention_batch(const Tensor& x_q, const Tensor& x_kv, const RowBatch& keys,
                                                    const MhaParams& p, std::size_t heads, const AttentionOptions& o) {
  const std::size_t B = keys.count;
  if (B <= 1) {
    AttentionOptions ob = o;
    ob.pad = keys.pad_of(0);
    return torch_multi_head_attention(x_q, x_kv, p, heads, ob);
  }
  const std::size_t D = p.out_proj_weight.rows();
  if (x_q.cols() != D || x_kv.cols() != D || x_q.rows() % B != 0 || x_kv.rows() % B != 0)
    throw Error(fmt::format("multi-head attention: inputs {} and {} are not {} sequences of d_model = {} columns", x_q.shape_str(),
                            x_kv.shape_str(), B, D));
  check_heads_divide(heads, D);
  const std::size_t T = x_q.rows() / B, S = x_kv.rows() / B;
  MultiHeadAttention a;
  // 1. the three projections over every row of the batch
  a.q = linear(x_q, slice_rows(p.in_proj_weight, 0, D), slice_rows(p.in_proj_bias, 0, D), o.threads);
  a.k = linear(x_kv, slice_rows(p.in_proj_weight, D, D), slice_rows(p.in_proj_bias, D, D), o.threads);
  a.v = linear(x_kv, slice_rows(p.in_proj_weight, 2 * D, D), slice_rows(p.in_proj_bias, 2 * D, D), o.threads);
  if (o.rope) {  // RoPE: q and k rotated by their position in their own sequence
    rope_rotate_sequences(a.q, heads, B);
    rope_rotate_sequences(a.k, heads, B);
  }
  // 2. the heads of each sequence, its padded keys masked
  a.concat = Tensor({B * T, D});
  std::vector<MultiHeadAttention> per(B);
  AttentionOptions ob = o;
  ob.threads = 1;
  for (std::size_t b = 0; b < B; ++b) {
    ob.pad = keys.pad_of(b);
    per[b] = attend_heads(slice_rows(a.q, b * T, T), slice_rows(a.k, b * S, S), slice_rows(a.v, b * S, S), heads, Tensor(), ob);
  }
  for (std::size_t b = 0; b < B; ++b) {
    std::copy(per[b].concat.values().begin(), per[b].concat.values().end(), a.concat.data() + b * T * D);
    a.max_row_sum_error = std::max(a.max_row_sum_error, per[b].max_row_sum_error);
    for (AttentionSteps& h : per[b].heads) a.heads.push_back(std::move(h));
  }
  // 3. Concat·W_Oᵀ + b_O over every row
  a.output = add(matmul(a.concat, transpose(p.out_proj_weight), o.threads), repeat_row(p.out_proj_bias, B * T));
  return a;
}

Tensor average_head_weights(const MultiHeadAttention& a) {
  Tensor sum = a.heads.at(0).weights;
  for (std::size_t h = 1; h < a.heads.size(); ++h) sum = add(sum, a.heads[h].weights);
  return scale(sum, 1.0f / static_cast<float>(a.heads.size()));
}

FeedForwardSteps feed_forward(const Tensor& x, const FeedForwardParams& p) { return feed_forward_threads(x, p, 1); }

EncoderLayerSteps encoder_layer(const Tensor& x, const EncoderLayerParams& p, std::size_t heads, bool norm_first, float eps) {
  LayerOptions o;
  o.norm_first = norm_first;
  o.eps = eps;
  return encoder_layer(x, p, heads, o, RowBatch{});
}

EncoderLayerSteps encoder_layer(const Tensor& x, const EncoderLayerParams& p, std::size_t heads, const LayerOptions& o,
                                const RowBatch& batch) {
  EncoderLayerSteps s;
  AttentionOptions self;
  self.scale = o.scale_scores;
  self.rope = o.rope;
  self.keep_steps = o.keep_steps;
  self.threads = o.threads;
  // 1. H = LayerNorm(MultiHead(X) + X)
  s.attn_block = residual_block(x, p.norm1, o.norm_first, o.eps, [&](const Tensor& in) {
    s.attention = torch_multi_head_attention_batch(in, in, batch, p.self_attn, heads, self);
    return s.attention.output;
  });
  // 2. Y = LayerNorm(FFN(H) + H)
  s.ffn_block = residual_block(s.attn_block.output, p.norm2, o.norm_first, o.eps, [&](const Tensor& in) {
    s.ffn = feed_forward_threads(in, p.ffn, o.threads);
    return s.ffn.output;
  });
  return s;
}

DecoderLayerSteps decoder_layer(const Tensor& x, const Tensor& memory, const DecoderLayerParams& p, std::size_t heads,
                                bool norm_first, float eps) {
  LayerOptions o;
  o.norm_first = norm_first;
  o.eps = eps;
  return decoder_layer(x, memory, p, heads, o, RowBatch{}, RowBatch{});
}

DecoderLayerSteps decoder_layer(const Tensor& x, const Tensor& memory, const DecoderLayerParams& p, std::size_t heads,
                                const LayerOptions& o, const RowBatch& targets, const RowBatch& sources) {
  DecoderLayerSteps s;
  AttentionOptions cross;
  cross.scale = o.scale_scores;
  cross.keep_steps = o.keep_steps;
  cross.threads = o.threads;
  AttentionOptions causal = cross;
  causal.causal = true;
  causal.rope = o.rope;  // RoPE in the self-attention only: the cross-attention compares a target and a source position
  // 1. H₁ = LayerNorm(MaskedMultiHead(X) + X): query i sees positions j ≤ i
  s.self_block = residual_block(x, p.norm1, o.norm_first, o.eps, [&](const Tensor& in) {
    s.self_attention = torch_multi_head_attention_batch(in, in, targets, p.self_attn, heads, causal);
    return s.self_attention.output;
  });
  // 2. H₂ = LayerNorm(MultiHead(H₁, Z, Z) + H₁): queries from the decoder, keys/values from memory
  s.cross_block = residual_block(s.self_block.output, p.norm2, o.norm_first, o.eps, [&](const Tensor& in) {
    s.cross_attention = torch_multi_head_attention_batch(in, memory, sources, p.cross_attn, heads, cross);
    return s.cross_attention.output;
  });
  // 3. Y = LayerNorm(FFN(H₂) + H₂)
  s.ffn_block = residual_block(s.cross_block.output, p.norm3, o.norm_first, o.eps, [&](const Tensor& in) {
    s.ffn = feed_forward_threads(in, p.ffn, o.threads);
    return s.ffn.output;
  });
  return s;
}

}  // namespace tfx
