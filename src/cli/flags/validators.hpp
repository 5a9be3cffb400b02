// Validators for flag values, with one clear message each (CLI11's Range/PositiveNumber say
// "Value abc not in range" for a typo and print DBL_MAX in full), and the items of
// comma-separated flag values.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfx::cli {

// A whole number written in digits, lo ≤ v ≤ hi ("abc", "1.5", "1e12" -> "expected a whole
// number ≥ 1, got '1e12'"; "-3" -> "-3 is out of range: expected a whole number ≥ 1");
CLI::Validator whole_number(std::int64_t lo, std::int64_t hi);
// A tighter bound one command keeps on a shared flag whose one range (what --help shows) is wider:
// "expected a whole number in 1…12 on this command, got '13'". It has no description, so the help
// still shows the flag's one range; the command's own help note says the bound.
CLI::Validator command_bound(std::int64_t lo, std::int64_t hi);
// A seed: a whole number from 0 to 2^64−1 written in digits ("-1", "18446744073709551616", "1e3"
// and "1.5" are refused by name; CLI11 alone took "-1" as 2^64−1 and "1e23" as its saturation).
CLI::Validator seed_number();
// A finite decimal number: "nan", "inf", "1e999" and "abc" are refused by name. run() adds it to
// every flag and argument of CLI11 type FLOAT of every command (after the command's own checks),
// so no float flag takes NaN or an infinity.
CLI::Validator finite_float();
// A finite number > 0 (rejects 0, negatives, nan, inf).
CLI::Validator positive_number();
// A finite number ≥ 0 (rejects negatives, nan, inf).
CLI::Validator non_negative_number();
// A number lo ≤ v ≤ hi: "expected a number from 0 to 0.99, got '1'" (CLI11's Range said "Value 1
// not in range 0.000000 to 0.990000").
CLI::Validator number_in(double lo, double hi);

// A file name must not be empty ('' would silently mean a default): "expected a file name, got an
// empty one (HINT)". Whether the file exists is the reader's business (a data error, exit 1).
CLI::Validator non_empty_path(const std::string& hint);
// A word must not be empty: "expected a word, got an empty one".
CLI::Validator non_empty_word();

// Comma-separated flag values ("dog,cat", "1,8,64"). CLI11's delimiter() silently drops empty
// items ("1,,2" -> 1,2), so list flags take strings checked by comma_list() and split with
// split_items().
// "a, b,,c" -> {"a", "b", "", "c"}: split at commas, spaces around items trimmed, empty items kept.
std::vector<std::string> split_items(const std::string& text);
// Refuses an empty item ("1,,2", "1,", "", ",") with "item 2 of '1,,2' is empty; expected
// comma-separated WHAT like EXAMPLE", and runs `item` (if given) on every item.
CLI::Validator comma_list(const std::string& what, const std::string& example,
                          std::optional<CLI::Validator> item = std::nullopt);
// The items of every value of a comma_list()-checked flag, in order.
std::vector<std::string> list_items(const std::vector<std::string>& values);
// The same, as whole numbers (the flag's comma_list() checked them with whole_number()).
std::vector<std::int64_t> whole_number_items(const std::vector<std::string>& values);

}  // namespace tfx::cli
