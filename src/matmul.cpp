// matmul and matmul_bt: our own single-precision GEMM, C = A·B or C = A·Bᵀ, without BLAS.
//
// The kernel follows the BLIS/GotoBLAS layering, written in portable C++ with GCC vector
// extensions so the compiler emits wide FMAs for whatever -march the build targets:
//
//   for jc in N by NC:                      B block (KC × NC, ≤ 2 MiB) packed once, in L2/L3
//     for pc in K by KC:
//       pack B[pc:pc+KC, jc:jc+NC] into NR-wide slivers (row-major B or, for matmul_bt, Bᵀ)
//       for ic in M by MC:
//         pack A[ic:ic+MC, pc:pc+KC] into MR-tall slivers
//         for ir in MC by MR:               A sliver (MR × KC) stays in L1
//           for jr in NC by NR:             B sliver streams from L2
//             micro-kernel: C[ir:ir+MR, jr:jr+NR] (+)= A sliver · B sliver
//
// The micro-kernel keeps an MR × NR tile of C in registers (MR rows × NV vectors of VL floats)
// and does MR·NV broadcast-FMAs per step of k. Packing zero-pads the edges, so the micro-kernel
// always runs full tiles; only the store back to C is clipped. matmul_bt needs no transpose:
// packing reads Bᵀ's columns straight out of B's rows.
//
// Products with at most 4 rows or 4 columns (a vector against an embedding table, A·x) skip
// packing and compute each entry as a dot product of contiguous rows; tiny products (≤ 4096
// multiply-adds) run plain loops.
//
// Threads split C into disjoint blocks of rows (or of columns when C is wide and short); each
// worker runs the whole layering above on its block with its own packing buffers.
//
// Shape letters: a: (M, K), b: (K, N) or (N, K) for matmul_bt, c: (M, N).
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "parallel.hpp"
#include "tfx/ops.hpp"

