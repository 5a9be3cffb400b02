// PNG checks for the tests: decode a PNG (stb_image) into RGB pixels to look at what was drawn.
#pragma once
#include <stb_image.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "tfx/figure/figure.hpp"

namespace tfx::test {

struct Decoded {
  int w = 0, h = 0;
  std::vector<Rgb> px;
  Rgb at(int x, int y) const { return px[static_cast<std::size_t>(y) * w + x]; }
};

inline Decoded decode_png(const std::string& bytes) {
  Decoded d;
  int n = 0;
  unsigned char* p = stbi_load_from_memory(reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()),
                                           &d.w, &d.h, &n, 3);
  REQUIRE(p != nullptr);
  for (int k = 0; k < d.w * d.h; ++k) d.px.push_back({p[3 * k], p[3 * k + 1], p[3 * k + 2]});
  stbi_image_free(p);
  return d;
}

}  // namespace tfx::test
