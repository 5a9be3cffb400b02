// The encoder table: one row per output format, each pointing at that format's serialize function
// (tfx/io/encoder.hpp). A new format adds its row here.
#include <fmt/format.h>

#include "tfx/core/error.hpp"
#include "tfx/io/encoder.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {

const Result& result_of(const Output& out, Format f) {
  if (!out.result) throw usage_error(fmt::format(N_("format {}: nothing to write"), format_name(f)), {"format"});
  return *out.result;
}

std::string table(const Output& out, const OutputOptions& o) { return encode_table(result_of(out, o.format), o); }
std::string markdown(const Output& out, const OutputOptions& o) { return encode_markdown(result_of(out, o.format), o); }
std::string csv(const Output& out, const OutputOptions& o) { return encode_csv(result_of(out, o.format), o); }
std::string json(const Output& out, const OutputOptions& o) { return encode_json(result_of(out, o.format), o); }
std::string npy(const Output& out, const OutputOptions& o) { return encode_npy(result_of(out, o.format)); }

constexpr Encoder kEncoders[] = {
    {Format::table, table}, {Format::csv, csv},           {Format::json, json},          {Format::npy, npy},
    {Format::md, markdown}, {Format::png, serialize_png}, {Format::svg, serialize_svg}, {Format::gif, serialize_gif},
    {Format::html, serialize_html},
};

}  // namespace

const Encoder& encoder_for(Format f) {
  for (const Encoder& e : kEncoders)
    if (e.format == f) return e;
  throw Error(fmt::format(N_("no encoder for format {}"), static_cast<int>(f)));
}

std::string serialize(const Output& out, const OutputOptions& o) { return encoder_for(o.format).serialize(out, o); }

}  // namespace tfx
