// The svg format: the command's figure as SVG vectors (figure/figure_svg) at o.scale.
#include "tfx/core/error.hpp"
#include "tfx/io/encoder.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

std::string serialize_svg(const Output& out, const OutputOptions& o) {
  if (!out.figure) throw usage_error(N_("format svg: this command draws no figure here; use ") + format_list(false), {"format"});
  return encode_svg(*out.figure, o.scale);
}

}  // namespace tfx
