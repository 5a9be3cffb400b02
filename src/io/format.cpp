// Choice of format (names, traits, extensions), the number spelling every encoder shares
// (format_cells.hpp) and the dispatch on Format. The encoders are in encode_<format>.cpp and
// format_table.cpp (table, Markdown), format_json.cpp; emit(), the one writer of output files and
// stdout, in emit.cpp.
#include "tfx/io/format.hpp"
#include "tfx/io/encoder.hpp"

#include "format_cells.hpp"
#include "tfx/io/temp_file.hpp"

#include <fmt/format.h>
#include <fcntl.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tfx {

Format parse_format(const std::string& name) { return parse_choice<Format>(kFormatChoices, name, "format"); }

const FormatTraits& format_traits(Format f) {
  for (const auto& t : kFormatTraits)
    if (t.format == f) return t;
  return kFormatTraits[0];
}

std::vector<std::string> format_names_of(unsigned kinds, bool aliases) {
  std::vector<std::string> out;
  for (const auto& c : kFormatChoices)
    if ((c.spelling == Spelling::name || (aliases && c.spelling == Spelling::alias)) && (kinds & kind_bit(format_kind(c.value))))
      out.emplace_back(c.name);
  return out;
}

std::vector<std::string> format_names(bool figures, bool aliases) {
  return format_names_of(kind_bit(FormatKind::data) | (figures ? kind_bit(FormatKind::figure) : 0u), aliases);
}

std::string format_list(bool figures, std::string_view last) { return prose_list(format_names(figures), ", ", last); }

std::vector<std::string> format_extensions_of(FormatKind kind) {
  std::vector<std::string> out;
  for (const auto& t : kFormatTraits)
    if (*t.extension && t.kind == kind) out.push_back(std::string(".") + t.extension);
  return out;
}

std::vector<std::string> format_extensions(bool figures) { return format_extensions_of(figures ? FormatKind::figure : FormatKind::data); }

std::optional<Format> extension_format(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();  // ".csv"; "" for ".csv" itself
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& t : kFormatTraits)
    if (*t.extension && ext == std::string(".") + t.extension) return t.format;
  if (ext == ".htm") return Format::html;  // the page's other spelling, as --html takes it
  return std::nullopt;
}

std::string shortest_float(float v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

namespace cells {

std::string fixed(double v, int precision) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{:.{}f}", v, precision);
  // "-0.0000" reads as a sign where there is none
  if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

std::string number(float v, int precision) {
  if (precision >= 0) return fixed(v, precision);
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return shortest_float(v);
}

bool too_small(double v, int precision) {
  return precision >= 0 && v != 0 && std::isfinite(v) && std::abs(v) < 0.5 * std::pow(10.0, -precision);
}

std::string scientific(double v, int precision) { return fmt::format("{:.{}e}", v, std::max(precision, 1)); }

std::string cell_text(const Cell& c, int precision) {
  if (auto s = std::get_if<std::string>(&c)) return *s;
  if (auto i = std::get_if<long long>(&c)) return std::to_string(*i);
  const double d = std::get<double>(c);
  if (std::isnan(d)) return "n/a";  // a value that does not exist (a section with no answered question)
  return too_small(d, precision) ? scientific(d, precision) : format_number(d, precision);
}

std::string label(const std::vector<std::string>& labels, std::size_t i) {
  return i < labels.size() ? labels[i] : std::to_string(i);
}

}  // namespace cells

using namespace cells;

std::string format_number(double v, int precision) {
  if (precision >= 0) return fixed(v, precision);
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

const Block* primary_block(const Result& r) {
  for (const Block& b : r.blocks) {
    if (auto m = std::get_if<Matrix>(&b); m && (r.primary.empty() || m->name == r.primary)) return &b;
    if (auto t = std::get_if<Records>(&b); t && (r.primary.empty() || t->name == r.primary)) return &b;
  }
  return nullptr;
}

std::string encode(const Result& r, const OutputOptions& o) { return serialize(Output{&r, nullptr}, o); }

}  // namespace tfx
