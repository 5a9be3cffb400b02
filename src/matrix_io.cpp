// Matrix file readers (JSON, CSV/TSV/whitespace text, .npy) behind --q/--k/--v/--x: validate
// everything at the boundary and say where the file is wrong.
#include "tfx/matrix_io.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "embeddings_parse.hpp"  // show_token: one way to quote junk bytes in messages

namespace tfx {

namespace {

constexpr double kFloatMax = std::numeric_limits<float>::max();

std::string trim(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

// The whole of `s` as a number (a leading '+' allowed), or nullopt.
std::optional<double> parse_number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (*first == '+') ++first;
  double v = 0;
  auto res = std::from_chars(first, last, v);
  if (res.ec == std::errc::result_out_of_range) return std::numeric_limits<double>::infinity();
  if (res.ec != std::errc() || res.ptr != last) return std::nullopt;
  return v;
}

// A readable name for a short string in a message: long cells cut, control bytes and invalid
// UTF-8 (binary junk) as \xNN (show_token, as in embedding-file messages).
std::string cell_quote(const std::string& s) { return "'" + show_token(s) + "'"; }

// Checks that v is finite and fits float32; `at` says where it is.
float to_float(double v, const std::string& where, const std::string& at) {
  if (std::isnan(v)) throw Error(fmt::format("{}: {} is NaN; expected a finite number", where, at));
  if (!std::isfinite(v) || std::abs(v) > kFloatMax)
    throw Error(fmt::format("{}: {} = {} is outside the float32 range (±3.4e38)", where, at, v));
  return static_cast<float>(v);
}

void check_labels(const LoadedMatrix& m, const std::string& where) {
  if (!m.row_labels.empty() && m.row_labels.size() != m.values.rows())
    throw Error(fmt::format("{}: {} row labels for {} rows", where, m.row_labels.size(), m.values.rows()));
  if (!m.col_labels.empty() && m.col_labels.size() != m.values.cols())
    throw Error(fmt::format("{}: {} column labels for {} columns", where, m.col_labels.size(), m.values.cols()));
}

// ---- JSON ----

std::string json_type(const nlohmann::json& j) {
  if (j.is_null()) return "null (tfx writes NaN/Inf as null)";
  if (j.is_string()) return "the string " + cell_quote(j.get<std::string>());
  if (j.is_boolean()) return "a boolean";
  if (j.is_object()) return "an object";
  if (j.is_array()) return "an array";
  return "a number";
}

std::vector<std::string> json_labels(const nlohmann::json& obj, const char* key, const std::string& where) {
  std::vector<std::string> out;
  if (!obj.contains(key)) return out;
  const auto& a = obj[key];
  if (!a.is_array()) throw Error(fmt::format("{}: \"{}\" is {}, expected a list of labels", where, key, json_type(a)));
  for (const auto& x : a) out.push_back(x.is_string() ? x.get<std::string>() : x.dump());
  return out;
}

// ---- CSV ----

struct CsvLine {
  std::size_t number;  // 1-based line number in the file
  std::vector<std::string> cells;
};

std::vector<std::string> split_delimited(const std::string& line, char delim, const std::string& where, std::size_t lineno) {
  std::vector<std::string> cells;
  std::size_t i = 0;
  const std::size_t n = line.size();
  while (true) {
    while (i < n && line[i] == ' ') ++i;
    std::string cell;
    if (i < n && line[i] == '"') {
      // quoted field: "" is a literal quote
      ++i;
      bool closed = false;
      while (i < n) {
        if (line[i] == '"') {
          if (i + 1 < n && line[i + 1] == '"') {
            cell += '"';
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        cell += line[i++];
      }
      if (!closed) throw Error(fmt::format("{}:{}: unterminated quoted field", where, lineno));
      while (i < n && line[i] != delim) {
        if (!std::isspace(static_cast<unsigned char>(line[i])))
          throw Error(fmt::format("{}:{}: text after a closing quote", where, lineno));
        ++i;
      }
    } else {
      std::size_t j = line.find(delim, i);
      if (j == std::string::npos) j = n;
      cell = trim(std::string_view(line).substr(i, j - i));
      i = j;
    }
    cells.push_back(std::move(cell));
    if (i >= n) break;
    ++i;  // the delimiter
    if (i == n) {
      cells.emplace_back();  // trailing delimiter: an empty last cell
      break;
    }
  }
  return cells;
}

std::vector<std::string> split_whitespace(const std::string& line) {
  std::vector<std::string> cells;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    std::size_t j = i;
    while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
    if (j > i) cells.push_back(line.substr(i, j - i));
    i = j;
  }
  return cells;
}

bool counts_from_zero(const std::vector<CsvLine>& rows) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto v = parse_number(rows[i].cells[0]);
    if (!v || *v != static_cast<double>(i)) return false;
  }
  return true;
}

// ---- npy ----

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

LoadedMatrix parse_matrix_json(std::string_view text, const std::string& where) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    // a syntax error (parse_error) or a number beyond double's range such as 1e999 (out_of_range,
    // found by fuzzing: it escaped as a foreign exception without the file's name)
    std::string msg = e.what();
    // drop nlohmann's "[json.exception.parse_error.101] " prefix
    if (auto p = msg.find("] "); p != std::string::npos && msg.rfind("[json.exception", 0) == 0) msg = msg.substr(p + 2);
    throw Error(fmt::format("{}: not valid JSON: {}", where, msg));
  }
  LoadedMatrix m;
  const nlohmann::json* data = &j;
  if (j.is_object()) {
    if (!j.contains("data"))
      throw Error(
          fmt::format("{}: JSON object without \"data\"; expected nested arrays [[...], ...] or tfx's JSON output", where));
    data = &j["data"];
    m.row_labels = json_labels(j, "rows", where);
    m.col_labels = json_labels(j, "columns", where);
  }
  if (!data->is_array())
    throw Error(fmt::format("{}: the matrix is {}, expected nested arrays [[...], ...]", where, json_type(*data)));
  if (data->empty()) throw Error(fmt::format("{}: the matrix is an empty array; expected at least one row", where));
  const bool one_row = !(*data)[0].is_array();
  const std::size_t R = one_row ? 1 : data->size();
  const std::size_t C = one_row ? data->size() : (*data)[0].size();
  if (C == 0) throw Error(fmt::format("{}: row 0 is empty; expected at least one number per row", where));
  std::vector<float> values;
  values.reserve(R * C);
  auto element = [&](const nlohmann::json& x, const std::string& at) {
    if (!x.is_number()) throw Error(fmt::format("{}: {} is {}, expected a number", where, at, json_type(x)));
    values.push_back(to_float(x.get<double>(), where, at));
  };
  if (one_row) {
    for (std::size_t c = 0; c < C; ++c) element((*data)[c], fmt::format("element [{}]", c));
  } else {
    for (std::size_t r = 0; r < R; ++r) {
      const auto& row = (*data)[r];
      if (!row.is_array()) throw Error(fmt::format("{}: row {} is {}, expected an array like row 0", where, r, json_type(row)));
      if (row.size() != C)
        throw Error(fmt::format("{}: row {} has {} values, expected {} (as row 0): ragged rows", where, r, row.size(), C));
      for (std::size_t c = 0; c < C; ++c) {
        if (row[c].is_array())
          throw Error(fmt::format("{}: element [{}][{}] is an array: a 3-D array; expected a 2-D matrix", where, r, c));
        element(row[c], fmt::format("element [{}][{}]", r, c));
      }
    }
  }
  m.values = Tensor::from({R, C}, std::move(values));
  check_labels(m, where);
  return m;
}

