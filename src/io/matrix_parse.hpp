// Private to the matrix file readers (matrix_io.cpp: JSON and the dispatch, matrix_csv.cpp,
// matrix_npy.cpp): the pieces every parser uses to read a value and to say where it is wrong.
#pragma once
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace tfx::matrix_parse {

inline constexpr double kFloatMax = std::numeric_limits<float>::max();

// s without leading and trailing white space.
std::string trim(std::string_view s);
// The whole of `s` as a number (a leading '+' allowed; ±inf when out of double's range), or nullopt.
std::optional<double> parse_number(const std::string& s);
// A readable name for a short string in a message: long cells cut, control bytes and invalid
// UTF-8 (binary junk) as \xNN (show_token, as in embedding-file messages), in quotes.
std::string cell_quote(const std::string& s);
// v as float32; throws naming `where` and `at` when v is NaN or outside the float32 range.
float to_float(double v, const std::string& where, const std::string& at);

}  // namespace tfx::matrix_parse
