// What the trainers share (train.cpp, gpt2_train.cpp, vit_train.cpp): sub-matrices of stacked
// sequences, the taps a pre-LN family's trainer keeps from one block of its forward pass, and the
// backward through every sequence's heads.
#pragma once
#include <algorithm>
#include <string_view>
#include <vector>

#include "core/parallel.hpp"
#include "tfx/core/ops_backward.hpp"
#include "tfx/core/tensor.hpp"

namespace tfx {

// Rows [r0, r0 + n) and columns [c0, c0 + w) of a rank-2 tensor, as a new (n, w) tensor.
inline Tensor block_of(const Tensor& m, std::size_t r0, std::size_t n, std::size_t c0, std::size_t w) {
  Tensor out({n, w});
  for (std::size_t r = 0; r < n; ++r) std::copy_n(m.data() + (r0 + r) * m.cols() + c0, w, out.data() + r * w);
  return out;
}
// m[r0 + r, c0 + c] = part[r, c]: the inverse of block_of.
inline void put_block(Tensor& m, std::size_t r0, std::size_t c0, const Tensor& part) {
  for (std::size_t r = 0; r < part.rows(); ++r)
    std::copy_n(part.data() + r * part.cols(), part.cols(), m.data() + (r0 + r) * m.cols() + c0);
}

namespace block_train {

// One block's activations for the backward pass, all sequences' rows stacked (N = B·T rows)
struct BlockTaps {
  Tensor resid_pre, attn_in, q, k, v, heads, resid_mid, mlp_in, mlp_pre, mlp_act;
  std::vector<Tensor> weights;  // each sequence's attention weights (H, T, T)

  // The slot the forward pass's tap `name` fills (nullptr: a tap training does not keep).
  Tensor* slot(std::string_view name) {
    if (name == "resid_pre") return &resid_pre;
    if (name == "attn_in") return &attn_in;
    if (name == "q") return &q;
    if (name == "k") return &k;
    if (name == "v") return &v;
    if (name == "attn_heads") return &heads;
    if (name == "resid_mid") return &resid_mid;
    if (name == "mlp_in") return &mlp_in;
    if (name == "mlp_pre") return &mlp_pre;
    if (name == "mlp_act") return &mlp_act;
    return nullptr;
  }
};

struct HeadGrads {
  Tensor dq, dk, dv;  // (N, D), each head's columns h·hd … (h + 1)·hd
};

// The gradients of q, k and v from dz, the gradient of the heads' concatenated outputs (N, D):
// attention_backward per sequence and head, B·H of them spread over `threads`.
inline HeadGrads heads_attention_backward(const BlockTaps& s, const Tensor& dz, std::size_t B, std::size_t T, std::size_t H,
                                          std::size_t hd, float scale, unsigned threads) {
  const std::size_t N = B * T, D = H * hd;
  HeadGrads g{Tensor({N, D}), Tensor({N, D}), Tensor({N, D})};
  parallel_for_threads(std::min<unsigned>(threads, static_cast<unsigned>(B * H)), [&](unsigned t, unsigned nt) {
    for (std::size_t j = t; j < B * H; j += nt) {
      const std::size_t b = j / H, h = j % H;
      Tensor w({T, T});
      std::copy_n(s.weights[b].data() + h * T * T, T * T, w.data());
      const AttentionGrads ag = attention_backward(block_of(s.q, b * T, T, h * hd, hd), block_of(s.k, b * T, T, h * hd, hd),
                                                   block_of(s.v, b * T, T, h * hd, hd), w, block_of(dz, b * T, T, h * hd, hd), scale);
      put_block(g.dq, b * T, h * hd, ag.dq);
      put_block(g.dk, b * T, h * hd, ag.dk);
      put_block(g.dv, b * T, h * hd, ag.dv);
    }
  });
  return g;
}

}  // namespace block_train
}  // namespace tfx
