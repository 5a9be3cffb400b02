// Figure text: finding the font files (the caller's, fontconfig's via figure_fontconfig.cpp, or
// Debian's fixed paths), loading them with stb_truetype, choosing a face per character,
// measuring and rasterizing strings; the baked bitmap font when no font file exists at all.
#include "figure_text.hpp"

#include <fmt/format.h>
#include <stb_truetype.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <vector>

#include "figure_font.hpp"
#include "figure_font_check.hpp"
#include "figure_fontconfig.hpp"
#include "tfx/core/error.hpp"
#include "tfx/figure/figure.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::font {

const Glyph* find_glyph(const Font& f, char32_t cp) {
  const Glyph* end = f.glyphs + f.count;
  const Glyph* g = std::lower_bound(f.glyphs, end, cp, [](const Glyph& a, char32_t c) { return static_cast<char32_t>(a.codepoint) < c; });
  return g != end && static_cast<char32_t>(g->codepoint) == cp ? g : nullptr;
}

char32_t next_codepoint(std::string_view s, std::size_t& i) {
  const auto b0 = static_cast<unsigned char>(s[i++]);
  if (b0 < 0x80) return b0;
  const int extra = b0 >= 0xf0 ? 3 : b0 >= 0xe0 ? 2 : b0 >= 0xc0 ? 1 : -1;
  if (extra < 0) return 0xfffd;
  char32_t cp = b0 & (0x3f >> extra);
  for (int k = 0; k < extra; ++k) {
    if (i >= s.size() || (static_cast<unsigned char>(s[i]) & 0xc0) != 0x80) return 0xfffd;
    cp = (cp << 6) | (static_cast<unsigned char>(s[i++]) & 0x3f);
  }
  return cp;
}

}  // namespace tfx::font

namespace tfx {

namespace {

// One font file, loaded and checked (figure_font_check.hpp): stb_truetype reads only checked
// tables, and a glyph only once glyph_readable passed it.
struct FontFile {
  std::string path;
  std::vector<unsigned char> data;
  stbtt_fontinfo info{};
  font::FontLayout layout;
  mutable font::GlyphMemo readable;  // glyph_readable's answers
};

// The glyph of cp in f, 0 (.notdef) when f has none or its outline is damaged.
int glyph_index(const FontFile& f, char32_t cp) {
  const int g = stbtt_FindGlyphIndex(&f.info, static_cast<int>(cp));
  if (g <= 0 || static_cast<unsigned>(g) >= f.layout.num_glyphs) return 0;
  return font::glyph_readable(f.data.data(), f.layout, g, f.readable) ? g : 0;
}

// A family: its regular file and, when one exists, its bold file.
struct Face {
  std::string family;
  std::unique_ptr<FontFile> regular, bold;
  const FontFile& get(bool b) const { return b && bold ? *bold : *regular; }
};

// The largest font file read (Noto Sans CJK's collection is about 20 MB).
constexpr std::uintmax_t kMaxFontBytes = std::uintmax_t{256} << 20;

std::unique_ptr<FontFile> load_font(const std::string& path, int index = 0) {
  // a directory, /dev/zero or a FIFO is refused before reading (no endless read, no
  // basic_filebuf::underflow), as is a file larger than any font
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st)) throw Error(fmt::format(N_("{}: cannot read the font file: no such file"), escape_for_message(path)));
  if (std::filesystem::is_directory(st)) throw Error(fmt::format(N_("{}: is a directory, expected a TrueType or OpenType font file"), escape_for_message(path)));
  if (!std::filesystem::is_regular_file(st)) throw Error(fmt::format(N_("{}: not a regular file, expected a TrueType or OpenType font file"), escape_for_message(path)));
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  if (ec) throw Error(fmt::format(N_("{}: cannot read the font file"), escape_for_message(path)));
  if (bytes > kMaxFontBytes) throw Error(fmt::format(N_("{}: {} bytes; a font file has at most {} MB"), escape_for_message(path), bytes, kMaxFontBytes >> 20));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format(N_("{}: cannot read the font file"), escape_for_message(path)));
  auto f = std::make_unique<FontFile>();
  f->path = path;
  f->data.resize(static_cast<std::size_t>(bytes));
  in.read(reinterpret_cast<char*>(f->data.data()), static_cast<std::streamsize>(bytes));
  f->data.resize(static_cast<std::size_t>(in.gcount()));
  // stbtt_GetFontOffsetForIndex reads the 4-byte tag, and a collection's first offset at 12
  const int offset = f->data.size() >= 16 ? stbtt_GetFontOffsetForIndex(f->data.data(), index) : -1;
  if (offset < 0) throw Error(fmt::format(N_("{}: not a TrueType or OpenType font"), escape_for_message(path)));
  f->layout = font::check_font_file(f->data.data(), f->data.size(), offset, path);
  if (!stbtt_InitFont(&f->info, f->data.data(), offset)) throw Error(fmt::format(N_("{}: not a TrueType or OpenType font"), escape_for_message(path)));
  if (!font::glyph_readable(f->data.data(), f->layout, 0, f->readable)) throw Error(fmt::format(N_("{}: damaged font: glyph 0 (.notdef) cannot be read"), escape_for_message(path)));
  return f;
}

