// Benchmark of tfx::matmul and tfx::matmul_bt on square float32 matrices: prints GFLOP/s
// (2·n³ flops per product, best of several runs) for each n, on one thread and on all threads.
// bench/matmul.sh runs this beside numpy/OpenBLAS and prints the ratios.
//
// usage: bench_matmul [--threads T] [n ...]   (default: n = 256 512 1024; threads 1 and all)
// output: a header naming the GEMM kernel, then one line per case, whitespace-separated:
// op n threads seconds gflops. TFX_GEMM_KERNEL=avx512|avx2|generic forces a kernel.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tfx/core/gemm.hpp"
#include "tfx/core/ops.hpp"

namespace {

tfx::Tensor random_matrix(std::size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  tfx::Tensor t({n, n});
  for (float& v : t.values()) v = u(rng);
  return t;
}

// Best wall time of `product` over repetitions filling at least ~0.5 s (and at least 3 runs).
template <class F>
double best_seconds(F product) {
  using clock = std::chrono::steady_clock;
  double best = 1e30, total = 0;
  for (int rep = 0; rep < 3 || total < 0.5; ++rep) {
    auto t0 = clock::now();
    tfx::Tensor c = product();
    double s = std::chrono::duration<double>(clock::now() - t0).count();
    if (c.size() == 0) std::abort();  // keep the product observable
    best = std::min(best, s);
    total += s;
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes;
  std::vector<unsigned> thread_counts;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc)
      thread_counts.push_back(static_cast<unsigned>(std::stoul(argv[++i])));
    else
      sizes.push_back(std::stoul(arg));
  }
  if (sizes.empty()) sizes = {256, 512, 1024};
  const unsigned all = std::max(1u, std::thread::hardware_concurrency());
  if (thread_counts.empty()) thread_counts = all > 1 ? std::vector<unsigned>{1, all} : std::vector<unsigned>{1};

  if (const char* kernel = std::getenv("TFX_GEMM_KERNEL"); kernel && *kernel) tfx::set_gemm_kernel(kernel);
  std::mt19937 rng(42);
  std::printf("%-10s %6s %7s %10s %9s   (kernel %s)\n", "op", "n", "threads", "seconds", "GFLOP/s",
              tfx::gemm_kernel().c_str());
  for (std::size_t n : sizes) {
    tfx::Tensor a = random_matrix(n, rng), b = random_matrix(n, rng);
    const double flops = 2.0 * static_cast<double>(n) * n * n;
    for (unsigned t : thread_counts) {
      double s = best_seconds([&] { return tfx::matmul(a, b, t); });
      std::printf("%-10s %6zu %7u %10.6f %9.2f\n", "matmul", n, t, s, flops / s * 1e-9);
      s = best_seconds([&] { return tfx::matmul_bt(a, b, t); });
      std::printf("%-10s %6zu %7u %10.6f %9.2f\n", "matmul_bt", n, t, s, flops / s * 1e-9);
      std::fflush(stdout);
    }
  }
  return 0;
}
