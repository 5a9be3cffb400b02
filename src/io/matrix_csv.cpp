// The CSV/TSV/whitespace-text matrix parser (parse_matrix_csv): delimiter and header detection,
// quoted fields, an optional row-label column, as tfx itself writes CSV.
#include "tfx/io/matrix_io.hpp"
#include "tfx/core/words.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "matrix_parse.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

using namespace matrix_parse;

namespace {

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
      if (!closed) throw Error(fmt::format(N_("{}:{}: unterminated quoted field"), where, lineno));
      while (i < n && line[i] != delim) {
        if (!std::isspace(static_cast<unsigned char>(line[i])))
          throw Error(fmt::format(N_("{}:{}: text after a closing quote"), where, lineno));
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

bool counts_from_zero(const std::vector<CsvLine>& rows) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto v = parse_number(rows[i].cells[0]);
    if (!v || *v != static_cast<double>(i)) return false;
  }
  return true;
}

}  // namespace

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
  if (raw.empty()) throw Error(fmt::format(N_("{}: no rows (only blank or # comment lines); expected a matrix"), where));
  // 2. the delimiter from the first line: ',' else tab else whitespace
  const char delim = raw[0].find(',') != std::string::npos ? ',' : raw[0].find('\t') != std::string::npos ? '\t' : ' ';
  std::vector<CsvLine> lines;
  for (std::size_t i = 0; i < raw.size(); ++i)
    lines.push_back({numbers[i], delim == ' ' ? split_words(raw[i]) : split_delimited(raw[i], delim, where, numbers[i])});
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
      throw Error(fmt::format(N_("{}:{}: a 3-D CSV (with a 'slice' column); expected one 2-D matrix"), where, numbers[0]));
  }
  if (lines.empty()) throw Error(fmt::format(N_("{}: only a header row, no data rows"), where));
  // 4. every row as long as the first
  const std::size_t width = has_header ? header.size() : lines[0].cells.size();
  for (const auto& l : lines)
    if (l.cells.size() != width)
      throw Error(fmt::format(N_("{}:{}: {} values, expected {} (as {} line {}): ragged rows"), where, l.number, l.cells.size(),
                              width, has_header ? "the header on" : "the first row on", numbers[0]));
  // 5. a row-label column?
  bool labels = std::any_of(lines.begin(), lines.end(), [](const CsvLine& l) { return !parse_number(l.cells[0]); });
  if (!labels && has_header && (header[0].empty() || (!parse_number(header[0]) && counts_from_zero(lines)))) labels = true;
  // a label column whose later cells are not numbers is not a label column: report the cell
  const std::size_t first_col = labels ? 1 : 0;
  if (width <= first_col) throw Error(fmt::format(N_("{}:{}: no numeric columns after the row labels"), where, lines[0].number));
  LoadedMatrix m;
  const std::size_t R = lines.size(), C = width - first_col;
  std::vector<float> values;
  values.reserve(R * C);
  for (const auto& l : lines) {
    if (labels) m.row_labels.push_back(l.cells[0]);
    for (std::size_t c = first_col; c < width; ++c) {
      auto v = parse_number(l.cells[c]);
      if (!v)
        throw Error(fmt::format(N_("{}:{}: column {}: {} is not a number"), where, l.number, c + 1,
                                l.cells[c].empty() ? std::string(N_("an empty cell")) : cell_quote(l.cells[c])));
      values.push_back(to_float(*v, where, fmt::format(N_("line {} column {}"), l.number, c + 1)));
    }
  }
  if (has_header) m.col_labels.assign(header.begin() + static_cast<std::ptrdiff_t>(first_col), header.end());
  m.values = Tensor::from({R, C}, std::move(values));
  return m;
}

}  // namespace tfx
