// The training pass's ops with their hand-written backward passes (train_ops.cpp), on raw row-major
// buffers: linear, layer norm, multi-head attention with causal and padding masks, the ReLU
// feed-forward; each forward keeps what its backward needs in a cache struct. Private to
// src/model/train*.cpp.
#pragma once
#include <cstddef>
#include <vector>

namespace tfx::train_ops {

using Buf = std::vector<float>;

// ---- linear: Y = X·Wᵀ + b ----

// X: (n, in), W: (out, in), b: (out) or null -> Y: (n, out)
void tr_linear(const float* x, std::size_t n, std::size_t in, const float* w, const float* b, std::size_t out, float* y,
               unsigned threads);

// Backward of Y = X·Wᵀ + b: dX (+)= dY·W, dW += dYᵀ·X, db += Σ_rows dY. dx may be null;
// accumulate_dx adds to dx instead of overwriting it.
void tr_linear_back(const float* x, std::size_t n, std::size_t in, const float* w, std::size_t out, const float* dy, float* dx,
                    bool accumulate_dx, float* dw, float* db, unsigned threads, Buf& scratch);

// ---- layer norm: y = γ ⊙ (x − μ)/√(σ² + 1e-5) + β per row ----

struct TrNorm {
  Buf xhat, rstd;  // x̂ (n, D), 1/√(σ² + eps) (n)
};

void tr_norm(const float* x, std::size_t n, std::size_t D, const float* g, const float* b, float* y, TrNorm& c);

// With h = dy ⊙ γ: dx = rstd·(h − mean(h) − x̂·mean(h ⊙ x̂)), dγ += Σ dy ⊙ x̂, dβ += Σ dy.
// dx is overwritten (it may alias dy).
void tr_norm_back(const TrNorm& c, std::size_t n, std::size_t D, const float* g, const float* dy, float* dx, float* dg,
                  float* db);

// ---- the parameters of one module, by pointer ----

struct TrMha {
  const float *w_in, *b_in, *w_out, *b_out;
  float *dw_in, *db_in, *dw_out, *db_out;
};

struct TrNormP {
  const float *g, *b;
  float *dg, *db;
};

struct TrFfn {
  const float *w1, *b1, *w2, *b2;
  float *dw1, *db1, *dw2, *db2;
};

// ---- multi-head attention (nn.MultiheadAttention, batch_first) ----

struct TrAttn {
  const float *xq, *xkv;     // inputs (B·Tq, D), (B·Tk, D)
  Buf q, k, v, p, concat;    // (B·Tq, D), (B·Tk, D) ×2, weights (B, H, Tq, Tk), heads' outputs (B·Tq, D)
};

struct TrShape {
  std::size_t B, Tq, Tk, D, H;
  bool causal;
  const std::size_t* key_ids;  // (B, Tk): a key whose id is pad is masked
  std::size_t pad;
  float scale;  // 1/√d_k or 1
};

// Q = x_q·W_Qᵀ + b_Q, K, V likewise from x_kv; per sentence and head
// P = softmax(Q_h·K_hᵀ·scale, masked), O_h = P·V_h; out = Concat(O_h)·W_Oᵀ + b_O.
void tr_attention(const TrShape& s, const TrMha& m, const float* xq, const float* xkv, float* out, TrAttn& c,
                  unsigned threads);

// Backward: dConcat from the output projection; per head dP = dO·Vᵀ, dV = Pᵀ·dO,
// dS = P ⊙ (dP − Σ_j P·dP) (softmax), dQ = dS·K·scale, dK = dSᵀ·Q·scale; then the three input
// projections. dxq and dxkv are accumulated into (they may be the same buffer: self-attention).
void tr_attention_back(const TrShape& s, const TrMha& m, const TrAttn& c, const float* dout, float* dxq, float* dxkv,
                       unsigned threads, Buf& scratch);

// ---- feed-forward: out = ReLU(x·W₁ᵀ + b₁)·W₂ᵀ + b₂ ----

struct TrFf {
  const float* x;
  Buf h;  // ReLU(x·W₁ᵀ + b₁)  (n, F)
};

void tr_ffn(const TrFfn& f, std::size_t n, std::size_t D, std::size_t F, const float* x, float* out, TrFf& c, unsigned threads);

// ReLU's gradient passes where the output was positive. dx is accumulated into.
void tr_ffn_back(const TrFfn& f, std::size_t n, std::size_t D, std::size_t F, const TrFf& c, const float* dout, float* dx,
                 unsigned threads, Buf& scratch);

}  // namespace tfx::train_ops
