// The gif format: a command's animation, its frames already drawn (the command layer styles and
// renders them at --scale), encoded as one animated GIF (figure/figure_gif) at o.fps.
#include <fmt/format.h>

#include <cmath>

#include "tfx/core/error.hpp"
#include "tfx/io/encoder.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

// delay per frame = round(100 / fps) hundredths of a second (GIF's unit)
std::string serialize_gif(const Output& out, const OutputOptions& o) {
  if (!out.frames || out.frames->empty()) throw usage_error(N_("format gif: this command draws no animation here"), {"format"});
  if (!(o.fps > 0)) throw usage_error(fmt::format(N_("format gif: frames per second must be above 0, got {}"), o.fps), {"format"});
  return encode_gif(*out.frames, static_cast<int>(std::lround(100 / o.fps)));
}

}  // namespace tfx
