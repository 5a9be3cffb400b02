// include/tfx/core/vmath.hpp against libm: every SLEEF build this CPU runs, on 10^7 arguments per
// function over the range tfx uses it on (PE angles up to 10^9, softmax exponents, GELU inputs),
// the result compared with libm's in double rounded to float, in float ULPs.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "tfx/core/vmath.hpp"

namespace {

// Distance in representable floats (0 = equal; sign changes counted through zero).
std::int64_t ulps(float a, float b) {
  auto key = [](float f) {
    const std::int32_t i = std::bit_cast<std::int32_t>(f);
    return i < 0 ? static_cast<std::int64_t>(std::int32_t{INT32_MIN} - i) : static_cast<std::int64_t>(i);
  };
  return std::llabs(key(a) - key(b));
}

std::vector<const char*> kernels() {
  std::vector<const char*> out;
  for (const char* k : {"avx512", "avx2", "sse2"}) {
    try {
      tfx::vmath::set_kernel(k);
      out.push_back(k);
    } catch (...) {
    }
  }
  return out;
}

}  // namespace

TEST_CASE("vmath: sin/cos pairs, exp, tanh and erf within 1 float ULP of libm on 10^7 arguments, every build this CPU has") {
  const std::vector<const char*> builds = kernels();
  REQUIRE(!builds.empty());
  std::mt19937_64 gen(7);
  for (std::size_t b = 0; b < builds.size(); ++b) {
    tfx::vmath::set_kernel(builds[b]);
    CAPTURE(builds[b]);
    // the best build on the full 10^7, the others on 10^6 (same code paths, other vector widths)
    const std::size_t n = b == 0 ? 10'000'000 : 1'000'000;
    // 1. PE angles p·ω: [0, 10^9], half of them in [0, 2^14] where most of a lecture's tables live
    std::vector<double> x(n);
    std::uniform_real_distribution<double> wide(0.0, 1e9), narrow(0.0, 16384.0);
    for (std::size_t i = 0; i < n; ++i) x[i] = i % 2 ? wide(gen) : narrow(gen);
    x[0] = 0.0;
    std::vector<float> out(2 * n + 1, 7.0f);
    tfx::vmath::sincos_pairs(x.data(), out.data(), n - 3);  // a length that leaves a tail
    std::int64_t worst = 0;
    for (std::size_t i = 0; i + 3 < n; ++i) {
      worst = std::max(worst, ulps(out[2 * i], static_cast<float>(std::sin(x[i]))));
      worst = std::max(worst, ulps(out[2 * i + 1], static_cast<float>(std::cos(x[i]))));
    }
    CHECK(out[2 * (n - 3)] == 7.0f);  // nothing written past the end
    CHECK(worst <= 1);
    MESSAGE(std::string(builds[b]) << " sincos: max " << worst << " float ULP over " << n - 3 << " angles");
    // 2. exp, tanh, erf in float over their ranges here
    struct Fn {
      const char* name;
      void (*vec)(float*, std::size_t);
      double (*ref)(double);
      float lo, hi;
    };
    const Fn fns[] = {{"exp", tfx::vmath::exp_inplace, [](double v) { return std::exp(v); }, -87.0f, 88.0f},
                      {"tanh", tfx::vmath::tanh_inplace, [](double v) { return std::tanh(v); }, -12.0f, 12.0f},
                      {"erf", tfx::vmath::erf_inplace, [](double v) { return std::erf(v); }, -6.0f, 6.0f}};
    for (const Fn& f : fns) {
      std::uniform_real_distribution<float> d(f.lo, f.hi);
      std::vector<float> v(n), w;
      for (auto& e : v) e = d(gen);
      v[1] = 0.0f;
      w = v;
      f.vec(w.data(), n - 5);
      std::int64_t fw = 0;
      for (std::size_t i = 0; i + 5 < n; ++i) fw = std::max(fw, ulps(w[i], static_cast<float>(f.ref(v[i]))));
      CHECK(w[n - 1] == v[n - 1]);  // untouched past the end
      CAPTURE(f.name);
      CHECK(fw <= 2);
      MESSAGE(std::string(builds[b]) << " " << std::string(f.name) << ": max " << fw << " float ULP over " << n - 5 << " arguments");
    }
  }
  tfx::vmath::set_kernel(builds[0]);
  CHECK_THROWS(tfx::vmath::set_kernel("neon"));
}
