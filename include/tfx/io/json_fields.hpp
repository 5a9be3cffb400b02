// Optional fields of a JSON object read with their type checked (config.json, tokenizer.json):
// a field that is absent or null gives the fallback; one of the wrong type is a tfx::Error
// naming the file and the field, never nlohmann's type_error escaping to the user.
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace tfx {

// The deepest nesting of arrays and objects tfx reads (real config.json and tokenizer.json files
// nest under 10 levels). nlohmann's dump, copy and comparison recurse once per level, so 100,000
// levels overflow the stack.
inline constexpr std::size_t kMaxJsonDepth = 256;

// Throws a tfx::Error ("WHERE: JSON nested more than 256 levels deep at line L, column C") when
// `text` opens more than `max_depth` arrays/objects inside each other (strings skipped). One
// linear pass; for a parse of its own (with a callback) that must be bounded too.
void check_json_depth(std::string_view text, const std::string& where, std::size_t max_depth = kMaxJsonDepth);

// The JSON of a file: depth-checked, then parsed. A syntax error is "WHERE: not valid JSON at
// line L, column C: WHAT" (a short excerpt of what was read, escaped); a number beyond a double's
// range "WHERE: the number 1e999 at line L is beyond a double's range (±1.8e308)"; never one of
// nlohmann's [json.exception…] texts. Every reader of config.json, tokenizer.json, an index,
// a safetensors header or a matrix file parses through here.
nlohmann::json parse_json(std::string_view text, const std::string& where);

// A JSON value as it may stand in a message: dumped, escaped and cut to `max_bytes` (a 20 KB
// array shows its first few elements and "…").
std::string json_excerpt(const nlohmann::json& v, std::size_t max_bytes = 40);

// obj[key] as a boolean (fallback when absent or null, or when obj is not an object).
bool json_bool(const nlohmann::json& obj, const char* key, bool fallback, const std::string& where);
// obj[key] as a string.
std::string json_string(const nlohmann::json& obj, const char* key, const std::string& fallback, const std::string& where);
// obj[key] as a whole number ≤ `max`.
std::size_t json_whole(const nlohmann::json& obj, const char* key, std::size_t fallback, std::size_t max, const std::string& where);

}  // namespace tfx