LoadedMatrix parse_matrix_csv(std::string_view text, const std::string& where) {
  // 1. split into kept lines (skip blank lines and # comments), remembering line numbers
  std::vector<std::string> raw;
  std::vector<std::size_t> numbers;
  {
    std::size_t start = 0, lineno = 0;
    while (start <= text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      ++lineno;
      std::string line(text.substr(start, end - start));
      if (!line.empty() && line.back() == '\r') line.pop_back();
      const std::string t = trim(line);
      if (!t.empty() && t[0] != '#') {
        raw.push_back(line);
        numbers.push_back(lineno);
      }
      if (end == text.size()) break;
      start = end + 1;
    }
  }
  if (raw.empty()) throw Error(fmt::format("{}: no rows (only blank or # comment lines); expected a matrix", where));
  // 2. the delimiter from the first line: ',' else tab else whitespace
  const char delim = raw[0].find(',') != std::string::npos ? ',' : raw[0].find('\t') != std::string::npos ? '\t' : ' ';
  std::vector<CsvLine> lines;
  for (std::size_t i = 0; i < raw.size(); ++i)
    lines.push_back({numbers[i], delim == ' ' ? split_whitespace(raw[i]) : split_delimited(raw[i], delim, where, numbers[i])});
  // 3. header row: a non-number in the first line after its first cell; or only the first cell
  //    is text and either the next lines start with numbers ("pos,0,1" then "0,…") or the rest
  //    counts 0, 1, 2, … (tfx's numbered columns); otherwise the first line is a labelled data row
  std::vector<std::string> header;
  bool has_header = std::any_of(lines[0].cells.begin() + (lines[0].cells.empty() ? 0 : 1), lines[0].cells.end(),
                                [](const std::string& c) { return !parse_number(c); });
  // a first line that starts with a number ("1,a") is a data row with a bad cell, not a header:
  // taking it for one would silently drop a row
  if (has_header && parse_number(lines[0].cells[0])) has_header = false;
  if (!has_header && !lines[0].cells.empty() && !parse_number(lines[0].cells[0])) {
    bool rest_count = true;
    for (std::size_t j = 1; j < lines[0].cells.size(); ++j)
      if (parse_number(lines[0].cells[j]) != static_cast<double>(j - 1)) rest_count = false;
    const bool next_numeric = lines.size() > 1 && lines[1].cells.size() > 0 && parse_number(lines[1].cells[0]).has_value();
    has_header = lines.size() > 1 && (next_numeric || rest_count);  // one line alone is a labelled data row
  }
  if (has_header) {
    header = lines[0].cells;
    lines.erase(lines.begin());
    if (!header.empty() && header[0] == "slice")
      throw Error(fmt::format("{}:{}: a 3-D CSV (with a 'slice' column); expected one 2-D matrix", where, numbers[0]));
  }
  if (lines.empty()) throw Error(fmt::format("{}: only a header row, no data rows", where));
  // 4. every row as long as the first
  const std::size_t width = has_header ? header.size() : lines[0].cells.size();
  for (const auto& l : lines)
    if (l.cells.size() != width)
      throw Error(fmt::format("{}:{}: {} values, expected {} (as {} line {}): ragged rows", where, l.number, l.cells.size(),
                              width, has_header ? "the header on" : "the first row on", numbers[0]));
  // 5. a row-label column?
  bool labels = std::any_of(lines.begin(), lines.end(), [](const CsvLine& l) { return !parse_number(l.cells[0]); });
  if (!labels && has_header && (header[0].empty() || (!parse_number(header[0]) && counts_from_zero(lines)))) labels = true;
  // a label column whose later cells are not numbers is not a label column: report the cell
  const std::size_t first_col = labels ? 1 : 0;
  if (width <= first_col) throw Error(fmt::format("{}:{}: no numeric columns after the row labels", where, lines[0].number));
  LoadedMatrix m;
  const std::size_t R = lines.size(), C = width - first_col;
  std::vector<float> values;
  values.reserve(R * C);
  for (const auto& l : lines) {
    if (labels) m.row_labels.push_back(l.cells[0]);
    for (std::size_t c = first_col; c < width; ++c) {
      auto v = parse_number(l.cells[c]);
      if (!v)
        throw Error(fmt::format("{}:{}: column {}: {} is not a number", where, l.number, c + 1,
                                l.cells[c].empty() ? std::string("an empty cell") : cell_quote(l.cells[c])));
      values.push_back(to_float(*v, where, fmt::format("line {} column {}", l.number, c + 1)));
    }
  }
  if (has_header) m.col_labels.assign(header.begin() + static_cast<std::ptrdiff_t>(first_col), header.end());
  m.values = Tensor::from({R, C}, std::move(values));
  return m;
}

