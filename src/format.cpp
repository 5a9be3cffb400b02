// Encoders for Results (table, Markdown, CSV, JSON, npy) and emit(), the one writer of output.
#include "tfx/format.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cerrno>

namespace tfx {

Format parse_format(const std::string& name) { return parse_choice<Format>(kFormatChoices, name, "format"); }

const char* format_name(Format f) { return choice_name<Format>(kFormatChoices, f); }

bool is_binary(Format f) { return f == Format::npy; }

namespace {

// Shortest decimal that reads back as the same float.
std::string shortest_float(float v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string fixed(double v, int precision) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{:.{}f}", v, precision);
  // "-0.0000" reads as a sign where there is none
  if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

std::string number(float v, int precision) {
  if (precision >= 0) return fixed(v, precision);
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return shortest_float(v);
}

std::string cell_text(const Cell& c, int precision) {
  if (auto s = std::get_if<std::string>(&c)) return *s;
  if (auto i = std::get_if<long long>(&c)) return std::to_string(*i);
  return format_number(std::get<double>(c), precision);
}

// JSON value of a float: NaN/Inf become null; with precision < 0 the shortest float repr.
nlohmann::json json_number(float v, int precision) {
  if (!std::isfinite(v)) return nullptr;
  std::string s = number(v, precision);
  double d = 0;
  std::from_chars(s.data(), s.data() + s.size(), d);
  return d;
}

nlohmann::json json_cell(const Cell& c, int precision) {
  if (auto s = std::get_if<std::string>(&c)) return *s;
  if (auto i = std::get_if<long long>(&c)) return *i;
  double d = std::get<double>(c);
  if (!std::isfinite(d)) return nullptr;
  if (precision >= 0) return std::stod(fixed(d, precision));
  return d;
}

std::string label(const std::vector<std::string>& labels, std::size_t i) {
  return i < labels.size() ? labels[i] : std::to_string(i);
}

// Indices to show along an axis of length n: all, or the first/last `edge` with a gap marker
// (SIZE_MAX) between, numpy-style.
std::vector<std::size_t> shown(std::size_t n, std::size_t threshold, std::size_t edge, bool full) {
  std::vector<std::size_t> idx;
  if (full || n <= threshold) {
    for (std::size_t i = 0; i < n; ++i) idx.push_back(i);
    return idx;
  }
  for (std::size_t i = 0; i < edge; ++i) idx.push_back(i);
  idx.push_back(SIZE_MAX);
  for (std::size_t i = n - edge; i < n; ++i) idx.push_back(i);
  return idx;
}

constexpr const char* kEllipsis = "…";
constexpr int kDefaultTablePrecision = 4;

// Display width of a UTF-8 string (code points; good enough for labels and numbers).
std::size_t width(const std::string& s) {
  std::size_t w = 0;
  for (unsigned char c : s) w += (c & 0xC0) != 0x80;
  return w;
}

std::string pad_left(const std::string& s, std::size_t w) {
  std::size_t sw = width(s);
  return sw >= w ? s : std::string(w - sw, ' ') + s;
}
std::string pad_right(const std::string& s, std::size_t w) {
  std::size_t sw = width(s);
  return sw >= w ? s : s + std::string(w - sw, ' ');
}

// A grid of strings: header row + body rows; first column is the row label.
struct Grid {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> body;
};

std::string render_aligned(const Grid& g) {
  std::vector<std::size_t> w(g.header.size(), 0);
  for (std::size_t j = 0; j < g.header.size(); ++j) w[j] = width(g.header[j]);
  for (const auto& row : g.body)
    for (std::size_t j = 0; j < row.size() && j < w.size(); ++j) w[j] = std::max(w[j], width(row[j]));
  std::string out;
  auto line = [&](const std::vector<std::string>& row) {
    std::string l;
    for (std::size_t j = 0; j < row.size(); ++j) {
      if (j) l += "  ";
      l += j == 0 ? pad_right(row[j], w[j]) : pad_left(row[j], w[j]);
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  line(g.header);
  for (const auto& row : g.body) line(row);
  return out;
}

std::string render_markdown(const Grid& g) {
  auto esc = [](std::string s) {
    std::string o;
    for (char c : s) {
      if (c == '|') o += "\\|";
      else o += c;
    }
    return o;
  };
  std::string out = "|";
  for (const auto& h : g.header) out.append(" ").append(esc(h)).append(" |");
  out += "\n|";
  for (std::size_t j = 0; j < g.header.size(); ++j) out += j == 0 ? " --- |" : " ---: |";
  out += "\n";
  for (const auto& row : g.body) {
    out += "|";
    for (const auto& c : row) out.append(" ").append(esc(c)).append(" |");
    out += "\n";
  }
  return out;
}

// One 2-D slice (offset into values) of a Matrix as a Grid.
Grid matrix_grid(const Matrix& m, std::size_t rows, std::size_t cols, std::size_t offset, int precision, bool full,
                 bool* any_masked) {
  Grid g;
  std::string corner = m.col_axis.empty() ? m.row_axis : m.row_axis + "\\" + m.col_axis;
  // numpy-style: when the default precision would print only zeros (all |v| < 0.01), use
  // scientific notation with the same number of digits
  bool sci = false;
  if (precision == kDefaultTablePrecision && !m.values.empty()) {
    float mx = 0;
    for (float v : m.values.values())
      if (std::isfinite(v)) mx = std::max(mx, std::abs(v));
    sci = mx > 0 && mx < 0.01f;
  }
  auto ci = shown(cols, 12, 5, full);
  auto ri = shown(rows, 24, 8, full);
  g.header.push_back(corner);
  for (auto j : ci) g.header.push_back(j == SIZE_MAX ? kEllipsis : label(m.col_labels, j));
  for (auto i : ri) {
    std::vector<std::string> row;
    row.push_back(i == SIZE_MAX ? kEllipsis : label(m.row_labels, i));
    for (auto j : ci) {
      if (i == SIZE_MAX || j == SIZE_MAX) {
        row.push_back(kEllipsis);
        continue;
      }
      std::size_t k = offset + i * cols + j;
      std::string s = sci ? fmt::format("{:.{}e}", m.values[k], precision) : number(m.values[k], precision);
      if (!m.masked.empty() && m.masked[k]) {
        s += "*";
        *any_masked = true;
      }
      row.push_back(s);
    }
    g.body.push_back(std::move(row));
  }
  return g;
}

// Calls f(rows, cols, offset, slice_title) for each 2-D slice of m.
template <class F>
void for_each_slice(const Matrix& m, F f) {
  const Tensor& t = m.values;
  if (t.rank() <= 1) {
    f(std::size_t{1}, t.size(), std::size_t{0}, std::string());
  } else if (t.rank() == 2) {
    f(t.dim(0), t.dim(1), std::size_t{0}, std::string());
  } else {
    std::size_t inner = t.dim(t.rank() - 2) * t.dim(t.rank() - 1);
    std::size_t outer = t.size() / std::max<std::size_t>(inner, 1);
    for (std::size_t s = 0; s < outer; ++s)
      f(t.dim(t.rank() - 2), t.dim(t.rank() - 1), s * inner,
        m.slice_axis.empty() ? fmt::format("[{}]", s) : fmt::format("{} {}", m.slice_axis, s));
  }
}

Grid records_grid(const Records& r, int precision) {
  Grid g;
  g.header = r.columns;
  for (const auto& row : r.rows) {
    std::vector<std::string> cells;
    for (const auto& c : row) cells.push_back(cell_text(c, precision));
    g.body.push_back(std::move(cells));
  }
  return g;
}

std::string summary_value(const nlohmann::json& v, int precision) {
  if (v.is_number_float()) {
    // tiny magnitudes (errors, spreads) keep their digits in scientific notation
    const double d = v.get<double>();
    if (precision < 0 && d != 0 && std::abs(d) < 1e-3) return fmt::format("{:.4e}", d);
    return format_number(d, precision < 0 ? 6 : precision);
  }
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::string encode_text(const Result& r, const OutputOptions& o, bool markdown) {
  const int precision = o.precision < 0 ? kDefaultTablePrecision : o.precision;
  std::string out;
  bool first = true, after_text = false;
  auto gap = [&] {
    if (!first) out += "\n";
    first = false;
  };
  for (const Block& b : r.blocks) {
    // consecutive Text lines form one paragraph
    const bool is_text = std::holds_alternative<Text>(b);
    if (!(is_text && after_text)) gap();
    after_text = is_text;
    if (auto t = std::get_if<Text>(&b)) {
      out += t->text + "\n";
    } else if (auto m = std::get_if<Matrix>(&b)) {
      bool any_masked = false;
      std::string title = fmt::format("{} {}", m->name, m->values.shape_str());
      out += markdown ? "**" + title + "**\n\n" : title + "\n";
      for_each_slice(*m, [&](std::size_t rows, std::size_t cols, std::size_t off, const std::string& slice) {
        if (!slice.empty()) out += (markdown ? "\n" : "") + slice + "\n";
        Grid g = matrix_grid(*m, rows, cols, off, precision, o.full, &any_masked);
        out += markdown ? render_markdown(g) : render_aligned(g);
      });
      if (any_masked) out += "(* = masked: weight exactly 0)\n";
    } else if (auto rec = std::get_if<Records>(&b)) {
      if (!rec->name.empty() && markdown) out += "**" + rec->name + "**\n\n";
      Grid g = records_grid(*rec, precision);
      out += markdown ? render_markdown(g) : render_aligned(g);
    }
  }
  if (!r.summary.empty()) {
    gap();
    for (auto it = r.summary.begin(); it != r.summary.end(); ++it)
      out += fmt::format("{}{}: {}\n", markdown ? "- " : "", it.key(), summary_value(it.value(), o.precision));
  }
  return out;
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += '"';
    o += c;
  }
  return o + "\"";
}

nlohmann::json matrix_data(const Tensor& t, int precision) {
  // nested arrays following the shape
  std::function<nlohmann::json(std::size_t, std::size_t)> rec = [&](std::size_t axis, std::size_t off) {
    nlohmann::json a = nlohmann::json::array();
    std::size_t stride = 1;
    for (std::size_t k = axis + 1; k < t.rank(); ++k) stride *= t.dim(k);
    for (std::size_t i = 0; i < t.dim(axis); ++i) {
      if (axis + 1 == t.rank()) a.push_back(json_number(t[off + i], precision));
      else a.push_back(rec(axis + 1, off + i * stride));
    }
    return a;
  };
  if (t.rank() == 0) return nlohmann::json::array();
  return rec(0, 0);
}

nlohmann::json matrix_json(const Matrix& m, int precision) {
  nlohmann::json j;
  j["shape"] = m.values.shape();
  if (!m.row_axis.empty()) j["row_axis"] = m.row_axis;
  if (!m.col_axis.empty()) j["col_axis"] = m.col_axis;
  if (!m.row_labels.empty()) j["rows"] = m.row_labels;
  if (!m.col_labels.empty()) j["columns"] = m.col_labels;
  j["data"] = matrix_data(m.values, precision);
  if (!m.masked.empty()) {
    Tensor mk(m.values.shape());
    for (std::size_t i = 0; i < mk.size(); ++i) mk[i] = m.masked[i] ? 1.0f : 0.0f;
    j["masked"] = matrix_data(mk, 0);
  }
  return j;
}

nlohmann::json records_json(const Records& r, int precision) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& row : r.rows) {
    nlohmann::json o = nlohmann::json::object();
    for (std::size_t j = 0; j < row.size() && j < r.columns.size(); ++j) o[r.columns[j]] = json_cell(row[j], precision);
    a.push_back(std::move(o));
  }
  return a;
}

}  // namespace

std::string format_number(double v, int precision) {
  if (precision >= 0) return fixed(v, precision);
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

const Block* primary_block(const Result& r) {
  for (const Block& b : r.blocks) {
    if (auto m = std::get_if<Matrix>(&b); m && (r.primary.empty() || m->name == r.primary)) return &b;
    if (auto t = std::get_if<Records>(&b); t && (r.primary.empty() || t->name == r.primary)) return &b;
  }
  return nullptr;
}

std::string encode_table(const Result& r, const OutputOptions& o) { return encode_text(r, o, false); }
std::string encode_markdown(const Result& r, const OutputOptions& o) { return encode_text(r, o, true); }

std::string encode_csv(const Result& r, const OutputOptions& o) {
  const Block* b = primary_block(r);
  if (!b) throw Error(fmt::format("'{}' has no table to write as CSV; use format table or json", r.command), Error::Kind::data, {"format"});
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t j = 0; j < cells.size(); ++j) {
      if (j) out += ',';
      out += csv_escape(cells[j]);
    }
    out += '\n';
  };
  if (auto rec = std::get_if<Records>(b)) {
    line(rec->columns);
    for (const auto& row : rec->rows) {
      std::vector<std::string> cells;
      for (const auto& c : row) cells.push_back(cell_text(c, o.precision));
      line(cells);
    }
    return out;
  }
  const Matrix& m = std::get<Matrix>(*b);
  const Tensor& t = m.values;
  if (t.rank() <= 1) {
    line({m.col_axis.empty() ? "index" : m.col_axis, m.name.empty() ? "value" : m.name});
    for (std::size_t i = 0; i < t.size(); ++i) line({label(m.col_labels, i), number(t[i], o.precision)});
    return out;
  }
  std::size_t cols = t.dim(t.rank() - 1), rows = t.dim(t.rank() - 2);
  std::size_t outer = t.size() / std::max<std::size_t>(rows * cols, 1);
  std::vector<std::string> header;
  if (t.rank() >= 3) header.push_back("slice");
  header.push_back(m.row_axis.empty() ? "row" : m.row_axis);
  for (std::size_t j = 0; j < cols; ++j) header.push_back(label(m.col_labels, j));
  line(header);
  for (std::size_t s = 0; s < outer; ++s)
    for (std::size_t i = 0; i < rows; ++i) {
      std::vector<std::string> cells;
      if (t.rank() >= 3) cells.push_back(std::to_string(s));
      cells.push_back(label(m.row_labels, i));
      for (std::size_t j = 0; j < cols; ++j) cells.push_back(number(t[(s * rows + i) * cols + j], o.precision));
      line(cells);
    }
  return out;
}

std::string encode_json(const Result& r, const OutputOptions& o) {
  nlohmann::json j = nlohmann::json::object();
  j["command"] = r.command;
  j["params"] = r.params;
  if (const Block* b = primary_block(r)) {
    if (auto m = std::get_if<Matrix>(b)) {
      j["shape"] = m->values.shape();
      j["data"] = matrix_data(m->values, o.precision);
      if (!m->row_labels.empty()) j["rows"] = m->row_labels;
      if (!m->col_labels.empty()) j["columns"] = m->col_labels;
    } else {
      const Records& rec = std::get<Records>(*b);
      j["shape"] = {rec.rows.size(), rec.columns.size()};
      j["data"] = records_json(rec, o.precision);
    }
  }
  nlohmann::json matrices = nlohmann::json::object(), tables = nlohmann::json::object(),
                 notes = nlohmann::json::array();
  for (const Block& b : r.blocks) {
    if (auto m = std::get_if<Matrix>(&b)) matrices[m->name] = matrix_json(*m, o.precision);
    else if (auto rec = std::get_if<Records>(&b)) tables[rec->name] = records_json(*rec, o.precision);
    else notes.push_back(std::get<Text>(b).text);
  }
  if (matrices.size() > 1) j["matrices"] = matrices;
  if (tables.size() > 1 || (!tables.empty() && !matrices.empty())) j["tables"] = tables;
  if (!notes.empty()) j["notes"] = notes;
  if (!r.summary.empty()) j["summary"] = r.summary;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string encode_npy(const Tensor& t) {
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
  static_assert(sizeof(float) == 4);
  out.reserve(out.size() + t.size() * 4);
  out.append(reinterpret_cast<const char*>(t.data()), t.size() * 4);  // one copy, no zero fill; x86/ARM are little-endian
  return out;
}

std::string encode_npy(const Result& r) {
  const Block* b = primary_block(r);
  const Matrix* m = b ? std::get_if<Matrix>(b) : nullptr;
  if (!m) throw usage_error(fmt::format("format npy: '{}' has no numeric matrix; use format csv or json", r.command), {"format"});
  return encode_npy(m->values);
}

std::string encode(const Result& r, const OutputOptions& o) {
  switch (o.format) {
    case Format::table: return encode_table(r, o);
    case Format::csv: return encode_csv(r, o);
    case Format::json: return encode_json(r, o);
    case Format::npy: return encode_npy(r);
    case Format::md: return encode_markdown(r, o);
  }
  return {};
}

void emit(std::string_view bytes, const std::string& path, bool binary, const std::string& what) {
  if (path == "-") {
    if (binary && isatty(fileno(stdout)))
      throw usage_error(fmt::format("{} -: refusing to write binary output to a terminal; give a file name or pipe it", what));
    if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size() || std::fflush(stdout) != 0)
      throw Error(fmt::format("{}: cannot write to stdout: {}", what, std::strerror(errno)));
    return;
  }
  // A device or FIFO (/dev/null, /dev/full, a named pipe) is written in place: renaming FILE.tmp
  // over it would replace the device with a regular file.
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode))
    throw Error(fmt::format("{} {}: cannot write: it is a directory; give a file name", what, path));
  if (exists && !S_ISREG(st.st_mode)) {
    std::FILE* d = std::fopen(path.c_str(), "wb");
    if (!d) throw Error(fmt::format("{} {}: cannot write: {}", what, path, std::strerror(errno)));
    bool ok = std::fwrite(bytes.data(), 1, bytes.size(), d) == bytes.size();
    int err = errno;
    if (std::fclose(d) != 0 && ok) {
      ok = false;
      err = errno;
    }
    if (!ok) throw Error(fmt::format("{} {}: cannot write: {}", what, path, std::strerror(err)));
    return;
  }
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw Error(fmt::format("{} {}: cannot write: {}", what, path, std::strerror(errno)));
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = (std::fclose(f) == 0) && ok;
  int err = errno;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    if (ok) err = errno;
    std::remove(tmp.c_str());
    throw Error(fmt::format("{} {}: cannot write: {}", what, path, std::strerror(err)));
  }
}

}  // namespace tfx
