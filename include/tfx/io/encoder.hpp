// One encoder per output format behind one interface (the shape of hyperfine's export/): each
// format's serialize() turns what a command produced — its Result and, for the figure formats, its
// Figure — into the bytes of the file; writing them is emit()'s (tfx/io/format.hpp), the same for
// every format. The formats themselves (names, extensions, binary or not, figure or data) are the
// tables of tfx/io/format.hpp.
//
// Adding a format: its enumerator and rows in kFormatChoices and kFormatTraits, a serialize
// function in its own file under src/io/, and its row in kEncoders (src/io/encoders.cpp); the
// recipe in docs/architecture.md lists every file.
#pragma once
#include <string>
#include <vector>

#include "tfx/figure/figure.hpp"
#include "tfx/io/format.hpp"

namespace tfx {

// What an encoder serializes: the command's Result (data formats), the Figure it drew (figure
// formats; null when the command draws none), the frames of its animation, drawn (gif), and the
// page it built (html).
struct Output {
  const Result* result = nullptr;
  const Figure* figure = nullptr;
  const std::vector<Image>* frames = nullptr;
  const std::string* page = nullptr;
};

using Serialize = std::string (*)(const Output& out, const OutputOptions& o);

struct Encoder {
  Format format;
  Serialize serialize;
};

// The encoder of `f`.
const Encoder& encoder_for(Format f);
// o.format's bytes of `out`; a figure format without a figure, or a data format without a
// Result, is a usage error naming the format.
std::string serialize(const Output& out, const OutputOptions& o);

// The figure formats' serializers (src/io/encode_png.cpp, encode_svg.cpp), also used directly for
// --png/--svg files: the PNG is drawn at o.scale.
std::string serialize_png(const Output& out, const OutputOptions& o);
std::string serialize_svg(const Output& out, const OutputOptions& o);
// The animation and page formats' serializers (src/io/encode_gif.cpp, encode_html.cpp), used by
// --gif/--html and -o FILE.gif/.html alike: the frames as one GIF at o.fps, the page as it is.
std::string serialize_gif(const Output& out, const OutputOptions& o);
std::string serialize_html(const Output& out, const OutputOptions& o);
// Width and height of a PNG from its header (0, 0 when `png` is not one).
std::pair<int, int> png_size(const std::string& png);

}  // namespace tfx
