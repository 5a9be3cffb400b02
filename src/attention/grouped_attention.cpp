// grouped_query_attention (tfx/attention/attention.hpp): the heads of a checkpoint's attention,
// composed from matmul_bt → scale → mask → softmax_rows → matmul.
#include <fmt/format.h>

#include <cmath>

#include "tfx/attention/attention.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

// softmax(q_h·k_hᵀ / √hd + mask)·v_h for each head h, k/v head h / (H/KV)
GroupedAttention grouped_query_attention(const Tensor& q, const Tensor& k, const Tensor& v, std::size_t H, std::size_t KV,
                                         std::size_t hd, bool causal) {
  const std::size_t T = q.rows();
  if (H == 0 || KV == 0 || H % KV != 0 || q.cols() != H * hd || k.cols() != KV * hd || v.cols() != KV * hd || k.rows() != T ||
      v.rows() != T)
    throw Error(fmt::format(N_("grouped_query_attention: q {}, k {}, v {} do not fit {} heads, {} key/value heads of width {}"), q.shape_str(),
                            k.shape_str(), v.shape_str(), H, KV, hd));
  const std::size_t group = H / KV;
  GroupedAttention out{Tensor({T, H * hd}), Tensor({H, T, T})};
  std::vector<unsigned char> mask;
  if (causal) {  // query i sees keys 0 … i
    mask.assign(T * T, 1);
    for (std::size_t i = 0; i < T; ++i)
      for (std::size_t j = i + 1; j < T; ++j) mask[i * T + j] = 0;
  }
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  for (std::size_t h = 0; h < H; ++h) {
    // 1. the head's columns
    const std::size_t kvh = h / group;
    Tensor qh({T, hd}), kh({T, hd}), vh({T, hd});
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t j = 0; j < hd; ++j) {
        qh(t, j) = q(t, h * hd + j);
        kh(t, j) = k(t, kvh * hd + j);
        vh(t, j) = v(t, kvh * hd + j);
      }
    // 2. scores, scaled; 3. masked softmax; 4. the weighted sum of the values
    Tensor s = matmul_bt(qh, kh);
    for (float& x : s.values()) x *= scale;
    const Tensor p = softmax_rows(s, causal ? &mask : nullptr);
    const Tensor z = matmul(p, vh);
    std::copy(p.values().begin(), p.values().end(), out.weights.data() + h * T * T);
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t j = 0; j < hd; ++j) out.output(t, h * hd + j) = z(t, j);
  }
  return out;
}

}  // namespace tfx
