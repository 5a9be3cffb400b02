// The terminal table and Markdown encoders: a Result as aligned text or Markdown tables, matrices
// summarized numpy-style (first/last rows and columns around "…", columns dropped to fit a
// width, scientific notation per column where fixed digits would hide the values).
#include "tfx/io/format.hpp"

#include "format_cells.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/core/text_width.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>

namespace tfx {

using namespace cells;

namespace {

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
  std::vector<bool> left;                          // per column: left-aligned (text); else right (numbers)
  std::vector<bool> mixed;                         // per column: numbers and text (a property/value list): per cell
};

// A cell of a mixed column that reads as a number ("171", "-0.5", "1e-05", "3.2%"): right-aligned.
bool looks_numeric(const std::string& s) {
  std::string_view v = s;
  if (v.starts_with("−")) v.remove_prefix(std::string_view("−").size());
  if (v.empty()) return false;
  for (char c : v)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E' || c == '%')) return false;
  return std::isdigit(static_cast<unsigned char>(v[0])) || v[0] == '.' || v[0] == '-' || v[0] == '+';
}

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
  // a mixed column: its numbers right-aligned among themselves, at the column's left edge
  std::vector<std::size_t> wn(g.header.size(), 0);
  for (const auto& row : g.body)
    for (std::size_t j = 0; j < row.size() && j < w.size(); ++j) {
      w[j] = std::max(w[j], width(row[j]));
      if (j < g.mixed.size() && g.mixed[j] && looks_numeric(row[j])) wn[j] = std::max(wn[j], width(row[j]));
    }
  std::string out;
  auto line = [&](const std::vector<std::string>& row) {
    std::string l;
    for (std::size_t j = 0; j < row.size(); ++j) {
      if (j) l += "  ";
      if (j < g.mixed.size() && g.mixed[j]) {
        l += pad_right(looks_numeric(row[j]) ? pad_left(row[j], wn[j]) : row[j], w[j]);
        continue;
      }
      const bool left = j == 0 || (j < g.left.size() && g.left[j]);
      l += left ? pad_right(row[j], w[j]) : pad_left(row[j], w[j]);
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
Grid matrix_grid(const Matrix& m, std::size_t rows, std::size_t cols, std::size_t offset, int precision, bool chosen_precision,
                 bool full, bool* any_masked) {
  Grid g;
  // tables are for people: axis names, column headers, titles and summary keys in the output
  // language (CSV and JSON keep the English names as keys)
  std::string corner = m.col_axis.empty() ? tr_runtime(m.row_axis) : tr_runtime(m.row_axis) + "\\" + tr_runtime(m.col_axis);
  auto ci = shown(cols, 12, 5, full);
  // a summary-only matrix (rows_total): its stored rows are the first and last 8 of rows_total
  const std::size_t stored = rows;
  if (m.rows_total > rows) rows = m.rows_total;
  auto ri = shown(rows, 24, 8, full && m.rows_total <= stored);
  auto at = [&](std::size_t i) { return m.rows_total > stored && i >= stored / 2 ? i - (rows - stored) : i; };
  g.rows = rows, g.cols = cols;
  g.shown_rows = std::min(rows, ri.size() - (ri.size() < rows ? 1 : 0));
  g.shown_cols = std::min(cols, ci.size() - (ci.size() < cols ? 1 : 0));
  // At the default precision, numpy-style per column: when a shown value would print as 0 (YaRN's
  // smallest inverse frequencies), when every value has fewer than 3 significant digits (all
  // |v| < 0.01 at precision 4), or a value is ≥ 1e8, the column switches to scientific notation.
  // With --precision N the reader asked for N decimals: fixed notation, and scientific only for a
  // value that would print as 0 (or one ≥ 1e8): 0.25, not 2.47e-01, beside a -3.56e-03.
  std::vector<char> sci(cols, 0);
  std::vector<float> col_max(cols, 0.0f);
  for (auto i : ri)
    for (auto j : ci) {
      if (i == SIZE_MAX || j == SIZE_MAX) continue;
      const float v = m.values[offset + at(i) * cols + j];
      if (std::isfinite(v)) col_max[j] = std::max(col_max[j], std::abs(v));
      sci[j] = sci[j] || (!chosen_precision && too_small(v, precision)) || (std::isfinite(v) && std::abs(v) >= 1e8f);
    }
  for (auto j : ci)
    if (j != SIZE_MAX && !chosen_precision && col_max[j] > 0 && precision >= 2 && col_max[j] < static_cast<float>(std::pow(10.0, 2 - precision))) sci[j] = 1;
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
      std::size_t k = offset + at(i) * cols + j;
      const bool as_sci = (sci[j] || too_small(m.values[k], precision)) && std::isfinite(m.values[k]);
      std::string s = as_sci ? scientific(m.values[k], precision) : number(m.values[k], precision);
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
        m.slice_axis.empty() ? fmt::format("[{}]", s) : fmt::format("{} {}", tr_runtime(m.slice_axis), s));
  }
}

Grid records_grid(const Records& r, int precision) {
  Grid g;
  for (const auto& c : r.columns) g.header.push_back(tr_runtime(c));
  // words read from the left, numbers line up on the right: a column is text when every cell is
  // a string and one of them has a letter (a shape "[3, 64]" or a number kept as text stays right)
  // a column of both (embeddings info's "value": counts and file names) aligns each cell by its kind
  g.left.assign(r.columns.size(), false);
  g.mixed.assign(r.columns.size(), false);
  for (std::size_t j = 0; j < r.columns.size(); ++j) {
    bool all_text = !r.rows.empty(), letter = false, number = false;
    for (const auto& row : r.rows) {
      if (j >= row.size()) continue;
      const auto* t = std::get_if<std::string>(&row[j]);
      if (!t) {
        all_text = false;
        number = true;
        continue;
      }
      bool has_letter = false;
      for (unsigned char c : *t) has_letter = has_letter || std::isalpha(c) || c >= 0x80;
      letter = letter || has_letter;
    }
    g.left[j] = all_text && letter;
    g.mixed[j] = number && letter;
  }
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

// A word from the data as a table shows it: control characters (ESC, NUL, a newline inside a
// cell) and invalid UTF-8 escaped as an error line shows them (\x1B, \0, \n), so a word from a
// file can neither send escape sequences to the terminal nor break a row. A Text block keeps its
// line breaks.
std::string shown_text(const std::string& s, bool keep_newlines = false) {
  bool plain = true;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c >= 0x7F) plain = false;
  }
  if (plain) return s;
  if (!keep_newlines) return escape_for_message(s, std::string::npos);
  std::string out;
  for (std::size_t i = 0;;) {
    const std::size_t nl = s.find('\n', i);
    out += escape_for_message(std::string_view(s).substr(i, nl == std::string::npos ? std::string::npos : nl - i), std::string::npos);
    if (nl == std::string::npos) return out;
    out += '\n';
    i = nl + 1;
  }
}

