// The NumPy .npy matrix parser (parse_npy): versions 1.0–3.0, float32/float64 either byte order,
// C order, the shape checked against the bytes present before anything is allocated.
#include "tfx/io/matrix_io.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "matrix_parse.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

using namespace matrix_parse;

namespace {

// The value text after 'key': in a numpy header dict, or nullopt.
std::optional<std::string> npy_field(const std::string& header, const std::string& key) {
  for (const char q : {'\'', '"'}) {
    const std::string k = std::string(1, q) + key + std::string(1, q);
    std::size_t p = header.find(k);
    if (p == std::string::npos) continue;
    p = header.find(':', p + k.size());
    if (p == std::string::npos) return std::nullopt;
    ++p;
    while (p < header.size() && header[p] == ' ') ++p;
    if (p >= header.size()) return std::nullopt;
    std::size_t end;
    if (header[p] == '(') {
      end = header.find(')', p);
      if (end == std::string::npos) return std::nullopt;
      ++end;
    } else if (header[p] == '\'' || header[p] == '"') {
      end = header.find(header[p], p + 1);
      if (end == std::string::npos) return std::nullopt;
      ++end;
    } else {
      end = header.find_first_of(",}", p);
      if (end == std::string::npos) end = header.size();
    }
    return trim(std::string_view(header).substr(p, end - p));
  }
  return std::nullopt;
}

template <class T>
T byteswap_value(T v) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  std::reverse(b, b + sizeof(T));
  std::memcpy(&v, b, sizeof(T));
  return v;
}

}  // namespace

