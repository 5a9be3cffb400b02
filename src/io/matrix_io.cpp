// Matrix file reading behind --q/--k/--v/--x: read_matrix_file() (bytes from a file or a pipe,
// the format from the extension or the content), the JSON parser, and the value helpers all
// parsers share (matrix_parse.hpp). The CSV parser is in matrix_csv.cpp, the .npy parser in
// matrix_npy.cpp. Everything is validated at the boundary, and messages say where a file is wrong.
#include "tfx/io/matrix_io.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tfx/io/json_fields.hpp"
#include "tfx/io/text_file.hpp"
#include <unistd.h>

#include "tfx/core/show_token.hpp"  // junk bytes as \xNN in messages
#include "matrix_parse.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace matrix_parse {

std::string trim(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

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

std::string cell_quote(const std::string& s) { return "'" + show_token(s) + "'"; }

float to_float(double v, const std::string& where, const std::string& at) {
  if (std::isnan(v)) throw Error(fmt::format(N_("{}: {} is NaN; expected a finite number"), where, at));
  if (!std::isfinite(v) || std::abs(v) > kFloatMax)
    throw Error(fmt::format(N_("{}: {} = {} is outside the float32 range (±3.4e38)"), where, at, v));
  return static_cast<float>(v);
}

}  // namespace matrix_parse

using namespace matrix_parse;

namespace {

void check_labels(const LoadedMatrix& m, const std::string& where) {
  if (!m.row_labels.empty() && m.row_labels.size() != m.values.rows())
    throw Error(fmt::format(N_("{}: {} row labels for {} rows"), where, m.row_labels.size(), m.values.rows()));
  if (!m.col_labels.empty() && m.col_labels.size() != m.values.cols())
    throw Error(fmt::format(N_("{}: {} column labels for {} columns"), where, m.col_labels.size(), m.values.cols()));
}

std::string json_type(const nlohmann::json& j) {
  if (j.is_null()) return "null (tfx writes NaN/Inf as null)";
  if (j.is_string()) return fmt::format(N_("the string {}"), cell_quote(j.get<std::string>()));
  if (j.is_boolean()) return "a boolean";
  if (j.is_object()) return "an object";
  if (j.is_array()) return "an array";
  return "a number";
}

std::vector<std::string> json_labels(const nlohmann::json& obj, const char* key, const std::string& where) {
  std::vector<std::string> out;
  if (!obj.contains(key)) return out;
  const auto& a = obj[key];
  if (!a.is_array()) throw Error(fmt::format(N_("{}: \"{}\" is {}, expected a list of labels"), where, key, json_type(a)));
  for (const auto& x : a) out.push_back(x.is_string() ? x.get<std::string>() : x.dump());
  return out;
}

}  // namespace

LoadedMatrix parse_matrix_json(std::string_view text, const std::string& where) {
  const nlohmann::json j = parse_json(text, where);  // bounded depth, one-line errors
  LoadedMatrix m;
  const nlohmann::json* data = &j;
  if (j.is_object()) {
    if (!j.contains("data"))
      throw Error(
          fmt::format(N_("{}: JSON object without \"data\"; expected nested arrays [[...], ...] or tfx's JSON output"), where));
    data = &j["data"];
    m.row_labels = json_labels(j, "rows", where);
    m.col_labels = json_labels(j, "columns", where);
  }
  if (!data->is_array())
    throw Error(fmt::format(N_("{}: the matrix is {}, expected nested arrays [[...], ...]"), where, json_type(*data)));
  if (data->empty()) throw Error(fmt::format(N_("{}: the matrix is an empty array; expected at least one row"), where));
  const bool one_row = !(*data)[0].is_array();
  const std::size_t R = one_row ? 1 : data->size();
  const std::size_t C = one_row ? data->size() : (*data)[0].size();
  if (C == 0) throw Error(fmt::format(N_("{}: row 0 is empty; expected at least one number per row"), where));
  std::vector<float> values;
  values.reserve(R * C);
  auto element = [&](const nlohmann::json& x, const std::string& at) {
    if (!x.is_number()) throw Error(fmt::format(N_("{}: {} is {}, expected a number"), where, at, json_type(x)));
    values.push_back(to_float(x.get<double>(), where, at));
  };
  if (one_row) {
    for (std::size_t c = 0; c < C; ++c) element((*data)[c], fmt::format(N_("element [{}]"), c));
  } else {
    for (std::size_t r = 0; r < R; ++r) {
      const auto& row = (*data)[r];
      if (!row.is_array()) throw Error(fmt::format(N_("{}: row {} is {}, expected an array like row 0"), where, r, json_type(row)));
      if (row.size() != C)
        throw Error(fmt::format(N_("{}: row {} has {} values, expected {} (as row 0): ragged rows"), where, r, row.size(), C));
      for (std::size_t c = 0; c < C; ++c) {
        if (row[c].is_array())
          throw Error(fmt::format(N_("{}: element [{}][{}] is an array: a 3-D array; expected a 2-D matrix"), where, r, c));
        element(row[c], fmt::format(N_("element [{}][{}]"), r, c));
      }
    }
  }
  m.values = Tensor::from({R, C}, std::move(values));
  check_labels(m, where);
  return m;
}

