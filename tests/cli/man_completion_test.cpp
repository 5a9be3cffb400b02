// The man page tfx(1) and the bash and zsh completion are generated from the command table that
// --help prints, installed by `cmake --install`, and list every command and flag: checked
// against what each command's --help lists.
#include <doctest/doctest.h>

#include <map>
#include <regex>
#include <set>

#include "helpers.hpp"

using namespace tfx::test;

namespace {

struct Help {
  std::vector<std::string> subcommands;
  std::vector<std::string> flags;
};

// Subcommands ("  name   description") and flags ("  -o,--output FILE   …") a --help lists.
Help parse_help(const std::string& text) {
  Help h;
  std::istringstream in(text);
  const std::regex sub(R"(^  ([a-z][a-z0-9-]*)  +\S.*)");
  const std::regex flag_col(R"(^  (-[^ ]+))");
  bool examples = false, positionals = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Example", 0) == 0) examples = true;
    if (examples) continue;
    if (!line.empty() && line[0] != ' ') positionals = line == "Positionals:";
    std::smatch m;
    if (std::regex_match(line, m, sub)) {
      if (!positionals) h.subcommands.push_back(m[1]);
    }
    else if (std::regex_search(line, m, flag_col)) {
      std::string names = m[1];
      std::size_t start = 0;
      while (start < names.size()) {
        std::size_t comma = names.find(',', start);
        std::string name = names.substr(start, comma - start);
        h.flags.push_back(name.substr(0, name.find('{')));  // "--no-annotate{false}": CLI11's negated flag
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    }
  }
  return h;
}

// Every command path ("pe", "pe sim", …) with what its --help lists.
void walk(const std::string& path, std::map<std::string, Help>& out) {
  Run r = run_tfx(path + " --help");
  REQUIRE(r.code == 0);
  Help h = parse_help(r.out);
  out[path] = h;
  for (const auto& s : h.subcommands) walk(path.empty() ? s : path + " " + s, out);
}

std::string unroff(std::string s) {
  std::string o;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '-') continue;
    o += s[i];
  }
  return o;
}

// The text between `start` and the next `end` marker.
std::string section(const std::string& text, const std::string& start, const std::string& end) {
  const std::size_t a = text.find(start);
  if (a == std::string::npos) return "";
  const std::size_t b = text.find(end, a + start.size());
  return text.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

}  // namespace

TEST_CASE("cli: cmake --install puts tfx(1) and bash/zsh completion listing every command and flag") {
  TempDir prefix;
  const std::filesystem::path build_dir = std::filesystem::path(TFX_BINARY).parent_path();
  std::string cmd = "cmake --install " + shell_quote(build_dir.string()) + " --prefix " + shell_quote(prefix.path.string()) +
                    " >/dev/null 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const std::string man = unroff(read_file(prefix / "share/man/man1/tfx.1"));
  const std::string bash = read_file(prefix / "share/bash-completion/completions/tfx");
  const std::string zsh = read_file(prefix / "share/zsh/site-functions/_tfx");
  REQUIRE(!man.empty());
  REQUIRE(!bash.empty());
  REQUIRE(!zsh.empty());
  CHECK(man.rfind(".TH TFX 1", 0) == 0);
  CHECK(has(bash, "complete -F _tfx tfx"));
  CHECK(zsh.rfind("#compdef tfx", 0) == 0);

  std::map<std::string, Help> commands;
  walk("", commands);
  CHECK(commands.size() > 20);  // 15 commands and their subcommands
  std::size_t flags_checked = 0;
  for (const auto& entry : commands) {  // (no structured binding: CAPTURE is a lambda, clang 14)
    const std::string& path = entry.first;
    const auto& help = entry.second;
    if (path.empty()) continue;
    CAPTURE(path);
    const std::string man_sec = section(man, ".SS \"tfx " + path + "\"\n", ".SS ");
    CHECK(!man_sec.empty());
    std::string bash_line = section(bash, "    \"" + path + "\") words=\"", "\n");
    CHECK(!bash_line.empty());
    bash_line = bash_line.substr(bash_line.find('=') + 1);
    for (char& c : bash_line)
      if (c == '"') c = ' ';
    const std::string zsh_sec = section(zsh, "    '" + path + "')\n", ";;");
    CHECK(!zsh_sec.empty());
    for (const auto& f : help.flags) {
      CAPTURE(f);
      CHECK(has(man_sec, "\\fB" + f + "\\fR"));
      CHECK(has(bash_line + " ", " " + f + " "));
      CHECK(has(zsh_sec, "'" + f + ":"));
      ++flags_checked;
    }
    for (const auto& s : help.subcommands) {
      CHECK(has(bash_line + " ", " " + s + " "));
      CHECK(has(zsh_sec, "'" + s + ":"));
    }
  }
  CHECK(flags_checked > 200);
  // the top level lists every command
  for (const auto& s : commands[""].subcommands) CHECK(has(man, ".SS \"tfx " + s + "\""));
  // bash accepts the script
  CHECK(std::system(("bash -n " + shell_quote((prefix / "share/bash-completion/completions/tfx").string())).c_str()) == 0);
}

TEST_CASE("cli: --generate writes the same documents; a bad kind is a usage error") {
  Run man = run_tfx("--generate man");
  CHECK(man.code == 0);
  CHECK(has(man.out, ".SH COMMANDS"));
  check_one_line_error(run_tfx("--generate fish"), 2, "--generate: expected man, bash, zsh or python, got 'fish'");
  // the Python helper's command table: every command of the man page, each with its flags
  Run py = run_tfx("--generate python");
  CHECK(py.code == 0);
  for (const char* cmd : {"\"command\":\"pe\"", "\"command\":\"pe sim\"", "\"command\":\"eval-analogies\"",
                          "\"name\":\"original-max-pos\"", "\"default\":\"128\""})
    CHECK_MESSAGE(has(py.out, cmd), cmd);
}
