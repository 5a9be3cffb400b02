// Encoders for Results (table, Markdown, CSV, JSON, npy) and emit(), the one writer of output.
#include "tfx/format.hpp"

#include "tfx/text_width.hpp"

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

Format parse_format(const std::string& name) {
  if (name == "table") return Format::table;
  if (name == "csv") return Format::csv;
  if (name == "json") return Format::json;
  if (name == "npy") return Format::npy;
  if (name == "md" || name == "markdown") return Format::md;
  throw usage_error(fmt::format("--format: unknown format '{}' (expected table, csv, json, npy or md)", name));
}

const char* format_name(Format f) {
  switch (f) {
    case Format::table: return "table";
    case Format::csv: return "csv";
    case Format::json: return "json";
    case Format::npy: return "npy";
    case Format::md: return "md";
  }
  return "?";
}

bool is_binary(Format f) { return f == Format::npy; }

std::string shortest_float(float v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

namespace {

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

// True when v ≠ 0 would print as zero with `precision` digits after the point: such values switch
// to scientific notation (numpy's printoptions do the same).
bool too_small(double v, int precision) {
  return precision >= 0 && v != 0 && std::isfinite(v) && std::abs(v) < 0.5 * std::pow(10.0, -precision);
}

std::string scientific(double v, int precision) { return fmt::format("{:.{}e}", v, std::max(precision, 1)); }

std::string cell_text(const Cell& c, int precision) {
  if (auto s = std::get_if<std::string>(&c)) return *s;
  if (auto i = std::get_if<long long>(&c)) return std::to_string(*i);
  const double d = std::get<double>(c);
  return too_small(d, precision) ? scientific(d, precision) : format_number(d, precision);
}

// A JSON number whose text is `text`: the double nearest it, which write_json prints as its
// shortest round-trip text, i.e. as `text` again.
nlohmann::json json_from_text(const std::string& text) {
  double d = 0;
  std::from_chars(text.data(), text.data() + text.size(), d);
  return d;
}

// JSON value of a float32: NaN/Inf become null; with precision < 0 the shortest text that reads
// back as the same float32 ("0.3322436", not 0.33224359999999997).
nlohmann::json json_number(float v, int precision) {
  if (!std::isfinite(v)) return nullptr;
  return json_from_text(number(v, precision));
}

// JSON value of a double: a double that is exactly a float32 (a value computed in float32 and
// widened) is written as that float32's shortest text; other doubles as their own shortest text.
nlohmann::json json_double(double d, int precision) {
  if (!std::isfinite(d)) return nullptr;
  if (precision >= 0) return json_from_text(fixed(d, precision));
  const auto f = static_cast<float>(d);
  if (static_cast<double>(f) == d) return json_from_text(shortest_float(f));
  return d;
}

nlohmann::json json_cell(const Cell& c, int precision) {
  if (auto s = std::get_if<std::string>(&c)) return *s;
  if (auto i = std::get_if<long long>(&c)) return *i;
  return json_double(std::get<double>(c), precision);
}

// Floats in a summary or parameters object, rewritten as json_double does.
nlohmann::json shortest_floats(nlohmann::json j) {
  if (j.is_number_float()) return json_double(j.get<double>(), -1);
  if (j.is_object() || j.is_array())
    for (auto& v : j) v = shortest_floats(v);
  return j;
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

std::size_t width(const std::string& s) { return display_width(s); }

// A grid of strings: header row + body rows; first column is the row label.
struct Grid {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> body;
  std::size_t rows = 0, cols = 0;                  // of the matrix (0 for Records)
  std::size_t shown_rows = 0, shown_cols = 0;      // how many of them the grid shows
};

// Like numpy's linewidth: while the aligned grid is wider than `width`, drop the data column
// next to the "…" column (inserting one in the middle first), alternating sides, keeping at
// least one column on each side.
void fit_columns(Grid& g, std::size_t width) {
  auto col_width = [&](std::size_t j) {
    std::size_t w = display_width(g.header[j]);
    for (const auto& row : g.body) w = std::max(w, display_width(row[j]));
    return w;
  };
  auto total = [&] {
    std::size_t t = 0;
    for (std::size_t j = 0; j < g.header.size(); ++j) t += col_width(j) + (j ? 2 : 0);
    return t;
  };
  auto erase_col = [&](std::size_t j) {
    g.header.erase(g.header.begin() + static_cast<std::ptrdiff_t>(j));
    for (auto& row : g.body) row.erase(row.begin() + static_cast<std::ptrdiff_t>(j));
  };
  bool left = true;
  while (total() > width && g.header.size() > 4) {
    auto e = std::find(g.header.begin() + 1, g.header.end(), std::string(kEllipsis));
    if (e == g.header.end()) {  // no "…" yet: replace the middle column by one
      const std::size_t mid = 1 + (g.header.size() - 1) / 2;
      g.header[mid] = kEllipsis;
      for (auto& row : g.body) row[mid] = kEllipsis;
      --g.shown_cols;
      continue;
    }
    const auto k = static_cast<std::size_t>(e - g.header.begin());
    const bool can_left = k >= 3, can_right = k + 2 < g.header.size();
    if (!can_left && !can_right) break;
    erase_col((left && can_left) || !can_right ? k - 1 : k + 1);
    --g.shown_cols;
    left = !left;
  }
}

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
  auto ci = shown(cols, 12, 5, full);
  auto ri = shown(rows, 24, 8, full);
  g.rows = rows, g.cols = cols;
  g.shown_rows = std::min(rows, ri.size() - (ri.size() < rows ? 1 : 0));
  g.shown_cols = std::min(cols, ci.size() - (ci.size() < cols ? 1 : 0));
  // numpy-style, per column: when a shown value would print as 0 at this precision (YaRN's
  // inverse frequencies), when every value has fewer than 3 significant digits (all |v| < 0.01
  // at precision 4), or a value is ≥ 1e8, the column switches to scientific notation
  std::vector<char> sci(cols, 0);
  std::vector<float> col_max(cols, 0.0f);
  for (auto i : ri)
    for (auto j : ci) {
      if (i == SIZE_MAX || j == SIZE_MAX) continue;
      const float v = m.values[offset + i * cols + j];
      if (std::isfinite(v)) col_max[j] = std::max(col_max[j], std::abs(v));
      sci[j] = sci[j] || too_small(v, precision) || (std::isfinite(v) && std::abs(v) >= 1e8f);
    }
  for (auto j : ci)
    if (j != SIZE_MAX && col_max[j] > 0 && precision >= 2 && col_max[j] < static_cast<float>(std::pow(10.0, 2 - precision))) sci[j] = 1;
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
      std::string s = sci[j] && std::isfinite(m.values[k]) ? scientific(m.values[k], precision) : number(m.values[k], precision);
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
      if (o.width > 0 && !markdown) {
        for (const auto& line : wrap_words(t->text, static_cast<std::size_t>(o.width), "  ")) out += line + "\n";
      } else {
        out += t->text + "\n";
      }
    } else if (auto m = std::get_if<Matrix>(&b)) {
      bool any_masked = false;
      std::string elided;
      std::string title = fmt::format("{} {}", m->name, m->values.shape_str());
      out += markdown ? "**" + title + "**\n\n" : title + "\n";
      for_each_slice(*m, [&](std::size_t rows, std::size_t cols, std::size_t off, const std::string& slice) {
        if (!slice.empty()) out += (markdown ? "\n" : "") + slice + "\n";
        Grid g = matrix_grid(*m, rows, cols, off, precision, o.full, &any_masked);
        if (!markdown && !o.full && o.width > 0) fit_columns(g, static_cast<std::size_t>(o.width));
        out += markdown ? render_markdown(g) : render_aligned(g);
        if (g.shown_rows < g.rows || g.shown_cols < g.cols)
          elided = fmt::format("(… = not shown: {} of {} rows, {} of {} columns shown; --full prints all)", g.shown_rows,
                               g.rows, g.shown_cols, g.cols);
      });
      if (!elided.empty()) out += (o.width > 0 && !markdown ? clip_to_width(elided, static_cast<std::size_t>(o.width)) : elided) + "\n";
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
  if (!b) throw Error(fmt::format("'{}' has no table to write as CSV; use --format table or json", r.command));
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

// Compact JSON like nlohmann's dump(), except doubles: the shortest text that reads back as the
// same double (std::to_chars), where nlohmann writes 17 digits ("0.33224359999999997").
static void write_json(const nlohmann::json& j, std::string& out) {
  auto plain = [&](const nlohmann::json& v) { out += v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); };
  if (j.is_object()) {
    out += '{';
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) out += ',';
      first = false;
      plain(nlohmann::json(it.key()));
      out += ':';
      write_json(it.value(), out);
    }
    out += '}';
  } else if (j.is_array()) {
    out += '[';
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (i) out += ',';
      write_json(j[i], out);
    }
    out += ']';
  } else if (j.is_number_float()) {
    // a double that is exactly a float32 (json_double's values) as the float's shortest text
    char buf[64];
    const double d = j.get<double>();
    const auto f = static_cast<float>(d);
    const auto res = static_cast<double>(f) == d ? std::to_chars(buf, buf + sizeof buf, f) : std::to_chars(buf, buf + sizeof buf, d);
    std::string t(buf, res.ptr);
    if (t.find_first_of(".en") == std::string::npos) t += ".0";  // 1.0 stays a float, as nlohmann writes it
    out += t;
  } else {
    plain(j);
  }
}