void escape_cells(Grid& g) {
  for (std::string& c : g.header) c = shown_text(c);
  for (auto& row : g.body)
    for (std::string& c : row) c = shown_text(c);
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
      const std::string text = shown_text(t->text, true);
      if (o.width > 0 && !markdown) {
        for (const auto& line : wrap_words(text, static_cast<std::size_t>(o.width), "  ")) out += line + "\n";
      } else {
        out += text + "\n";
      }
    } else if (auto m = std::get_if<Matrix>(&b)) {
      bool any_masked = false;
      std::string elided;
      std::string title = fmt::format("{} {}", shown_text(tr_runtime(m->name)),
                                      m->rows_total ? fmt::format("[{}, {}]", m->rows_total, m->values.cols()) : m->values.shape_str());
      out += markdown ? "**" + title + "**\n\n" : title + "\n";
      for_each_slice(*m, [&](std::size_t rows, std::size_t cols, std::size_t off, const std::string& slice) {
        if (!slice.empty()) out += (markdown ? "\n" : "") + slice + "\n";
        Grid g = matrix_grid(*m, rows, cols, off, precision, o.precision >= 0, o.full, &any_masked);
        escape_cells(g);
        if (!markdown && !o.full && o.width > 0) fit_columns(g, static_cast<std::size_t>(o.width));
        out += markdown ? render_markdown(g) : render_aligned(g);
        if (g.shown_rows < g.rows || g.shown_cols < g.cols)
          elided = trf("(… = not shown: {} of {} rows, {} of {} columns shown; {} prints all)", g.shown_rows,
                               g.rows, g.shown_cols, g.cols, o.full_name);
      });
      if (!elided.empty()) out += (o.width > 0 && !markdown ? clip_to_width(elided, static_cast<std::size_t>(o.width)) : elided) + "\n";
      if (any_masked) out += tr("(* = masked: weight exactly 0)") + std::string("\n");
    } else if (auto rec = std::get_if<Records>(&b)) {
      if (!rec->name.empty() && markdown) out += "**" + shown_text(tr_runtime(rec->name)) + "**\n\n";
      Grid g = records_grid(*rec, precision);
      escape_cells(g);
      out += markdown ? render_markdown(g) : render_aligned(g);
    }
  }
  if (!r.summary.empty()) {
    gap();
    for (auto it = r.summary.begin(); it != r.summary.end(); ++it)
      out += fmt::format("{}{}: {}\n", markdown ? "- " : "", tr_runtime(it.key()), shown_text(summary_value(it.value(), o.precision)));
  }
  return out;
}

}  // namespace

std::string encode_table(const Result& r, const OutputOptions& o) { return encode_text(r, o, false); }
std::string encode_markdown(const Result& r, const OutputOptions& o) { return encode_text(r, o, true); }

}  // namespace tfx
