// The font files fontconfig names (figure_fontconfig.hpp); without fontconfig, none.
#include "figure_fontconfig.hpp"

#ifdef TFX_HAVE_FONTCONFIG
#include <fontconfig/fontconfig.h>

#include <cstdlib>
#endif

namespace tfx::fontconfig {

#ifdef TFX_HAVE_FONTCONFIG

namespace {

// fontconfig's best font for pattern p after its substitutions (nullptr when none); the caller
// destroys both.
FcPattern* fc_match(FcPattern* p) {
  FcConfigSubstitute(nullptr, p, FcMatchPattern);
  FcDefaultSubstitute(p);
  FcResult res;
  return FcFontMatch(nullptr, p, &res);
}

// FcInit once; fontconfig's configuration and caches are released at exit (FcFini), so a
// leak checker sees no memory left behind (every pattern and charset is destroyed after use).
bool fc_ready() {
  static const bool ok = [] {
    if (!FcInit()) return false;
    std::atexit([] { FcFini(); });
    return true;
  }();
  return ok;
}

}  // namespace

std::string family_file(const std::string& family, bool bold) {
  if (!fc_ready()) return {};
  FcPattern* p = FcPatternCreate();
  FcPatternAddString(p, FC_FAMILY, reinterpret_cast<const FcChar8*>(family.c_str()));
  FcPatternAddInteger(p, FC_WEIGHT, bold ? FC_WEIGHT_BOLD : FC_WEIGHT_REGULAR);
  FcPatternAddInteger(p, FC_SLANT, FC_SLANT_ROMAN);
  FcPattern* m = fc_match(p);
  std::string path;
  FcChar8 *file = nullptr, *fam = nullptr;
  int weight = 0;
  if (m && FcPatternGetString(m, FC_FILE, 0, &file) == FcResultMatch && FcPatternGetString(m, FC_FAMILY, 0, &fam) == FcResultMatch &&
      FcPatternGetInteger(m, FC_WEIGHT, 0, &weight) == FcResultMatch) {
    const bool same = std::string(reinterpret_cast<const char*>(fam)) == family;
    if (same && (bold ? weight >= FC_WEIGHT_DEMIBOLD : weight < FC_WEIGHT_DEMIBOLD)) path = reinterpret_cast<const char*>(file);
  }
  if (m) FcPatternDestroy(m);
  FcPatternDestroy(p);
  return path;
}

std::string file_for(char32_t cp) {
  if (!fc_ready()) return {};
  FcPattern* p = FcPatternCreate();
  FcCharSet* cs = FcCharSetCreate();
  FcCharSetAddChar(cs, cp);
  FcPatternAddCharSet(p, FC_CHARSET, cs);
  FcPatternAddBool(p, FC_SCALABLE, FcTrue);
  FcPattern* m = fc_match(p);
  std::string path;
  FcChar8* file = nullptr;
  FcCharSet* has = nullptr;
  if (m && FcPatternGetString(m, FC_FILE, 0, &file) == FcResultMatch && FcPatternGetCharSet(m, FC_CHARSET, 0, &has) == FcResultMatch &&
      FcCharSetHasChar(has, cp))
    path = reinterpret_cast<const char*>(file);
  if (m) FcPatternDestroy(m);
  FcCharSetDestroy(cs);
  FcPatternDestroy(p);
  return path;
}

#else

std::string family_file(const std::string&, bool) { return {}; }
std::string file_for(char32_t) { return {}; }

#endif

}  // namespace tfx::fontconfig
