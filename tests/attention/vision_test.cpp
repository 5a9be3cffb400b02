// ViT patches of a real picture: reading pictures (stb_image), resizing, the unfold rows checked
// against a direct Conv2d (the lecture's claim that both routes are one computation), and the
// picture figure's pixels.
#include <doctest/doctest.h>
#include <stb_image_write.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "../helpers.hpp"
#include "../png.hpp"
#include "tfx/attention/vision.hpp"
#include "tfx/core/error.hpp"
#include "tfx/io/image_file.hpp"

using namespace tfx;
using tfx::test::TempDir;

namespace {

Image pattern(int w, int h) {
  Image im;
  im.width = w, im.height = h;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) im.rgb.push_back(static_cast<std::uint8_t>((x * 7 + y * 13 + c * 71) % 256));
  return im;
}

void write_bytes(const std::filesystem::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

std::string png_of(int w, int h, int channels, const std::vector<std::uint8_t>& px) {
  std::string out;
  stbi_write_png_to_func([](void* ctx, void* data, int size) { static_cast<std::string*>(ctx)->append(static_cast<char*>(data), size); },
                         &out, w, h, channels, px.data(), w * channels);
  return out;
}

}  // namespace

TEST_CASE("vision: unfold + Linear = Conv2d(kernel = stride = P) on a picture, patch by patch in reading order") {
  const int P = 4, W = 12, H = 8, D = 5;
  const Image im = pattern(W, H);
  const Tensor X = unfold_patches(im, P);
  REQUIRE(X.rows() == static_cast<std::size_t>((W / P) * (H / P)));
  REQUIRE(X.cols() == static_cast<std::size_t>(3 * P * P));
  // a random Conv2d weight [D, 3, P, P]; the convolution computed directly over the picture
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> w(static_cast<std::size_t>(D) * 3 * P * P);
  for (double& v : w) v = u(rng);
  for (int gy = 0; gy < H / P; ++gy)
    for (int gx = 0; gx < W / P; ++gx)
      for (int d = 0; d < D; ++d) {
        double conv = 0, linear = 0;
        for (int c = 0; c < 3; ++c)
          for (int ky = 0; ky < P; ++ky)
            for (int kx = 0; kx < P; ++kx) {
              const std::size_t k = ((static_cast<std::size_t>(d) * 3 + c) * P + ky) * P + kx;
              const std::uint8_t pixel = im.rgb[(static_cast<std::size_t>(gy * P + ky) * W + (gx * P + kx)) * 3 + c];
              conv += w[k] * (pixel / 255.0);
            }
        // the weight reshaped to [D, 3·P²] (the Linear layer) times the unfold row
        const std::size_t n = static_cast<std::size_t>(gy) * (W / P) + gx;
        for (std::size_t j = 0; j < X.cols(); ++j) linear += w[static_cast<std::size_t>(d) * 3 * P * P + j] * X(n, j);
        CHECK(linear == doctest::Approx(conv).epsilon(1e-5));
      }
  // leftover pixels are dropped as Conv2d drops them: 13×9 gives the same 6 patches
  const Tensor Y = unfold_patches(pattern(13, 9), P);
  CHECK(Y.rows() == 6);
  CHECK_THROWS_AS(unfold_patches(im, 9), Error);
}

