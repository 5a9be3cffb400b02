// The training pass's ops and their backward passes (train_ops.hpp).
#include "train_ops.hpp"

#include <algorithm>
#include <cmath>

#include "core/parallel.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/gemm_view.hpp"

namespace tfx::train_ops {

void tr_linear(const float* x, std::size_t n, std::size_t in, const float* w, const float* b, std::size_t out, float* y,
               unsigned threads) {
  gemm_view(x, in, 1, w, 1, in, y, out, n, out, in, threads);
  if (b)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < out; ++j) y[i * out + j] += b[j];
}

void tr_linear_back(const float* x, std::size_t n, std::size_t in, const float* w, std::size_t out, const float* dy, float* dx,
                    bool accumulate_dx, float* dw, float* db, unsigned threads, Buf& scratch) {
  if (dx) {
    if (accumulate_dx) {
      scratch.resize(n * in);
      gemm_view(dy, out, 1, w, in, 1, scratch.data(), in, n, in, out, threads);
      for (std::size_t i = 0; i < n * in; ++i) dx[i] += scratch[i];
    } else {
      gemm_view(dy, out, 1, w, in, 1, dx, in, n, in, out, threads);
    }
  }
  scratch.resize(out * in);
  gemm_view(dy, 1, out, x, in, 1, scratch.data(), in, out, in, n, threads);
  for (std::size_t i = 0; i < out * in; ++i) dw[i] += scratch[i];
  if (db)
    for (std::size_t j = 0; j < out; ++j) {
      double s = 0;
      for (std::size_t i = 0; i < n; ++i) s += dy[i * out + j];
      db[j] += static_cast<float>(s);
    }
}

void tr_norm(const float* x, std::size_t n, std::size_t D, const float* g, const float* b, float* y, TrNorm& c) {
  c.xhat.resize(n * D);
  c.rstd.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const float* r = x + i * D;
    double mean = 0, var = 0;
    for (std::size_t j = 0; j < D; ++j) mean += r[j];
    mean /= D;
    for (std::size_t j = 0; j < D; ++j) var += (r[j] - mean) * (r[j] - mean);
    var /= D;
    const double rstd = 1.0 / std::sqrt(var + 1e-5);
    c.rstd[i] = static_cast<float>(rstd);
    for (std::size_t j = 0; j < D; ++j) {
      const float xh = static_cast<float>((r[j] - mean) * rstd);
      c.xhat[i * D + j] = xh;
      y[i * D + j] = g[j] * xh + b[j];
    }
  }
}

void tr_norm_back(const TrNorm& c, std::size_t n, std::size_t D, const float* g, const float* dy, float* dx, float* dg,
                  float* db) {
  for (std::size_t i = 0; i < n; ++i) {
    const float* xh = c.xhat.data() + i * D;
    const float* d = dy + i * D;
    double mh = 0, mhx = 0;
    for (std::size_t j = 0; j < D; ++j) {
      const double h = double(d[j]) * g[j];
      mh += h;
      mhx += h * xh[j];
      dg[j] += d[j] * xh[j];
      db[j] += d[j];
    }
    mh /= D;
    mhx /= D;
    for (std::size_t j = 0; j < D; ++j) {
      const double h = double(d[j]) * g[j];
      dx[i * D + j] = static_cast<float>(c.rstd[i] * (h - mh - xh[j] * mhx));
    }
  }
}

void tr_attention(const TrShape& s, const TrMha& m, const float* xq, const float* xkv, float* out, TrAttn& c,
                  unsigned threads) {
  const std::size_t D = s.D, nq = s.B * s.Tq, nk = s.B * s.Tk, dk = D / s.H;
  c.xq = xq;
  c.xkv = xkv;
  c.q.resize(nq * D);
  c.k.resize(nk * D);
  c.v.resize(nk * D);
  c.p.assign(s.B * s.H * s.Tq * s.Tk, 0.0f);
  c.concat.assign(nq * D, 0.0f);
  tr_linear(xq, nq, D, m.w_in, m.b_in, D, c.q.data(), threads);
  tr_linear(xkv, nk, D, m.w_in + D * D, m.b_in + D, D, c.k.data(), threads);
  tr_linear(xkv, nk, D, m.w_in + 2 * D * D, m.b_in + 2 * D, D, c.v.data(), threads);
  const unsigned T = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(s.B)));
  parallel_for_threads(T, [&](unsigned t, unsigned nt) {
    std::vector<double> row(s.Tk);
    for (std::size_t b = t; b < s.B; b += nt)
      for (std::size_t h = 0; h < s.H; ++h)
        for (std::size_t i = 0; i < s.Tq; ++i) {
          const float* q = c.q.data() + (b * s.Tq + i) * D + h * dk;
          float* p = c.p.data() + ((b * s.H + h) * s.Tq + i) * s.Tk;
          double mx = -INFINITY;
          for (std::size_t j = 0; j < s.Tk; ++j) {
            const bool masked = (s.causal && j > i) || s.key_ids[b * s.Tk + j] == s.pad;
            if (masked) {
              row[j] = -INFINITY;
              continue;
            }
            const float* k = c.k.data() + (b * s.Tk + j) * D + h * dk;
            float dot = 0;
            for (std::size_t e = 0; e < dk; ++e) dot += q[e] * k[e];
            row[j] = double(dot * s.scale);
            mx = std::max(mx, row[j]);
          }
          if (mx == -INFINITY) throw Error("train: an attention row has every key masked (an empty sentence?)");
          double sum = 0;
          for (std::size_t j = 0; j < s.Tk; ++j) {
            row[j] = row[j] == -INFINITY ? 0.0 : std::exp(row[j] - mx);
            sum += row[j];
          }
          float* o = c.concat.data() + (b * s.Tq + i) * D + h * dk;
          for (std::size_t j = 0; j < s.Tk; ++j) {
            p[j] = static_cast<float>(row[j] / sum);
            if (p[j] == 0.0f) continue;
            const float* v = c.v.data() + (b * s.Tk + j) * D + h * dk;
            for (std::size_t e = 0; e < dk; ++e) o[e] += p[j] * v[e];
          }
        }
  });
  tr_linear(c.concat.data(), nq, D, m.w_out, m.b_out, D, out, threads);
}

