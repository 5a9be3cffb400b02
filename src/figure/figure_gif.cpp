// Animated GIF (tfx/figure/figure.hpp encode_gif) through the system's giflib: one palette for
// all frames (so colours do not flicker between frames), each frame after the first stored as
// just the rectangle that changed.
//
// The palette: a figure's colours are of two kinds. Area colours — heatmap cells, colour-bar
// rows, backgrounds, lines — stand in runs of several equal pixels; the rest are the blends
// that antialiasing makes at the edges of text and lines (many of them: Hangul's strokes make
// thousands). A median cut over all pixels (giflib's) let those blends take the boxes, so a
// heatmap cell's colour came out as the mean of a box shared with greys (Korean GIFs showed
// grey-khaki cells and a grey band in the colour bar). Here the distinct area colours are cut
// into up to kAreaEntries boxes, each distinct colour counting once (a cell's colour matters
// however small the cell), the blends into the entries left, and every pixel takes the nearest
// entry.
#include <fmt/format.h>
#include <gif_lib.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <unordered_map>

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

constexpr std::size_t kAreaEntries = 232;  // of the 255 colours (index 255 is transparent)
constexpr int kAreaRun = 4;                // a run of this many equal pixels in a row is an area

std::uint32_t pack(GifByteType r, GifByteType g, GifByteType b) { return (std::uint32_t(r) << 16) | (std::uint32_t(g) << 8) | b; }

struct Colour {
  std::array<int, 3> c;
  std::uint64_t count;  // pixels of this colour (for the entry's mean)
};

// Median cut of distinct colours into at most `boxes` entries: the box with the widest channel
// range is split at the median colour along that channel until there are `boxes` or no box has
// two colours; each entry is the pixel-weighted mean of its box.
std::vector<std::array<int, 3>> median_cut(std::vector<Colour> colours, std::size_t boxes) {
  std::vector<std::array<int, 3>> out;
  if (colours.empty() || boxes == 0) return out;
  struct Box {
    std::size_t begin, end;
    int channel = 0, range = 0;
  };
  const auto measure = [&](Box& b) {
    std::array<int, 3> lo{255, 255, 255}, hi{0, 0, 0};
    for (std::size_t k = b.begin; k < b.end; ++k)
      for (int ch = 0; ch < 3; ++ch) lo[ch] = std::min(lo[ch], colours[k].c[ch]), hi[ch] = std::max(hi[ch], colours[k].c[ch]);
    b.channel = 0, b.range = -1;
    for (int ch = 0; ch < 3; ++ch)
      if (hi[ch] - lo[ch] > b.range) b.range = hi[ch] - lo[ch], b.channel = ch;
  };
  std::vector<Box> list{{0, colours.size()}};
  measure(list[0]);
  while (list.size() < boxes) {
    std::size_t pick = list.size();
    for (std::size_t i = 0; i < list.size(); ++i)
      if (list[i].end - list[i].begin >= 2 && (pick == list.size() || list[i].range > list[pick].range)) pick = i;
    if (pick == list.size() || list[pick].range == 0) break;
    Box b = list[pick];
    std::sort(colours.begin() + static_cast<std::ptrdiff_t>(b.begin), colours.begin() + static_cast<std::ptrdiff_t>(b.end),
              [ch = b.channel](const Colour& x, const Colour& y) { return x.c[ch] != y.c[ch] ? x.c[ch] < y.c[ch] : x.c < y.c; });
    const std::size_t mid = b.begin + (b.end - b.begin) / 2;
    Box left{b.begin, mid}, right{mid, b.end};
    measure(left);
    measure(right);
    list[pick] = left;
    list.push_back(right);
  }
  for (const Box& b : list) {
    std::array<std::uint64_t, 3> sum{0, 0, 0};
    std::uint64_t n = 0;
    for (std::size_t k = b.begin; k < b.end; ++k) {
      for (int ch = 0; ch < 3; ++ch) sum[ch] += std::uint64_t(colours[k].c[ch]) * colours[k].count;
      n += colours[k].count;
    }
    std::array<int, 3> e{};
    for (int ch = 0; ch < 3; ++ch) e[ch] = static_cast<int>((sum[ch] + n / 2) / std::max<std::uint64_t>(n, 1));
    out.push_back(e);
  }
  return out;
}

