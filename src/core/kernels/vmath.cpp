// Picks the SLEEF build of vmath.hpp for this CPU (see vmath.hpp).
#include "tfx/core/vmath.hpp"

#include <fmt/format.h>

#include <cstring>

#include "tfx/core/error.hpp"
#include "vmath_kernels.hpp"
#include "tfx/core/i18n.hpp"

#if !defined(__x86_64__)
#include <cmath>
// other CPUs: libm, one value at a time (the SLEEF builds here are x86-64's)
namespace tfx::vmath_kernels::sse2 {
void sincos_pairs(const double* x, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[2 * i] = static_cast<float>(std::sin(x[i])), out[2 * i + 1] = static_cast<float>(std::cos(x[i]));
}
void exp_inplace(float* x, std::size_t n) { for (std::size_t i = 0; i < n; ++i) x[i] = std::exp(x[i]); }
void tanh_inplace(float* x, std::size_t n) { for (std::size_t i = 0; i < n; ++i) x[i] = std::tanh(x[i]); }
void erf_inplace(float* x, std::size_t n) { for (std::size_t i = 0; i < n; ++i) x[i] = std::erf(x[i]); }
}  // namespace tfx::vmath_kernels::sse2
namespace tfx::vmath_kernels::avx2 { using namespace sse2; }
namespace tfx::vmath_kernels::avx512 { using namespace sse2; }
#endif

namespace tfx::vmath {

namespace {

struct Kernel {
  const char* name;
  void (*sincos_pairs)(const double*, float*, std::size_t);
  void (*exp_inplace)(float*, std::size_t);
  void (*tanh_inplace)(float*, std::size_t);
  void (*erf_inplace)(float*, std::size_t);
};

#define TFX_KERNEL(ISA)                                                                                 \
  Kernel {                                                                                              \
#ISA, vmath_kernels::ISA::sincos_pairs, vmath_kernels::ISA::exp_inplace, vmath_kernels::ISA::tanh_inplace, \
        vmath_kernels::ISA::erf_inplace                                                                 \
  }
const Kernel kKernels[] = {TFX_KERNEL(avx512), TFX_KERNEL(avx2), TFX_KERNEL(sse2)};

bool supported(const Kernel& k) {
#if !defined(__x86_64__)
  return std::strcmp(k.name, "sse2") == 0;
#endif
  __builtin_cpu_init();
  if (std::strcmp(k.name, "avx512") == 0) return __builtin_cpu_supports("avx512f");
  if (std::strcmp(k.name, "avx2") == 0) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return true;
}

const Kernel* best() {
  for (const Kernel& k : kKernels)
    if (supported(k)) return &k;
  return &kKernels[2];
}

const Kernel*& current() {
  static const Kernel* k = best();
  return k;
}

}  // namespace

void sincos_pairs(const double* x, float* out, std::size_t n) { current()->sincos_pairs(x, out, n); }
void exp_inplace(float* x, std::size_t n) { current()->exp_inplace(x, n); }
void tanh_inplace(float* x, std::size_t n) { current()->tanh_inplace(x, n); }
void erf_inplace(float* x, std::size_t n) { current()->erf_inplace(x, n); }
const char* kernel_name() { return current()->name; }

void set_kernel(const char* name) {
  for (const Kernel& k : kKernels)
    if (std::strcmp(k.name, name) == 0) {
      if (!supported(k)) throw Error(fmt::format(N_("vmath kernel '{}' is not supported by this CPU"), name));
      current() = &k;
      return;
    }
  throw Error(fmt::format(N_("vmath kernel '{}': expected avx512, avx2 or sse2"), name));
}

}  // namespace tfx::vmath