void tr_attention_back(const TrShape& s, const TrMha& m, const TrAttn& c, const float* dout, float* dxq, float* dxkv,
                       unsigned threads, Buf& scratch) {
  const std::size_t D = s.D, nq = s.B * s.Tq, nk = s.B * s.Tk, dk = D / s.H;
  Buf dconcat(nq * D), dq(nq * D, 0.0f), dkk(nk * D, 0.0f), dv(nk * D, 0.0f);
  tr_linear_back(c.concat.data(), nq, D, m.w_out, D, dout, dconcat.data(), false, m.dw_out, m.db_out, threads, scratch);
  const unsigned T = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(s.B)));
  parallel_for_threads(T, [&](unsigned t, unsigned nt) {
    std::vector<float> ds(s.Tk);
    for (std::size_t b = t; b < s.B; b += nt)
      for (std::size_t h = 0; h < s.H; ++h)
        for (std::size_t i = 0; i < s.Tq; ++i) {
          const float* p = c.p.data() + ((b * s.H + h) * s.Tq + i) * s.Tk;
          const float* go = dconcat.data() + (b * s.Tq + i) * D + h * dk;
          double dot_sum = 0;
          for (std::size_t j = 0; j < s.Tk; ++j) {
            if (p[j] == 0.0f) {
              ds[j] = 0;
              continue;
            }
            const float* v = c.v.data() + (b * s.Tk + j) * D + h * dk;
            float* gv = dv.data() + (b * s.Tk + j) * D + h * dk;
            float dp = 0;
            for (std::size_t e = 0; e < dk; ++e) {
              dp += go[e] * v[e];
              gv[e] += p[j] * go[e];
            }
            ds[j] = dp;
            dot_sum += double(p[j]) * dp;
          }
          const float* q = c.q.data() + (b * s.Tq + i) * D + h * dk;
          float* gq = dq.data() + (b * s.Tq + i) * D + h * dk;
          for (std::size_t j = 0; j < s.Tk; ++j) {
            if (p[j] == 0.0f) continue;
            const float g = static_cast<float>(p[j] * (ds[j] - dot_sum)) * s.scale;
            const float* k = c.k.data() + (b * s.Tk + j) * D + h * dk;
            float* gk = dkk.data() + (b * s.Tk + j) * D + h * dk;
            for (std::size_t e = 0; e < dk; ++e) {
              gq[e] += g * k[e];
              gk[e] += g * q[e];
            }
          }
        }
  });
  tr_linear_back(c.xq, nq, D, m.w_in, D, dq.data(), dxq, true, m.dw_in, m.db_in, threads, scratch);
  tr_linear_back(c.xkv, nk, D, m.w_in + D * D, D, dkk.data(), dxkv, true, m.dw_in + D * D, m.db_in + D, threads, scratch);
  tr_linear_back(c.xkv, nk, D, m.w_in + 2 * D * D, D, dv.data(), dxkv, true, m.dw_in + 2 * D * D, m.db_in + 2 * D, threads,
                 scratch);
}

void tr_ffn(const TrFfn& f, std::size_t n, std::size_t D, std::size_t F, const float* x, float* out, TrFf& c, unsigned threads) {
  c.x = x;
  c.h.resize(n * F);
  tr_linear(x, n, D, f.w1, f.b1, F, c.h.data(), threads);
  for (float& v : c.h) v = v > 0 ? v : 0.0f;
  tr_linear(c.h.data(), n, F, f.w2, f.b2, D, out, threads);
}

void tr_ffn_back(const TrFfn& f, std::size_t n, std::size_t D, std::size_t F, const TrFf& c, const float* dout, float* dx,
                 unsigned threads, Buf& scratch) {
  Buf dh(n * F);
  tr_linear_back(c.h.data(), n, F, f.w2, D, dout, dh.data(), false, f.dw2, f.db2, threads, scratch);
  for (std::size_t i = 0; i < n * F; ++i)
    if (c.h[i] <= 0) dh[i] = 0;
  tr_linear_back(c.x, n, D, f.w1, F, dh.data(), dx, true, f.dw1, f.db1, threads, scratch);
}

}  // namespace tfx::train_ops
