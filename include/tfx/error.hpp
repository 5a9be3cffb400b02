// tfx::Error — the one exception type for bad user input and bad data.
// The message says what and where (file:line, flag, both shapes) and, where it helps, a hint.
// kind selects the exit code in main: usage (2) for bad flags/values, data (1) for the rest.
#pragma once
#include <stdexcept>
#include <string>

namespace tfx {

class Error : public std::runtime_error {
 public:
  enum class Kind { usage, data };
  explicit Error(const std::string& message, Kind kind = Kind::data)
      : std::runtime_error(message), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// A bad flag or flag value (exit code 2).
inline Error usage_error(const std::string& message) { return Error(message, Error::Kind::usage); }

}  // namespace tfx
