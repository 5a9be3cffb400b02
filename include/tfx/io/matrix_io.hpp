// Reading a 2-D matrix from a file: JSON (nested arrays, or tfx's own JSON output), CSV/TSV or
// whitespace-separated text (optional header row and row-label column, as tfx writes them), and
// NumPy .npy (float32/float64, C order, format versions 1.0–3.0). Every malformed input throws
// tfx::Error naming the file and the line, element or header field, and what was expected.
//
// Shapes: a file holds an (R, C) matrix; a 1-D array (C) is read as one row (1, C).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "tfx/core/tensor.hpp"

namespace tfx {

enum class MatrixFileFormat { automatic, json, csv, npy };

struct LoadedMatrix {
  Tensor values;                        // (R, C), R ≥ 1, C ≥ 1
  std::vector<std::string> row_labels;  // from a CSV label column or a JSON "rows" list; may be empty
  std::vector<std::string> col_labels;  // from a CSV header row or a JSON "columns" list; may be empty
};

// Reads `path`. The format comes from the extension (.json, .csv/.tsv/.txt, .npy) and, for other
// names, from the content (the \x93NUMPY magic, a leading '[' or '{' for JSON, else text).
// `what` names the source in messages, e.g. "--q" → "--q q.csv:3: ...".
LoadedMatrix read_matrix_file(const std::string& path, const std::string& what = "");

// A matrix flag's value (--x, --q, --k, --v): the rows inline — "4,2,3,5;2,1,-3,2": values split
// at ',', rows at ';' (parse_number_rows) — when the value is made only of digits, signs, '.',
// 'e', ',', ';' and spaces (and holds a digit), or when it holds a ',' or ';' and no '/' and names
// no file ("1,inf": a number's typo, said as one); else a file read by read_matrix_file. Messages
// name `flag`; inline values that are not numbers are a usage error.
bool is_inline_rows(const std::string& value);
LoadedMatrix read_matrix_arg(const std::string& value, const std::string& flag);
// "1,2;3,4" -> rows of numbers, every row as long as the first; errors (usage errors) name `flag`,
// the row and the value.
std::vector<std::vector<float>> parse_number_rows(const std::string& text, const std::string& flag);

// The parsers behind read_matrix_file; `where` prefixes every message (e.g. "--q q.csv").
//
// JSON: [[1, 2], [3, 4]] or [1, 2] or {"data": [[...]], "rows": [...], "columns": [...]} (the
// shape of `tfx ... --format json`). Every row must have the same length; every element must be a
// finite number.
LoadedMatrix parse_matrix_json(std::string_view text, const std::string& where);

// CSV: delimiter ',' if the first line has one, else tab, else runs of whitespace. Blank lines and
// lines starting with '#' are skipped; fields may be "quoted". The first line is a header when a
// cell after its first is not a number, or when only its first cell is text and either the next
// line starts with a number or the rest counts 0, 1, 2, … (tfx's numbered columns); otherwise it
// is a labelled data row. A row-label column is present when some data row starts with a
// non-number, or when the header's first cell is empty (pandas) or names the rows while the first
// column counts 0, 1, 2, … (tfx's own CSV: "pos,0,1,…" then "0,…", "1,…").
LoadedMatrix parse_matrix_csv(std::string_view text, const std::string& where);

// .npy: magic "\x93NUMPY", version 1.0 (u16 header length) or 2.0/3.0 (u32), a Python dict with
// 'descr' ('<f4', '<f8', '>f4', '>f8'), 'fortran_order' (must be False) and 'shape' (1-D or
// 2-D). The shape is checked against kMaxElements and the bytes present before any allocation.
LoadedMatrix parse_npy(std::string_view bytes, const std::string& where);

}  // namespace tfx
