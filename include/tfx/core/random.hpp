// The one random generator of tfx: every draw (Xavier-initialised attention weights, the √d_k
// variance experiment, RoPE's demo vectors) comes from a Generator seeded with the command's
// --seed. mt19937_64 underneath, with conversions written out (53-bit uniform, Marsaglia's polar
// normal) so the numbers are the same with every standard library, unlike std::*_distribution.
#pragma once
#include <cmath>
#include <cstdint>
#include <random>

namespace tfx {

class Generator {
 public:
  explicit Generator(std::uint64_t seed) : engine_(seed) {}
  // Seeded from several numbers at once (e.g. a seed and a hash of a token).
  explicit Generator(std::seed_seq& seeds) : engine_(seeds) {}

  // u ~ U[0, 1) from the top 53 bits of one draw.
  double uniform01() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  // 2u − 1 ~ U[−1, 1).
  double uniform_signed() { return 2.0 * uniform01() - 1.0; }

  // N(0, 1) by Marsaglia's polar method: (u, v) uniform in the unit disc, s = u² + v²; then
  // u·√(−2 ln s / s) and v·√(−2 ln s / s) are two independent normals (the second is kept for
  // the next call).
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u, v, s;
    do {
      u = uniform_signed();
      v = uniform_signed();
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double f = std::sqrt(-2.0 * std::log(s) / s);
    spare_ = v * f;
    has_spare_ = true;
    return u * f;
  }

 private:
  std::mt19937_64 engine_;
  double spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace tfx
