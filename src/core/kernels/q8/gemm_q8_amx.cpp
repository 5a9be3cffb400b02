// --activations q8 for a prefill on Intel AMX-INT8 (Sapphire Rapids and later): the integer block
// sums of q8_activations.hpp's block-sum definition taken by the tile unit (TDPBSSD: 16 × 16 int32
// sums of 16 rows of A against 16 weight rows, one 32-value block at a time), then scaled and
// summed in AVX-512 floats in the definition's order (tests/core/q8_activations_test.cpp computes
// the definition by plain loops and compares bits). Built with -mamx-tile -mamx-int8 -mavx512f
// -mf16c and -ffp-contract=off (CMakeLists.txt); gemm.cpp calls it only where amx_usable().
//
// A comes quantized in the tiles' order (q8_tile_order, once per product, shared by the workers).
// The weights stay as stored: each worker unpacks 16 rows at a time into the tile layout TDPBSSD
// reads (the 4 consecutive values of each weight row side by side, 16 rows across: 512 bytes per
// block), in a buffer of k/32 · 512 bytes, and runs every 16 rows of A against it. (llama.cpp's
// AMX build instead converts the whole model into that layout when it loads it.)
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "q8_activations.hpp"
#include "tfx/core/stored.hpp"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

// GCC 12 warns that _mm512_cvtepi32_ps's own _mm512_undefined_ps() "may be used uninitialized"
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace tfx::gemm_kernels {
namespace {

// Linux's arch_prctl request for the tile data state (asm/prctl.h, xfeature 18)
constexpr int kArchReqXcompPerm = 0x1023;
constexpr int kXfeatureXtiledata = 18;

// LDTILECFG's 64 bytes: palette 1, each tile's bytes per row and rows
struct alignas(64) TileConfig {
  std::uint8_t palette_id;
  std::uint8_t start_row;
  std::uint8_t reserved[14];
  std::uint16_t colsb[16];
  std::uint8_t rows[16];
};
static_assert(sizeof(TileConfig) == 64);

// The tiles, twice (0-2 and 3-5): C (16 × 16 int32), A (16 rows × one 32-byte block), B (8 groups
// of 4 values × 16 weight rows). The kernel names them by number: GCC's _tile_* macros paste the
// number into the register name.

float half_at(const unsigned char* p) {
  std::uint16_t h;
  std::memcpy(&h, p, 2);
  return _cvtsh_ss(h);  // F16C: exact, as widen_f16
}

}  // namespace

void quantize_q8_0_avx512(const float* x, std::size_t k, std::int8_t* q, float* d) {
  const __m512 half = _mm512_set1_ps(0.5f), mhalf = _mm512_set1_ps(-0.5f);
  for (std::size_t b = 0; b < k / 32; ++b) {
    const __m512 v0 = _mm512_loadu_ps(x + b * 32), v1 = _mm512_loadu_ps(x + b * 32 + 16);
    const float amax = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(v0), _mm512_abs_ps(v1)));
    const float db = amax / 127.0f;
    const float id = db != 0.0f ? 1.0f / db : 0.0f;
    d[b] = widen_f16(narrow_f16(db));
    for (int h = 0; h < 2; ++h) {
      // roundf(x·id) as quantize_q8_0 takes it: the truncation, ±1 where the rest is ≥ 0.5 away
      const __m512 x0 = _mm512_mul_ps(h == 0 ? v0 : v1, _mm512_set1_ps(id));
      const __m512 t = _mm512_roundscale_ps(x0, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
      const __m512 frac = _mm512_sub_ps(x0, t);
      __m512i n = _mm512_cvttps_epi32(t);
      n = _mm512_mask_add_epi32(n, _mm512_cmp_ps_mask(frac, half, _CMP_GE_OQ), n, _mm512_set1_epi32(1));
      n = _mm512_mask_sub_epi32(n, _mm512_cmp_ps_mask(frac, mhalf, _CMP_LE_OQ), n, _mm512_set1_epi32(1));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(q + b * 32 + 16 * h), _mm512_cvtepi32_epi8(n));
    }
  }
}

bool amx_usable() {
  static const bool usable = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
    if ((d & (1u << 24)) == 0 || (d & (1u << 25)) == 0) return false;  // AMX-TILE, AMX-INT8
    if ((b & (1u << 16)) == 0) return false;                            // AVX-512F for the scaling
    // Linux ≥ 5.16 hands out the 8 KiB of tile state per process on request; it refuses when the
    // kernel or the hypervisor does not enable it
    return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
  }();
  return usable;
}

