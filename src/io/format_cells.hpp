// Private to the encoders (format.cpp, format_table.cpp, format_json.cpp): how a number, a Records
// cell and a row/column label are spelled, so every format writes the same text for a value.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "tfx/io/format.hpp"

namespace tfx::cells {

// v with `precision` digits after the point; "nan", "inf", "-inf"; never "-0.0000".
std::string fixed(double v, int precision);
// A float32: fixed(v, precision), or its shortest round-trip text when precision < 0.
std::string number(float v, int precision);
// True when v ≠ 0 would print as zero with `precision` digits after the point: such values switch
// to scientific notation (numpy's printoptions do the same).
bool too_small(double v, int precision);
std::string scientific(double v, int precision);
// A Records cell as text: strings as they are, integers in full, doubles as format_number
// (scientific when too_small).
std::string cell_text(const Cell& c, int precision);
// labels[i], or i when there are fewer labels.
std::string label(const std::vector<std::string>& labels, std::size_t i);

}  // namespace tfx::cells
