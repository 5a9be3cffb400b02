// matmul and matmul_bt: our own single-precision GEMM, C = A·B or C = A·Bᵀ, without BLAS; the
// choice of kernel at run time and the split of C between threads.
//
// The kernels (matmul_kernel.inc, the BLIS/GotoBLAS layering in portable C++ with GCC vector
// extensions) are built once per instruction set: AVX-512F, AVX2+FMA, and the build's baseline
// (SSE2 on x86-64, NEON on aarch64). The default build thus runs on any x86-64 and still uses
// the widest FMAs the CPU has: the first call picks the fastest kernel the CPU supports
// (__builtin_cpu_supports, which also checks that the OS saves the vector registers), unless
// set_gemm_kernel() chose one.
//
// Threads (parallel.hpp, the library's one way to run work on several threads) split C into
// disjoint blocks of rows (or of columns when C is wide and short); each worker runs the kernel
// on its block with its own packing buffers.
//
// Shape letters: a: (M, K), b: (K, N) or (N, K) for matmul_bt, c: (M, N).
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "gemm_kernels.hpp"
#include "q8/q8_activations.hpp"
#include "core/parallel.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/gemm.hpp"
#include "tfx/core/gemm_view.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/stored.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {

using gemm_kernels::StoredView;
using gemm_kernels::View;

// ---- kernel choice ----------------------------------------------------------------------------

// Every kernel built into this binary, fastest first.
constexpr const gemm_kernels::Kernel* kKernels[] = {
#if defined(__x86_64__)
    &gemm_kernels::avx512,
    &gemm_kernels::avx2,
#endif
    &gemm_kernels::generic,
};

#if defined(__x86_64__)
// F16C (half ↔ float conversions), which the fused quantized GEMV uses for the blocks' scales
// (gemv_quant.inc; every CPU with AVX2 has it): CPUID leaf 1, ECX bit 29 (clang's
// __builtin_cpu_supports does not know "f16c")
bool cpu_has_f16c() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
}
#endif

bool cpu_runs(const gemm_kernels::Kernel& k) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (&k == &gemm_kernels::avx512)
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma") && cpu_has_f16c();
  if (&k == &gemm_kernels::avx2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && cpu_has_f16c();
#endif
  return &k == &gemm_kernels::generic;
}

const gemm_kernels::Kernel& fastest_kernel() {
  static const gemm_kernels::Kernel* const best = [] {
    for (const gemm_kernels::Kernel* k : kKernels)
      if (cpu_runs(*k)) return k;
    return &gemm_kernels::generic;
  }();
  return *best;
}

std::atomic<const gemm_kernels::Kernel*> chosen_kernel{nullptr};  // set_gemm_kernel(); nullptr = fastest

const gemm_kernels::Kernel& active_kernel() {
  const gemm_kernels::Kernel* k = chosen_kernel.load(std::memory_order_relaxed);
  return k ? *k : fastest_kernel();
}

// C (m × n, stride ldc) = A · B with `threads` workers (0 = all hardware threads). Splits C's
// longer side into bands (whole register tiles for the blocked kernel); each worker packs its
// own panels, the calling thread takes the first band. Each entry is computed the same way
// whatever the split, so the result does not depend on the thread count. (C is written whole:
// no zeroing needed beforehand.)
void gemm(View a, StoredView b, float* c, std::size_t ldc, std::size_t m, std::size_t n, std::size_t k, unsigned threads) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (std::size_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    return;
  }
  const gemm_kernels::Kernel& kernel = active_kernel();
  if (m * n * k <= gemm_kernels::kSmallWork) return kernel.small(a, b, c, ldc, m, n, k);
  const bool skinny = std::min(m, n) <= gemm_kernels::kSkinny;
  const gemm_kernels::Part run = skinny ? kernel.skinny : kernel.blocked;
  auto part = [=](View pa, StoredView pb, float* pc, std::size_t pm, std::size_t pn) { run(pa, pb, pc, ldc, pm, pn, k); };
  if (threads == 0) threads = hardware_threads();
  // Split rows when C is at least as tall as wide, else columns; never below one tile per worker
  // nor below ~2 MFLOP of work per worker (thread start-up costs tens of microseconds).
  const bool by_rows = m >= n;
  const std::size_t side = by_rows ? m : n, unit = skinny ? 1 : by_rows ? kernel.mr : kernel.nr;
  const std::size_t units = (side + unit - 1) / unit;
  std::size_t workers = std::min<std::size_t>({threads, units, std::max<std::size_t>(1, m * n * k / (1u << 20))});
  if (workers <= 1) return part(a, b, c, m, n);
  const std::size_t per = (units + workers - 1) / workers * unit;
  auto chunk = [=](std::size_t lo) {
    const std::size_t hi = std::min(side, lo + per);
    if (by_rows)
      part({a.p + lo * a.rs, a.rs, a.cs}, b, c + lo * ldc, hi - lo, n);
    else
      part(a, {static_cast<const char*>(b.p) + lo * b.cs * gemm_kernels::elem_bytes(b.type), b.rs, b.cs, b.type},
           c + lo, m, hi - lo);
  };
  const auto bands = static_cast<unsigned>((side + per - 1) / per);
  parallel_for_threads(bands, [&](unsigned t, unsigned) { chunk(t * per); });
}

