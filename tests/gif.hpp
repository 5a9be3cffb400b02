// GIF checks for the tests: an animated GIF decoded back with giflib's own decoder into its pages
// (each frame composited over the previous, as a viewer shows it), delays and loop flag.
#pragma once
#include <doctest/doctest.h>
#include <gif_lib.h>

#include <cstring>
#include <string>
#include <vector>

#include "tfx/figure/figure.hpp"

namespace tfx::test {

struct GifDecoded {
  int w = 0, h = 0;
  std::vector<std::vector<Rgb>> frames;  // each composited over the previous (disposal: keep)
  std::vector<int> delays;
  bool loops = false;
};

inline GifDecoded decode_gif(const std::string& bytes) {
  struct Reader {
    const std::string* s;
    std::size_t at = 0;
  } reader{&bytes};
  auto read = [](GifFileType* g, GifByteType* buf, int n) -> int {
    auto* r = static_cast<Reader*>(g->UserData);
    const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(n), r->s->size() - r->at);
    std::memcpy(buf, r->s->data() + r->at, k);
    r->at += k;
    return static_cast<int>(k);
  };
  int err = 0;
  GifFileType* g = DGifOpen(&reader, read, &err);
  REQUIRE(g != nullptr);
  REQUIRE(DGifSlurp(g) == GIF_OK);
  GifDecoded d;
  d.w = g->SWidth, d.h = g->SHeight;
  const ColorMapObject* map = g->SColorMap;
  REQUIRE(map != nullptr);
  std::vector<Rgb> page(static_cast<std::size_t>(d.w) * d.h, Rgb{0, 0, 0});
  for (int k = 0; k < g->ImageCount; ++k) {
    const SavedImage& im = g->SavedImages[k];
    GraphicsControlBlock gcb{};
    DGifSavedExtensionToGCB(g, k, &gcb);
    d.delays.push_back(gcb.DelayTime);
    for (int e = 0; e < im.ExtensionBlockCount; ++e)
      if (im.ExtensionBlocks[e].Function == APPLICATION_EXT_FUNC_CODE && im.ExtensionBlocks[e].ByteCount == 11 &&
          std::memcmp(im.ExtensionBlocks[e].Bytes, "NETSCAPE2.0", 11) == 0)
        d.loops = true;
    const GifImageDesc& r = im.ImageDesc;
    for (int y = 0; y < r.Height; ++y)
      for (int x = 0; x < r.Width; ++x) {
        const int i = im.RasterBits[static_cast<std::size_t>(y) * r.Width + x];
        if (i == gcb.TransparentColor) continue;  // the previous frame shows through
        const GifColorType c = map->Colors[i];
        page[static_cast<std::size_t>(r.Top + y) * d.w + r.Left + x] = {c.Red, c.Green, c.Blue};
      }
    d.frames.push_back(page);
  }
  for (int e = 0; e < g->ExtensionBlockCount; ++e)  // the loop block may also sit before the first frame
    if (g->ExtensionBlocks[e].Function == APPLICATION_EXT_FUNC_CODE && g->ExtensionBlocks[e].ByteCount == 11 &&
        std::memcmp(g->ExtensionBlocks[e].Bytes, "NETSCAPE2.0", 11) == 0)
      d.loops = true;
  DGifCloseFile(g, &err);
  return d;
}

}  // namespace tfx::test
