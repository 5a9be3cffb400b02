// The last-resort figure font (private to the renderer): DejaVu Sans baked into 4-bit coverage
// bitmaps by scripts/gen_font.cpp (src/figure_font.cpp), used only when no TrueType font file is
// found (figure_text.cpp): kSmall (13 px, regular) stands in for regular text, kLarge (17 px,
// bold) for bold, scaled to the asked size.
#pragma once
#include <cstddef>
#include <string_view>

namespace tfx::font {

struct Glyph {
  int codepoint;
  int advance;      // pen advance in pixels
  int x0, y0;       // top-left of the bitmap relative to the pen on the baseline (y down)
  int w, h;         // bitmap size
  std::size_t offset;  // first pixel in Font::pixels
};

struct Font {
  const Glyph* glyphs;  // sorted by codepoint
  int count;
  const char* pixels;   // one hex digit (coverage 0..15) per pixel
  int ascent, descent;  // pixels above / below the baseline
  int line_height() const { return ascent + descent; }
};

extern const Font kSmall;
extern const Font kLarge;

// The glyph of `cp`, or nullptr when the font has none (callers draw a box).
const Glyph* find_glyph(const Font& f, char32_t cp);

// Decodes the next UTF-8 code point of s at i (advancing i); malformed bytes give U+FFFD.
char32_t next_codepoint(std::string_view s, std::size_t& i);

// Coverage of glyph pixel (x, y) in [0, 1].
inline double coverage(const Font& f, const Glyph& g, int x, int y) {
  const char c = f.pixels[g.offset + static_cast<std::size_t>(y * g.w + x)];
  return (c <= '9' ? c - '0' : c - 'a' + 10) / 15.0;
}

}  // namespace tfx::font
