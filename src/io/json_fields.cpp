// Typed optional JSON fields (tfx/io/json_fields.hpp).
#include "tfx/io/json_fields.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "tfx/core/error.hpp"

namespace tfx {

namespace {

const nlohmann::json* field(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

[[noreturn]] void wrong(const std::string& where, const char* key, const char* expected, const nlohmann::json& got) {
  std::string shown = got.dump();
  if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
  throw Error(fmt::format("{}: \"{}\" should be {}, got {}", where, key, expected, shown));
}

}  // namespace

bool json_bool(const nlohmann::json& obj, const char* key, bool fallback, const std::string& where) {
  const nlohmann::json* f = field(obj, key);
  if (!f) return fallback;
  if (!f->is_boolean()) wrong(where, key, "true or false", *f);
  return f->get<bool>();
}

std::string json_string(const nlohmann::json& obj, const char* key, const std::string& fallback, const std::string& where) {
  const nlohmann::json* f = field(obj, key);
  if (!f) return fallback;
  if (!f->is_string()) wrong(where, key, "a string", *f);
  return f->get<std::string>();
}

std::size_t json_whole(const nlohmann::json& obj, const char* key, std::size_t fallback, std::size_t max, const std::string& where) {
  const nlohmann::json* f = field(obj, key);
  if (!f) return fallback;
  if (!f->is_number_unsigned() || f->get<std::uint64_t>() > max) wrong(where, key, fmt::format("a whole number up to {}", max).c_str(), *f);
  return f->get<std::size_t>();
}

}  // namespace tfx
