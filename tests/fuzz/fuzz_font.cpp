// Fuzz target: a --font file through the font checks and stb_truetype (figure text: load, map
// characters, kern, measure, rasterize). First byte bit 0 clear: the rest is the font file; set:
// the rest is 4-byte edits (a 24-bit position, modulo the file's size, and a byte) applied to
// DejaVu Sans when installed, so mutations reach the tables behind a valid directory. A damaged
// font must end in a tfx::Error, never a crash or an assertion.
#include <fstream>
#include <iterator>

#include "fuzz_common.hpp"
#include "tfx/figure/figure.hpp"

namespace {

const std::string& dejavu() {
  static const std::string bytes = [] {
    std::ifstream in("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }();
  return bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  std::string font;
  if ((data[0] & 1) && !dejavu().empty()) {
    font = dejavu();
    for (std::size_t k = 1; k + 4 <= size; k += 4) {
      const std::size_t at = ((std::size_t{data[k]} << 16) | (std::size_t{data[k + 1]} << 8) | data[k + 2]) % font.size();
      font[at] = static_cast<char>(data[k + 3]);
    }
  } else {
    font.assign(reinterpret_cast<const char*>(data + 1), size - 1);
  }
  const std::string path = tfx::fuzz::write_input("font.ttf", font.data(), font.size());
  try {
    tfx::set_figure_fonts({{path}, false});
    tfx::Heatmap h;
    h.values = tfx::Tensor::from({2, 2}, {0.1f, 0.9f, 0.5f, 0.5f});
    h.row_labels = {"AVToy", "Σ∫ 한국"};
    h.col_labels = {"fi", "WA"};
    h.title = "Kerning AV To";
    tfx::Figure fig;
    fig.panels.push_back(h);
    tfx::fuzz::check(tfx::render(fig).width > 0);
  } catch (const tfx::Error&) {
  }
  return 0;
}
