// tfx::Error — the one exception type for bad user input and bad data.
// The message says what and where (file:line, parameter, both shapes) and, where it helps, a
// hint, in the library's own terms: a parameter is named as the function or struct names it
// ("heads", "pad", "restrict_vocab"), never as a command-line flag. params() lists the parameters
// a message names, so the command layer can put the flag that carried each one in its place
// (src/cli/flags/flag_names.hpp). kind selects the exit code in main: usage (2) for bad parameter
// values, data (1) for the rest.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tfx {

class Error : public std::runtime_error {
 public:
  enum class Kind { usage, data };
  explicit Error(const std::string& message, Kind kind = Kind::data, std::vector<std::string> params = {})
      : std::runtime_error(message), kind_(kind), params_(std::move(params)) {}
  Kind kind() const { return kind_; }
  // The parameters the message names, each standing in it as a whole word.
  const std::vector<std::string>& params() const { return params_; }

 private:
  Kind kind_;
  std::vector<std::string> params_;
};

// A bad parameter value (exit code 2 in the CLI); `params` as in Error::params().
inline Error usage_error(const std::string& message, std::vector<std::string> params = {}) {
  return Error(message, Error::Kind::usage, std::move(params));
}

// A value taken from a file (or any other outside source) as it may stand in a message: every
// control character (C0 such as newline and ESC, DEL, C1 such as U+0085/U+009B) as \n, \t, \r,
// \0 or \xNN / \u0085, every byte that is not part of valid UTF-8 as \xNN, so the value can
// neither forge a second "tfx: error:" line nor send escape sequences (OSC, CSI) to a terminal;
// longer than `max_bytes`: cut at a character boundary with "…" appended. main's one error
// line passes the whole message through it once more (unlimited), so no site can miss it.
std::string escape_for_message(std::string_view value, std::size_t max_bytes = 80);

// Text as XML 1.0 / HTML character data, attribute values too — the one escaping path of the
// SVG and HTML writers (JSON goes through nlohmann's dump with invalid UTF-8 replaced): & < > "
// as entities (every attribute tfx writes is in double quotes, so ' stays as it is); C0 controls but tab and newline dropped (XML forbids them); a byte that is not
// part of valid UTF-8 (a Latin-1 title, a label cut inside a character) and U+FFFE/U+FFFF as
// U+FFFD. The result is well-formed whatever the input.
std::string markup_escape(std::string_view value);

}  // namespace tfx