// Layout (docs/formats.md): command, params, then the primary block at the top level (name,
// shape, data, axes and labels of a matrix; or name, shape, data of a record table), then the
// other blocks by name under "matrices" and "tables" — each block once — then notes, summary.
std::string encode_json(const Result& r, const OutputOptions& o) {
  nlohmann::json j = nlohmann::json::object();
  j["command"] = r.command;
  j["params"] = shortest_floats(r.params);
  const Block* primary = primary_block(r);
  if (primary) {
    if (auto m = std::get_if<Matrix>(primary)) {
      j["name"] = m->name;
      const nlohmann::json mj = matrix_json(*m, o.precision);
      for (auto it = mj.begin(); it != mj.end(); ++it) j[it.key()] = it.value();
    } else {
      const Records& rec = std::get<Records>(*primary);
      j["name"] = rec.name;
      j["shape"] = {rec.rows.size(), rec.columns.size()};
      j["data"] = records_json(rec, o.precision);
    }
  }
  nlohmann::json matrices = nlohmann::json::object(), tables = nlohmann::json::object(),
                 notes = nlohmann::json::array();
  for (const Block& b : r.blocks) {
    if (&b == primary) continue;
    if (auto m = std::get_if<Matrix>(&b)) matrices[m->name] = matrix_json(*m, o.precision);
    else if (auto rec = std::get_if<Records>(&b)) tables[rec->name] = records_json(*rec, o.precision);
    else notes.push_back(std::get<Text>(b).text);
  }
  if (!matrices.empty()) j["matrices"] = matrices;
  if (!tables.empty()) j["tables"] = tables;
  if (!notes.empty()) j["notes"] = notes;
  if (!r.summary.empty()) j["summary"] = shortest_floats(r.summary);
  std::string out;
  write_json(j, out);
  return out + "\n";
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
  if (!m) throw usage_error(fmt::format("--format npy: '{}' has no numeric matrix; use --format csv or json", r.command));
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
