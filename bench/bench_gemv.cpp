// The decode GEMV alone: one row of activations against quantized weights (Qwen2.5-0.5B's
// 4864 × 896 FFN shape by default), matmul_bt as the models call it, so the fused
// dequantize-and-dot kernel (src/core/kernels/gemv_quant.inc) is what runs. Two cases: weights
// that stay in the cache (the kernel's arithmetic speed) and a set of matrices far larger than
// the cache (what a decoding step meets: the read bandwidth as well). Prints the weight bytes
// read per second of each.
//
// usage: bench_gemv TYPE [THREADS [N K]]   (TYPE q8_0, q4_0, q5_0, q4_k, q5_k, q6_k, bf16, …;
//        THREADS 0 = all hardware threads)
// output: "gemv TYPE cached_gbps G1 streamed_gbps G2 threads T"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include "tfx/core/gemm.hpp"
#include "tfx/core/stored.hpp"
#include "tfx/core/tensor.hpp"

int main(int argc, char** argv) {
  // TFX_AMX=off: q8 without AMX tiles, as tfx's TFX_AMX
  if (const char* e = std::getenv("TFX_AMX"); e && std::string(e) == "off") tfx::set_amx(false);
  // TFX_ACTIVATIONS=q8: llama.cpp's 8-bit arithmetic (--activations q8)
  if (const char* e = std::getenv("TFX_ACTIVATIONS"); e && std::string(e) == "q8") tfx::set_quant_activations(tfx::QuantActivations::q8);
  if (argc < 2 || argc > 5) {
    std::fprintf(stderr, "usage: bench_gemv TYPE [THREADS [N K]]\n");
    return 2;
  }
  try {
    const std::string name = argv[1];
    const unsigned threads = argc > 2 ? static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10)) : 0;
    const std::size_t N = argc > 4 ? std::strtoul(argv[3], nullptr, 10) : 4864, K = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 896;
    tfx::StoredType type = tfx::StoredType::f32;
    bool found = false;
    for (auto t : {tfx::StoredType::f32, tfx::StoredType::f16, tfx::StoredType::bf16, tfx::StoredType::q8_0, tfx::StoredType::q4_0,
                   tfx::StoredType::q4_1, tfx::StoredType::q5_0, tfx::StoredType::q5_1, tfx::StoredType::q4_k, tfx::StoredType::q5_k,
                   tfx::StoredType::q6_k}) {
      std::string n = tfx::stored_type_name(t);
      std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (n == name) type = t, found = true;
    }
    if (!found || K % tfx::stored_block_size(type)) {
      std::fprintf(stderr, "bench_gemv: unknown type %s or K not a multiple of its block\n", name.c_str());
      return 2;
    }
    std::mt19937 gen(1);
    std::normal_distribution<float> nd(0.0f, 0.02f);
    std::vector<float> w(N * K);
    for (float& x : w) x = nd(gen);
    const std::size_t row_bytes = tfx::stored_row_bytes(type, K), bytes = N * row_bytes;
    // copies enough for 400 MB (the streamed case); the first one is the cached case's
    const std::size_t copies = std::max<std::size_t>(2, 400000000 / bytes);
    std::vector<unsigned char> q(copies * bytes);
    tfx::quantize(type, w.data(), q.data(), N * K);
    for (std::size_t c = 1; c < copies; ++c) std::copy_n(q.begin(), bytes, q.begin() + static_cast<std::ptrdiff_t>(c * bytes));
    std::vector<float> av(K);
    for (float& x : av) x = nd(gen) * 50.0f;
    const tfx::Tensor a = tfx::Tensor::from({1, K}, av);
    using clock = std::chrono::steady_clock;
    auto run = [&](std::size_t c) { return tfx::matmul_bt(a, tfx::StoredMatrix(q.data() + c * bytes, type, N, K), threads); };
    double cached = 1e30, streamed = 1e30;
    float sink = 0;
    for (int r = 0; r < 5; ++r) {
      const auto t0 = clock::now();
      for (int i = 0; i < 20; ++i) sink += run(0).data()[0];
      cached = std::min(cached, std::chrono::duration<double>(clock::now() - t0).count() / 20);
      const auto t1 = clock::now();
      for (std::size_t c = 1; c < copies; ++c) sink += run(c).data()[0];
      streamed = std::min(streamed, std::chrono::duration<double>(clock::now() - t1).count() / static_cast<double>(copies - 1));
    }
    std::printf("gemv %s cached_gbps %.2f streamed_gbps %.2f threads %u%s\n", name.c_str(), static_cast<double>(bytes) / cached / 1e9,
                static_cast<double>(bytes) / streamed / 1e9, threads, sink == 12345.0f ? " " : "");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gemv: %s\n", e.what());
    return 1;
  }
  return 0;
}
