// Private to matmul: the GEMM kernels, one per instruction set (matmul_kernel.inc built by
// matmul_generic.cpp, matmul_avx2.cpp, matmul_avx512.cpp), and what matmul.cpp needs to pick
// one at run time and split its work between threads.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tfx::gemm_kernels {

// A strided view of one operand: element (r, c) is p[r * rs + c * cs]. (No member functions:
// an inline function shared with the kernel files could be kept in its AVX-512 build.)
struct View {
  const float* p;
  std::size_t rs, cs;
};

// The element types B may be stored in (A and C are always float32): the kernels widen F16 and
// BF16 to float32 while packing B (or while loading it in the unpacked paths), exactly (every
// F16 and BF16 value is a float32), so the products are the ones of the widened matrix.
enum class Elem : unsigned char { f32, f16, bf16 };
constexpr std::size_t elem_bytes(Elem e) { return e == Elem::f32 ? 4 : 2; }

// A strided view of B as stored: element (r, c) is the `type` at element index r * rs + c * cs
// from p.
struct StoredView {
  const void* p;
  std::size_t rs, cs;
  Elem type;
};

// C[0:m, 0:n] (row stride ldc) = A[0:m, 0:k] · B[0:k, 0:n], on the calling thread.
using Part = void (*)(View a, StoredView b, float* c, std::size_t ldc, std::size_t m, std::size_t n, std::size_t k);

constexpr std::size_t kSmallWork = 4096;  // at most this many multiply-adds: plain loops beat packing
constexpr std::size_t kSkinny = 4;        // at most this many rows or columns: dot products, no packing

// GGUF's quantized block types (stored.hpp's StoredType without F32/F16/BF16)
enum class QType : unsigned char { q8_0, q4_0, q4_1, q5_0, q5_1, q4_k, q5_k, q6_k };

// C[0:m, j0:j1] (row stride ldc) = A[0:m, 0:k] · Wᵀ for rows j0 … j1 of W, an (n, k) matrix of
// `type` blocks (row_bytes per row), each block dequantized in registers and multiplied into A's
// rows at once (gemv_quant.inc): bit-identical to `skinny` on the dequantized W. m ≤ kSkinny is
// its use (decode); any m works. One thread.
using QuantRows = void (*)(const float* a, std::size_t lda, std::size_t m, const void* w, QType type, std::size_t row_bytes,
                           std::size_t k, float* c, std::size_t ldc, std::size_t j0, std::size_t j1);

// n values (whole blocks) of `type` at w → out, each equal to quant.cpp's dequantize bit for bit
// (gemv_quant.inc's block values, stored instead of multiplied): the packing step of a product with
// many rows of A (a prefill). One thread.
using QuantDequant = void (*)(const void* w, QType type, float* out, std::size_t n);

// C[0:m, 0:n] (row stride ldc) = A[0:m, 0:k] · Wᵀ for W's first n rows (row_bytes apart, `type`
// blocks of `block` values in `block_bytes` bytes), by `blocked`'s loops with W's blocks dequantized
// (by `dequant`) eight rows at a time straight into its packed slivers: the same packed values, so
// the same bits, as `blocked` on the dequantized rows, with no float copy of W. One thread.
using QuantBlocked = void (*)(View a, const void* w, QType type, std::size_t row_bytes, std::size_t block, std::size_t block_bytes,
                              QuantDequant dequant, float* c, std::size_t ldc, std::size_t m, std::size_t n, std::size_t k);

struct Kernel {
  const char* name;    // "avx512", "avx2", "generic"
  std::size_t mr, nr;  // register tile of `blocked`: threads get whole tiles
  Part small;          // plain loops, for ≤ kSmallWork multiply-adds
  Part skinny;         // min(m, n) ≤ kSkinny
  Part blocked;        // everything else
  QuantRows quant_rows;  // a few rows of A against a quantized Wᵀ (gemv_quant_*.cpp)
  QuantDequant quant_dequant;  // quantized blocks → float, vector by vector (gemv_quant_*.cpp)
  QuantBlocked quant_blocked;  // many rows of A against a quantized Wᵀ (a prefill)
};

// The build's baseline instruction set (SSE2 on x86-64, NEON on aarch64; with TFX_NATIVE,
// whatever -march=native allows).
extern const Kernel generic;
void quant_rows_generic(const float* a, std::size_t lda, std::size_t m, const void* w, QType type, std::size_t row_bytes,
                        std::size_t k, float* c, std::size_t ldc, std::size_t j0, std::size_t j1);
void quant_dequant_generic(const void* w, QType type, float* out, std::size_t n);
#if defined(__x86_64__)
extern const Kernel avx2;    // AVX2 + FMA: 8-float vectors, 6 × 16 tile
extern const Kernel avx512;  // AVX-512F: 16-float vectors, 12 × 32 tile
void quant_rows_avx2(const float* a, std::size_t lda, std::size_t m, const void* w, QType type, std::size_t row_bytes,
                     std::size_t k, float* c, std::size_t ldc, std::size_t j0, std::size_t j1);
void quant_dequant_avx2(const void* w, QType type, float* out, std::size_t n);
void quant_rows_avx512(const float* a, std::size_t lda, std::size_t m, const void* w, QType type, std::size_t row_bytes,
                       std::size_t k, float* c, std::size_t ldc, std::size_t j0, std::size_t j1);
void quant_dequant_avx512(const void* w, QType type, float* out, std::size_t n);
#endif

}  // namespace tfx::gemm_kernels
