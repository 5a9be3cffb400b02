// Checks of a font file against everything stb_truetype reads from it (stb trusts every offset and
// count in the file: a damaged font reads past the end or trips an assertion). A font passes
// check_font_file before stbtt_InitFont sees it, and a glyph passes glyph_readable before stb
// measures or draws it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace tfx::font {

// What stb_truetype will read of one face: table offsets from the directory, checked.
struct FontLayout {
  std::size_t size = 0;  // bytes of the file
  std::size_t loca = 0, glyf = 0, hmtx = 0, head = 0;
  unsigned num_glyphs = 0, units_per_em = 0, long_metrics = 0;
  int loca_format = 0;
  bool truetype = true;  // glyf outlines (false: CFF)
};

// Checks the table directory at `fontstart` and every table stb_truetype reads while loading,
// mapping characters, measuring, kerning (kern, GPOS pair adjustment) and naming the font: each
// offset and count inside the file, the cmap subtable a format stb reads (0, 4, 6, 12, 13), the
// loca table long enough for every glyph, indexToLocFormat 0 or 1, units per em 16…16384.
// Throws a tfx::Error "PATH: damaged font: WHAT".
FontLayout check_font_file(const unsigned char* data, std::size_t size, long fontstart, const std::string& path);

// What glyph_readable found of one glyph: readable, its points (components flattened) and the
// length of its outline in font units (see kMaxGlyphPoints in figure_font_check.cpp).
struct GlyphWork {
  bool ok = false;
  std::uint64_t points = 0;
  double travel = 0;
};
using GlyphMemo = std::map<int, GlyphWork>;

// Whether glyph g's outline can be read by stb_truetype without leaving the file: its loca range
// inside glyf, a simple glyph's contours, flags and coordinates inside its bytes, a composite's
// components (x/y offsets only, at most 8 levels deep, no cycle), a box at most 16 em a side,
// and bounded work for the rasterizer: at most 16,384 points and 256 em of outline.
// `memo` caches answers per glyph.
bool glyph_readable(const unsigned char* data, const FontLayout& f, int g, GlyphMemo& memo);

}  // namespace tfx::font
