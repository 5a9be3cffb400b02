// Figure text (private to the renderer): TrueType fonts through stb_truetype with per-character
// fallback across faces — the caller's files first, then DejaVu Sans (Latin, Greek, math), then
// NanumGothic (Hangul), then any installed font fontconfig finds for a character none of those
// has — and the baked bitmap font (figure_font.cpp) only when no font file can be found.
// Sizes are em sizes in pixels, as CSS font-size, so PNG and SVG text measure the same.
#pragma once
#include <functional>
#include <string>
#include <string_view>

namespace tfx::text {

// Width of s at em size `size` (pixels) with the pen advancing left to right.
double width(std::string_view s, double size, bool bold);

// Rasterizes s with its pen starting at (x, y) (y = baseline) at em size `size`; `up` turns the
// text 90° counter-clockwise (reads bottom to top, the pen moving up from (x, y)). Every covered
// pixel is reported once per glyph as put(px, py, coverage ∈ (0, 1]).
void rasterize(std::string_view s, double x, double y, double size, bool bold, bool up,
               const std::function<void(int, int, double)>& put);

// The CSS font-family list of the faces in use, e.g. "'DejaVu Sans', 'NanumGothic', sans-serif".
std::string css_families();

// Fixed layout metrics, as fractions of the em size (DejaVu Sans's), so the layout does not
// change with the face that happens to be installed.
inline constexpr double kAscent = 0.76, kDescent = 0.24, kCapHeight = 0.73;

}  // namespace tfx::text
