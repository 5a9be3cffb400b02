// Bounded JSON parsing and typed optional JSON fields (tfx/io/json_fields.hpp).
#include "tfx/io/json_fields.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <utility>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {

const nlohmann::json* field(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

[[noreturn]] void wrong(const std::string& where, const char* key, const char* expected, const nlohmann::json& got) {
  throw Error(fmt::format(N_("{}: \"{}\" should be {}, got {}"), where, key, expected, json_excerpt(got)));
}

// Line and column (1-based, columns in bytes) of byte `pos` of `text`.
std::pair<std::size_t, std::size_t> jsonf_line_column(std::string_view text, std::size_t pos) {
  pos = std::min(pos, text.size());
  std::size_t line = 1, start = 0;
  for (std::size_t i = 0; i < pos; ++i)
    if (text[i] == '\n') ++line, start = i + 1;
  return {line, pos - start + 1};
}

}  // namespace

// One pass: depth += 1 at [ or {, -= 1 at ] or }, strings (with their \" escapes) skipped.
void check_json_depth(std::string_view text, const std::string& where, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        const auto [line, column] = jsonf_line_column(text, i);
        throw Error(fmt::format(N_("{}: JSON nested more than {} levels deep at line {}, column {}; tfx reads at most {}"), where, max_depth,
                                line, column, max_depth));
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

// nlohmann's parse-error reasons (its parser's and lexer's own words), marked so that the message
// catalogue translates the reason inside "not valid JSON at line L, column C: REASON" too; the
// reason is printed as nlohmann words it, and read through these formats.
[[maybe_unused]] constexpr const char* kJsonReasons[] = {
    N_("syntax error while parsing value - {}"), N_("syntax error while parsing array - {}"), N_("syntax error while parsing object - {}"),
    N_("syntax error while parsing object key - {}"), N_("syntax error while parsing object separator - {}"), N_("invalid literal"),
    N_("unexpected end of input"), N_("unexpected '{}'"), N_("unexpected string literal"), N_("unexpected number literal"),
    N_("unexpected true literal"), N_("unexpected false literal"), N_("unexpected null literal"), N_("expected '{}'"),
    N_("expected string literal"),
    N_("expected '[', '{{', or a literal"), N_("expected end of input"), N_("invalid string: {}"), N_("missing closing quote"),
    N_("ill-formed UTF-8 byte"), N_("forbidden character after backslash"), N_("'{}' must be followed by 4 hex digits"),
    N_("control character {} must be escaped to {}"), N_("surrogate {} must be followed by {}"), N_("surrogate {} must follow {}"),
    N_("invalid number"), N_("expected digit after '{}'"), N_("expected '+', '-', or digit after exponent"),
    N_("expected digit after exponent sign"), N_("invalid BOM; must be 0xEF 0xBB 0xBF if given")};

nlohmann::json parse_json(std::string_view text, const std::string& where) {
  check_json_depth(text, where);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann: "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error
    // while parsing value - invalid literal; last read: 'NaN'": the position from e.byte, the
    // reason without the prefix, the last read token escaped and cut short
    std::string reason = e.what();
    if (const auto p = reason.find(": "); p != std::string::npos && reason.rfind("[json.exception", 0) == 0) reason = reason.substr(p + 2);
    std::string last;
    if (const auto p = reason.find("; last read: '"); p != std::string::npos) {
      last = reason.substr(p + 14);
      if (!last.empty() && last.back() == '\'') last.pop_back();
      reason = reason.substr(0, p);
    }
    const auto [line, column] = jsonf_line_column(text, e.byte == 0 ? 0 : e.byte - 1);
    if (last.empty())
      throw Error(fmt::format(N_("{}: not valid JSON at line {}, column {}: {}"), where, line, column, escape_for_message(reason, 120)));
    throw Error(fmt::format(N_("{}: not valid JSON at line {}, column {}: {} (read '{}')"), where, line, column, escape_for_message(reason, 120),
                            escape_for_message(last, 40)));
  } catch (const nlohmann::json::out_of_range& e) {
    // 406 "number overflow parsing '1e999'": found by fuzzing; name the number and its line
    std::string number = e.what();
    if (const auto p = number.find('\''); p != std::string::npos) number = number.substr(p + 1);
    if (!number.empty() && number.back() == '\'') number.pop_back();
    const std::size_t at = number.empty() ? std::string_view::npos : text.find(number);
    if (at == std::string_view::npos)
      throw Error(fmt::format(N_("{}: the number {} is beyond a double's range (±1.8e308)"), where, escape_for_message(number, 40)));
    throw Error(fmt::format(N_("{}: the number {} at line {} is beyond a double's range (±1.8e308)"), where, escape_for_message(number, 40),
                            jsonf_line_column(text, at).first));
  } catch (const nlohmann::json::exception&) {
    throw Error(fmt::format(N_("{}: not valid JSON"), where));
  }
}

namespace {

// v's compact dump, stopping (with "…") once `out` is longer than `budget`: a huge array or
// object is not written out whole only to be cut.
void jsonf_excerpt_into(const nlohmann::json& v, std::string& out, std::size_t budget) {
  if (v.is_array() || v.is_object()) {
    out += v.is_array() ? '[' : '{';
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (out.size() > budget) {
        out += "…";
        break;
      }
      if (!first) out += ',';
      first = false;
      if (v.is_object()) out += nlohmann::json(it.key()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + ':';
      jsonf_excerpt_into(*it, out, budget);
    }
    out += v.is_array() ? ']' : '}';
  } else {
    out += v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
}

}  // namespace

std::string json_excerpt(const nlohmann::json& v, std::size_t max_bytes) {
  std::string out;
  jsonf_excerpt_into(v, out, max_bytes);
  return escape_for_message(out, max_bytes);
}

bool json_bool(const nlohmann::json& obj, const char* key, bool fallback, const std::string& where) {
  const nlohmann::json* f = field(obj, key);
  if (!f) return fallback;
  if (!f->is_boolean()) wrong(where, key, N_("true or false"), *f);
  return f->get<bool>();
}

std::string json_string(const nlohmann::json& obj, const char* key, const std::string& fallback, const std::string& where) {
  const nlohmann::json* f = field(obj, key);
  if (!f) return fallback;
  if (!f->is_string()) wrong(where, key, N_("a string"), *f);
  return f->get<std::string>();
}

std::size_t json_whole(const nlohmann::json& obj, const char* key, std::size_t fallback, std::size_t max, const std::string& where) {
  const nlohmann::json* f = field(obj, key);
  if (!f) return fallback;
  if (!f->is_number_unsigned() || f->get<std::uint64_t>() > max) wrong(where, key, fmt::format(N_("a whole number up to {}"), max).c_str(), *f);
  return f->get<std::size_t>();
}

}  // namespace tfx