LoadedMatrix parse_npy(std::string_view b, const std::string& where) {
  // 1. magic and version
  if (b.size() < 10 || b.substr(0, 6) != std::string_view("\x93NUMPY", 6))
    throw Error(fmt::format("{}: not a .npy file (no \\x93NUMPY magic)", where));
  const unsigned major = static_cast<unsigned char>(b[6]), minor = static_cast<unsigned char>(b[7]);
  std::size_t hlen = 0, start = 0;
  if (major == 1) {
    hlen = static_cast<unsigned char>(b[8]) | (static_cast<std::size_t>(static_cast<unsigned char>(b[9])) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) throw Error(fmt::format("{}: truncated .npy header", where));
    for (int i = 3; i >= 0; --i) hlen = (hlen << 8) | static_cast<unsigned char>(b[8 + i]);
    start = 12;
  } else {
    throw Error(fmt::format("{}: .npy format version {}.{} is not supported (expected 1.0, 2.0 or 3.0)", where, major, minor));
  }
  if (hlen > b.size() - start)
    throw Error(fmt::format("{}: .npy header says {} bytes, the file has {} after the preamble", where, hlen, b.size() - start));
  const std::string header(b.substr(start, hlen));
  const std::size_t data_start = start + hlen;
  // 2. descr, fortran_order, shape
  auto descr = npy_field(header, "descr");
  auto fortran = npy_field(header, "fortran_order");
  auto shape = npy_field(header, "shape");
  if (!descr || !fortran || !shape)
    throw Error(fmt::format("{}: .npy header lacks 'descr', 'fortran_order' or 'shape': {}", where, cell_quote(trim(header))));
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
        fmt::format("{}: .npy dtype '{}' is not supported; expected float32 ('<f4') or float64 ('<f8') "
                    "(convert with a.astype(np.float32))",
                    where, d));
  if (*fortran == "True")
    throw Error(fmt::format("{}: .npy array is in Fortran (column-major) order; save np.ascontiguousarray(a) instead", where));
  if (*fortran != "False")
    throw Error(fmt::format("{}: .npy 'fortran_order' is {}, expected True or False", where, cell_quote(*fortran)));
  // shape: "(R, C)", "(C,)", "()"
  std::vector<std::uint64_t> dims;
  {
    const std::string s = *shape;
    if (s.size() < 2 || s.front() != '(' || s.back() != ')')
      throw Error(fmt::format("{}: .npy 'shape' is {}, expected a tuple like (3, 4)", where, cell_quote(s)));
    std::size_t i = 1;
    while (i + 1 < s.size()) {
      while (i + 1 < s.size() && (s[i] == ' ' || s[i] == ',')) ++i;
      if (i + 1 >= s.size()) break;
      std::uint64_t v = 0;
      auto res = std::from_chars(s.data() + i, s.data() + s.size() - 1, v);
      if (res.ec == std::errc::result_out_of_range)
        throw Error(fmt::format("{}: .npy shape {} has a dimension too large to address", where, s));
      if (res.ec != std::errc() || res.ptr == s.data() + i)
        throw Error(fmt::format("{}: .npy 'shape' is {}, expected a tuple of integers", where, cell_quote(s)));
      dims.push_back(v);
      i = static_cast<std::size_t>(res.ptr - s.data());
    }
  }
  if (dims.empty()) throw Error(fmt::format("{}: .npy holds a scalar (shape ()); expected a 1-D or 2-D array", where));
  if (dims.size() > 2)
    throw Error(fmt::format("{}: .npy array has {} dimensions {}; expected a 1-D or 2-D matrix", where, dims.size(), *shape));
  const std::uint64_t R = dims.size() == 2 ? dims[0] : 1, C = dims.back();
  if (R == 0 || C == 0) throw Error(fmt::format("{}: .npy array {} is empty; expected at least one value", where, *shape));
  // 3. size checks before any allocation: the element cap, then the bytes actually present
  if (C > kMaxElements || R > kMaxElements / C)
    throw Error(fmt::format("{}: .npy shape {} has more than 2^30 elements (the most tfx allocates)", where, *shape));
  const std::size_t count = static_cast<std::size_t>(R * C);
  const std::size_t have = b.size() - data_start;
  if (have != count * item)
    throw Error(fmt::format("{}: .npy shape {} of {}-byte floats needs {} data bytes, the file has {}{}", where, *shape, item,
                            count * item, have, have < count * item ? " (truncated)" : ""));
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
      values[k] = to_float(v, where, fmt::format("element [{}][{}]", k / C, k % C));
    else
      values[k] = static_cast<float>(v);
  }
  LoadedMatrix m;
  m.values = Tensor::from({static_cast<std::size_t>(R), static_cast<std::size_t>(C)}, std::move(values));
  return m;
}