void require_matrix(const Tensor& t, const char* op, const char* name) {
  if (t.rank() != 2)
    throw Error(fmt::format(N_("{}: {} must be a matrix, got shape {}"), op, name, t.shape_str()));
}

}  // namespace

std::vector<std::string> available_gemm_kernels() {
  std::vector<std::string> names;
  for (const gemm_kernels::Kernel* k : kKernels)
    if (cpu_runs(*k)) names.push_back(k->name);
  return names;
}

void set_gemm_kernel(const std::string& name) {
  if (name == "auto") {
    chosen_kernel.store(nullptr, std::memory_order_relaxed);
    return;
  }
  std::string names;
  for (const gemm_kernels::Kernel* k : kKernels) {
    if (name == k->name && cpu_runs(*k)) {
      chosen_kernel.store(k, std::memory_order_relaxed);
      return;
    }
    if (cpu_runs(*k)) names += std::string(names.empty() ? "" : ", ") + k->name;
  }
  bool built = false;
  for (const gemm_kernels::Kernel* k : kKernels) built = built || name == k->name;
  throw usage_error(fmt::format(N_("GEMM kernel '{}' {}; expected auto or one of: {}"), name,
                                built ? "is not supported by this CPU" : "does not exist", names));
}

std::string gemm_kernel() { return active_kernel().name; }

// c = a·b: c[i, j] = Σ_k a[i, k]·b[k, j]; a: (M, K), b: (K, N) -> (M, N)
Tensor matmul(const Tensor& a, const Tensor& b, unsigned threads) {
  require_matrix(a, "matmul", "a");
  require_matrix(b, "matmul", "b");
  if (a.cols() != b.rows())
    throw Error(fmt::format(N_("matmul: shapes {} and {} do not chain (inner sizes {} and {})"), a.shape_str(),
                            b.shape_str(), a.cols(), b.rows()));
  const std::size_t M = a.rows(), K = a.cols(), N = b.cols();
  Tensor c({M, N});
  gemm({a.data(), K, 1}, {b.data(), N, 1, gemm_kernels::Elem::f32}, c.data(), N, M, N, K, threads);
  return c;
}

// c = a·bᵀ: c[i, j] = Σ_k a[i, k]·b[j, k]; a: (M, K), b: (N, K) -> (M, N). Bᵀ is never formed:
// it is read as the view Bᵀ(k, j) = b[j·K + k].
Tensor matmul_bt(const Tensor& a, const Tensor& b, unsigned threads) {
  require_matrix(a, "matmul_bt", "a");
  require_matrix(b, "matmul_bt", "b");
  if (a.cols() != b.cols())
    throw Error(fmt::format(N_("matmul_bt: shapes {} and {} need the same number of columns for a·bᵀ"),
                            a.shape_str(), b.shape_str()));
  const std::size_t M = a.rows(), K = a.cols(), N = b.rows();
  Tensor c({M, N});
  gemm({a.data(), K, 1}, {b.data(), 1, K, gemm_kernels::Elem::f32}, c.data(), N, M, N, K, threads);
  return c;
}