// The family name in the file's name table (Windows Unicode English, else Mac Roman), else the
// file's stem.
std::string family_of(const FontFile& f) {
  int len = 0;
  if (const char* p = stbtt_GetFontNameString(&f.info, &len, STBTT_PLATFORM_ID_MICROSOFT, STBTT_MS_EID_UNICODE_BMP,
                                              STBTT_MS_LANG_ENGLISH, 1)) {
    std::string s;  // UTF-16BE, BMP: ASCII names are all this needs for CSS
    for (int i = 0; i + 1 < len; i += 2)
      if (p[i] == 0 && p[i + 1] > 0) s += p[i + 1];
    if (!s.empty()) return s;
  }
  if (const char* p = stbtt_GetFontNameString(&f.info, &len, STBTT_PLATFORM_ID_MAC, 0, 0, 1)) return std::string(p, len);
  std::string stem = f.path.substr(f.path.find_last_of('/') + 1);
  return stem.substr(0, stem.find('.'));
}

bool readable(const std::string& path) { return !path.empty() && std::ifstream(path, std::ios::binary).good(); }


// Debian's paths of the two families, for systems without fontconfig.
struct KnownFamily {
  const char* family;
  const char* regular;
  const char* bold;
};
const KnownFamily kKnown[] = {
    {"DejaVu Sans", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"},
    {"NanumGothic", "/usr/share/fonts/truetype/nanum/NanumGothic.ttf", "/usr/share/fonts/truetype/nanum/NanumGothicBold.ttf"},
};

// Where a code point is drawn from: a face index, or -1 for "no face has it".
struct Pick {
  int face = -1;
  int glyph = 0;
};

class FontSet {
 public:
  void configure(const FontChoice& choice) {
    std::vector<Face> user;
    for (const std::string& path : choice.files) {
      Face f;
      f.regular = load_font(path);
      f.family = family_of(*f.regular);
      user.push_back(std::move(f));
    }
    faces_ = std::move(user);
    system_ = choice.system;
    system_loaded_ = false;
    picks_.clear();
  }

  // Loads DejaVu Sans and NanumGothic once (fontconfig first, then Debian's paths).
  void ensure_system() {
    if (system_loaded_) return;
    system_loaded_ = true;
    if (!system_) return;
    for (const KnownFamily& k : kKnown) {
      std::string reg, bold;
      reg = fontconfig::family_file(k.family, false);
      bold = fontconfig::family_file(k.family, true);
      if (!readable(reg)) reg = k.regular;
      if (!readable(bold)) bold = readable(k.bold) ? k.bold : "";
      if (!readable(reg)) continue;
      try {
        Face f;
        f.family = k.family;
        f.regular = load_font(reg);
        if (!bold.empty()) f.bold = load_font(bold);
        faces_.push_back(std::move(f));
      } catch (const Error&) {  // a broken system file: go on without it
      }
    }
  }

  bool builtin() {
    ensure_system();
    return faces_.empty();
  }

  Pick pick(char32_t cp) {
    ensure_system();
    if (auto it = picks_.find(cp); it != picks_.end()) return it->second;
    Pick p;
    for (std::size_t i = 0; i < faces_.size() && p.face < 0; ++i)
      if (int g = glyph_index(*faces_[i].regular, cp); g != 0) p = {static_cast<int>(i), g};
    if (p.face < 0 && system_ && !faces_.empty() && cp > 0x20) {
      const std::string path = fontconfig::file_for(cp);
      if (readable(path) && !loaded(path)) {
        try {
          Face f;
          f.regular = load_font(path);
          f.family = family_of(*f.regular);
          if (int g = glyph_index(*f.regular, cp); g != 0) {
            faces_.push_back(std::move(f));
            p = {static_cast<int>(faces_.size() - 1), g};
          }
        } catch (const Error&) {
        }
      }
    }
    if (p.face < 0 && !faces_.empty()) p = {0, 0};  // the first face's .notdef box
    picks_[cp] = p;
    return p;
  }

  const Face& face(int i) const { return faces_[static_cast<std::size_t>(i)]; }

  std::vector<std::string> files() const {
    std::vector<std::string> out;
    for (const Face& f : faces_) {
      out.push_back(f.regular->path);
      if (f.bold) out.push_back(f.bold->path);
    }
    return out;
  }

  std::string css_families() const {
    std::string s;
    for (const Face& f : faces_)
      if (s.find("'" + f.family + "'") == std::string::npos) s += "'" + f.family + "', ";
    return s + "sans-serif";
  }

 private:
  bool loaded(const std::string& path) const {
    return std::any_of(faces_.begin(), faces_.end(), [&](const Face& f) { return f.regular->path == path; });
  }
  std::vector<Face> faces_;
  bool system_ = true, system_loaded_ = false;
  std::map<char32_t, Pick> picks_;
};

std::mutex g_mutex;
FontSet& fonts() {
  static FontSet set;
  return set;
}

// The baked font standing in for every face: kSmall (13 px line) regular, kLarge (17 px) bold,
// scaled to the asked size.
const font::Font& baked(bool bold) { return bold ? font::kLarge : font::kSmall; }
double baked_zoom(double size, bool bold) { return size / (bold ? 16.0 : 12.0); }

}  // namespace

