// The npy format: NumPy .npy 1.0 ('<f4', C order) of the primary Matrix, as one string or as a
// header and a view of the tensor's own bytes (written without a copy).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "format_cells.hpp"
#include "tfx/core/error.hpp"
#include "tfx/io/format.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

std::string encode_npy(const Tensor& t) {
  std::string out = npy_header(t);
  static_assert(sizeof(float) == 4);
  out.reserve(out.size() + t.size() * 4);
  out.append(reinterpret_cast<const char*>(t.data()), t.size() * 4);  // one copy, no zero fill; x86/ARM are little-endian
  return out;
}

std::string_view npy_data(const Tensor& t) { return {reinterpret_cast<const char*>(t.data()), t.size() * sizeof(float)}; }

const Tensor& npy_tensor(const Result& r) {
  const Block* b = primary_block(r);
  const Matrix* m = b ? std::get_if<Matrix>(b) : nullptr;
  if (!m) throw usage_error(fmt::format(N_("format npy: '{}' has no numeric matrix; use format csv or json"), r.command), {"format"});
  return m->values;
}

std::string npy_header(const Tensor& t) {
  // header: magic, version 1.0, little-endian header length, dict padded with spaces to a
  // multiple of 64 bytes in total, ending in '\n'
  std::string shape;
  if (t.rank() == 1) shape = fmt::format("({},)", t.dim(0));
  else shape = fmt::format("({})", fmt::join(t.shape(), ", "));
  std::string dict = fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': {}, }}", shape);
  std::size_t total = 10 + dict.size() + 1;
  dict += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  const auto hlen = static_cast<std::uint16_t>(dict.size());
  out += static_cast<char>(hlen & 0xff);
  out += static_cast<char>(hlen >> 8);
  out += dict;
  return out;
}

std::string encode_npy(const Result& r) { return encode_npy(npy_tensor(r)); }

}  // namespace tfx
