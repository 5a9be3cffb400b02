// The html format: the self-contained page a command built (the attention page,
// figure/attention_html), written as it is.
#include "tfx/core/error.hpp"
#include "tfx/io/encoder.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

std::string serialize_html(const Output& out, const OutputOptions&) {
  if (!out.page) throw usage_error(N_("format html: this command builds no page here"), {"format"});
  return *out.page;
}

}  // namespace tfx