void set_figure_fonts(const FontChoice& choice) {
  std::lock_guard lock(g_mutex);
  fonts().configure(choice);
}

FontStatus figure_font_status() {
  std::lock_guard lock(g_mutex);
  FontStatus s;
  s.builtin = fonts().builtin();
  s.files = fonts().files();
  return s;
}

namespace {

// Glyph of cp in the face picked for it, bold when the face has a bold file holding it.
struct Placed {
  const FontFile* file;
  int glyph;
};
Placed place(FontSet& fs, const Pick& p, char32_t cp, bool bold) {
  const Face& f = fs.face(p.face);
  if (bold && f.bold && p.glyph)
    if (int g = glyph_index(*f.bold, cp); g != 0) return {f.bold.get(), g};
  return {f.regular.get(), p.glyph};
}

// Walks s glyph by glyph with the pen position (from 0, kerning within a face):
// visit(placed, pen, scale). Returns the final pen position. Caller holds g_mutex.
template <class Visit>
double walk(FontSet& fs, std::string_view s, double size, bool bold, Visit visit) {
  double pen = 0;
  Placed prev{nullptr, 0};
  for (std::size_t i = 0; i < s.size();) {
    const char32_t cp = font::next_codepoint(s, i);
    const Placed pl = place(fs, fs.pick(cp), cp, bold);
    const double scale = stbtt_ScaleForMappingEmToPixels(&pl.file->info, static_cast<float>(size));
    if (prev.file == pl.file && prev.glyph && pl.glyph) pen += scale * stbtt_GetGlyphKernAdvance(&pl.file->info, prev.glyph, pl.glyph);
    visit(pl, pen, scale);
    int adv = 0, lsb = 0;
    stbtt_GetGlyphHMetrics(&pl.file->info, pl.glyph, &adv, &lsb);
    pen += scale * adv;
    prev = pl;
  }
  return pen;
}

// The baked font: kSmall for regular text, kLarge for bold, scaled (nearest pixel) to `size`.
template <class Visit>
double walk_baked(std::string_view s, double size, bool bold, Visit visit) {
  const font::Font& f = baked(bold);
  const double zoom = baked_zoom(size, bold);
  double pen = 0;
  for (std::size_t i = 0; i < s.size();) {
    const font::Glyph* g = font::find_glyph(f, font::next_codepoint(s, i));
    visit(f, g, pen, zoom);
    pen += (g ? g->advance : f.ascent * 6 / 10) * zoom;
  }
  return pen;
}

}  // namespace