namespace {
gemm_kernels::Elem kernel_elem(StoredType t) {
  switch (t) {
    case StoredType::f16: return gemm_kernels::Elem::f16;
    case StoredType::bf16: return gemm_kernels::Elem::bf16;
    default: break;
  }
  return gemm_kernels::Elem::f32;
}

// The fused kernel's name for a quantized type; false for F32, F16, BF16
bool quant_type(StoredType t, gemm_kernels::QType& out) {
  using gemm_kernels::QType;
  switch (t) {
    case StoredType::q8_0: out = QType::q8_0; return true;
    case StoredType::q4_0: out = QType::q4_0; return true;
    case StoredType::q4_1: out = QType::q4_1; return true;
    case StoredType::q5_0: out = QType::q5_0; return true;
    case StoredType::q5_1: out = QType::q5_1; return true;
    case StoredType::q4_k: out = QType::q4_k; return true;
    case StoredType::q5_k: out = QType::q5_k; return true;
    case StoredType::q6_k: out = QType::q6_k; return true;
    case StoredType::f32:
    case StoredType::f16:
    case StoredType::bf16: break;
  }
  return false;
}

std::atomic<bool> q8_mode{false};  // set_quant_activations
std::atomic<bool> amx_allowed{true};  // set_amx

#if defined(__x86_64__)
// AMX-INT8 tiles for --activations q8, where the CPU and Linux give them and set_amx allows
bool amx_on() { return amx_allowed.load(std::memory_order_relaxed) && gemm_kernels::amx_usable(); }
#endif

#if defined(__x86_64__)
bool cpu_has_vnni() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
           cpu_has_f16c();
  }();
  return has;
}
#endif

// the integer kernel of --activations q8 that goes with the GEMM kernel in use
gemm_kernels::Q8Rows active_q8_kernel(const char** name = nullptr) {
  const std::string_view k = active_kernel().name;  // (once per product: no string is made)
#if defined(__x86_64__)
  if (k == "avx512" && cpu_has_vnni()) {
    if (name) *name = "vnni";
    return gemm_kernels::q8_rows_vnni;
  }
  if (k == "avx512" || k == "avx2") {
    if (name) *name = "avx2";
    return gemm_kernels::q8_rows_avx2;
  }
#endif
  if (name) *name = "generic";
  return gemm_kernels::q8_rows_generic;
}

// The rows of several matrices (parts[i].n rows each) as one range of groups of 16 (no two workers write
// one cache line of an output row), for one parallel pass: `workers` take chunks of groups from a
// shared counter until none is left (an even split had left the second worker idle for a quarter
// of a Q8_0 decoding step, waiting for the calling thread, which starts last and shares the memory
// unevenly: perf, bench_generate); fn(i, lo, hi) for rows lo … hi of matrix i. Each matrix's rows
// are computed the same way whoever takes them.
struct RowGroups {
  std::vector<std::size_t> first;  // matrix i's groups: first[i] … first[i + 1]
  std::size_t rows = 0;
  std::size_t groups() const { return first.back(); }
};
template <class Parts>
RowGroups row_groups(const Parts& parts) {
  RowGroups g{std::vector<std::size_t>(parts.size() + 1, 0), 0};
  for (std::size_t i = 0; i < parts.size(); ++i) g.first[i + 1] = g.first[i] + (parts[i].n + 15) / 16, g.rows += parts[i].n;
  return g;
}
template <class Fn>
void run_row_groups(const RowGroups& g, unsigned workers, Fn fn) {
  const std::size_t ns = g.first.size() - 1;
  const std::size_t groups = g.groups(), chunk = std::max<std::size_t>(1, groups / (std::size_t{8} * std::max(1u, workers)));
  std::atomic<std::size_t> next{0};
  parallel_for_threads(std::max(1u, workers), [&](unsigned, unsigned) {
    for (std::size_t g0; (g0 = next.fetch_add(chunk, std::memory_order_relaxed)) < groups;) {
      const std::size_t g1 = std::min(groups, g0 + chunk);
      for (std::size_t i = 0; i < ns; ++i) {
        const std::size_t lo = std::max(g0, g.first[i]), hi = std::min(g1, g.first[i + 1]);
        if (lo < hi) fn(i, (lo - g.first[i]) * 16, (hi - g.first[i]) * 16);
      }
    }
  });
}

