// Named choices: one table per enum (output formats, colormaps, RoPE scalings and layouts, PE
// metrics, embedding file formats) from which parsing, printing, the command line's validators
// and help text all come — and a completion or man-page generator can iterate the same tables.
// Each table lives in the header of its enum as `inline constexpr Choice<E> k…Choices[]`.
#pragma once
#include <fmt/format.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tfx/core/error.hpp"
#ifndef N_
#define N_(s) s  // as tfx/core/i18n.hpp (which includes this header) defines it
#endif

namespace tfx {

// A table's help in the output language (tfx/core/i18n.hpp, which builds on this header).
const char* tr(const char* msgid);

enum class Spelling {
  name,    // the value's name: printed, listed in help and messages, accepted
  alias,   // another spelling accepted on the command line and by the parser ("markdown" for md)
  hidden,  // accepted by the library's parser only (legacy spellings: "vec" for fasttext)
  shown,   // printed for a value that is never parsed ("built-in" for the compiled-in embedding)
};

template <class E>
struct Choice {
  E value;
  const char* name;
  const char* help = "";  // one line on what it is (help text, man page); "" for aliases
  Spelling spelling = Spelling::name;
};

// The names of a table in order: the values' names, plus the aliases when `with_aliases`
// (what the command line accepts).
template <class E>
std::vector<std::string> choice_names(std::span<const Choice<E>> table, bool with_aliases = false) {
  std::vector<std::string> out;
  for (const auto& c : table)
    if (c.spelling == Spelling::name || (with_aliases && c.spelling == Spelling::alias)) out.emplace_back(c.name);
  return out;
}

// Items as prose: "a, b, c or d" (`sep` between items, `last` before the last one).
inline std::string prose_list(const std::vector<std::string>& items, std::string_view sep = ", ",
                              std::string_view last = " or ") {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i)
    s += (i == 0 ? "" : i + 1 == items.size() ? std::string(last) : std::string(sep)) + items[i];
  return s;
}

// The values' names as prose_list; with_help adds each one's help in parentheses:
// "a (what a is), b or c".
template <class E>
std::string choice_list(std::span<const Choice<E>> table, bool with_help = false, std::string_view sep = ", ",
                        std::string_view last = " or ") {
  std::vector<std::string> items;
  for (const auto& c : table)
    if (c.spelling == Spelling::name)
      items.push_back(with_help && *c.help ? fmt::format("{} ({})", c.name, tr(c.help)) : std::string(c.name));
  return prose_list(items, sep, last);
}

// The name of a value (its first Spelling::name entry; "?" when the table lacks it).
template <class E>
const char* choice_name(std::span<const Choice<E>> table, E value) {
  for (const auto& c : table)
    if (c.value == value && (c.spelling == Spelling::name || c.spelling == Spelling::shown)) return c.name;
  return "?";
}

// The value spelled `name` (any spelling), else a usage error naming `param`:
// "<param> '<name>' is not one of a, b or c".
template <class E>
E parse_choice(std::span<const Choice<E>> table, std::string_view name, const char* param) {
  for (const auto& c : table)
    if (c.spelling != Spelling::shown && name == c.name) return c.value;
  throw usage_error(fmt::format(N_("{} '{}' is not one of {}"), param, name, choice_list(table)), {param});
}

}  // namespace tfx
