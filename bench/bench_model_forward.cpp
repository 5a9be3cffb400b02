// Benchmark of tfx::model_forward alone, the checkpoint loaded once beforehand: the real-model
// forward-only row of bench/run, beside PyTorch's forward of the same weights with loading
// excluded too (bench/model_forward.py torch). Built with the tfx executable's allocator
// (src/cli/huge_pages.cpp), so the forward's buffers are placed as in `tfx model attention`.
//
// usage: bench_model_forward DIR IDS   (IDS comma-separated, e.g. from bench/model_forward.py ids)
// output: "tfx_forward_seconds S" — the best of 5 forwards without the LM head, as `tfx model
// attention` runs it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "tfx/model/checkpoint.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: bench_model_forward DIR IDS\n");
    return 2;
  }
  try {
    const tfx::Checkpoint m = tfx::load_checkpoint(argv[1]);
    std::vector<std::size_t> ids;
    std::stringstream in(argv[2]);
    for (std::string item; std::getline(in, item, ',');) ids.push_back(std::stoul(item));
    double best = 1e30;
    std::size_t heads = 0;
    for (int run = 0; run < 5; ++run) {
      const auto t0 = std::chrono::steady_clock::now();
      const tfx::ForwardPass f = tfx::model_forward(m, ids, false);
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      heads = f.attentions.size();
    }
    std::printf("tfx_forward_seconds %.4f (%zu layers of attention)\n", best, heads);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_model_forward: %s\n", e.what());
    return 1;
  }
}
