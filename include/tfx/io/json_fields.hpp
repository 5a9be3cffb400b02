// Optional fields of a JSON object read with their type checked (config.json, tokenizer.json):
// a field that is absent or null gives the fallback; one of the wrong type is a tfx::Error
// naming the file and the field, never nlohmann's type_error escaping to the user.
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace tfx {

// obj[key] as a boolean (fallback when absent or null, or when obj is not an object).
bool json_bool(const nlohmann::json& obj, const char* key, bool fallback, const std::string& where);
// obj[key] as a string.
std::string json_string(const nlohmann::json& obj, const char* key, const std::string& fallback, const std::string& where);
// obj[key] as a whole number ≤ `max`.
std::size_t json_whole(const nlohmann::json& obj, const char* key, std::size_t fallback, std::size_t max, const std::string& where);

}  // namespace tfx
