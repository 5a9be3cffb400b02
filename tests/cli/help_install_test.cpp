// The tool as a whole: `tfx --help` lists the commands in groups, one line each; every command's
// and subcommand's --help shows an example; --version; `cmake --install` gives a tfx that runs
// from any directory.
#include <set>
#include <string>
#include <vector>

#include "helpers.hpp"

using namespace tfx::test;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Names listed in the command sections of a help text: lines "  name   description" under any
// heading other than "Options:" (CLI11 puts subcommands under their group's heading).
std::vector<std::string> listed_commands(const std::string& help, bool* one_line_each = nullptr) {
  std::vector<std::string> names;
  bool in_commands = false;
  if (one_line_each) *one_line_each = true;
  for (const std::string& line : lines_of(help)) {
    if (line.empty()) continue;
    if (line.back() == ':' && line[0] != ' ') {
      in_commands = line != "Options:" && line != "Examples:" && line != "Example:" && line != "Output:" &&
                    line != "Figures:" && line != "Positionals:" && line.find("Usage") == std::string::npos;
      continue;
    }
    if (line[0] != ' ') in_commands = false;  // footer text
    if (!in_commands) continue;
    if (line.rfind("  -", 0) == 0) continue;  // an option in a named option group
    if (line.rfind("  ", 0) == 0 && line.size() > 2 && line[2] != ' ') {
      std::string name = line.substr(2, line.find(' ', 2) - 2);
      bool has_description = line.find_first_not_of(' ', 2 + name.size()) != std::string::npos;
      if (one_line_each && !has_description) *one_line_each = false;
      names.push_back(name);
    } else if (one_line_each && in_commands && line.find_first_not_of(' ') > 2 && !names.empty()) {
      *one_line_each = false;  // a wrapped continuation line under a command
    }
  }
  return names;
}

}  // namespace

TEST_CASE("cli: tfx --help lists commands in groups, one line each; --version") {
  Run r = run_tfx("--help");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("Positional encodings:") != std::string::npos);
  bool one_line = false;
  std::vector<std::string> cmds = listed_commands(r.out, &one_line);
  CHECK(one_line);
  CHECK(cmds.size() >= 2);
  CHECK(std::set<std::string>(cmds.begin(), cmds.end()).count("pe") == 1);
  CHECK(r.out.find("Subcommands:") == std::string::npos);  // every command sits in a named group

  Run v = run_tfx("--version");
  CHECK(v.code == 0);
  CHECK(v.out.rfind("tfx ", 0) == 0);
  // `tfx` alone: the overview, not "A subcommand is required"
  Run none = run_tfx("");
  CHECK(none.code == 0);
  CHECK(none.err.empty());
  CHECK(none.out == r.out);
}

TEST_CASE("cli: every command's and subcommand's --help shows an example") {
  std::vector<std::string> todo = listed_commands(run_tfx("--help").out);
  REQUIRE(!todo.empty());
  std::size_t checked = 0;
  while (!todo.empty()) {
    std::string cmd = todo.back();
    todo.pop_back();
    CAPTURE(cmd);
    Run r = run_tfx(cmd + " --help");
    CHECK(r.code == 0);
    const std::size_t ex = r.out.find("Example");
    REQUIRE(ex != std::string::npos);
    CHECK(r.out.find("tfx " + cmd, ex) != std::string::npos);  // an example runs this very command
    for (const std::string& sub : listed_commands(r.out)) todo.push_back(cmd + " " + sub);
    ++checked;
  }
  MESSAGE("commands checked: " << checked);
}

TEST_CASE("cli: cmake --install puts a tfx that runs from another directory") {
  TempDir prefix, elsewhere;
  const std::filesystem::path build_dir = std::filesystem::path(TFX_BINARY).parent_path();
  std::string cmd = "cmake --install " + shell_quote(build_dir.string()) + " --prefix " +
                    shell_quote(prefix.path.string()) + " >/dev/null 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const std::filesystem::path tfx = prefix / "bin/tfx";
  REQUIRE(std::filesystem::exists(tfx));
  std::string run = "cd " + shell_quote(elsewhere.path.string()) + " && " + shell_quote(tfx.string()) +
                    " pe --dim 4 --pos 1 --i 2 > out.txt 2>&1";
  CHECK(std::system(run.c_str()) == 0);
  CHECK(read_file(elsewhere / "out.txt").find("0.00999983") != std::string::npos);
}

TEST_CASE("cli: number flags of every command say what was expected, in one line, exit 2") {
  struct Case {
    const char* args;
    const char* says;
  };
  for (Case c : {Case{"rope --len abc", "--len: expected a whole number ≥ 1, got 'abc'"},
                 Case{"rope rotate --pos -2", "--pos: expected a whole number ≥ 0, got '-2'"},
                 Case{"rope --dim 1099511627777", "--dim: 1099511627777 is past the largest value 1099511627776; expected a whole number from 1 to 1099511627776"},
                 Case{"lr --warmup 2.5", "expected a whole number"},
                 Case{"lr --d-model nan", "--d-model: expected a whole number in 1…16777216, got 'nan'"},
                 Case{"layernorm --eps -1", "--eps: expected a number ≥ 0, got '-1'"},
                 Case{"pe --len 3 --dim 2 --precision x", "--precision: expected a whole number in 0…17, got 'x'"}}) {
    CAPTURE(c.args);
    Run r = run_tfx(c.args);
    CHECK(r.code == 2);
    CHECK(r.err.find(c.says) != std::string::npos);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.out.empty());
  }
}

TEST_CASE("cli: an unknown command is named with the commands that exist") {
  Run top = run_tfx("bogus");
  check_stderr_starts(top, 2, "tfx: error: unknown command 'bogus'; expected one of: pe, rope");
  Run sub = run_tfx("rope bogus");
  check_stderr(sub, 2, "unknown command 'bogus' for 'tfx rope'; expected one of: rotate, relative, freqs, decay");
  CHECK(count_lines(sub.err) == 1);
  // a command without subcommands keeps CLI11's message for a stray word
  Run stray = run_tfx("pe sim extra");
  check_stderr(stray, 2, "not expected: extra");
}