void q8_block_amx(const std::int8_t* aq, const float* ad, std::size_t m, const void* w, QType type, std::size_t row_bytes,
                  std::size_t k, float* c, std::size_t ldc, std::size_t j0, std::size_t j1) {
  if (!q8_block_supported(type) || j0 >= j1 || m == 0) return;
  const auto* q = static_cast<const unsigned char*>(w);
  const std::size_t nb = k / 32, mt = (m + 15) / 16;
  const std::size_t block_bytes = type == QType::q8_0 ? 34 : type == QType::q4_0 ? 18 : 22;
  TileConfig cfg{};
  cfg.palette_id = 1;
  for (int set = 0; set < 2; ++set) {  // two sets of tiles: one block's product runs while the last one's is scaled
    cfg.rows[3 * set] = 16, cfg.colsb[3 * set] = 64;          // C
    cfg.rows[3 * set + 1] = 16, cfg.colsb[3 * set + 1] = 32;  // A
    cfg.rows[3 * set + 2] = 8, cfg.colsb[3 * set + 2] = 64;   // B
  }
  _tile_loadconfig(&cfg);
  std::vector<std::int8_t> pack(nb * 512);
  std::vector<float> dw(nb * 16);
  alignas(64) std::int32_t sums[2][16 * 16];
  alignas(64) std::int8_t v[16][32];
  for (std::size_t jt = j0; jt < j1; jt += 16) {
    const std::size_t nw = std::min<std::size_t>(16, j1 - jt);
    // weight rows jt … jt+16 in TDPBSSD's layout: dword (b, g, r) = row r's values 4g … 4g+3 of
    // block b; rows past j1 are zero
    const __mmask16 live = static_cast<__mmask16>((1u << nw) - 1);
    for (std::size_t b = 0; b < nb; ++b) {
      const unsigned char* blk0 = q + jt * row_bytes + b * block_bytes;
      const std::int8_t* vals = nullptr;
      int stride = 0;
      if (type == QType::q8_0) {
        vals = reinterpret_cast<const std::int8_t*>(blk0 + 2), stride = static_cast<int>(row_bytes);
      } else {
        for (std::size_t r = 0; r < nw; ++r) block_values_32(type, blk0 + r * row_bytes, v[r]);
        vals = &v[0][0], stride = 32;
      }
      const __m512i rows = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                              _mm512_set1_epi32(stride));
      for (std::size_t g = 0; g < 8; ++g)
        _mm512_storeu_si512(&pack[b * 512 + g * 64],
                           _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), live, rows, vals + 4 * g, 1));
      for (std::size_t r = 0; r < 16; ++r) dw[b * 16 + r] = r < nw ? half_at(blk0 + r * row_bytes) : 0.0f;
    }
    const __mmask16 cols = live;
    for (std::size_t t = 0; t < mt; ++t) {
      const std::int8_t* A = aq + t * nb * 512;
      const float* S = ad + t * nb * 16;
      __m512 acc[16];
      for (auto& x : acc) x = _mm512_setzero_ps();
      // block b's sums (in sums[b % 2]) scaled and added: (d_w·d_a)·float(S), then the sum
      const auto scale = [&](std::size_t b) {
        const __m512 dwv = _mm512_loadu_ps(&dw[b * 16]);
        const std::int32_t* sb = sums[b % 2];
#pragma GCC unroll 16
        for (std::size_t r = 0; r < 16; ++r) {
          const __m512 d = _mm512_mul_ps(dwv, _mm512_set1_ps(S[b * 16 + r]));
          const __m512 p = _mm512_mul_ps(d, _mm512_cvtepi32_ps(_mm512_load_si512(sb + r * 16)));
          acc[r] = _mm512_add_ps(acc[r], p);
        }
      };
      _tile_zero(0);
      _tile_loadd(1, A, 32);
      _tile_loadd(2, pack.data(), 64);
      _tile_dpbssd(0, 1, 2);
      for (std::size_t b = 0; b < nb; b += 2) {
        if (b + 1 < nb) {
          _tile_zero(3);
          _tile_loadd(4, A + (b + 1) * 512, 32);
          _tile_loadd(5, pack.data() + (b + 1) * 512, 64);
          _tile_dpbssd(3, 4, 5);
        }
        _tile_stored(0, sums[0], 64);
        if (b + 2 < nb) {
          _tile_zero(0);
          _tile_loadd(1, A + (b + 2) * 512, 32);
          _tile_loadd(2, pack.data() + (b + 2) * 512, 64);
          _tile_dpbssd(0, 1, 2);
        }
        scale(b);
        if (b + 1 < nb) {
          _tile_stored(3, sums[1], 64);
          scale(b + 1);
        }
      }
      const std::size_t rows = std::min<std::size_t>(16, m - t * 16);
      for (std::size_t r = 0; r < rows; ++r) _mm512_mask_storeu_ps(c + (t * 16 + r) * ldc + jt, cols, acc[r]);
    }
  }
  _tile_release();
}

}  // namespace tfx::gemm_kernels
#endif
