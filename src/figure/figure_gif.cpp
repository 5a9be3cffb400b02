// Animated GIF (tfx/figure/figure.hpp encode_gif) through the system's giflib: one palette for
// all frames (giflib's median cut over every frame at once, so colours do not flicker between
// frames), each frame after the first stored as just the rectangle that changed.
#include <fmt/format.h>
#include <gif_lib.h>

#include <algorithm>
#include <cstring>

#include "tfx/core/error.hpp"
#include "tfx/figure/figure.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {

constexpr GifByteType kTransparent = 255;

int append(GifFileType* gif, const GifByteType* data, int size) {
  static_cast<std::string*>(gif->UserData)->append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(size));
  return size;
}

struct GifCloser {
  GifFileType* gif;
  ~GifCloser() {
    int err = 0;
    if (gif) EGifCloseFile(gif, &err);
  }
};

struct MapFree {
  ColorMapObject* map;
  ~MapFree() { GifFreeMapObject(map); }
};

void check(int rc, GifFileType* gif, const char* what) {
  if (rc != GIF_OK) throw Error(fmt::format(N_("GIF encoding failed ({}: {})"), what, GifErrorString(gif ? gif->Error : 0)));
}

}  // namespace

std::string encode_gif(const std::vector<Image>& frames, int delay_cs) {
  if (frames.empty()) throw Error(N_("GIF encoding: no frames"));
  int W = 0, H = 0;
  for (const Image& f : frames) W = std::max(W, f.width), H = std::max(H, f.height);
  const std::size_t F = frames.size(), plane = static_cast<std::size_t>(W) * H;
  if (W > 65535 || H > 65535 || plane * F > kMaxGifPixels)
    throw Error(fmt::format(N_("an animation of {} images of {}×{} pixels is too big (at most {} megapixels in all); use fewer frames or "
                            "a smaller scale"),
                            F, W, H, kMaxGifPixels >> 20),
                Error::Kind::data, {"frames", "scale"});
  // every frame on a white W×H page, centred across and at the top
  std::vector<GifByteType> r(plane * F, 255), g(plane * F, 255), b(plane * F, 255), idx(plane * F);
  for (std::size_t k = 0; k < F; ++k) {
    const Image& f = frames[k];
    const int dx = (W - f.width) / 2;
    for (int y = 0; y < f.height; ++y)
      for (int x = 0; x < f.width; ++x) {
        const std::size_t s = (static_cast<std::size_t>(y) * f.width + x) * 3, d = k * plane + static_cast<std::size_t>(y) * W + x + dx;
        r[d] = f.rgb[s], g[d] = f.rgb[s + 1], b[d] = f.rgb[s + 2];
      }
  }
  // 255 colours; index 255 is transparent: a later frame's unchanged pixels (long runs that
  // LZW packs to almost nothing)
  int colors = 255;
  std::vector<GifColorType> palette(256);
  if (GifQuantizeBuffer(static_cast<unsigned>(W), static_cast<unsigned>(H * F), &colors, r.data(), g.data(), b.data(), idx.data(),
                        palette.data()) != GIF_OK)
    throw Error(N_("GIF encoding failed (quantizing the colours)"));
  // giflib keeps 5 bits per channel, so its white is (248, 248, 248): each entry becomes the
  // mean of the pixels given to it instead (a page of white stays exactly white)
  std::vector<std::uint64_t> sum(256 * 3, 0), count(256, 0);
  for (std::size_t k = 0; k < plane * F; ++k) {
    const std::size_t e = idx[k];
    sum[3 * e] += r[k], sum[3 * e + 1] += g[k], sum[3 * e + 2] += b[k], ++count[e];
  }
  for (std::size_t e = 0; e < 255; ++e)
    if (count[e]) {
      palette[e].Red = static_cast<GifByteType>((sum[3 * e] + count[e] / 2) / count[e]);
      palette[e].Green = static_cast<GifByteType>((sum[3 * e + 1] + count[e] / 2) / count[e]);
      palette[e].Blue = static_cast<GifByteType>((sum[3 * e + 2] + count[e] / 2) / count[e]);
    }
  MapFree map{GifMakeMapObject(256, palette.data())};
  if (!map.map) throw Error(N_("GIF encoding failed (colour map)"));

  std::string out;
  int err = 0;
  GifCloser c{EGifOpen(&out, append, &err)};
  if (!c.gif) throw Error(fmt::format(N_("GIF encoding failed ({})"), GifErrorString(err)));
  EGifSetGifVersion(c.gif, true);
  check(EGifPutScreenDesc(c.gif, W, H, 8, 0, map.map), c.gif, "screen");
  // loop forever (the NETSCAPE2.0 application extension)
  check(EGifPutExtensionLeader(c.gif, APPLICATION_EXT_FUNC_CODE), c.gif, "loop");
  check(EGifPutExtensionBlock(c.gif, 11, "NETSCAPE2.0"), c.gif, "loop");
  const unsigned char loop[3] = {1, 0, 0};
  check(EGifPutExtensionBlock(c.gif, 3, loop), c.gif, "loop");
  check(EGifPutExtensionTrailer(c.gif), c.gif, "loop");
  for (std::size_t k = 0; k < F; ++k) {
    GraphicsControlBlock gcb{};
    gcb.DisposalMode = DISPOSE_DO_NOT;
    gcb.UserInputFlag = false;
    gcb.DelayTime = delay_cs;
    gcb.TransparentColor = k == 0 ? NO_TRANSPARENT_COLOR : kTransparent;
    GifByteType ext[4];
    EGifGCBToExtension(&gcb, ext);
    check(EGifPutExtension(c.gif, GRAPHICS_EXT_FUNC_CODE, 4, ext), c.gif, "frame delay");
    // the rectangle that differs from the previous frame (the whole page for the first)
    int x0 = 0, y0 = 0, x1 = W, y1 = H;
    if (k > 0) {
      x0 = W, y0 = H, x1 = 0, y1 = 0;
      const GifByteType *cur = idx.data() + k * plane, *prev = cur - plane;
      for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x)
          if (cur[static_cast<std::size_t>(y) * W + x] != prev[static_cast<std::size_t>(y) * W + x])
            x0 = std::min(x0, x), x1 = std::max(x1, x + 1), y0 = std::min(y0, y), y1 = std::max(y1, y + 1);
      if (x1 <= x0) x0 = y0 = 0, x1 = y1 = 1;  // unchanged: one pixel, as a frame needs one
    }
    check(EGifPutImageDesc(c.gif, x0, y0, x1 - x0, y1 - y0, false, nullptr), c.gif, "frame");
    std::vector<GifByteType> line(static_cast<std::size_t>(x1 - x0));
    for (int y = y0; y < y1; ++y) {
      const GifByteType* cur = idx.data() + k * plane + static_cast<std::size_t>(y) * W;
      for (int x = x0; x < x1; ++x) line[x - x0] = k > 0 && cur[x] == cur[static_cast<std::ptrdiff_t>(x) - static_cast<std::ptrdiff_t>(plane)] ? kTransparent : cur[x];
      check(EGifPutLine(c.gif, line.data(), x1 - x0), c.gif, "pixels");
    }
  }
  const int rc = EGifCloseFile(c.gif, &err);
  c.gif = nullptr;
  if (rc != GIF_OK) throw Error(fmt::format(N_("GIF encoding failed ({})"), GifErrorString(err)));
  return out;
}

}  // namespace tfx
