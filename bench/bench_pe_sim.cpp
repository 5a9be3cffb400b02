// Times the parts of `tfx pe sim --len L --dim D --format npy`: the PE matrix, PE·PEᵀ
// (matmul_bt, all threads), the offset profile and the .npy encoding, to see where the time goes.
//   build/bench_pe_sim [L] [D]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "tfx/io/format.hpp"
#include "tfx/positional/positional.hpp"

int main(int argc, char** argv) {
  const std::size_t L = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 4096, D = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 512;
  using clock = std::chrono::steady_clock;
  auto t0 = clock::now();
  tfx::Tensor pe = tfx::sinusoidal_encoding(L, D);
  auto t1 = clock::now();
  tfx::Tensor sim = tfx::pe_similarity(pe, tfx::PeMetric::dot);
  auto t2 = clock::now();
  tfx::OffsetProfile p = tfx::offset_profile(sim);
  auto t3 = clock::now();
  std::string npy = tfx::encode_npy(sim);
  auto t4 = clock::now();
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  const double gflop = 2.0 * static_cast<double>(L) * static_cast<double>(L) * static_cast<double>(D) / 1e9;
  std::printf("L=%zu D=%zu: pe %.1f ms, matmul_bt %.1f ms (%.1f GFLOP/s), profile %.1f ms, encode_npy %.1f ms (spread %.2g, %zu bytes)\n", L, D,
              ms(t0, t1), ms(t1, t2), gflop / (ms(t1, t2) / 1e3), ms(t2, t3), ms(t3, t4), p.max_spread, npy.size());
}