LoadedMatrix parse_npy(std::string_view b, const std::string& where) {
  // 1. magic and version
  if (b.size() < 10 || b.substr(0, 6) != std::string_view("\x93NUMPY", 6))
    throw Error(fmt::format(N_("{}: not a .npy file (no \\x93NUMPY magic)"), where));
  const unsigned major = static_cast<unsigned char>(b[6]), minor = static_cast<unsigned char>(b[7]);
  std::size_t hlen = 0, start = 0;
  if (major == 1) {
    hlen = static_cast<unsigned char>(b[8]) | (static_cast<std::size_t>(static_cast<unsigned char>(b[9])) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) throw Error(fmt::format(N_("{}: truncated .npy header"), where));
    for (int i = 3; i >= 0; --i) hlen = (hlen << 8) | static_cast<unsigned char>(b[8 + i]);
    start = 12;
  } else {
    throw Error(fmt::format(N_("{}: .npy format version {}.{} is not supported (expected 1.0, 2.0 or 3.0)"), where, major, minor));
  }
  if (hlen > b.size() - start)
    throw Error(fmt::format(N_("{}: .npy header says {} bytes, the file has {} after the preamble"), where, hlen, b.size() - start));
  const std::string header(b.substr(start, hlen));
  const std::size_t data_start = start + hlen;
  // 2. descr, fortran_order, shape
  auto descr = npy_field(header, "descr");
  auto fortran = npy_field(header, "fortran_order");
  auto shape = npy_field(header, "shape");
  if (!descr || !fortran || !shape)
    throw Error(fmt::format(N_("{}: .npy header lacks 'descr', 'fortran_order' or 'shape': {}"), where, cell_quote(trim(header))));
  std::string d = *descr;
  if (d.size() >= 2 && (d.front() == '\'' || d.front() == '"')) d = d.substr(1, d.size() - 2);
  bool big = false;
  std::size_t item = 0;
  if (d == "<f4" || d == "=f4" || d == "|f4")
    item = 4;
  else if (d == "<f8" || d == "=f8" || d == "|f8")
    item = 8;
  else if (d == ">f4")
    item = 4, big = true;
  else if (d == ">f8")
    item = 8, big = true;
  else
    throw Error(
        fmt::format(N_("{}: .npy dtype '{}' is not supported; expected float32 ('<f4') or float64 ('<f8') "
                    "(convert with a.astype(np.float32))"),
                    where, d));
  if (*fortran == "True")
    throw Error(fmt::format(N_("{}: .npy array is in Fortran (column-major) order; save np.ascontiguousarray(a) instead"), where));
  if (*fortran != "False")
    throw Error(fmt::format(N_("{}: .npy 'fortran_order' is {}, expected True or False"), where, cell_quote(*fortran)));
  // shape: "(R, C)", "(C,)", "()"
  std::vector<std::uint64_t> dims;
  {
    const std::string s = *shape;
    if (s.size() < 2 || s.front() != '(' || s.back() != ')')
      throw Error(fmt::format(N_("{}: .npy 'shape' is {}, expected a tuple like (3, 4)"), where, cell_quote(s)));
    std::size_t i = 1;
    while (i + 1 < s.size()) {
      while (i + 1 < s.size() && (s[i] == ' ' || s[i] == ',')) ++i;
      if (i + 1 >= s.size()) break;
      std::uint64_t v = 0;
      auto res = std::from_chars(s.data() + i, s.data() + s.size() - 1, v);
      if (res.ec == std::errc::result_out_of_range)
        throw Error(fmt::format(N_("{}: .npy shape {} has a dimension too large to address"), where, s));
      if (res.ec != std::errc() || res.ptr == s.data() + i)
        throw Error(fmt::format(N_("{}: .npy 'shape' is {}, expected a tuple of integers"), where, cell_quote(s)));
      dims.push_back(v);
      i = static_cast<std::size_t>(res.ptr - s.data());
    }
  }
  if (dims.empty()) throw Error(fmt::format(N_("{}: .npy holds a scalar (shape ()); expected a 1-D or 2-D array"), where));
  if (dims.size() > 2)
    throw Error(fmt::format(N_("{}: .npy array has {} dimensions {}; expected a 1-D or 2-D matrix"), where, dims.size(), *shape));
  const std::uint64_t R = dims.size() == 2 ? dims[0] : 1, C = dims.back();
  if (R == 0 || C == 0) throw Error(fmt::format(N_("{}: .npy array {} is empty; expected at least one value"), where, *shape));
  // 3. size checks before any allocation: the element cap, then the bytes actually present
  if (C > kMaxElements || R > kMaxElements / C)
    throw Error(fmt::format(N_("{}: .npy shape {} has more than 2^30 elements (the most tfx allocates)"), where, *shape));
  const std::size_t count = static_cast<std::size_t>(R * C);
  const std::size_t have = b.size() - data_start;
  if (have != count * item)
    throw Error(have < count * item
                    ? fmt::format(N_("{}: .npy shape {} of {}-byte floats needs {} data bytes, the file has {} (truncated)"), where, *shape,
                                  item, count * item, have)
                    : fmt::format(N_("{}: .npy shape {} of {}-byte floats needs {} data bytes, the file has {} (more than its shape)"),
                                  where, *shape, item, count * item, have));
  // 4. convert to float32 (byte order: the host is little-endian)
  static_assert(std::endian::native == std::endian::little, "tfx assumes a little-endian host");
  std::vector<float> values(count);
  const char* p = b.data() + data_start;
  for (std::size_t k = 0; k < count; ++k) {
    double v;
    if (item == 4) {
      float f;
      std::memcpy(&f, p + 4 * k, 4);
      v = big ? byteswap_value(f) : f;
    } else {
      double x;
      std::memcpy(&x, p + 8 * k, 8);
      v = big ? byteswap_value(x) : x;
    }
    if (!std::isfinite(v) || std::abs(v) > kFloatMax)
      values[k] = to_float(v, where, fmt::format(N_("element [{}][{}]"), k / C, k % C));
    else
      values[k] = static_cast<float>(v);
  }
  LoadedMatrix m;
  m.values = Tensor::from({static_cast<std::size_t>(R), static_cast<std::size_t>(C)}, std::move(values));
  return m;
}

}  // namespace tfx