namespace tfx {

namespace {

// ---- register tile, chosen per instruction set ------------------------------------------------
#if defined(__AVX512F__)
constexpr std::size_t kVecBytes = 64;  // 16 floats per zmm register, 32 registers
constexpr std::size_t MR = 12;
#elif defined(__AVX__)
constexpr std::size_t kVecBytes = 32;  // 8 floats per ymm register, 16 registers
constexpr std::size_t MR = 6;
#elif defined(__aarch64__)
constexpr std::size_t kVecBytes = 16;  // 4 floats per NEON register, 32 registers
constexpr std::size_t MR = 12;
#else
constexpr std::size_t kVecBytes = 16;  // SSE2 or anything else GCC can lower
constexpr std::size_t MR = 6;
#endif
using vfloat = float __attribute__((vector_size(kVecBytes)));
constexpr std::size_t VL = kVecBytes / sizeof(float);  // floats per vector
constexpr std::size_t NV = 2;                           // vectors per tile row
constexpr std::size_t NR = NV * VL;                     // tile columns

// ---- cache blocking ------------------------------------------------------------------------
constexpr std::size_t KC = 256;                     // depth of a packed panel
constexpr std::size_t MC = MR * 16;                 // rows of A packed at once
constexpr std::size_t NC = NR * ((2048 + NR - 1) / NR);  // columns of B packed at once

// Below this many multiply-adds a plain loop beats packing.
constexpr std::size_t kSmallWork = 4096;

struct AlignedFree {
  void operator()(float* p) const { ::operator delete[](p, std::align_val_t{64}); }
};
using Buffer = std::unique_ptr<float[], AlignedFree>;
Buffer aligned_buffer(std::size_t n) {
  return Buffer(static_cast<float*>(::operator new[](n * sizeof(float), std::align_val_t{64})));
}

// A strided view of one operand: element (r, c) is p[r * rs + c * cs].
struct View {
  const float* p;
  std::size_t rs, cs;
  float at(std::size_t r, std::size_t c) const { return p[r * rs + c * cs]; }
};

// Packs a (mc × kc) block of A, rows i0.., depth p0.., into MR-tall slivers:
// ap[s·MR·kc + k·MR + r] = A(i0 + s·MR + r, p0 + k), zero past row mc.
void pack_a(View a, std::size_t i0, std::size_t mc, std::size_t p0, std::size_t kc, float* ap) {
  for (std::size_t s = 0; s < mc; s += MR, ap += MR * kc) {
    const std::size_t rows = std::min(MR, mc - s);
    for (std::size_t r = 0; r < rows; ++r) {
      const float* src = a.p + (i0 + s + r) * a.rs + p0 * a.cs;
      for (std::size_t k = 0; k < kc; ++k) ap[k * MR + r] = src[k * a.cs];
    }
    for (std::size_t r = rows; r < MR; ++r)
      for (std::size_t k = 0; k < kc; ++k) ap[k * MR + r] = 0.0f;
  }
}

// Packs a (kc × nc) block of B, depth p0.., columns j0.., into NR-wide slivers:
// bp[s·NR·kc + k·NR + c] = B(p0 + k, j0 + s·NR + c), zero past column nc. B(k, j) is read through
// the view, so the same code packs a row-major B (cs = 1) and Bᵀ out of a row-major b (rs = 1).
void pack_b(View b, std::size_t p0, std::size_t kc, std::size_t j0, std::size_t nc, float* bp) {
  for (std::size_t s = 0; s < nc; s += NR, bp += NR * kc) {
    const std::size_t cols = std::min(NR, nc - s);
    if (b.cs == 1) {  // rows of B are contiguous: copy NR floats per k
      for (std::size_t k = 0; k < kc; ++k) {
        const float* src = b.p + (p0 + k) * b.rs + j0 + s;
        float* dst = bp + k * NR;
        std::size_t c = 0;
        for (; c < cols; ++c) dst[c] = src[c];
        for (; c < NR; ++c) dst[c] = 0.0f;
      }
    } else {  // columns of B are contiguous (matmul_bt): transpose 16-deep strips, so each
              // strip reads one cache line per column and writes a 16 × NR block that stays in L1
      for (std::size_t k0 = 0; k0 < kc; k0 += 16) {
        const std::size_t k1 = std::min(kc, k0 + 16);
        for (std::size_t c = 0; c < cols; ++c) {
          const float* src = b.p + (p0 + k0) * b.rs + (j0 + s + c) * b.cs;
          for (std::size_t k = k0; k < k1; ++k) bp[k * NR + c] = src[(k - k0) * b.rs];
        }
        for (std::size_t k = k0; k < k1; ++k)
          for (std::size_t c = cols; c < NR; ++c) bp[k * NR + c] = 0.0f;
      }
    }
  }
}

// C tile (mr × nr, row stride ldc) = (accumulate ? C : 0) + Σ_k ap[k, :]ᵀ · bp[k, :]
// ap: one packed A sliver (kc × MR), bp: one packed B sliver (kc × NR), both 64-byte aligned.
// The MR × NV accumulators are named array elements with constant indices after unrolling, so
// GCC keeps them in registers; each k step is NV vector loads, MR broadcasts and MR·NV FMAs.
inline void micro_kernel(std::size_t kc, const float* __restrict ap, const float* __restrict bp, float* c,
                         std::size_t ldc, std::size_t mr, std::size_t nr, bool accumulate) {
  vfloat acc[MR][NV];
#pragma GCC unroll 16
  for (std::size_t r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (std::size_t v = 0; v < NV; ++v) acc[r][v] = vfloat{};

  for (std::size_t k = 0; k < kc; ++k) {
    vfloat b[NV];
#pragma GCC unroll 4
    for (std::size_t v = 0; v < NV; ++v) b[v] = *reinterpret_cast<const vfloat*>(bp + k * NR + v * VL);
#pragma GCC unroll 16
    for (std::size_t r = 0; r < MR; ++r) {
      const float a = ap[k * MR + r];
#pragma GCC unroll 4
      for (std::size_t v = 0; v < NV; ++v) acc[r][v] += a * b[v];
    }
  }

  if (mr == MR && nr == NR) {  // full tile: vector read-modify-write of C (unaligned)
#pragma GCC unroll 16
    for (std::size_t r = 0; r < MR; ++r)
#pragma GCC unroll 4
      for (std::size_t v = 0; v < NV; ++v) {
        float* dst = c + r * ldc + v * VL;
        vfloat out = acc[r][v];
        if (accumulate) {
          vfloat old;
          std::memcpy(&old, dst, sizeof old);
          out += old;
        }
        std::memcpy(dst, &out, sizeof out);
      }
    return;
  }
  // edge tile: spill the accumulators and copy the part inside C
  alignas(64) float tile[MR][NR];
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t v = 0; v < NV; ++v) std::memcpy(&tile[r][v * VL], &acc[r][v], sizeof(vfloat));
  for (std::size_t r = 0; r < mr; ++r)
    for (std::size_t j = 0; j < nr; ++j) c[r * ldc + j] = (accumulate ? c[r * ldc + j] : 0.0f) + tile[r][j];
}

// C[0:m, 0:n] = A[0:m, 0:k] · B[0:k, 0:n], C row-major with stride ldc. One thread.
void gemm_blocked(View a, View b, float* c, std::size_t ldc, std::size_t m, std::size_t n, std::size_t k) {
  const std::size_t kc_max = std::min(KC, k);
  const std::size_t mc_max = std::min(MC, (m + MR - 1) / MR * MR);
  const std::size_t nc_max = std::min(NC, (n + NR - 1) / NR * NR);
  Buffer ap = aligned_buffer(mc_max * kc_max);
  Buffer bp = aligned_buffer(nc_max * kc_max);
  for (std::size_t jc = 0; jc < n; jc += NC) {
    const std::size_t nc = std::min(NC, n - jc);
    for (std::size_t pc = 0; pc < k; pc += KC) {
      const std::size_t kc = std::min(KC, k - pc);
      const bool accumulate = pc > 0;  // the first panel overwrites C, so C need not be zeroed
      pack_b(b, pc, kc, jc, nc, bp.get());
      for (std::size_t ic = 0; ic < m; ic += MC) {
        const std::size_t mc = std::min(MC, m - ic);
        pack_a(a, ic, mc, pc, kc, ap.get());
        for (std::size_t ir = 0; ir < mc; ir += MR) {
          const float* as = ap.get() + ir * kc;
          for (std::size_t jr = 0; jr < nc; jr += NR)
            micro_kernel(kc, as, bp.get() + jr * kc, c + (ic + ir) * ldc + jc + jr, ldc, std::min(MR, mc - ir),
                         std::min(NR, nc - jr), accumulate);
        }
      }
    }
  }
}

// The same product by plain loops (i-k-j, inner loop vectorizes); for tiny products.
void gemm_small(View a, View b, float* c, std::size_t ldc, std::size_t m, std::size_t n, std::size_t k) {
  for (std::size_t i = 0; i < m; ++i) {
    float* ci = c + i * ldc;
    for (std::size_t j = 0; j < n; ++j) ci[j] = 0.0f;
    for (std::size_t p = 0; p < k; ++p) {
      const float aip = a.at(i, p);
      for (std::size_t j = 0; j < n; ++j) ci[j] += aip * b.at(p, j);
    }
  }
}

// Σ_p x[p]·y[p] over contiguous x, y (k floats): four vector accumulators (independent FMA
// chains), then a scalar tail.
float dot_contiguous(const float* x, const float* y, std::size_t k) {
  vfloat acc[4] = {};
  std::size_t p = 0;
  for (; p + 4 * VL <= k; p += 4 * VL)
#pragma GCC unroll 4
    for (std::size_t v = 0; v < 4; ++v) {
      vfloat xv, yv;
      std::memcpy(&xv, x + p + v * VL, sizeof xv);
      std::memcpy(&yv, y + p + v * VL, sizeof yv);
      acc[v] += xv * yv;
    }
  for (; p + VL <= k; p += VL) {
    vfloat xv, yv;
    std::memcpy(&xv, x + p, sizeof xv);
    std::memcpy(&yv, y + p, sizeof yv);
    acc[0] += xv * yv;
  }
  const vfloat sum = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  float r = 0.0f;
  for (std::size_t l = 0; l < VL; ++l) r += sum[l];
  for (; p < k; ++p) r += x[p] * y[p];
  return r;
}

// Products with at most kSkinny rows or columns (a vector against a table, A·x), where a
// register tile would be mostly padding and packing would copy the whole big operand for one
// pass over it. No packing:
//   - Bᵀ's rows contiguous (matmul_bt) or B thin (copied out as Bᵀ, n·k floats): every entry is
//     one dot product of a row of A with a row of Bᵀ;
//   - B row-major and wide, A thin: C's rows are Σ_p a[i, p]·B[p, :], B streamed once, in
//     column strips of C that stay in L1.
constexpr std::size_t kSkinny = 4;
void gemm_skinny(View a, View b, float* c, std::size_t ldc, std::size_t m, std::size_t n, std::size_t k) {
  if (b.rs == 1 || n <= kSkinny) {
    std::vector<float> copy;
    const float* bt = b.p;  // row j of Bᵀ at bt + j·ldbt
    std::size_t ldbt = b.cs;
    if (b.rs != 1) {
      copy.resize(n * k);
      for (std::size_t p = 0; p < k; ++p)
        for (std::size_t j = 0; j < n; ++j) copy[j * k + p] = b.at(p, j);
      bt = copy.data();
      ldbt = k;
    }
    // the long side outer, so the big operand is read once and each of its rows meets the few
    // rows of the other while in L1
    if (m <= n) {
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t i = 0; i < m; ++i) c[i * ldc + j] = dot_contiguous(a.p + i * a.rs, bt + j * ldbt, k);
    } else {
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) c[i * ldc + j] = dot_contiguous(a.p + i * a.rs, bt + j * ldbt, k);
    }
    return;
  }
  constexpr std::size_t strip = 512;
  for (std::size_t j0 = 0; j0 < n; j0 += strip) {
    const std::size_t j1 = std::min(n, j0 + strip);
    for (std::size_t i = 0; i < m; ++i) std::fill(c + i * ldc + j0, c + i * ldc + j1, 0.0f);
    for (std::size_t p = 0; p < k; ++p) {
      const float* bp = b.p + p * b.rs;
      for (std::size_t i = 0; i < m; ++i) {
        const float aip = a.at(i, p);
        float* ci = c + i * ldc;
        for (std::size_t j = j0; j < j1; ++j) ci[j] += aip * bp[j];
      }
    }
  }
}

