// Bounded JSON reading (tfx/io/json_fields.hpp: check_json_depth, parse_json, json_excerpt) and
// the message-safe form of outside values (tfx/core/error.hpp: escape_for_message): hostile
// nesting is one error line instead of a stack overflow, nlohmann's texts never reach a message,
// and no value quoted in a message carries a newline, an escape sequence or 20 KB of itself.
#include "tfx/io/json_fields.hpp"

#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "tfx/core/error.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

std::string nested(std::size_t n, const std::string& inner = "") { return std::string(n, '[') + inner + std::string(n, ']'); }

}  // namespace

TEST_CASE("check_json_depth: 256 levels pass, 257 fail at the 257th bracket; brackets in strings do not count") {
  CHECK_NOTHROW(check_json_depth(nested(256), "a.json"));
  // the 257th '[' is byte 256 (0-based): column 257 of line 1
  CHECK(error_of([] { check_json_depth(nested(257), "a.json"); }) ==
        "a.json: JSON nested more than 256 levels deep at line 1, column 257; tfx reads at most 256");
  // on the second line, objects and arrays mixed: {"a":[{"a":[… ; the 257th opener's column
  std::string mixed = "\n";
  for (int i = 0; i < 200; ++i) mixed += "{\"a\":[";
  CHECK(has(error_of([&] { check_json_depth(mixed, "b.json"); }), "at line 2, column " + std::to_string(128 * 6 + 1)));
  // a string full of brackets (and an escaped quote inside it) is one level-free value
  const std::string s = "[\"" + std::string(1000, '[') + "\\\"" + std::string(1000, '{') + "\"]";
  CHECK_NOTHROW(check_json_depth(s, "c.json"));
  CHECK(parse_json(s, "c.json")[0].get<std::string>().size() == 2001);
  // closers never make the depth negative: "]]]][[" is one level deep as far as the scan goes
  CHECK_NOTHROW(check_json_depth("]]]]" + nested(256), "d.json"));
}

TEST_CASE("parse_json: 100,000 levels (as a config value, an array or objects) are a tfx::Error, not a stack overflow") {
  const std::string deep = "{\"model_type\": \"gpt2\", \"n_embd\": " + nested(100000) + "}";
  CHECK_THROWS_WITH_AS(parse_json(deep, "config.json"), doctest::Contains("config.json: JSON nested more than 256 levels deep at line 1, column"),
                       Error);
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  objects += "1" + std::string(100000, '}');
  CHECK_THROWS_AS(parse_json(objects, "t.json"), Error);
  // just inside the bound the value is read, dumped and copied
  const nlohmann::json ok = parse_json(nested(256, "7"), "ok.json");
  CHECK(ok.dump() == nested(256, "7"));
}

TEST_CASE("parse_json: syntax errors name line and column without nlohmann's prefix; 1e999 is named with its line") {
  const std::string e1 = error_of([] { parse_json("{\n  \"a\": NaN\n}", "x.json"); });
  CHECK(has(e1, "x.json: not valid JSON at line 2, column 8"));
  CHECK(has(e1, "invalid literal (read '"));
  CHECK(!has(e1, "json.exception"));
  CHECK(!has(e1, "parse_error"));
  const std::string e2 = error_of([] { parse_json("[1,\n2,\n3e999]", "y.json"); });
  CHECK(e2 == "y.json: the number 3e999 at line 3 is beyond a double's range (±1.8e308)");
  CHECK(!has(error_of([] { parse_json("", "z.json"); }), "json.exception"));
  // a long bad token read is cut: a 20,000-letter literal is quoted in at most 40 bytes + "…"
  const std::string e3 = error_of([] { parse_json("[" + std::string(20000, 't') + "]", "w.json"); });
  CHECK(has(e3, "w.json: not valid JSON at line 1"));
  CHECK(e3.size() < 300);
}

TEST_CASE("json_excerpt: a short value whole, a 20 KB array cut, control characters escaped") {
  CHECK(json_excerpt(nlohmann::json::parse("[1,2,3]")) == "[1,2,3]");
  CHECK(json_excerpt(nlohmann::json("a\nb")) == "\"a\\nb\"");  // the dump's own \n escape
  nlohmann::json big = nlohmann::json::array();
  for (int i = 0; i < 5000; ++i) big.push_back(1234);
  const std::string e = json_excerpt(big);
  CHECK(e.size() <= 40 + std::string("…").size());
  CHECK(e.rfind("[1234,1234,", 0) == 0);
  CHECK(has(e, "…"));
}

TEST_CASE("escape_for_message: C0, DEL, C1 controls and invalid bytes escaped; UTF-8 kept; cut at a character boundary") {
  CHECK(escape_for_message("gpt2\ntfx: error: forged") == "gpt2\\ntfx: error: forged");
  CHECK(escape_for_message("\x1b]0;title\x07\x1b[2J") == "\\x1B]0;title\\x07\\x1B[2J");
  CHECK(escape_for_message(std::string("a\0b", 3)) == "a\\0b");
  CHECK(escape_for_message("tab\there\r") == "tab\\there\\r");
  CHECK(escape_for_message("\x7f") == "\\x7F");
  CHECK(escape_for_message("\xc2\x85\xc2\x9b") == "\\u0085\\u009B");  // NEL and the 8-bit CSI
  CHECK(escape_for_message("v\xa0" "ce \xff") == "v\\xA0ce \\xFF");
  CHECK(escape_for_message("\xed\xa0\x80") == "\\xED\\xA0\\x80");  // a UTF-16 surrogate is not UTF-8
  CHECK(escape_for_message("한국어 ≥ é") == "한국어 ≥ é");
  // max_bytes: "가" is 3 bytes; 4 bytes allowed → the whole second character is kept, then "…"
  CHECK(escape_for_message("가나다", 4) == "가나…");
  CHECK(escape_for_message("abc", 3) == "abc");
  CHECK(escape_for_message(std::string(1000, 'x'), 10) == std::string(10, 'x') + "…");
}