std::vector<std::vector<float>> parse_number_rows(const std::string& text, const std::string& flag) {
  std::vector<std::vector<float>> rows;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(';', start);
    if (end == std::string::npos) end = text.size();
    std::string row = text.substr(start, end - start);
    std::vector<float> values;
    std::size_t s = 0;
    while (s <= row.size()) {
      std::size_t e = row.find(',', s);
      if (e == std::string::npos) e = row.size();
      std::string cell = row.substr(s, e - s);
      const auto first = cell.find_first_not_of(" \t"), last = cell.find_last_not_of(" \t");
      cell = first == std::string::npos ? "" : cell.substr(first, last - first + 1);
      float v = 0;
      auto res = std::from_chars(cell.data(), cell.data() + cell.size(), v);
      if (cell.empty() || res.ec != std::errc() || res.ptr != cell.data() + cell.size() || !std::isfinite(v))
        throw usage_error(fmt::format(N_("{}: '{}' is not a finite number (row {}, value {}); expected e.g. {} \"4,2,3,5;2,1,-3,2\""),
                                      flag, cell, rows.size() + 1, values.size() + 1, flag));
      values.push_back(v);
      s = e + 1;
    }
    if (!rows.empty() && values.size() != rows[0].size())
      throw usage_error(fmt::format(N_("{}: row {} has {} values but row 1 has {}"), flag, rows.size() + 1, values.size(), rows[0].size()));
    rows.push_back(std::move(values));
    start = end + 1;
  }
  return rows;
}

bool is_inline_rows(const std::string& value) {
  bool digit = false, numbers = true;
  for (const char c : value) {
    if (c >= '0' && c <= '9') digit = true;
    else if (!(c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E' || c == ',' || c == ';' || c == ' ' || c == '\t')) numbers = false;
  }
  if (numbers) return digit;
  std::error_code ec;
  return value.find_first_of(",;") != std::string::npos && value.find('/') == std::string::npos &&
         !std::filesystem::exists(value, ec);
}

LoadedMatrix read_matrix_arg(const std::string& value, const std::string& flag) {
  if (!is_inline_rows(value)) return read_matrix_file(value, flag);
  const std::vector<std::vector<float>> rows = parse_number_rows(value, flag);
  std::vector<float> flat;
  flat.reserve(rows.size() * rows[0].size());
  for (const auto& r : rows) flat.insert(flat.end(), r.begin(), r.end());
  LoadedMatrix m;
  m.values = Tensor::from({rows.size(), rows[0].size()}, std::move(flat));
  return m;
}

LoadedMatrix read_matrix_file(const std::string& path, const std::string& what) {
  const std::string where = what.empty() ? path : what + " " + path;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(fmt::format(N_("{}: is a directory; expected a matrix file"), where));
  // a named pipe that nothing writes to reads as empty instead of waiting forever (open_input_fd)
  const int fd = open_input_fd(path);
  if (fd < 0) throw Error(fmt::format(N_("{}: cannot read: {}"), where, std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  const auto read_some = [&](char* into, std::size_t n) -> std::size_t {
    for (;;) {
      const ssize_t got = ::read(fd, into, n);
      if (got >= 0) return static_cast<std::size_t>(got);
      if (errno != EINTR) throw Error(fmt::format("{}: read error: {}", where, std::strerror(errno)));
    }
  };
  std::string bytes;
  if (std::filesystem::is_regular_file(path, ec)) {
    // the largest sensible file: kMaxElements float64 values plus headers
    const std::uint64_t size = std::filesystem::file_size(path, ec);
    if (ec) throw Error(fmt::format(N_("{}: cannot read: {}"), where, ec.message()));
    if (size > kMaxElements * 8 + (1u << 20))
      throw Error(fmt::format(N_("{}: file of {} bytes is larger than any matrix tfx reads"), where, size));
    bytes.resize(static_cast<std::size_t>(size));
    std::size_t have = 0;
    while (have < bytes.size()) {
      const std::size_t got = read_some(bytes.data() + have, bytes.size() - have);
      if (got == 0) break;
      have += got;
    }
    if (have != bytes.size()) throw Error(fmt::format(N_("{}: read error"), where));
  } else {
    // a pipe or device (e.g. --x <(python make_x.py)): read to the end, up to a cap
    constexpr std::size_t kMaxStream = std::size_t{64} << 20;
    char buf[1 << 16];
    for (std::size_t got; (got = read_some(buf, sizeof buf)) > 0;) {
      bytes.append(buf, got);
      if (bytes.size() > kMaxStream)
        throw Error(
            fmt::format(N_("{}: more than {} MiB from a pipe or device; write the matrix to a file"), where, kMaxStream >> 20));
    }
  }
  if (bytes.starts_with("\xEF\xBB\xBF")) bytes.erase(0, 3);  // a BOM (a spreadsheet's CSV): not part of the first cell
  if (bytes.empty()) throw Error(fmt::format(N_("{}: empty file; expected a matrix as JSON, CSV or .npy"), where));

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
    throw Error(fmt::format(N_("{}: file has only whitespace; expected a matrix"), where));
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
