// Font files checked against what stb_truetype reads (figure_font_check.hpp). Offsets are
// absolute in the file and compared in 64 bits; the rule for each table follows the code of
// stb_truetype.h that reads it.
#include "figure_font_check.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cmath>
#include <cstdlib>
#include <set>
#include <vector>
#include <string_view>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::font {

namespace {

struct FcReader {
  const unsigned char* d;
  std::uint64_t n;
  bool has(std::uint64_t off, std::uint64_t len) const { return off <= n && len <= n - off; }
  unsigned u8(std::uint64_t off) const { return off < n ? d[off] : 0; }
  unsigned u16(std::uint64_t off) const { return has(off, 2) ? (unsigned{d[off]} << 8) | d[off + 1] : 0; }
  std::uint32_t u32(std::uint64_t off) const {
    return has(off, 4) ? (std::uint32_t{d[off]} << 24) | (std::uint32_t{d[off + 1]} << 16) | (std::uint32_t{d[off + 2]} << 8) | d[off + 3] : 0;
  }
  int s16(std::uint64_t off) const { return static_cast<std::int16_t>(static_cast<std::uint16_t>(u16(off))); }
};

[[noreturn]] void fc_damaged(const std::string& path, const std::string& what) {
  throw Error(fmt::format(N_("{}: damaged font: {}"), escape_for_message(path), what));
}

// GPOS as stbtt__GetGlyphGPOSInfoAdvance walks it: the lookup list, every lookup's subtable
// offsets, and for pair adjustment (type 2) with valueFormat1 4 / valueFormat2 0 the coverage
// table, the pair sets or the class definitions and the class matrix.
//
// Bounded work: stb walks every pair-adjustment subtable of every lookup for each kerning query,
// so a font may name at most kMaxPairSubtables of them (fonts name 1–100); and this check reads
// each coverage table, class definition and pair set once (memoized by offset) within a budget of
// kMaxGposReads records. A damaged GPOS that points its lookups at random bytes (65535 lookups of
// 65535 subtables of 65535 coverage ranges) is refused instead of costing seconds per font.
constexpr std::uint64_t kMaxPairSubtables = 1024;
constexpr std::uint64_t kMaxGposReads = std::uint64_t{1} << 22;

struct GposWalk {
  const FcReader& r;
  std::uint64_t reads = 0;
  std::map<std::uint64_t, std::uint64_t> coverage{};  // offset → max_index + 1 (0: damaged)
  std::set<std::uint64_t> classdefs{}, pairsets{}, subtables{};
  bool spend(std::uint64_t n) { return (reads += n) <= kMaxGposReads; }
};

// false: damaged, or over the budget (w.reads says which)
bool fc_coverage_ok(GposWalk& w, std::uint64_t cov, std::uint64_t* max_index) {
  if (const auto it = w.coverage.find(cov); it != w.coverage.end()) {
    *max_index = it->second ? it->second - 1 : 0;
    return it->second != 0;
  }
  const FcReader& r = w.r;
  const unsigned format = r.u16(cov), count = r.u16(cov + 2);
  bool ok = true;
  *max_index = 0;
  if (format == 1) {
    *max_index = count;  // indices 0…count−1
    ok = r.has(cov + 4, 2ull * count);
  } else if (format == 2) {
    ok = r.has(cov + 4, 6ull * count) && w.spend(count);
    for (unsigned k = 0; ok && k < count; ++k) {
      const std::uint64_t rec = cov + 4 + 6ull * k;
      const unsigned start = r.u16(rec), end = r.u16(rec + 2), first = r.u16(rec + 4);
      if (end >= start) *max_index = std::max<std::uint64_t>(*max_index, std::uint64_t{first} + (end - start) + 1);
    }
  } else {
    ok = r.has(cov, 2);  // other formats: stb reads the format and returns −1
  }
  w.coverage[cov] = ok ? *max_index + 1 : 0;
  return ok;
}

bool fc_classdef_ok(GposWalk& w, std::uint64_t cd) {
  if (!w.classdefs.insert(cd).second) return true;  // checked before (a failure ends the walk)
  const FcReader& r = w.r;
  const unsigned format = r.u16(cd);
  if (format == 1) return r.has(cd, 6) && r.has(cd + 6, 2ull * r.u16(cd + 4));
  if (format == 2) return r.has(cd, 4) && r.has(cd + 4, 6ull * r.u16(cd + 2));
  return r.has(cd, 2);
}

// "" when stb can kern with this GPOS, else what is wrong
std::string fc_gpos_problem(const FcReader& r, std::uint64_t gpos) {
  const std::string past_end = "the GPOS kerning tables run past the end of the file";
  if (!r.has(gpos, 10)) return past_end;
  if (r.u16(gpos) != 1 || r.u16(gpos + 2) != 0) return "";  // stb reads nothing more
  const std::uint64_t list = gpos + r.u16(gpos + 8);
  if (!r.has(list, 2)) return past_end;
  const unsigned lookups = r.u16(list);
  if (!r.has(list + 2, 2ull * lookups)) return past_end;
  GposWalk w{r};
  std::uint64_t pair_subtables = 0;
  const std::string too_much = fmt::format("the GPOS kerning tables ask for more than {} reads", kMaxGposReads);
  for (unsigned i = 0; i < lookups; ++i) {
    const std::uint64_t lookup = list + r.u16(list + 2 + 2ull * i);
    if (!r.has(lookup, 6)) return past_end;
    const unsigned type = r.u16(lookup), subtables = r.u16(lookup + 4);
    if (type != 2) continue;
    if ((pair_subtables += subtables) > kMaxPairSubtables)
      return fmt::format("the GPOS table has more than {} pair-kerning subtables (stb reads every one for each pair of letters)", kMaxPairSubtables);
    if (!r.has(lookup + 6, 2ull * subtables)) return past_end;
    for (unsigned s = 0; s < subtables; ++s) {
      const std::uint64_t t = lookup + r.u16(lookup + 6 + 2ull * s);
      if (!w.subtables.insert(t).second) continue;  // the same subtable from another lookup
      if (!r.has(t, 8)) return past_end;
      std::uint64_t max_index = 0;
      if (!fc_coverage_ok(w, t + r.u16(t + 2), &max_index)) return w.reads > kMaxGposReads ? too_much : past_end;
      const unsigned pos_format = r.u16(t), vf1 = r.u16(t + 4), vf2 = r.u16(t + 6);
      if (vf1 != 4 || vf2 != 0) continue;
      if (pos_format == 1) {
        // stb reads the pair set offset of any coverage index before comparing it with the count
        if (!r.has(t + 8, 2) || !r.has(t + 10, 2 * max_index)) return past_end;
        const unsigned sets = r.u16(t + 8);
        if (!r.has(t + 10, 2ull * sets)) return past_end;
        if (!w.spend(max_index)) return too_much;
        for (std::uint64_t k = 0; k < max_index; ++k) {
          const std::uint64_t pv = t + r.u16(t + 10 + 2 * k);
          if (!w.pairsets.insert(pv).second) continue;
          if (!r.has(pv, 2) || !r.has(pv + 2, 4ull * r.u16(pv))) return past_end;
        }
      } else if (pos_format == 2) {
        if (!r.has(t, 16)) return past_end;
        if (!fc_classdef_ok(w, t + r.u16(t + 8)) || !fc_classdef_ok(w, t + r.u16(t + 10))) return past_end;
        if (!r.has(t + 16, 2ull * r.u16(t + 12) * r.u16(t + 14))) return past_end;
      }
    }
  }
  return "";
}

// The cmap subtable stbtt_InitFont picks (the last Microsoft Unicode or Unicode-platform
// record), checked for what stbtt_FindGlyphIndex reads of its format.
void fc_check_cmap(const FcReader& r, std::uint64_t cmap, const std::string& path) {
  if (!r.has(cmap, 4)) fc_damaged(path, N_("the cmap table runs past the end of the file"));
  const unsigned records = r.u16(cmap + 2);
  if (!r.has(cmap + 4, 8ull * records)) fc_damaged(path, N_("the cmap records run past the end of the file"));
  std::uint64_t map = 0;
  for (unsigned i = 0; i < records; ++i) {
    const std::uint64_t rec = cmap + 4 + 8ull * i;
    const unsigned platform = r.u16(rec), encoding = r.u16(rec + 2);
    if ((platform == 3 && (encoding == 1 || encoding == 10)) || platform == 0) map = cmap + r.u32(rec + 4);
  }
  if (map == 0) return;  // stbtt_InitFont refuses the font
  if (map > 0xFFFFFFFFull || !r.has(map, 4)) fc_damaged(path, N_("the cmap subtable is outside the file"));
  const unsigned format = r.u16(map);
  switch (format) {
    case 0:
      if (!r.has(map, r.u16(map + 2))) fc_damaged(path, N_("the format 0 cmap runs past the end of the file"));
      return;
    case 6:
      if (!r.has(map, 10) || !r.has(map + 10, 2ull * r.u16(map + 8))) fc_damaged(path, N_("the format 6 cmap runs past the end of the file"));
      return;
    case 12:
    case 13:
      if (!r.has(map, 16) || !r.has(map + 16, 12ull * r.u32(map + 12))) fc_damaged(path, fmt::format(N_("the format {} cmap runs past the end of the file"), format));
      return;
    case 4: {
      const std::uint64_t seg = r.u16(map + 6) >> 1, range = r.u16(map + 8) >> 1, shift = r.u16(map + 12) >> 1;
      // the binary search never looks past segment range + shift − 1: keep that inside the segments
      if (seg == 0 || range + shift > seg) fc_damaged(path, N_("the format 4 cmap's search fields do not match its segment count"));
      if (!r.has(map, 16 + 8 * seg)) fc_damaged(path, N_("the format 4 cmap's segments run past the end of the file"));
      for (std::uint64_t k = 0; k < seg; ++k) {
        const unsigned end = r.u16(map + 14 + 2 * k), start = r.u16(map + 16 + 2 * seg + 2 * k);
        const unsigned offset = r.u16(map + 16 + 6 * seg + 2 * k);
        if (offset == 0 || start > end) continue;
        const std::uint64_t last = map + 16 + 6 * seg + 2 * k + offset + 2ull * (end - start);
        if (!r.has(last, 2)) fc_damaged(path, N_("a format 4 cmap segment's glyph array runs past the end of the file"));
      }
      return;
    }
    default:
      fc_damaged(path, fmt::format(N_("cmap format {} (tfx reads formats 0, 4, 6, 12 and 13)"), format));
  }
}

}  // namespace