namespace text {

double width(std::string_view s, double size, bool bold) {
  std::lock_guard lock(g_mutex);
  FontSet& fs = fonts();
  if (fs.builtin()) return walk_baked(s, size, bold, [](auto&&...) {});
  return walk(fs, s, size, bold, [](auto&&...) {});
}

void rasterize(std::string_view s, double x, double y, double size, bool bold, bool up,
               const std::function<void(int, int, double)>& put) {
  // Text space (tu, tv): along the text and below the baseline, the pen starting at (along0,
  // across0); mapped to the canvas unrotated (tu, tv) or turned (tv, −tu). emit() takes (u, v)
  // relative to the pen's start.
  const double along0 = up ? -y : x, across0 = up ? x : y;
  auto put_text = [&](double tu, double tv, double a) {
    if (up) put(static_cast<int>(std::floor(tv)), static_cast<int>(std::floor(-tu)), a);
    else put(static_cast<int>(std::floor(tu)), static_cast<int>(std::floor(tv)), a);
  };
  auto emit = [&](double u, double v, double a) { put_text(along0 + u, across0 + v, a); };
  std::lock_guard lock(g_mutex);
  FontSet& fs = fonts();
  if (fs.builtin()) {
    walk_baked(s, size, bold, [&](const font::Font& f, const font::Glyph* g, double pen, double zoom) {
      if (!g) {  // an outlined box
        const int w = static_cast<int>(f.ascent * 6 / 10 * zoom), h = static_cast<int>(f.ascent * zoom);
        for (int v = -h + 1; v <= 0; ++v)
          for (int u = 1; u < w - 1; ++u)
            if (v == -h + 1 || v == 0 || u == 1 || u == w - 2) emit(pen + u + 0.5, v + 0.5, 1.0);
        return;
      }
      const int W = static_cast<int>(std::ceil(g->w * zoom)), H = static_cast<int>(std::ceil(g->h * zoom));
      for (int v = 0; v < H; ++v)
        for (int u = 0; u < W; ++u) {
          const int gx = std::min(g->w - 1, static_cast<int>(u / zoom)), gy = std::min(g->h - 1, static_cast<int>(v / zoom));
          const double a = font::coverage(f, *g, gx, gy);
          if (a > 0) emit(pen + g->x0 * zoom + u + 0.5, g->y0 * zoom + v + 0.5, a);
        }
    });
    return;
  }
  // the pen's sub-pixel offset goes into the glyph's bitmap (stb shifts), the rest is whole pixels
  std::vector<unsigned char> bitmap;
  walk(fs, s, size, bold, [&](const Placed& pl, double pen, double scale) {
    const double along = along0 + pen, fa = std::floor(along), fc = std::floor(across0);
    const float sa = static_cast<float>(along - fa), sc = static_cast<float>(across0 - fc);
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    const float sf = static_cast<float>(scale);
    stbtt_GetGlyphBitmapBoxSubpixel(&pl.file->info, pl.glyph, sf, sf, sa, sc, &x0, &y0, &x1, &y1);
    // stbtt_MakeGlyphBitmapSubpixel's steps, with the bitmap's box grown to hold every point of
    // the outline: a damaged glyph whose points lie outside its header's box made stb's
    // rasterizer assert (abort) — the fuzzer's font target, one byte of DejaVu Sans changed. For a
    // sound glyph the box is the header's, so the pixels are the same.
    stbtt_vertex* verts = nullptr;
    const int nv = stbtt_GetGlyphShape(&pl.file->info, pl.glyph, &verts);
    const auto grow = [&](int vx, int vy) {  // as stb computes the box from the header's corners
      x0 = std::min(x0, static_cast<int>(std::floor(static_cast<float>(vx) * sf + sa)));
      x1 = std::max(x1, static_cast<int>(std::ceil(static_cast<float>(vx) * sf + sa)));
      y0 = std::min(y0, static_cast<int>(std::floor(static_cast<float>(-vy) * sf + sc)));
      y1 = std::max(y1, static_cast<int>(std::ceil(static_cast<float>(-vy) * sf + sc)));
    };
    for (int k = 0; k < nv; ++k) {
      const stbtt_vertex& t = verts[k];
      grow(t.x, t.y);
      if (t.type == STBTT_vcurve || t.type == STBTT_vcubic) grow(t.cx, t.cy);
      if (t.type == STBTT_vcubic) grow(t.cx1, t.cy1);
    }
    const int w = x1 - x0, h = y1 - y0;
    if (w <= 0 || h <= 0 || nv <= 0) {
      stbtt_FreeShape(&pl.file->info, verts);
      return;
    }
    bitmap.assign(static_cast<std::size_t>(w) * h, 0);
    stbtt__bitmap gbm{w, h, w, bitmap.data()};
    stbtt_Rasterize(&gbm, 0.35f, verts, nv, sf, sf, sa, sc, x0, y0, 1, pl.file->info.userdata);
    stbtt_FreeShape(&pl.file->info, verts);
    for (int v = 0; v < h; ++v)
      for (int u = 0; u < w; ++u) {
        const unsigned char c = bitmap[static_cast<std::size_t>(v) * w + u];
        if (!c) continue;
        const double a = c / 255.0;
        put_text(fa + x0 + u + 0.5, fc + y0 + v + 0.5, a);  // pixel (fa + x0 + u, fc + y0 + v) in text space
      }
  });
}

std::string css_families() {
  std::lock_guard lock(g_mutex);
  return fonts().css_families();
}

}  // namespace text

}  // namespace tfx
