// One definition per flag (docs/architecture.md): walked over the whole command table that --help,
// the man page, the completions and the Python helper read (`tfx --generate python`), every flag
// name has one help text, one range (the validators' description, without the default) and one
// value type wherever it appears. A name registered twice with different words — a second meaning,
// a second range or a second shape — fails here, naming the flag and the two commands.
//
// Two allowances, both of one definition: a final parenthesis is the command's note on the same
// meaning (shape_flags.hpp: "Number of positions L (rows)"), and the output flags list the formats
// the command writes (add_output_flags: --format, -o/--output; add_gif_flag: what --gif animates).
// kNotYetOneDefinition lists the names still defined more than once, each with its own meaning per
// command (issue 45): the list may only shrink — a name missing from it fails, and so does a listed
// name that has become one definition (take it out).
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "helpers.hpp"

using namespace tfx::test;

namespace {

// What a flag is, as the command table says it: the help line, the range without the default,
// the value type and the metavar (a flag without a value: type FLAG).
struct Definition {
  std::string help, range, type, metavar;
  bool repeats = false;
  bool operator<(const Definition& o) const {
    return std::tie(help, range, type, metavar, repeats) < std::tie(o.help, o.range, o.type, o.metavar, o.repeats);
  }
  bool operator==(const Definition& o) const = default;
};

// The help without a final " (…)" note.
std::string without_note(const std::string& help) {
  if (help.empty() || help.back() != ')') return help;
  int depth = 0;
  for (std::size_t i = help.size(); i-- > 0;) {
    if (help[i] == ')') ++depth;
    else if (help[i] == '(' && --depth == 0) return i > 0 && help[i - 1] == ' ' ? help.substr(0, i - 1) : help;
  }
  return help;
}

// One helper each, whose words name the command's own formats or animation.
const std::set<std::string> kPerCommandWords{"--format", "-o", "--output", "--gif"};

// Names still defined more than once, with a meaning of their own per command (renaming them
// changes the command lines of the lectures and notebooks; issue 45 keeps the list).
const std::set<std::string> kNotYetOneDefinition{
    "--dims", "--head", "--k", "--layer",
    "--pairs", "--q", "--show",
    "--x"};

std::string without_default(std::string facts) {
  const std::size_t d = facts.find("default");
  facts = d == std::string::npos ? facts : facts.substr(0, d);
  while (!facts.empty() && (facts.back() == ' ' || facts.back() == ',' || facts.back() == ';')) facts.pop_back();
  return facts;
}

// flag name -> definition -> the commands that define it so
using FlagTable = std::map<std::string, std::map<Definition, std::vector<std::string>>>;

FlagTable flag_table() {
  Run r = run_tfx("--generate python");
  REQUIRE(r.code == 0);
  const nlohmann::json table = nlohmann::json::parse(r.out);
  FlagTable out;
  for (const auto& c : table.at("commands")) {
    const std::string command = c.at("command").get<std::string>();
    for (const auto& o : c.at("options")) {
      if (o.at("positional").get<bool>()) continue;  // a positional has no flag name
      Definition d{without_note(o.at("help").get<std::string>()), without_default(o.at("facts").get<std::string>()),
                   o.at("type").get<std::string>(), o.at("metavar").get<std::string>(), o.at("repeats").get<bool>()};
      for (const auto& f : o.at("flags")) out[f.get<std::string>()][d].push_back(command.empty() ? "tfx" : command);
    }
  }
  return out;
}

// "help 'A' (pe) vs 'B' (rope)": the first field in which two definitions differ.
std::string difference(const Definition& a, const std::string& where_a, const Definition& b, const std::string& where_b) {
  const auto say = [&](const char* field, const std::string& x, const std::string& y) {
    return std::string(field) + " '" + x + "' (" + where_a + ") vs '" + y + "' (" + where_b + ")";
  };
  if (a.help != b.help) return say("help", a.help, b.help);
  if (a.range != b.range) return say("range", a.range, b.range);
  if (a.type != b.type) return say("type", a.type, b.type);
  if (a.metavar != b.metavar) return say("metavar", a.metavar, b.metavar);
  return say("repeats", a.repeats ? "yes" : "no", b.repeats ? "yes" : "no");
}

}  // namespace