// quantize_q8_0, in AVX-512 where that kernel is in use (the same bits)
using Q8Quantizer = void (*)(const float*, std::size_t, std::int8_t*, float*);
Q8Quantizer q8_0_quantizer() {
#if defined(__x86_64__)
  if (active_kernel().name == std::string_view("avx512")) return gemm_kernels::quantize_q8_0_avx512;
#endif
  return gemm_kernels::quantize_q8_0;
}

// one matrix of a prefill in q8 mode: W's n rows (`data`, `type`, 32-value blocks) into C (m × n)
struct BlockPart {
  const void* data;
  StoredType type;
  gemm_kernels::QType qt;
  std::size_t n;
  float* c;
};

// whether C = A·Wᵀ with m rows of A takes --activations q8's block sums in AMX tiles (a prefill,
// with the AVX-512 kernel in use on a CPU that has AMX-INT8)
bool q8_block_path(StoredType type, bool bt, std::size_t m, gemm_kernels::QType& qt) {
#if defined(__x86_64__)
  return bt && m > gemm_kernels::kSkinny && q8_mode.load(std::memory_order_relaxed) && quant_type(type, qt) &&
         gemm_kernels::q8_block_supported(qt) && active_kernel().name == std::string_view("avx512") && amx_on();
#else
  (void)type, (void)bt, (void)m, (void)qt;
  return false;
#endif
}

// C = A·Wᵀ for each part, a prefill in q8 mode (more than kSkinny rows of A, whose m rows of k
// contiguous values are at a with row stride lda): A's rows quantized to Q8_0 once for all the
// parts, by the workers, a share each, in the tiles' order; then the parts' rows in groups of 16
// (run_row_groups), each chunk one call of the AMX kernel. Each entry is computed the same way
// whatever the split.
void q8_prefill(const float* a, std::size_t lda, std::size_t m, std::size_t k, std::span<const BlockPart> parts, unsigned threads) {
  if (threads == 0) threads = hardware_threads();
  const std::size_t nb = k / 32, padded = (m + 15) / 16 * 16;
  std::vector<std::int8_t> aq(padded * k, 0);
  std::vector<float> ad(padded * nb, 0.0f);
  const auto quantize = q8_0_quantizer();
  const RowGroups g = row_groups(parts);
  const auto workers = static_cast<unsigned>(std::min<std::size_t>({threads, g.groups(), std::max<std::size_t>(1, m * g.rows * k / (1u << 20))}));
  // each row quantized, then put in the tiles' order (q8_activations.hpp): shared by the workers
  parallel_for_threads(std::max(1u, workers), [&](unsigned t, unsigned T) {
    std::vector<std::int8_t> q(k);
    std::vector<float> d(nb);
    for (std::size_t i = m * t / T; i < m * (t + 1) / T; ++i) {
      quantize(a + i * lda, k, q.data(), d.data());
      gemm_kernels::q8_tile_order(i, k, q.data(), d.data(), aq.data(), ad.data());
    }
  });
  run_row_groups(g, workers, [&](std::size_t i, std::size_t lo, std::size_t hi) {
    const BlockPart& p = parts[i];
    gemm_kernels::q8_block_amx(aq.data(), ad.data(), m, p.data, p.qt, stored_row_bytes(p.type, k), k, p.c, p.n, lo, std::min(p.n, hi));
  });
}

// Weights per worker of the fused GEMV, at least: ~64 K (64 KiB of Q8_0), a few microseconds of
// work, above the cost of waking a persistent worker.
constexpr std::size_t kQuantRowsPerWorker = std::size_t{1} << 16;

// The row-by-row kernels of a product with 1 … kSkinny rows of A (a decoding step), one per
// matrix W (n, k) read as Wᵀ: --activations q8's integer kernel, the fused quantized GEMV, or the
// skinny float kernel; `none` where the product takes the packing kernels (or the plain loops).
enum class RowPath { q8, quant, skinny, none };

