// Private to the matrix readers (matrix_io.cpp, matrix_npy.cpp): what every reader does with one
// value or cell — trim it, quote it in a message, check it fits float32.
#pragma once
#include <limits>
#include <string>
#include <string_view>

namespace tfx::cells {

constexpr double kFloatMax = std::numeric_limits<float>::max();

// s without leading and trailing white space.
std::string trim(std::string_view s);

// A readable name for a short string in a message (long cells are cut, control bytes shown as '?').
std::string cell_quote(const std::string& s);

// v as float32 after checking it is finite and in range; `where` and `at` say where it is.
float to_float(double v, const std::string& where, const std::string& at);

}  // namespace tfx::cells
