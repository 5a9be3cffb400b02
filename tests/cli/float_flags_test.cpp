// Every decimal flag of every command refuses NaN and the infinities by name (issue 49): the
// flags come from the command table itself (`tfx --generate python`, what the man page and the
// Python helper are made from), so a flag added later is covered without being listed here.
// run.cpp gives every CLI11 FLOAT option the finite_float() check after the command's own.
#include <nlohmann/json.hpp>

#include <sstream>

#include "helpers.hpp"

using namespace tfx::test;

TEST_CASE("float flags: every FLOAT flag of every command refuses nan, inf, -inf and 1e999 with exit 2 naming the flag") {
  const Run table = run_tfx("--generate python");
  REQUIRE(table.code == 0);
  const nlohmann::json j = nlohmann::json::parse(table.out);
  struct Case {
    std::string command, flag, value;
  };
  std::vector<Case> cases;
  const char* const values[] = {"nan", "inf", "-inf", "NaN", "1e999", "-nan", "Infinity"};
  for (const auto& c : j["commands"])
    for (const auto& o : c["options"]) {
      if (o["positional"].get<bool>() || o["type"].get<std::string>().find("FLOAT") == std::string::npos) continue;
      const std::string flag = o["flags"].back().get<std::string>();  // the long name
      cases.push_back({c["command"].get<std::string>(), flag, values[cases.size() % std::size(values)]});
    }
  REQUIRE(cases.size() >= 20);  // the table has dozens (pe --base, train --label-smoothing, project --elevation, --fps, …)
  // one shell runs them all: "command<TAB>flag<TAB>exit<TAB>first stderr line" per case
  TempDir dir;
  std::string script;
  for (const Case& k : cases)
    script += shell_quote(TFX_BINARY) + " " + k.command + " " + shell_quote(k.flag + "=" + k.value) + " </dev/null >/dev/null 2>err; echo \"$?\t$(head -1 err)\"\n";
  write_file(dir / "all.sh", script);
  const std::string out_file = (dir / "out").string();
  REQUIRE(std::system(("cd " + shell_quote(dir.path.string()) + " && sh all.sh > out 2>&1").c_str()) == 0);
  std::istringstream lines(read_file(out_file));
  std::size_t n = 0;
  for (std::string line; std::getline(lines, line); ++n) {
    REQUIRE(n < cases.size());
    const Case& k = cases[n];
    INFO("tfx " << k.command << " " << k.flag << "=" << k.value << " → " << line);
    CHECK(line.rfind("2\ttfx: error: ", 0) == 0);
    CHECK(has(line, k.flag));
    CHECK(has(line, k.value));  // quoted by tfx's checks; CLI::Range says "Value inf not in range …"
  }
  CHECK(n == cases.size());
}