LoadedMatrix read_matrix_file(const std::string& path, const std::string& what) {
  const std::string where = what.empty() ? path : what + " " + path;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(fmt::format("{}: is a directory; expected a matrix file", where));
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(fmt::format("{}: cannot read: {}", where, std::strerror(errno)));
  std::string bytes;
  if (std::filesystem::is_regular_file(path, ec)) {
    // the largest sensible file: kMaxElements float64 values plus headers
    const std::uint64_t size = std::filesystem::file_size(path, ec);
    if (ec) throw Error(fmt::format("{}: cannot read: {}", where, ec.message()));
    if (size > kMaxElements * 8 + (1u << 20))
      throw Error(fmt::format("{}: file of {} bytes is larger than any matrix tfx reads", where, size));
    bytes.resize(static_cast<std::size_t>(size));
    f.read(bytes.data(), static_cast<std::streamsize>(size));
    if (!f) throw Error(fmt::format("{}: read error", where));
  } else {
    // a pipe or device (e.g. --x <(python make_x.py)): read to the end, up to a cap
    constexpr std::size_t kMaxStream = std::size_t{64} << 20;
    char buf[1 << 16];
    while (f.read(buf, sizeof buf) || f.gcount() > 0) {
      bytes.append(buf, static_cast<std::size_t>(f.gcount()));
      if (bytes.size() > kMaxStream)
        throw Error(
            fmt::format("{}: more than {} MiB from a pipe or device; write the matrix to a file", where, kMaxStream >> 20));
    }
  }
  if (bytes.empty()) throw Error(fmt::format("{}: empty file; expected a matrix as JSON, CSV or .npy", where));

  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  MatrixFileFormat kind = MatrixFileFormat::automatic;
  if (ext == ".npy")
    kind = MatrixFileFormat::npy;
  else if (ext == ".json")
    kind = MatrixFileFormat::json;
  else if (ext == ".csv" || ext == ".tsv" || ext == ".txt" || ext == ".dat")
    kind = MatrixFileFormat::csv;
  if (kind == MatrixFileFormat::automatic) {
    const std::string head = trim(std::string_view(bytes).substr(0, 64));
    if (bytes.rfind("\x93NUMPY", 0) == 0)
      kind = MatrixFileFormat::npy;
    else if (!head.empty() && (head[0] == '[' || head[0] == '{'))
      kind = MatrixFileFormat::json;
    else
      kind = MatrixFileFormat::csv;
  }
  if (kind != MatrixFileFormat::npy && trim(bytes).empty())
    throw Error(fmt::format("{}: file has only whitespace; expected a matrix", where));
  switch (kind) {
    case MatrixFileFormat::npy:
      return parse_npy(bytes, where);
    case MatrixFileFormat::json:
      return parse_matrix_json(bytes, where);
    default:
      return parse_matrix_csv(bytes, where);
  }
}

}  // namespace tfx
