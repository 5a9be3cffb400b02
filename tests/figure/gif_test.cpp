// Animated GIFs (issue 24 §19): the encoder's frames decoded back with giflib's own decoder
// (pixels, delay, loop), and `rope rotate --gif` / `pe shift --gif` end to end.
#include <doctest/doctest.h>

#include "../gif.hpp"
#include "../helpers.hpp"
#include "tfx/core/error.hpp"
#include "tfx/figure/figure.hpp"

using namespace tfx;
using tfx::test::decode_gif;
using tfx::test::GifDecoded;
using tfx::test::read_file;
using tfx::test::run_tfx;
using tfx::test::TempDir;

namespace {

Image square_frame(int w, int h, int x0, Rgb c) {
  Image im;
  im.width = w, im.height = h;
  im.rgb.assign(static_cast<std::size_t>(w) * h * 3, 255);
  for (int y = 5; y < 15; ++y)
    for (int x = x0; x < x0 + 10; ++x) {
      const std::size_t k = (static_cast<std::size_t>(y) * w + x) * 3;
      im.rgb[k] = c.r, im.rgb[k + 1] = c.g, im.rgb[k + 2] = c.b;
    }
  return im;
}

}  // namespace

TEST_CASE("gif: frames decode back to their pixels (white stays white), with the delay and an endless loop") {
  const std::vector<Image> frames = {square_frame(40, 20, 0, {200, 30, 40}), square_frame(40, 20, 10, {30, 90, 200}),
                                     square_frame(40, 20, 20, {200, 30, 40}), square_frame(40, 20, 20, {200, 30, 40})};
  const GifDecoded d = decode_gif(encode_gif(frames, 7));
  REQUIRE(d.frames.size() == 4);
  CHECK(d.w == 40);
  CHECK(d.h == 20);
  CHECK(d.loops);
  for (int delay : d.delays) CHECK(delay == 7);
  for (std::size_t k = 0; k < 4; ++k)
    for (int y = 0; y < 20; ++y)
      for (int x = 0; x < 40; ++x) {
        const Rgb want = frames[k].at(x, y), got = d.frames[k][static_cast<std::size_t>(y) * 40 + x];
        CHECK_MESSAGE((got.r == want.r && got.g == want.g && got.b == want.b), "frame ", k, " pixel ", x, ",", y);
      }
  // frames of different sizes share the largest page, the smaller centred across on white
  const GifDecoded p = decode_gif(encode_gif({square_frame(40, 20, 0, {0, 0, 0}), square_frame(20, 20, 0, {0, 0, 0})}, 10));
  CHECK(p.w == 40);
  const Rgb left = p.frames[1][10 * 40 + 2], inside = p.frames[1][10 * 40 + 12];
  CHECK((left.r == 255 && left.g == 255 && left.b == 255));
  CHECK((inside.r == 0 && inside.g == 0 && inside.b == 0));
  CHECK_THROWS_AS(encode_gif({}, 10), Error);
}

TEST_CASE("gif: rope rotate --gif and pe shift --gif write N looping frames that move; alone they print no table") {
  TempDir tmp;
  const tfx::test::Run r = run_tfx("rope rotate --dim 8 --pos 3 --seed 7 --gif r.gif --frames 6 --fps 5", tmp.path);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("wrote r.gif") != std::string::npos);
  CHECK(r.out.find("6 frames at 5 per second") != std::string::npos);
  CHECK(r.out.find("inv_freq") == std::string::npos);  // the GIF alone: no table
  const GifDecoded d = decode_gif(read_file(tmp.path / "r.gif"));
  CHECK(d.frames.size() == 6);
  CHECK(d.loops);
  CHECK(d.delays[0] == 20);
  CHECK(d.frames[0] != d.frames[1]);  // pair 0 turns by 1 rad per position
  // with a table asked for too, both are written
  const tfx::test::Run s = run_tfx("pe shift --offset 3 --dim 8 --gif --frames 4 -o blocks.csv", tmp.path);
  REQUIRE(s.code == 0);
  CHECK(decode_gif(read_file(tmp.path / "pe_shift_k3_dim8.gif")).frames.size() == 4);
  CHECK(read_file(tmp.path / "blocks.csv").starts_with("m,omega"));
  // an animation too big is refused before it is drawn whole, and names the flags to change
  const tfx::test::Run big = run_tfx("rope rotate --dim 8 --gif b.gif --frames 240 --scale 8", tmp.path);
  check_stderr(big, 2, "--frames");
  CHECK(!std::filesystem::exists(tmp.path / "b.gif"));
}
