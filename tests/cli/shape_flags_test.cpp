// The size flags with one meaning (--len, --dim, --base of the positional commands) are defined
// once (src/cli/flags/shape_flags.cpp) with one limit: walked over every command of `tfx --generate
// python`'s command table, each has the same range and help wherever it appears, refuses the same
// value, and a size a command cannot afford is refused by its memory check, not by the flag.
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "helpers.hpp"

using namespace tfx::test;

namespace {

struct SizeFlag {
  std::string command, flag, range, help;
};

// Every --len, --dim, --base of every command, with its range ("≥ 1": the facts without the default).
std::vector<SizeFlag> size_flags() {
  Run r = run_tfx("--generate python");
  REQUIRE(r.code == 0);
  const nlohmann::json table = nlohmann::json::parse(r.out);
  std::vector<SizeFlag> out;
  for (const auto& c : table.at("commands"))
    for (const auto& o : c.at("options"))
      for (const auto& f : o.at("flags")) {
        const std::string flag = f.get<std::string>();
        if (flag != "--len" && flag != "--dim" && flag != "--base") continue;
        std::string facts = o.at("facts").get<std::string>();
        const std::size_t d = facts.find("default");
        facts = d == std::string::npos ? facts : facts.substr(0, d);
        while (!facts.empty() && (facts.back() == ' ' || facts.back() == ',')) facts.pop_back();
        out.push_back({c.at("command").get<std::string>(), flag, facts, o.at("help").get<std::string>()});
      }
  return out;
}

bool starts(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

TEST_CASE("shape flags: every --len, --dim and --base has one range and one help per meaning") {
  const std::vector<SizeFlag> flags = size_flags();
  std::map<std::string, std::set<std::string>> where;  // flag -> commands
  for (const SizeFlag& f : flags) {
    CAPTURE(f.command);
    CAPTURE(f.flag);
    CAPTURE(f.help);
    where[f.flag].insert(f.command);
    const bool pe = starts(f.command, "pe"), rope = starts(f.command, "rope");
    if (f.flag == "--len") {
      // attention masks' --len counts the tokens of a drawn mask (1…64 cells a side), not positions
      if (f.command == "attention masks") continue;
      CHECK(f.range == "≥ 1");
      CHECK(starts(f.help, "Number of positions L"));
    } else if (f.flag == "--dim") {
      CHECK(f.range == "≥ 1");
      // one flag: "Vector dimension D", its note saying what the vectors are
      if (pe) CHECK(starts(f.help, "Vector dimension D (d_model"));
      if (rope) CHECK(starts(f.help, "Vector dimension D (the head dimension; even"));
      if (!pe && !rope) CHECK(f.command == "lookup");  // the random table's rows
      CHECK(starts(f.help, "Vector dimension D ("));
    } else {  // --base
      // one flag for the sinusoidal PE and RoPE; rope_config also checks base > 1 for every rope command
      CHECK(f.range == "> 0");
      if (pe) CHECK(f.help == "Base of the wavelengths");
      if (rope) CHECK(starts(f.help, "Base of the wavelengths (of the frequencies"));
      CHECK((pe || rope));
    }
  }
  // the walk saw every command that has these flags (a table that lost them would pass vacuously)
  const std::set<std::string> dims{"pe", "pe sim", "pe shift", "pe curves", "pe linear", "rope", "rope rotate",
                                   "rope relative", "rope freqs", "rope decay", "lookup"};
  CHECK(where["--dim"] == dims);
  CHECK(where["--len"].size() == 11);  // the 5 pe commands, rope, relative, freqs, decay, attention masks, model info (--cache)
  CHECK(where["--base"].size() == 10);  // the 5 pe commands and the 5 rope commands
}

TEST_CASE("shape flags: one limit, 2^40, refused with the flag's name by every command") {
  std::set<std::pair<std::string, std::string>> seen;
  for (const SizeFlag& f : size_flags()) {
    if (f.flag == "--base" || f.command == "attention masks" || !seen.insert({f.command, f.flag}).second) continue;
    CAPTURE(f.command);
    CAPTURE(f.flag);
    // 2^40 + 1 is over the one limit; the message names the flag and the range
    Run over = run_tfx(f.command + " " + f.flag + " 1099511627777");
    CHECK(over.code == 2);
    CHECK(has(over.err, f.flag + ": 1099511627777 is past the largest value 1099511627776; expected a whole number from 1 to 1099511627776"));
    Run zero = run_tfx(f.command + " " + f.flag + " 0");
    CHECK(zero.code == 2);
    CHECK(has(zero.err, f.flag + ": expected a whole number ≥ 1, got '0'"));
  }
  CHECK(seen.size() == 21);  // 11 --dim and 10 --len
}

TEST_CASE("shape flags: a size a command cannot afford is refused by its memory check, in one line") {
  struct Case {
    const char* args;
    const char* says;
  };
  // under a 64 MiB budget; each estimate is measured bytes per unit (see the command's comment)
  for (Case c : {Case{"rope rotate --dim 1048576", "--dim 1048576 (a table row per pair) needs about"},
                 Case{"rope freqs --dim 2097152", "--dim 2097152 (a row per pair, 1 scaling) needs about"},
                 Case{"rope relative --dim 1048576 --len 2", "--dim 1048576 (q, k and their rotations) needs about"},
                 Case{"rope decay --dim 4194304 --len 1", "--dim 4194304 (the frequencies per pair) needs about"},
                 Case{"rope --len 1 --dim 8388608", "--dim 8388608 (the frequencies per pair) needs about"},
                 Case{"pe curves --len 1000000 --dims 0,1,2,3", "--len 1000000 × 4 curves needs about"}}) {
    CAPTURE(c.args);
    Run r = run_tfx(c.args, {}, "TFX_MEMORY_LIMIT=64M");
    CHECK(r.code == 1);
    CHECK(has(r.err, c.says));
    CHECK(has(r.err, "memory budget"));
    CHECK(r.out.empty());
  }
  // the lecture's sizes stay well inside that budget: rotate (1, 0) by 1 rad = (cos 1, sin 1) = (0.5403, 0.8415)
  Run small = run_tfx("rope rotate --dim 2 --pos 1 --vector 1,0", {}, "TFX_MEMORY_LIMIT=64M");
  CHECK(small.code == 0);
  CHECK(has(small.out, "0.5403"));
  CHECK(has(small.out, "0.8415"));
}