RowPath row_path(StoredType type, bool bt, std::size_t m, std::size_t n, std::size_t k, gemm_kernels::QType& qt) {
  if (!bt || m == 0 || m > gemm_kernels::kSkinny || n == 0 || k == 0) return RowPath::none;
  const bool known = quant_type(type, qt);
  if (!stored_quantized(type)) return m * n * k > gemm_kernels::kSmallWork ? RowPath::skinny : RowPath::none;
  if (known && q8_mode.load(std::memory_order_relaxed) && gemm_kernels::q8_supported(qt)) return RowPath::q8;
  return known && m * n * k > gemm_kernels::kSmallWork ? RowPath::quant : RowPath::none;
}

// one matrix of a row pass: W's n rows (`data`, `type`) into C (m × n)
struct RowPart {
  const void* data;
  StoredType type;
  std::size_t n;
  float* c;
  RowPath path;
  gemm_kernels::QType qt;
};

// C = A·Wᵀ for each part (none of them RowPath::none), A's m rows at a (row stride lda, k
// contiguous values each), as one parallel pass over the parts' rows in groups of 16
// (run_row_groups). With integer-kernel parts, A is quantized once per block kind they need (Q8_0:
// 32 values, Q8_K: 256). Each entry is computed by its part's kernel the same way whatever the split.
void row_pass(const float* a, std::size_t lda, std::size_t m, std::size_t k, std::span<const RowPart> parts, unsigned threads) {
  const gemm_kernels::Kernel& kernel = active_kernel();
  if (threads == 0) threads = hardware_threads();
  std::vector<std::int8_t> q8_0, q8_k;
  std::vector<float> d0, dk;
  std::vector<std::int16_t> bs;
  gemm_kernels::Q8Row rows0[gemm_kernels::kSkinny], rowsk[gemm_kernels::kSkinny];
  for (const RowPart& p : parts) {
    if (p.path != RowPath::q8) continue;
    if (gemm_kernels::q8_uses_k(p.qt) && q8_k.empty()) {
      q8_k.resize(m * k), dk.resize(m * (k / 256)), bs.resize(m * (k / 16));
      for (std::size_t i = 0; i < m; ++i) {
        rowsk[i] = {q8_k.data() + i * k, dk.data() + i * (k / 256), bs.data() + i * (k / 16)};
        gemm_kernels::quantize_q8_k(a + i * lda, k, q8_k.data() + i * k, dk.data() + i * (k / 256), bs.data() + i * (k / 16));
      }
    } else if (!gemm_kernels::q8_uses_k(p.qt) && q8_0.empty()) {
      q8_0.resize(m * k), d0.resize(m * (k / 32));
      const Q8Quantizer quantize = q8_0_quantizer();
      for (std::size_t i = 0; i < m; ++i) {
        rows0[i] = {q8_0.data() + i * k, d0.data() + i * (k / 32), nullptr};
        quantize(a + i * lda, k, q8_0.data() + i * k, d0.data() + i * (k / 32));
      }
    }
  }
  const gemm_kernels::Q8Rows q8_run = active_q8_kernel();
  // rows lo … hi of part p: one call of its kernel
  const auto run = [&](const RowPart& p, std::size_t lo, std::size_t hi) {
    switch (p.path) {
      case RowPath::q8:
        q8_run(gemm_kernels::q8_uses_k(p.qt) ? rowsk : rows0, m, p.data, p.qt, stored_row_bytes(p.type, k), k, p.c, p.n, lo, hi);
        break;
      case RowPath::quant: kernel.quant_rows(a, lda, m, p.data, p.qt, stored_row_bytes(p.type, k), k, p.c, p.n, lo, hi); break;
      case RowPath::skinny: {
        const gemm_kernels::Elem e = kernel_elem(p.type);
        kernel.skinny({a, lda, 1}, {static_cast<const char*>(p.data) + lo * k * gemm_kernels::elem_bytes(e), 1, k, e}, p.c + lo, p.n, m,
                      hi - lo, k);
        break;
      }
      case RowPath::none: break;
    }
  };
  const RowGroups g = row_groups(parts);
  const auto workers = static_cast<unsigned>(std::min<std::size_t>({threads, g.groups(), std::max<std::size_t>(1, g.rows * k / kQuantRowsPerWorker)}));
  run_row_groups(g, workers, [&](std::size_t i, std::size_t lo, std::size_t hi) { run(parts[i], lo, std::min(parts[i].n, hi)); });
}