FontLayout check_font_file(const unsigned char* data, std::size_t size, long fontstart, const std::string& path) {
  const FcReader r{data, size};
  if (fontstart < 0 || !r.has(static_cast<std::uint64_t>(fontstart), 12)) fc_damaged(path, N_("the font's offset is outside the file"));
  const std::uint64_t fs = static_cast<std::uint64_t>(fontstart);
  const unsigned tables = r.u16(fs + 4);
  if (!r.has(fs + 12, 16ull * tables)) fc_damaged(path, fmt::format(N_("the directory of {} tables runs past the end of the file"), tables));
  // the first entry of each tag, as stbtt__find_table; every entry inside the file
  auto find = [&](std::string_view tag) -> std::pair<std::uint64_t, std::uint64_t> {
    for (unsigned i = 0; i < tables; ++i) {
      const std::uint64_t e = fs + 12 + 16ull * i;
      if (std::string_view(reinterpret_cast<const char*>(data + e), 4) == tag) return {r.u32(e + 8), r.u32(e + 12)};
    }
    return {0, 0};
  };
  for (std::string_view tag : {"cmap", "loca", "head", "glyf", "hhea", "hmtx", "kern", "GPOS", "maxp", "name", "CFF "}) {
    const auto [off, len] = find(tag);
    if (off != 0 && (off > 0x7FFFFFFFull || !r.has(off, len)))
      fc_damaged(path, fmt::format(N_("table '{}' (offset {}, {} bytes) runs past the end of the file ({} bytes)"), tag, off, len, size));
  }
  FontLayout f;
  f.size = size;
  const std::uint64_t cmap = find("cmap").first, head = find("head").first, hhea = find("hhea").first, hmtx = find("hmtx").first,
                      maxp = find("maxp").first, loca = find("loca").first, glyf = find("glyf").first;
  if (!cmap || !head || !hhea || !hmtx || !maxp) fc_damaged(path, N_("a cmap, head, hhea, hmtx or maxp table is missing"));
  if (!r.has(head, 54)) fc_damaged(path, N_("the head table is shorter than 54 bytes"));
  if (!r.has(hhea, 36)) fc_damaged(path, N_("the hhea table is shorter than 36 bytes"));
  if (!r.has(maxp, 6)) fc_damaged(path, N_("the maxp table is shorter than 6 bytes"));
  f.head = head, f.hmtx = hmtx, f.loca = loca, f.glyf = glyf;
  f.num_glyphs = r.u16(maxp + 4);
  f.units_per_em = r.u16(head + 18);
  f.loca_format = r.s16(head + 50);
  f.long_metrics = r.u16(hhea + 34);
  f.truetype = glyf != 0;
  if (f.num_glyphs == 0) fc_damaged(path, N_("maxp says the font has no glyphs"));
  if (f.units_per_em < 16 || f.units_per_em > 16384) fc_damaged(path, fmt::format(N_("units per em {} (16…16384)"), f.units_per_em));
  if (f.long_metrics == 0) fc_damaged(path, N_("hhea gives no horizontal metrics"));
  const std::uint64_t metrics = 4ull * f.long_metrics + (f.num_glyphs > f.long_metrics ? 2ull * (f.num_glyphs - f.long_metrics) : 0);
  if (!r.has(hmtx, metrics)) fc_damaged(path, fmt::format(N_("the hmtx table is shorter than its {} glyphs need"), f.num_glyphs));
  if (f.truetype) {
    if (!loca) fc_damaged(path, N_("glyf without loca"));
    if (f.loca_format != 0 && f.loca_format != 1) fc_damaged(path, fmt::format(N_("indexToLocFormat {} (0 or 1)"), f.loca_format));
    if (!r.has(loca, (f.num_glyphs + 1ull) * (f.loca_format ? 4 : 2))) fc_damaged(path, fmt::format(N_("the loca table is shorter than its {} glyphs need"), f.num_glyphs));
  }
  fc_check_cmap(r, cmap, path);
  if (const std::uint64_t kern = find("kern").first; kern) {
    if (!r.has(kern, 12)) fc_damaged(path, N_("the kern table is shorter than its header"));
    if (r.u16(kern + 2) >= 1 && r.u16(kern + 8) == 1 && !r.has(kern + 18, 6ull * r.u16(kern + 10)))
      fc_damaged(path, N_("the kern pairs run past the end of the file"));
  }
  if (const std::uint64_t gpos = find("GPOS").first; gpos)
    if (const std::string problem = fc_gpos_problem(r, gpos); !problem.empty()) fc_damaged(path, problem);
  if (const std::uint64_t name = find("name").first; name) {
    if (!r.has(name, 6)) fc_damaged(path, N_("the name table is shorter than its header"));
    const unsigned count = r.u16(name + 2);
    const std::uint64_t strings = name + r.u16(name + 4);
    if (!r.has(name + 6, 12ull * count)) fc_damaged(path, N_("the name records run past the end of the file"));
    for (unsigned i = 0; i < count; ++i) {
      const std::uint64_t rec = name + 6 + 12ull * i;
      if (!r.has(strings + r.u16(rec + 10), r.u16(rec + 8))) fc_damaged(path, N_("a name string runs past the end of the file"));
    }
  }
  return f;
}