// C (m × n, stride ldc) = A · B with `threads` workers (0 = all hardware threads). Splits C's
// longer side into bands (whole register tiles for the blocked kernel); each worker packs its
// own panels, the calling thread takes the first band. Each entry is computed the same way
// whatever the split, so the result does not depend on the thread count. (C is written whole:
// no zeroing needed beforehand.)
void gemm(View a, View b, float* c, std::size_t ldc, std::size_t m, std::size_t n, std::size_t k, unsigned threads) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (std::size_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    return;
  }
  if (m * n * k <= kSmallWork) return gemm_small(a, b, c, ldc, m, n, k);
  const bool skinny = std::min(m, n) <= kSkinny;
  auto part = [=](View pa, View pb, float* pc, std::size_t pm, std::size_t pn) {
    if (skinny)
      gemm_skinny(pa, pb, pc, ldc, pm, pn, k);
    else
      gemm_blocked(pa, pb, pc, ldc, pm, pn, k);
  };
  if (threads == 0) threads = hardware_threads();
  // Split rows when C is at least as tall as wide, else columns; never below one tile per worker
  // nor below ~2 MFLOP of work per worker (thread start-up costs tens of microseconds).
  const bool by_rows = m >= n;
  const std::size_t side = by_rows ? m : n, unit = skinny ? 1 : by_rows ? MR : NR;
  const std::size_t units = (side + unit - 1) / unit;
  std::size_t workers = std::min<std::size_t>({threads, units, std::max<std::size_t>(1, m * n * k / (1u << 20))});
  if (workers <= 1) return part(a, b, c, m, n);
  const std::size_t per = (units + workers - 1) / workers * unit;
  auto chunk = [=](std::size_t lo) {
    const std::size_t hi = std::min(side, lo + per);
    if (by_rows)
      part({a.p + lo * a.rs, a.rs, a.cs}, b, c + lo * ldc, hi - lo, n);
    else
      part(a, {b.p + lo * b.cs, b.rs, b.cs}, c + lo, m, hi - lo);
  };
  const auto bands = static_cast<unsigned>((side + per - 1) / per);
  parallel_for_threads(bands, [&](unsigned t, unsigned) { chunk(t * per); });
}