// C (m × n) = A · B with B quantized (stored.hpp): B is `q`'s (n, k) rows transposed (bt) or its
// (k, n) rows as they are. The kernel (small, skinny or blocked) is chosen for the whole product,
// as gemm() chooses it; then B is dequantized a panel of columns at a time, into the blocked
// kernel's packed slivers (bt) or into a float buffer (never the whole matrix), and the kernel runs
// on that panel's columns of C. Each entry of C is computed by the same kernel from the same float
// values in the same order whatever the panels, so the result equals gemm() on the dequantized
// matrix. Workers take whole panels.
void gemm_quantized(View a, const void* q, StoredType type, bool bt, float* c, std::size_t m, std::size_t n, std::size_t k,
                    unsigned threads) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (std::size_t i = 0; i < m; ++i) std::fill(c + i * n, c + (i + 1) * n, 0.0f);
    return;
  }
  const gemm_kernels::Kernel& kernel = active_kernel();
  if (threads == 0) threads = hardware_threads();
  // A few rows of A against Bᵀ's quantized rows (decode), a pass over B's rows (row_pass): the
  // fused kernel, each block made in registers and multiplied at once, equal to the skinny kernel
  // on the dequantized rows (the path below would take) bit for bit; or with --activations q8, A's
  // rows quantized to 8 bits as llama.cpp does and integer dot products.
  gemm_kernels::QType qt{};
  if (const RowPath path = a.cs == 1 ? row_path(type, bt, m, n, k, qt) : RowPath::none; path != RowPath::none) {
    const RowPart part{q, type, n, c, path, qt};
    return row_pass(a.p, a.rs, m, k, {&part, 1}, threads);
  }
  // a prefill with --activations q8 and weights in 32-value blocks: llama.cpp's integer blocks
  if (a.cs == 1 && q8_block_path(type, bt, m, qt)) {
    const BlockPart part{q, type, qt, n, c};
    return q8_prefill(a.p, a.rs, m, k, {&part, 1}, threads);
  }
  const gemm_kernels::Part run = m * n * k <= gemm_kernels::kSmallWork ? kernel.small
                                 : std::min(m, n) <= gemm_kernels::kSkinny ? kernel.skinny
                                                                           : kernel.blocked;
  // blocks → floats for the panels: the kernel's vector code (quant.cpp's values, bit for bit;
  // the scalar loop with its F16 scales by cases was ~12 % of a Q8_0 prefill)
  const bool vector_unpack = quant_type(type, qt);
  const auto* bytes = static_cast<const unsigned char*>(q);
  const std::size_t block = stored_block_size(type);
  // A prefill against a weight's rows: the blocked kernel packs its slivers straight from the
  // blocks, eight rows at a time through L1. (The float panels below cost a 2 MiB buffer written,
  // zeroed and read again, and A packed once per ~100–600 columns: a 128-token Q8_0 prefill of
  // Qwen2.5-0.5B, `bench_generate qwen-q8_0.gguf 128 1`, 0.62–0.65 s → 0.57 s.) The columns are cut
  // into panels of at most ~2048 (whole register tiles), the same number for each worker.
  if (bt && vector_unpack && run == kernel.blocked) {
    const std::size_t row_bytes = stored_row_bytes(type, k), nr = kernel.nr;
    const auto workers = static_cast<unsigned>(
        std::min<std::size_t>({threads, (n + nr - 1) / nr, std::max<std::size_t>(1, m * n * k / (1u << 20))}));
    const std::size_t per = (n + workers * std::size_t{2048} - 1) / (workers * std::size_t{2048});
    const std::size_t width = ((n + workers * per - 1) / (workers * per) + nr - 1) / nr * nr;
    const std::size_t panels = (n + width - 1) / width;
    parallel_for_threads(std::max(1u, workers), [&](unsigned t, unsigned T) {
      for (std::size_t p = t; p < panels; p += T) {
        const std::size_t j0 = p * width;
        kernel.quant_blocked(a, bytes + j0 * row_bytes, qt, row_bytes, block, stored_block_bytes(type), kernel.quant_dequant, c + j0, n,
                             m, std::min(width, n - j0), k);
      }
    });
    return;
  }
  const auto unpack = [&](const unsigned char* src, float* out, std::size_t count) {
    if (vector_unpack) kernel.quant_dequant(src, qt, out, count);
    else dequantize(type, src, out, count);
  };
  // panel columns: ~128 KiB of floats, a multiple of the block (the (k, n) case cuts rows of B)
  // and of 16 (whole register tiles). Each panel is one GEMM call, which packs all of A again: with
  // many rows of A (a prefill) a panel is ~2 MiB (A packed once per ~100+ columns, not per ~40:
  // packing was 31 % of a 128-token Q8_0 prefill), but never fewer panels than workers.
  const std::size_t panel_floats = m > gemm_kernels::kSkinny ? std::size_t{1} << 19 : std::size_t{1} << 15;
  std::size_t width = std::max<std::size_t>(16, panel_floats / std::max<std::size_t>(k, 1));
  width = std::min(width, std::max<std::size_t>(16, (n + threads - 1) / threads));
  width = (width + block - 1) / block * block;
  width = (width + 15) / 16 * 16;
  if (!bt) width = (width + block - 1) / block * block;
  width = std::min(width, n);
  const std::size_t panels = (n + width - 1) / width;
  const auto workers = static_cast<unsigned>(std::min<std::size_t>({threads, panels, std::max<std::size_t>(1, m * n * k / (1u << 20))}));
  parallel_for_threads(std::max(1u, workers), [&](unsigned t, unsigned T) {
    std::vector<float> buf(width * k);
    for (std::size_t p = t; p < panels; p += T) {
      const std::size_t j0 = p * width, w = std::min(width, n - j0);
      if (bt) {  // rows j0 … j0+w of the (n, k) matrix: B's columns
        const std::size_t row_bytes = stored_row_bytes(type, k);
        for (std::size_t j = 0; j < w; ++j) unpack(bytes + (j0 + j) * row_bytes, buf.data() + j * k, k);
        run(a, {buf.data(), 1, k, gemm_kernels::Elem::f32}, c + j0, n, m, w, k);
      } else {  // columns j0 … j0+w of every row of the (k, n) matrix
        const std::size_t row_bytes = stored_row_bytes(type, n), off = j0 / block * stored_block_bytes(type);
        for (std::size_t r = 0; r < k; ++r) unpack(bytes + r * row_bytes + off, buf.data() + r * w, w);
        run(a, {buf.data(), w, 1, gemm_kernels::Elem::f32}, c + j0, n, m, w, k);
      }
    }
  });
}

