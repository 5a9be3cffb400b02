// Benchmark of generation with the KV cache (tfx/model/generate.hpp) on a checkpoint folder, its
// weights used as stored from the mapped file (bench/generate_bench.py make writes a
// Qwen2.5-0.5B-shaped BF16 one): the prefill of the prompt (one pass over the weights for all its
// tokens) and the decode steps (one pass per token), beside PyTorch (bench/generate_bench.py torch).
// The weights' pages are read once before timing (as a second run finds them in the page cache).
//
// usage: bench_generate DIR PROMPT_TOKENS NEW_TOKENS
// output: "tfx_prefill_seconds P tfx_token_seconds T weights_bytes B" — P the best of 3 prefills of
// PROMPT_TOKENS ids, T the median time per decoded token over NEW_TOKENS greedy steps.
// TFX_ACTIVATIONS=q8: decode with llama.cpp's 8-bit arithmetic (tfx model generate --activations q8).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "tfx/core/gemm.hpp"
#include "tfx/io/text_file.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/generate.hpp"
#include "tfx/model/mapped_weights.hpp"
#include "cli/heap_policy.hpp"  // linked in (CMakeLists.txt), as in the tfx executable

int main(int argc, char** argv) {
  // TFX_AMX=off: q8 without AMX tiles, as tfx's TFX_AMX
  if (const char* e = std::getenv("TFX_AMX"); e && std::string(e) == "off") tfx::set_amx(false);
  if (argc != 4) {
    std::fprintf(stderr, "usage: bench_generate DIR PROMPT_TOKENS NEW_TOKENS\n");
    return 2;
  }
  try {
    const std::string dir = argv[1];
    const std::size_t P = std::stoul(argv[2]), N = std::stoul(argv[3]);
    if (const char* a = std::getenv("TFX_ACTIVATIONS"); a && std::string(a) == "q8") tfx::set_quant_activations(tfx::QuantActivations::q8);
    const tfx::Checkpoint m = tfx::load_checkpoint(dir);  // the weights mapped as stored
    tfx::keep_freed_blocks();                              // as tfx model generate does
    const tfx::ModelConfig& c = m.config;
    std::vector<std::size_t> prompt;
    for (std::size_t i = 0; i < P; ++i) prompt.push_back((i * 7919 + 13) % c.vocab);
    using clock = std::chrono::steady_clock;
    double prefill = 1e30;
    std::vector<double> steps;
    for (int r = 0; r < 3; ++r) {
      tfx::KvDecoder dec(m, P + N);
      const auto t0 = clock::now();
      std::vector<float> logits = dec.feed(prompt);
      prefill = std::min(prefill, std::chrono::duration<double>(clock::now() - t0).count());
      if (r < 2) continue;  // the decode steps once, after the pages are in memory
      for (std::size_t s = 0; s < N; ++s) {
        const std::size_t next = static_cast<std::size_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
        const auto t1 = clock::now();
        logits = dec.feed(std::vector<std::size_t>{next});
        steps.push_back(std::chrono::duration<double>(clock::now() - t1).count());
      }
    }
    std::sort(steps.begin(), steps.end());
    std::printf("tfx_prefill_seconds %.6f tfx_token_seconds %.6f weights_bytes %zu\n", prefill, steps[steps.size() / 2],
                m.file_bytes());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_generate: %s\n", e.what());
    return 1;
  }
  return 0;
}
