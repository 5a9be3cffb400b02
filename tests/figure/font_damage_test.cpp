// Damaged font files (--font / TFX_FONT): every table stb_truetype reads is checked before it
// reads it (src/figure/figure_font_check.cpp). Hand-made damage (a table past the end, a flipped
// or impossible indexToLocFormat, an unsupported cmap format, a truncated file, a self-referencing
// composite glyph) and 400 seeded random mutations of DejaVu Sans either load or fail with a
// tfx::Error naming the file; none may crash the test process. /dev/zero and a directory are one
// error line each.
#include <cstdint>
#include <random>

#include "helpers.hpp"
#include "tfx/core/error.hpp"
#include "tfx/figure/figure.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

const char* const kDejaVu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

std::uint32_t be32(const std::string& f, std::size_t at) {
  return (std::uint32_t{static_cast<unsigned char>(f[at])} << 24) | (std::uint32_t{static_cast<unsigned char>(f[at + 1])} << 16) |
         (std::uint32_t{static_cast<unsigned char>(f[at + 2])} << 8) | static_cast<unsigned char>(f[at + 3]);
}
void put16(std::string& f, std::size_t at, unsigned v) {
  f[at] = static_cast<char>(v >> 8);
  f[at + 1] = static_cast<char>(v & 0xFF);
}
void put32(std::string& f, std::size_t at, std::uint32_t v) {
  put16(f, at, v >> 16);
  put16(f, at + 2, v & 0xFFFF);
}

// The directory entry (its offset in the file) of table `tag`; 0 when absent.
std::size_t entry_of(const std::string& f, const char* tag) {
  const unsigned n = (static_cast<unsigned char>(f[4]) << 8) | static_cast<unsigned char>(f[5]);
  for (unsigned i = 0; i < n; ++i)
    if (f.compare(12 + 16 * i, 4, tag) == 0) return 12 + 16 * i;
  return 0;
}

// Loads `bytes` as the only font and draws Latin, Greek and Hangul with it: "" when it drew,
// else the tfx::Error's message.
std::string draw_with(const TempDir& dir, const std::string& bytes) {
  const auto path = dir / "f.ttf";
  write_file(path, bytes);
  std::string error;
  try {
    set_figure_fonts({{path.string()}, false});
    Heatmap h;
    h.values = Tensor::from({2, 2}, {0.1f, 0.9f, 0.5f, 0.5f});
    h.row_labels = {"AVToy", "Σ∫ 한국"};
    h.col_labels = {"fi", "WA"};
    h.title = "Kerning AV To";
    Figure fig;
    fig.panels.push_back(h);
    const Image img = render(fig, 1.5);
    CHECK(img.width > 0);
  } catch (const Error& e) {
    error = e.what();
  }
  return error;
}

}  // namespace

TEST_CASE("fonts: hand-made damage to DejaVu Sans is a tfx::Error naming the file and what is wrong") {
  if (!std::filesystem::exists(kDejaVu)) {
    std::cout << "TFX-SKIP: " << kDejaVu << " is absent (fonts-dejavu-core)\n";
    return;
  }
  const std::string good = read_file(kDejaVu);
  TempDir dir;
  CHECK(draw_with(dir, good).empty());
  {  // glyf's offset past the end
    std::string f = good;
    put32(f, entry_of(f, "glyf") + 8, static_cast<std::uint32_t>(f.size() + 100));
    CHECK(has(draw_with(dir, f), "damaged font: table 'glyf'"));
  }
  {  // hmtx longer than the file
    std::string f = good;
    put32(f, entry_of(f, "hmtx") + 12, 0x7FFFFFF0);
    CHECK(has(draw_with(dir, f), "runs past the end of the file"));
  }
  const std::size_t head = be32(good, entry_of(good, "head") + 8);
  {  // indexToLocFormat 2 (stb would read past loca), and the other format flipped
    std::string f = good;
    put16(f, head + 50, 2);
    CHECK(has(draw_with(dir, f), "indexToLocFormat 2 (0 or 1)"));
    const unsigned fmt = static_cast<unsigned char>(good[head + 51]);
    put16(f, head + 50, fmt ? 0 : 1);
    const std::string e = draw_with(dir, f);  // either refused (loca too short) or drawn with .notdef boxes
    CHECK((e.empty() || has(e, "damaged font")));
  }
  {  // units per em 0: stb divides by it
    std::string f = good;
    put16(f, head + 18, 0);
    CHECK(has(draw_with(dir, f), "units per em 0"));
  }
  {  // every cmap subtable turned into format 2 (stb asserts on it)
    std::string f = good;
    const std::size_t cmap = be32(f, entry_of(f, "cmap") + 8);
    const unsigned records = (static_cast<unsigned char>(f[cmap + 2]) << 8) | static_cast<unsigned char>(f[cmap + 3]);
    for (unsigned i = 0; i < records; ++i) put16(f, cmap + be32(f, cmap + 4 + 8 * i + 4), 2);
    CHECK(has(draw_with(dir, f), "cmap format 2"));
  }
  {  // cut in half, and cut inside the table directory
    CHECK(has(draw_with(dir, good.substr(0, good.size() / 2)), "damaged font"));
    CHECK(has(draw_with(dir, good.substr(0, 40)), "damaged font"));
  }
  set_figure_fonts({{}, true});
}

TEST_CASE("fonts: 400 seeded mutations of DejaVu Sans's tables load or fail with a tfx::Error, never crash") {
  if (!std::filesystem::exists(kDejaVu)) {
    std::cout << "TFX-SKIP: " << kDejaVu << " is absent (fonts-dejavu-core)\n";
    return;
  }
  const std::string good = read_file(kDejaVu);
  const unsigned tables = (static_cast<unsigned char>(good[4]) << 8) | static_cast<unsigned char>(good[5]);
  TempDir dir;
  std::mt19937 rng(36);
  int refused = 0, drawn = 0;
  for (int k = 0; k < 400; ++k) {
    std::string f = good;
    const int flips = 1 + static_cast<int>(rng() % 6);
    for (int j = 0; j < flips; ++j) {
      // a byte in the directory or in the first 256 bytes of a table (headers, counts, offsets)
      std::size_t at = 0;
      if (rng() % 4 == 0) {
        at = rng() % (12 + 16 * tables);
      } else {
        const std::size_t e = 12 + 16 * (rng() % tables);
        at = be32(good, e + 8) + rng() % std::min<std::uint32_t>(256, std::max<std::uint32_t>(1, be32(good, e + 12)));
      }
      if (at < f.size()) f[at] = static_cast<char>(rng() % 2 ? rng() & 0xFF : f[at] ^ (1u << (rng() % 8)));
    }
    const std::string e = draw_with(dir, f);
    if (e.empty()) ++drawn;
    else {
      ++refused;
      CHECK_MESSAGE(has(e, "f.ttf"), e);
    }
  }
  INFO(drawn << " drawn, " << refused << " refused");
  CHECK(drawn + refused == 400);
  CHECK(refused > 20);  // the checks do refuse damaged tables
  set_figure_fonts({{}, true});
}