// C = A · B with B (k, n) as stored: `s` holds B (bt false) or Bᵀ (bt true), row-major
void gemm_stored(const Tensor& a, const void* data, StoredType type, bool bt, Tensor& c, unsigned threads) {
  const std::size_t M = a.rows(), K = a.cols(), N = c.cols();
  if (stored_quantized(type)) return gemm_quantized({a.data(), K, 1}, data, type, bt, c.data(), M, N, K, threads);
  if (bt)
    gemm({a.data(), K, 1}, {data, 1, K, kernel_elem(type)}, c.data(), N, M, N, K, threads);
  else
    gemm({a.data(), K, 1}, {data, N, 1, kernel_elem(type)}, c.data(), N, M, N, K, threads);
}

// C (rows of a × rows of b) for a·bᵀ, after checking that the shapes agree
Tensor bt_output(const Tensor& a, const StoredMatrix& b) {
  require_matrix(a, "matmul_bt", "a");
  if (a.cols() != b.cols)
    throw Error(fmt::format(N_("matmul_bt: shapes {} and {} need the same number of columns for a·bᵀ"),
                            a.shape_str(), shape_string({b.rows, b.cols})));
  return Tensor({a.rows(), b.rows});
}
}  // namespace

// c = a·b with b as stored (widened while packed): a: (M, K), b: (K, N) -> (M, N)
Tensor matmul(const Tensor& a, const StoredMatrix& b, unsigned threads) {
  require_matrix(a, "matmul", "a");
  if (a.cols() != b.rows)
    throw Error(fmt::format(N_("matmul: shapes {} and {} do not chain (inner sizes {} and {})"), a.shape_str(),
                            shape_string({b.rows, b.cols}), a.cols(), b.rows));
  Tensor c({a.rows(), b.cols});
  gemm_stored(a, b.data, b.type, b.transposed, c, threads);
  return c;
}

