// Validators for flag values with one clear message each (whole numbers, positive numbers, file
// names, words, comma-separated lists) and the splitting of comma-separated flag values.
#include "cli/flags/validators.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {
}  // namespace

// One message for every bad whole number: "expected a whole number in 1…1048576, got 0"
// (main prefixes the flag). The description ("≥ 1", "1…1048576") is what --help shows.
CLI::Validator whole_number(std::int64_t lo, std::int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        std::int64_t v = 0;
        const char* end = text.data() + text.size();
        auto [p, ec] = std::from_chars(text.data(), end, v);
        const bool all_digits = !text.empty() && p == end;
        // digits past the largest (2^40 for a flag whose help says "≥ 1"): the bound said
        if (all_digits && text[0] != '-' && (ec == std::errc::result_out_of_range || (ec == std::errc{} && v > hi)) && hi >= (std::int64_t{1} << 40))
          return fmt::format(N_("{} is past the largest value {}; expected a whole number from {} to {}"), text, hi, lo, hi);
        if (ec != std::errc{} || !all_digits || v < lo || v > hi)
          return hi >= (std::int64_t{1} << 40) ? fmt::format(N_("expected a whole number ≥ {}, got '{}'"), lo, text)
                                               : fmt::format(N_("expected a whole number in {}…{}, got '{}'"), lo, hi, text);
        return {};
      },
      hi >= (std::int64_t{1} << 40) ? fmt::format("≥ {}", lo) : fmt::format("{}…{}", lo, hi), "whole number");
}

CLI::Validator command_bound(std::int64_t lo, std::int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        std::int64_t v = 0;
        const char* end = text.data() + text.size();
        auto [p, ec] = std::from_chars(text.data(), end, v);
        if (ec != std::errc{} || p != end || v < lo || v > hi)
          return fmt::format(N_("expected a whole number in {}…{} on this command, got '{}'"), lo, hi, text);
        return {};
      },
      "", "command bound");
}

CLI::Validator seed_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::uint64_t v = 0;
        const char* end = text.data() + text.size();
        auto [p, ec] = std::from_chars(text.data(), end, v);
        if (text.empty() || ec != std::errc{} || p != end)
          return fmt::format(N_("expected a whole number from 0 to 18446744073709551615 (2^64−1), got '{}'"), text);
        return {};
      },
      "", "whole number");
}

namespace {
// A validator for a finite decimal number above `lo` (or equal to it when `or_equal`); `message`
// is the format string of the error ("expected a positive number, got '{}'").
CLI::Validator finite_number_from(double lo, bool or_equal, const char* message, const char* words, const char* desc) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(text.c_str(), &end);
        const bool number = !text.empty() && end == text.c_str() + text.size() && errno != ERANGE && std::isfinite(v);
        if (!number && errno == ERANGE && std::isfinite(v) && end == text.c_str() + text.size())  // 1e-308: below double's normal range
          return fmt::format(N_("expected {} from {} to {}, got '{}'"), words, or_equal ? "0" : "2.2e-308", "1.8e308", text);
        if (!number || v < lo || (!or_equal && v == lo)) return fmt::format(fmt::runtime(message), text);
        return {};
      },
      desc, words);
}
}  // namespace

CLI::Validator finite_float() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size()) return fmt::format("expected a number, got '{}'", text);
        if (std::isnan(v)) return fmt::format(N_("expected a number, got '{}' (not a number)"), text);
        if (!std::isfinite(v)) return fmt::format(N_("expected a finite number (magnitude at most 1.8e308), got '{}'"), text);
        return {};
      },
      "");
}

CLI::Validator non_empty_path(const std::string& hint) {
  return CLI::Validator(
      [hint](std::string& path) {
        return path.empty() ? fmt::format(N_("expected a file name, got an empty one ({})"), hint) : std::string();
      },
      "");
}

CLI::Validator non_empty_word() {
  return CLI::Validator([](std::string& w) { return w.empty() ? std::string(N_("expected a word, got an empty one")) : std::string(); },
                        "");
}

std::vector<std::string> split_items(const std::string& text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  for (;;) {
    std::size_t j = text.find(',', i);
    if (j == std::string::npos) j = text.size();
    const std::string item = text.substr(i, j - i);
    const auto b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    out.push_back(b == std::string::npos ? std::string() : item.substr(b, e - b + 1));
    if (j == text.size()) return out;
    i = j + 1;
  }
}

CLI::Validator comma_list(const std::string& what, const std::string& example, std::optional<CLI::Validator> item) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const auto items = split_items(text);
        for (std::size_t k = 0; k < items.size(); ++k) {
          if (items[k].empty())
            return items.size() == 1 ? fmt::format(N_("expected comma-separated {} like {}, got an empty value"), what, example)
                                     : fmt::format(N_("item {} of '{}' is empty; expected comma-separated {} like {}"), k + 1,
                                                   text, what, example);
          if (item) {
            std::string copy = items[k];
            if (std::string err = (*item)(copy); !err.empty())
              return items.size() == 1 ? err : fmt::format(N_("item {} of '{}': {}"), k + 1, text, err);
          }
        }
        return {};
      },
      item ? item->get_description() : std::string(), "comma-separated list");
}

std::vector<std::string> list_items(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const auto& v : values)
    for (auto& item : split_items(v)) out.push_back(std::move(item));
  return out;
}

std::vector<std::int64_t> whole_number_items(const std::vector<std::string>& values) {
  std::vector<std::int64_t> out;
  for (const auto& item : list_items(values)) out.push_back(std::stoll(item));
  return out;
}

CLI::Validator positive_number() {
  return finite_number_from(0.0, false, N_("expected a positive number, got '{}'"), N_("a positive number"), "> 0");
}
CLI::Validator non_negative_number() {
  return finite_number_from(0.0, true, N_("expected a number ≥ 0, got '{}'"), "a number ≥ 0", "≥ 0");
}

CLI::Validator number_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        // not a finite number: finite_float(), which run() adds to every float flag after, says so
        if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v)) return {};
        if (!(v >= lo && v <= hi)) return fmt::format(N_("expected a number from {:g} to {:g}, got '{}'"), lo, hi, text);
        return {};
      },
      fmt::format("{:g}…{:g}", lo, hi), "number in range");
}

}  // namespace tfx::cli