TEST_CASE("vision: pictures are read as RGB (alpha over white, grey expanded); bad files are errors naming them") {
  TempDir tmp;
  // RGB round trip, exact
  const Image im = pattern(5, 3);
  write_bytes(tmp.path / "rgb.png", png_of(5, 3, 3, im.rgb));
  const Image back = read_image((tmp.path / "rgb.png").string());
  CHECK(back.width == 5);
  CHECK(back.height == 3);
  CHECK(back.rgb == im.rgb);
  // grey + alpha: a half-transparent black pixel over white is mid grey; an opaque grey stays
  write_bytes(tmp.path / "ga.png", png_of(2, 1, 2, {0, 128, 200, 255}));
  const Image ga = read_image((tmp.path / "ga.png").string());
  CHECK(ga.at(0, 0).r == 127);
  CHECK(ga.at(0, 0).b == 127);
  CHECK(ga.at(1, 0).g == 200);
  // a 16-bit PPM (maxval 65535, big-endian samples): each sample's high byte, read within its own
  // buffer (stb's conversion to RGBA read past a 16-bit buffer; a fuzz find), the same on every read
  std::string ppm = "P6\n2 1\n65535\n";
  for (const unsigned v : {0x1234u, 0xABCDu, 0x00FFu, 0xFF00u, 0x8080u, 0x7F7Fu}) ppm += static_cast<char>(v >> 8), ppm += static_cast<char>(v & 0xFF);
  write_bytes(tmp.path / "deep.ppm", ppm);
  const Image deep = read_image((tmp.path / "deep.ppm").string());
  CHECK(deep.rgb == std::vector<std::uint8_t>{0x12, 0xAB, 0x00, 0xFF, 0x80, 0x7F});
  CHECK(read_image((tmp.path / "deep.ppm").string()).rgb == deep.rgb);
  // not pictures
  write_bytes(tmp.path / "text.png", "hello");
  CHECK_THROWS_WITH_AS(read_image((tmp.path / "text.png").string()), doctest::Contains("text.png: not a picture tfx can read"), Error);
  const std::string png = png_of(5, 3, 3, im.rgb);
  write_bytes(tmp.path / "cut.png", png.substr(0, png.size() / 2));
  CHECK_THROWS_WITH_AS(read_image((tmp.path / "cut.png").string()), doctest::Contains("cut.png"), Error);
  CHECK_THROWS_WITH_AS(read_image((tmp.path / "missing.png").string()), doctest::Contains("missing.png"), Error);
  write_bytes(tmp.path / "empty.png", "");
  CHECK_THROWS_WITH_AS(read_image((tmp.path / "empty.png").string()), doctest::Contains("empty.png: empty file"), Error);
  // a header claiming 20000 × 10000 pixels (600 MB decoded) is refused before any pixel is decoded
  std::string big = png;
  big[16] = 0, big[17] = 0, big[18] = 0x4E, big[19] = 0x20;  // IHDR width = 20000
  big[20] = 0, big[21] = 0, big[22] = 0x27, big[23] = 0x10;  // height = 10000
  write_bytes(tmp.path / "big.png", big);
  CHECK_THROWS_WITH_AS(read_image((tmp.path / "big.png").string()), doctest::Contains("big.png: the picture is 20000×10000 pixels"), Error);
}

TEST_CASE("vision: resizing keeps a flat picture flat and a left-to-right ramp increasing") {
  Image flat;
  flat.width = 30, flat.height = 20;
  flat.rgb.assign(30 * 20 * 3, 90);
  const Image f = resize_image(flat, 7, 11);
  CHECK(f.width == 7);
  CHECK(f.height == 11);
  for (std::uint8_t v : f.rgb) CHECK(std::abs(v - 90) <= 1);
  const Image ramp = gradient_picture(64, 8);
  const Image r = resize_image(ramp, 16, 4);
  for (int x = 1; x < 16; ++x) CHECK(r.at(x, 2).r >= r.at(x - 1, 2).r);
  CHECK(r.at(15, 2).r > r.at(0, 2).r + 150);
  CHECK_THROWS_AS(resize_image(ramp, 0, 4), Error);
}

TEST_CASE("vision: the picture figure shows each patch's own pixels, in the grid and in the sequence") {
  // four flat patches of 8×8 (red, green, blue, yellow) in a 16×16 picture
  Image im;
  im.width = im.height = 16;
  const Rgb colors[4] = {{220, 30, 30}, {30, 200, 30}, {30, 30, 220}, {230, 220, 20}};
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 16; ++x) {
      const Rgb c = colors[(y / 8) * 2 + x / 8];
      im.rgb.insert(im.rgb.end(), {c.r, c.g, c.b});
    }
  Picture grid;
  grid.image = im;
  grid.cell = 8;
  grid.width = 320;
  Picture seq = grid;
  seq.sequence = true;
  for (const Picture& p : {grid, seq}) {
    Figure f;
    f.panels = {p};
    const tfx::test::Decoded d = tfx::test::decode_png(encode_png(f));
    // every patch colour appears in a solid block somewhere (patch interiors are not covered by
    // the grid or the number tags)
    for (const Rgb& c : colors) {
      int hits = 0;
      for (const Rgb& px : d.px) hits += px.r == c.r && px.g == c.g && px.b == c.b;
      CHECK(hits > 300);
    }
  }
}
