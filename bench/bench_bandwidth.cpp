// The machine's read bandwidth, measured the way a decoding step reads its weights: every thread
// sums its share of one buffer as large as the weights (64-bit integer adds, 8 independent
// accumulators, so the loads are the limit, not the arithmetic). The buffer is written once
// first (its pages populated), then summed REPEATS times; the best pass counts. bench/run prints
// it as a row, and the generate row's tokens/s as a fraction of bandwidth ÷ bytes of weights.
//
// usage: bench_bandwidth BYTES [THREADS]   (THREADS 0 or absent = all hardware threads)
// output: "read_bandwidth_gbps G seconds S bytes B threads T" (G in 10⁹ bytes/s, S the best pass)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

std::uint64_t sum_words(const std::uint64_t* p, std::size_t n) {
  std::uint64_t acc[8] = {};
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) acc[j] += p[i + j];
  for (; i < n; ++i) acc[0] += p[i];
  std::uint64_t s = 0;
  for (std::uint64_t a : acc) s += a;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: bench_bandwidth BYTES [THREADS]\n");
    return 2;
  }
  const std::size_t bytes = std::strtoull(argv[1], nullptr, 10);
  unsigned threads = argc == 3 ? static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10)) : 0;
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t words = bytes / 8;
  if (words < threads * 1024) {
    std::fprintf(stderr, "bench_bandwidth: BYTES too small\n");
    return 2;
  }
  std::vector<std::uint64_t> buf(words);
  for (std::size_t i = 0; i < words; ++i) buf[i] = i * 0x9e3779b97f4a7c15ull;  // populate every page
  const std::size_t per = (words + threads - 1) / threads;
  double best = 1e30;
  std::uint64_t check = 0;
  const int repeats = 7;
  for (int r = 0; r < repeats; ++r) {
    std::vector<std::uint64_t> part(threads);
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t)
      pool.emplace_back([&, t] {
        const std::size_t lo = t * per, hi = std::min(words, lo + per);
        if (lo < hi) part[t] = sum_words(buf.data() + lo, hi - lo);
      });
    part[0] = sum_words(buf.data(), std::min(words, per));
    for (auto& th : pool) th.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, s);
    std::uint64_t total = 0;
    for (std::uint64_t x : part) total += x;
    if (r > 0 && total != check) {
      std::fprintf(stderr, "bench_bandwidth: sums differ between passes\n");
      return 1;
    }
    check = total;
  }
  std::printf("read_bandwidth_gbps %.3f seconds %.6f bytes %zu threads %u\n", words * 8 / best / 1e9, best,
              words * 8, threads);
  return 0;
}
