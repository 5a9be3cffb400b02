// llama.cpp's 8-bit arithmetic for decoding with quantized weights (`--activations q8`, an opt-in:
// the default float forward stays bit-equal to the dequantized weights). The activation row is
// quantized as llama.cpp quantizes it before its integer dot products (ggml-quants.c's reference
// quantize_row_q8_0 / quantize_row_q8_K, gguf-py's Q8_0), and each weight row's integer dot with it
// is taken block by block (ggml_vec_dot_q8_0_q8_0, _q4_0_q8_0, _q5_0_q8_0, _q4_K_q8_K, _q6_K_q8_K).
//
// The result, defined so that every kernel (generic, AVX2, AVX-512 VNNI) gives the same bits:
// eight float lanes; lane L of block b gets the exact integer sum over the block's values at
// positions ≡ 4L … 4L+3 (mod 32) of w·a (Q4_0 and Q5_0: w the signed value, nibble − 8 or
// nibble + 16·bit − 16; K-quants: each times its sub-block's scale, Q6_K's values
// unsigned 0…63); lane L += (d_w·d_a)·float(that sum) (a product, then a sum: nothing fused);
// a correction accumulator c += (dmin_w·d_a)·float(Σ min·bsum) (Q4_K) or (d_w·d_a)·float(32·Σ
// scale·bsum) (Q6_K); the result is ((((((l0 + l1) + l2) + l3) + l4) + l5) + l6) + l7 − c.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../gemm_kernels.hpp"

namespace tfx::gemm_kernels {

// One activation row quantized: `q` k int8 values; `d` one scale per block (Q8_0: 32 values, its
// scale rounded to F16 as llama.cpp stores it; Q8_K: 256 values, float); `bsums` Q8_K's sums of
// 16 values (k/16), unused for Q8_0.
struct Q8Row {
  const std::int8_t* q;
  const float* d;
  const std::int16_t* bsums;
};

// quantize_row_q8_0_ref: per 32 values d = max|x|/127, q = roundf(x/d) (half away from zero),
// d stored as F16 (the F16 value returned as float). k a multiple of 32.
void quantize_q8_0(const float* x, std::size_t k, std::int8_t* q, float* d);
// quantize_row_q8_K_ref: per 256 values the value of largest magnitude `max`, iscale = −127/max,
// q = min(127, nearest_int(iscale·x)) (ties to even), d = 1/iscale, bsums over 16 values.
// k a multiple of 256.
void quantize_q8_k(const float* x, std::size_t k, std::int8_t* q, float* d, std::int16_t* bsums);

// Whether `type`'s weights have the integer kernel (Q8_0, Q4_0, Q5_0, Q4_K, Q6_K); the activation
// it needs: Q8_0 blocks (32) or Q8_K (256).
bool q8_supported(QType type);
inline bool q8_uses_k(QType type) { return type == QType::q4_k || type == QType::q6_k; }

// C[i, j] for rows j0 … j1 of W (n, k; row_bytes per row) and the m quantized rows a[0 … m).
using Q8Rows = void (*)(const Q8Row* a, std::size_t m, const void* w, QType type, std::size_t row_bytes, std::size_t k, float* c,
                        std::size_t ldc, std::size_t j0, std::size_t j1);
void q8_rows_generic(const Q8Row* a, std::size_t m, const void* w, QType type, std::size_t row_bytes, std::size_t k, float* c,
                     std::size_t ldc, std::size_t j0, std::size_t j1);

// ---- a prefill: more than kSkinny rows of A, weights in 32-value blocks (Q8_0, Q4_0, Q5_0), on
// a CPU with AMX-INT8 ----
// llama.cpp's AMX arithmetic (ggml-cpu/amx/mmq.cpp): A's rows quantized to Q8_0 as above, and per
// block b the exact integer sum S_b of the block's 32 products w·a (Q4_0/Q5_0: w the signed value);
// C[i, j] = ((0 + (d_w·d_a)·float(S_0)) + (d_w·d_a)·float(S_1)) + … in block order (a product, a
// product, then the sum: nothing fused). Without AMX (or for the K-quants) a prefill stays float:
// the same block sums in VNNI were 2.4 × slower than the float GEMM here (bench_generate
// qwen-q8_0.gguf 128 1: 2.12 s against 0.89).
inline bool q8_block_supported(QType type) { return type == QType::q8_0 || type == QType::q4_0 || type == QType::q5_0; }
// the 32 signed values of one block of those types, value p at v[p] (Q8_0: stored; Q4_0: nibble
// − 8; Q5_0: the nibble with its fifth bit − 16) — the generic kernel's, and the AMX kernel's when
// it unpacks weight rows
inline void block_values_32(QType type, const unsigned char* blk, std::int8_t* v) {
  for (int j = 0; j < 32; ++j) {
    if (type == QType::q8_0) {
      v[j] = static_cast<std::int8_t>(blk[2 + j]);
    } else if (type == QType::q4_0) {
      v[j] = static_cast<std::int8_t>((j < 16 ? blk[2 + j] & 0xF : blk[2 + j - 16] >> 4) - 8);
    } else {
      std::uint32_t h;
      std::memcpy(&h, blk + 2, 4);
      const int nib = j < 16 ? blk[6 + j] & 0xF : blk[6 + j - 16] >> 4;
      v[j] = static_cast<std::int8_t>((nib | static_cast<int>(((h >> j) & 1u) << 4)) - 16);
    }
  }
}
#if defined(__x86_64__)
// C[i, j] for rows j0 … j1 of W and A's m quantized rows, in AMX-INT8 tiles (TDPBSSD). A in tile
// order (q8_tile_order), m rounded up to 16 rows (the extra rows zero): aq holds each 16 rows' block
// b as 512 bytes (row r's 32 values at 32·r), tile after tile; ad their scales, 16 per block.
// Only where amx_usable().
void q8_block_amx(const std::int8_t* aq, const float* ad, std::size_t m, const void* w, QType type, std::size_t row_bytes,
                  std::size_t k, float* c, std::size_t ldc, std::size_t j0, std::size_t j1);
// row i's quantized values (k) and scales (k/32) into the tile order q8_block_amx reads
inline void q8_tile_order(std::size_t i, std::size_t k, const std::int8_t* q, const float* d, std::int8_t* aq, float* ad) {
  const std::size_t nb = k / 32, t = i / 16, r = i % 16;
  for (std::size_t b = 0; b < nb; ++b) {
    for (std::size_t j = 0; j < 32; ++j) aq[(t * nb + b) * 512 + r * 32 + j] = q[b * 32 + j];
    ad[(t * nb + b) * 16 + r] = d[b];
  }
}
// whether the CPU has AMX-TILE, AMX-INT8 and AVX-512F, and Linux let this process use the tile
// registers (arch_prctl ARCH_REQ_XCOMP_PERM, asked once)
bool amx_usable();
// quantize_q8_0 in AVX-512 (the same steps on 16 lanes: the same bits); only where the CPU has AVX-512F
void quantize_q8_0_avx512(const float* x, std::size_t k, std::int8_t* q, float* d);
#endif

#if defined(__x86_64__)
void q8_rows_avx2(const Q8Row* a, std::size_t m, const void* w, QType type, std::size_t row_bytes, std::size_t k, float* c,
                  std::size_t ldc, std::size_t j0, std::size_t j1);
void q8_rows_vnni(const Q8Row* a, std::size_t m, const void* w, QType type, std::size_t row_bytes, std::size_t k, float* c,
                  std::size_t ldc, std::size_t j0, std::size_t j1);
#endif

}  // namespace tfx::gemm_kernels