void require_matrix(const Tensor& t, const char* op, const char* name) {
  if (t.rank() != 2)
    throw Error(fmt::format("{}: {} must be a matrix, got shape {}", op, name, t.shape_str()));
}

}  // namespace

// c = a·b: c[i, j] = Σ_k a[i, k]·b[k, j]; a: (M, K), b: (K, N) -> (M, N)
Tensor matmul(const Tensor& a, const Tensor& b, unsigned threads) {
  require_matrix(a, "matmul", "a");
  require_matrix(b, "matmul", "b");
  if (a.cols() != b.rows())
    throw Error(fmt::format("matmul: shapes {} and {} do not chain (inner sizes {} and {})", a.shape_str(),
                            b.shape_str(), a.cols(), b.rows()));
  const std::size_t M = a.rows(), K = a.cols(), N = b.cols();
  Tensor c({M, N});
  gemm({a.data(), K, 1}, {b.data(), N, 1}, c.data(), N, M, N, K, threads);
  return c;
}

// c = a·bᵀ: c[i, j] = Σ_k a[i, k]·b[j, k]; a: (M, K), b: (N, K) -> (M, N). Bᵀ is never formed:
// it is read as the view Bᵀ(k, j) = b[j·K + k].
Tensor matmul_bt(const Tensor& a, const Tensor& b, unsigned threads) {
  require_matrix(a, "matmul_bt", "a");
  require_matrix(b, "matmul_bt", "b");
  if (a.cols() != b.cols())
    throw Error(fmt::format("matmul_bt: shapes {} and {} need the same number of columns for a·bᵀ",
                            a.shape_str(), b.shape_str()));
  const std::size_t M = a.rows(), K = a.cols(), N = b.rows();
  Tensor c({M, N});
  gemm({a.data(), K, 1}, {b.data(), 1, K}, c.data(), N, M, N, K, threads);
  return c;
}

}  // namespace tfx