// The palette for the frames' pixels (r, g, b planes of `width`-pixel rows) and each pixel's
// entry in `idx`; returns the number of entries (≤ 255).
int quantize(const std::vector<GifByteType>& r, const std::vector<GifByteType>& g, const std::vector<GifByteType>& b, int width,
             std::vector<GifByteType>& idx, std::vector<GifColorType>& palette) {
  const std::size_t n = r.size(), W = static_cast<std::size_t>(width);
  // 1. distinct colours with their pixel counts, and whether one stands in an area (a run)
  std::unordered_map<std::uint32_t, std::pair<std::uint64_t, bool>> seen;
  for (std::size_t row = 0; row < n; row += W) {
    std::size_t x = 0;
    while (x < W) {
      const std::size_t k = row + x;
      const std::uint32_t c = pack(r[k], g[k], b[k]);
      std::size_t run = 1;
      while (x + run < W && pack(r[k + run], g[k + run], b[k + run]) == c) ++run;
      auto& e = seen[c];
      e.first += run;
      e.second = e.second || run >= kAreaRun;
      x += run;
    }
  }
  std::vector<Colour> area, blends;
  for (const auto& [c, e] : seen)
    (e.second ? area : blends).push_back({{int(c >> 16), int((c >> 8) & 255), int(c & 255)}, e.first});
  // a fixed order, whatever the hash map's
  const auto by_colour = [](const Colour& x, const Colour& y) { return x.c < y.c; };
  std::sort(area.begin(), area.end(), by_colour);
  std::sort(blends.begin(), blends.end(), by_colour);
  // 2. the entries: the area colours first, the blends in what is left
  std::vector<std::array<int, 3>> entries;
  if (area.size() + blends.size() <= 255) {
    for (const auto& c : area) entries.push_back(c.c);
    for (const auto& c : blends) entries.push_back(c.c);
  } else {
    entries = median_cut(area, std::min<std::size_t>(area.size(), blends.empty() ? 255 : kAreaEntries));
    const auto rest = median_cut(blends, 255 - entries.size());
    entries.insert(entries.end(), rest.begin(), rest.end());
  }
  // 3. each distinct colour's nearest entry, then each pixel's
  std::unordered_map<std::uint32_t, GifByteType> nearest;
  nearest.reserve(seen.size());
  for (const auto& [c, e] : seen) {
    const int cr = int(c >> 16), cg = int((c >> 8) & 255), cb = int(c & 255);
    int best = 0, best_d = 1 << 30;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const int dr = entries[i][0] - cr, dg = entries[i][1] - cg, db = entries[i][2] - cb;
      const int d = 2 * dr * dr + 4 * dg * dg + 3 * db * db;  // the eye: green counts most, blue least
      if (d < best_d) best_d = d, best = static_cast<int>(i);
    }
    nearest[c] = static_cast<GifByteType>(best);
  }
  std::uint32_t last = 0xFFFFFFFF;
  GifByteType last_idx = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint32_t c = pack(r[k], g[k], b[k]);
    if (c != last) last = c, last_idx = nearest[c];
    idx[k] = last_idx;
  }
  for (std::size_t i = 0; i < entries.size(); ++i)
    palette[i] = {static_cast<GifByteType>(entries[i][0]), static_cast<GifByteType>(entries[i][1]),
                  static_cast<GifByteType>(entries[i][2])};
  return static_cast<int>(entries.size());
}

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
  std::vector<GifColorType> palette(256, GifColorType{255, 255, 255});
  quantize(r, g, b, W, idx, palette);
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
