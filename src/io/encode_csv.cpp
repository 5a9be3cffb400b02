// The csv format: the primary block (Matrix or Records) as comma-separated values, a header row
// of its axis and labels, numbers spelled as every encoder spells them (format_cells.hpp).
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

using namespace cells;

namespace {

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += '"';
    o += c;
  }
  return o + "\"";
}

}  // namespace

std::string csv_row(const std::vector<Cell>& cells, int precision) {
  std::string out;
  for (std::size_t j = 0; j < cells.size(); ++j) {
    if (j) out += ',';
    out += csv_escape(cell_text(cells[j], precision));
  }
  return out + '\n';
}

std::string encode_csv(const Result& r, const OutputOptions& o) {
  const Block* b = primary_block(r);
  if (!b) throw Error(fmt::format(N_("'{}' has no table to write as CSV; use format table or json"), r.command), Error::Kind::data, {"format"});
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

}  // namespace tfx