TEST_CASE("flag table: every flag name has one help, one range and one type in every command") {
  const FlagTable table = flag_table();
  // the walk saw the whole table (an empty table would pass vacuously)
  REQUIRE(table.size() > 150);
  REQUIRE(table.count("--format") == 1);
  std::set<std::string> defined_twice;
  for (const auto& [flag, definitions] : table) {
    if (definitions.size() < 2 || kPerCommandWords.count(flag)) continue;
    defined_twice.insert(flag);
    if (kNotYetOneDefinition.count(flag)) continue;
    const auto first = definitions.begin();
    for (auto other = std::next(first); other != definitions.end(); ++other)
      FAIL_CHECK(std::string(flag + " is defined " + std::to_string(definitions.size()) + " ways: " +
                             difference(first->first, first->second.front(), other->first, other->second.front())));
  }
  for (const std::string& flag : kNotYetOneDefinition)
    if (!defined_twice.count(flag)) FAIL_CHECK(std::string(flag + " has one definition now: take it out of kNotYetOneDefinition"));
  std::string names;
  for (const std::string& f : defined_twice) names += (names.empty() ? "" : " ") + f;
  MESSAGE(defined_twice.size(), " flag names still defined more than once: ", names);
}

TEST_CASE("flag table: --model is a model and --temperature one shape in every command") {
  const FlagTable table = flag_table();
  // --model: teaching, a checkpoint folder or a file, the same words wherever it appears
  REQUIRE(table.count("--model") == 1);
  REQUIRE(table.at("--model").size() == 1);
  CHECK(table.at("--model").begin()->first.type == "teaching|DIR|FILE");
  std::set<std::string> model_commands;
  for (const auto& c : table.at("--model").begin()->second) model_commands.insert(c);
  CHECK(model_commands == std::set<std::string>{"pe sim", "attention", "encoder", "decoder", "translate", "trace", "architecture"});
  // --temperature: one comma list of numbers > 0 in softmax, attention, model generate and model next; -T the same flag
  for (const char* name : {"--temperature", "-T"}) {
    CAPTURE(name);
    REQUIRE(table.count(name) == 1);
    CHECK(table.at(name).size() == 1);
    CHECK(table.at(name).begin()->first.range == "> 0");
    CHECK(table.at(name).begin()->second.size() == 4);
  }
  // the translator commands take --model teaching as the built-in model: the same translation as without it
  Run builtin = run_tfx("translate '나는 학생 이다'");
  Run teaching = run_tfx("translate --model teaching '나는 학생 이다'");
  CHECK(builtin.code == 0);
  CHECK(teaching.out == builtin.out);
  // a command that shows one temperature refuses a list (or a second -T) in one line naming the flag
  Run list = run_tfx("attention --sentence 'I am' --temperature 0.5,1");
  CHECK(list.code == 2);
  CHECK(has(list.err, "--temperature: this command takes one temperature, got 2: 0.5,1"));
  CHECK(std::count(list.err.begin(), list.err.end(), '\n') == 1);
  Run twice = run_tfx("attention --sentence 'I am' -T 2 -T 3");
  CHECK(twice.code == 2);
  CHECK(has(twice.err, "--temperature: this command takes one temperature, got 2: 2,3"));
  CHECK(run_tfx("attention --sentence 'I am' -T 2 --format json").out ==
        run_tfx("attention --sentence 'I am' --temperature 2 --format json").out);
  // pe sim compares a learned position table: the built-in translator has none
  Run pe = run_tfx("pe sim --model teaching");
  CHECK(pe.code == 2);
  CHECK(has(pe.err, "--model teaching: the translator adds the sinusoidal PE itself"));
}