namespace {

// Glyph g as stbtt__GetGlyfOffset finds it: [begin, end) in the file, or begin == end (empty).
bool fc_glyph_range(const FcReader& r, const FontLayout& f, unsigned g, std::uint64_t& begin, std::uint64_t& end) {
  if (g >= f.num_glyphs) return false;
  if (f.loca_format == 0) begin = f.glyf + 2ull * r.u16(f.loca + 2ull * g), end = f.glyf + 2ull * r.u16(f.loca + 2ull * g + 2);
  else begin = f.glyf + r.u32(f.loca + 4ull * g), end = f.glyf + r.u32(f.loca + 4ull * g + 4);
  return begin <= end && end <= r.n && end <= 0x7FFFFFFFull;
}

// Glyph g's outline checked, and what drawing it costs: its points (a composite's components
// flattened, as stbtt_GetGlyphShape builds them) and the length of its outline in font units
// (the sum of |Δx| + |Δy| along each closed contour of points, a component's scaled by its
// transform's largest factor). Both are bounded (kMaxGlyphPoints, kMaxGlyphTravelEm em): stb's
// rasterizer flattens each curve into segments in proportion to its length in pixels and walks
// each segment's rows and columns, so with the box at most 16 em a side this bounds the work of
// one glyph. Fonts stay far inside: DejaVu and Nanum have at most 1,854 points and 30 em of
// outline in a glyph. A glyph past a bound is unreadable (drawn as .notdef).
constexpr std::uint64_t kMaxGlyphPoints = 16384;
constexpr double kMaxGlyphTravelEm = 256;

GlyphWork fc_glyph(const FcReader& r, const FontLayout& f, unsigned g, int depth, GlyphMemo& memo) {
  const GlyphWork bad{false, 0, 0};
  if (g >= f.num_glyphs) return {true, 0, 0};  // stb returns no outline for it
  if (const auto it = memo.find(static_cast<int>(g)); it != memo.end()) return it->second;
  if (depth > 8) return bad;  // a composite nested deeper than fonts do, or a cycle
  std::uint64_t b = 0, e = 0;
  if (!fc_glyph_range(r, f, g, b, e)) return memo[static_cast<int>(g)] = bad;
  if (b == e) return memo[static_cast<int>(g)] = GlyphWork{true, 0, 0};
  const FcReader gr{r.d, e};  // reads bounded by the glyph's end
  bool ok = gr.has(b, 10);
  GlyphWork work{true, 0, 0};
  const int contours = r.s16(b);
  const int x0 = r.s16(b + 2), y0 = r.s16(b + 4), x1 = r.s16(b + 6), y1 = r.s16(b + 8);
  const long em16 = 16L * f.units_per_em;
  if (ok && (x1 < x0 || y1 < y0 || x1 - x0 > em16 || y1 - y0 > em16)) ok = false;
  if (ok && contours > 0) {
    const std::uint64_t ends = b + 10;
    ok = gr.has(ends, 2ull * contours + 2);
    unsigned prev_end = 0;
    for (int c = 0; ok && c < contours; ++c) {
      const unsigned pe = gr.u16(ends + 2ull * c);
      if (c > 0 && pe <= prev_end) ok = false;  // contours end in increasing order
      prev_end = pe;
    }
    if (ok) {
      const std::uint64_t n = prev_end + 1ull;
      std::uint64_t p = ends + 2ull * contours + 2 + gr.u16(ends + 2ull * contours);
      std::string flags;
      flags.reserve(n);
      while (ok && flags.size() < n) {
        if (!gr.has(p, 1)) ok = false;
        const unsigned char fl = static_cast<unsigned char>(gr.u8(p++));
        std::uint64_t repeat = 0;
        if (fl & 8) {
          if (!gr.has(p, 1)) ok = false;
          repeat = gr.u8(p++);
        }
        for (std::uint64_t k = 0; k <= repeat && flags.size() < n; ++k) flags += static_cast<char>(fl);
      }
      std::uint64_t bytes = 0;
      for (char c : flags) {
        const unsigned fl = static_cast<unsigned char>(c);
        bytes += (fl & 2) ? 1 : (fl & 16) ? 0 : 2;
        bytes += (fl & 4) ? 1 : (fl & 32) ? 0 : 2;
      }
      if (ok && !gr.has(p, bytes)) ok = false;
      // a last contour of one off-curve point makes stb read the point after the last
      if (ok && (contours == 1 ? n == 1 : prev_end == gr.u16(ends + 2ull * (contours - 2)) + 1u) && !(static_cast<unsigned char>(flags.back()) & 1)) ok = false;
      if (ok) {
        // the coordinates, as stb accumulates them (16-bit), for the outline's length
        std::vector<std::int16_t> xs(n), ys(n);
        std::int16_t v = 0;
        for (std::uint64_t k = 0; k < n; ++k) {
          const unsigned fl = static_cast<unsigned char>(flags[k]);
          if (fl & 2) v = static_cast<std::int16_t>(v + ((fl & 16) ? 1 : -1) * static_cast<int>(gr.u8(p++)));
          else if (!(fl & 16)) v = static_cast<std::int16_t>(v + gr.s16(p)), p += 2;
          xs[k] = v;
        }
        v = 0;
        for (std::uint64_t k = 0; k < n; ++k) {
          const unsigned fl = static_cast<unsigned char>(flags[k]);
          if (fl & 4) v = static_cast<std::int16_t>(v + ((fl & 32) ? 1 : -1) * static_cast<int>(gr.u8(p++)));
          else if (!(fl & 32)) v = static_cast<std::int16_t>(v + gr.s16(p)), p += 2;
          ys[k] = v;
        }
        std::uint64_t first = 0;
        for (int c = 0; c < contours; ++c) {
          const std::uint64_t last = gr.u16(ends + 2ull * c);
          for (std::uint64_t k = first; k <= last; ++k) {
            const std::uint64_t next = k == last ? first : k + 1;
            work.travel += std::abs(xs[next] - xs[k]) + std::abs(ys[next] - ys[k]);
          }
          first = last + 1;
        }
        work.points = n;
      }
    }
  } else if (ok && contours < 0) {
    std::uint64_t p = b + 10;
    for (bool more = true; ok && more;) {
      if (!gr.has(p, 4)) {
        ok = false;
        break;
      }
      const unsigned fl = gr.u16(p), child = gr.u16(p + 2);
      p += 4;
      if (!(fl & 2)) ok = false;  // point matching: stb asserts
      p += (fl & 1) ? 4 : 2;
      // the transform's largest factor (F2Dot14, below 2 in magnitude), which scales the outline
      double scale = 1;
      const auto f2 = [&](std::uint64_t at) { return std::abs(gr.s16(at)) / 16384.0; };
      if (fl & 8) scale = f2(p);
      else if (fl & 64) scale = std::max(f2(p), f2(p + 2));
      else if (fl & 128) scale = std::max(f2(p) + f2(p + 2), f2(p + 4) + f2(p + 6));
      p += (fl & 8) ? 2 : (fl & 64) ? 4 : (fl & 128) ? 8 : 0;
      if (ok && p > e) ok = false;
      if (ok) {
        const GlyphWork c = fc_glyph(r, f, child, depth + 1, memo);
        ok = c.ok;
        work.points = std::min(work.points + c.points, kMaxGlyphPoints + 1);
        work.travel += scale * c.travel;
        if (work.points > kMaxGlyphPoints || work.travel > kMaxGlyphTravelEm * f.units_per_em) ok = false;
      }
      more = fl & 32;
    }
  }
  if (work.points > kMaxGlyphPoints || work.travel > kMaxGlyphTravelEm * f.units_per_em) ok = false;
  work.ok = ok;
  return memo[static_cast<int>(g)] = ok ? work : bad;
}

}  // namespace

bool glyph_readable(const unsigned char* data, const FontLayout& f, int g, GlyphMemo& memo) {
  if (g < 0) return false;
  if (!f.truetype) return true;  // CFF outlines: stb reads them through its own bounded buffers
  return fc_glyph(FcReader{data, f.size}, f, static_cast<unsigned>(g), 0, memo).ok;
}

}  // namespace tfx::font