// c = a·bᵀ with b as stored: a: (M, K), b: (N, K) -> (M, N)
Tensor matmul_bt(const Tensor& a, const StoredMatrix& b, unsigned threads) {
  Tensor c = bt_output(a, b);
  gemm_stored(a, b.data, b.type, !b.transposed, c, threads);
  return c;
}

// a·Wᵢᵀ for several matrices read with the same rows of a. Each output entry is computed by the
// kernel, from the values and in the order that one matmul_bt call per matrix would use, so the
// results are those calls' bits. With 1 … kSkinny rows of a (a decoding step) and every matrix on
// a row-by-row path (the fused quantized GEMV, --activations q8's integer kernel, or the skinny
// float kernel), the matrices' rows run as one parallel pass: the workers wake once, the small
// matrices (a GQA layer's k and v) are shared between them, and a is quantized once per block kind.
std::vector<Tensor> matmul_bt_many(const Tensor& a, std::initializer_list<const StoredMatrix*> ws, unsigned threads) {
  std::vector<Tensor> out;
  out.reserve(ws.size());
  for (const StoredMatrix* w : ws) out.push_back(bt_output(a, *w));
  const std::size_t m = a.rows(), k = a.cols();
  // the row-by-row path one call would take for each matrix (one pass when every one has one), or
  // a prefill in q8 mode with every matrix in 32-value blocks (A quantized once, one pass)
  std::vector<RowPart> parts;
  std::vector<BlockPart> blocks;
  bool one_pass = ws.size() >= 2;
  for (std::size_t i = 0; i < ws.size(); ++i) {
    const StoredMatrix& w = *ws.begin()[i];
    RowPart p{w.data, w.type, w.rows, out[i].data(), RowPath::none, {}};
    p.path = row_path(w.type, !w.transposed, m, w.rows, k, p.qt);
    one_pass = one_pass && p.path != RowPath::none;
    parts.push_back(p);
    BlockPart b{w.data, w.type, {}, w.rows, out[i].data()};
    if (q8_block_path(w.type, !w.transposed, m, b.qt)) blocks.push_back(b);
  }
  if (ws.size() >= 2 && blocks.size() == ws.size()) {
    q8_prefill(a.data(), k, m, k, blocks, threads);
  } else if (one_pass) {
    row_pass(a.data(), k, m, k, parts, threads);
  } else {
    for (std::size_t i = 0; i < ws.size(); ++i) {
      const StoredMatrix& w = *ws.begin()[i];
      gemm_stored(a, w.data, w.type, !w.transposed, out[i], threads);
    }
  }
  return out;
}

// C = A·B on strided views (gemm_view.hpp)
void gemm_view(const float* a, std::size_t a_rs, std::size_t a_cs, const float* b, std::size_t b_rs, std::size_t b_cs,
               float* c, std::size_t ldc, std::size_t m, std::size_t n, std::size_t k, unsigned threads) {
  gemm({a, a_rs, a_cs}, {b, b_rs, b_cs, gemm_kernels::Elem::f32}, c, ldc, m, n, k, threads);
}

void set_amx(bool allowed) { amx_allowed.store(allowed, std::memory_order_relaxed); }
void set_quant_activations(QuantActivations a) { q8_mode.store(a == QuantActivations::q8, std::memory_order_relaxed); }
QuantActivations quant_activations() { return q8_mode.load(std::memory_order_relaxed) ? QuantActivations::q8 : QuantActivations::f32; }
std::string q8_kernel() {
  const char* name = "generic";
  active_q8_kernel(&name);
  return name;
}

}  // namespace tfx
