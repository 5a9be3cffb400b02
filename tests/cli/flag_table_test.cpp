// One definition per flag (docs/architecture.md): walked over the whole command table that --help,
// the man page, the completions and the Python helper read (`tfx --generate python`), every flag
// name has one help text, one range (the validators' description, without the default) and one
// value type wherever it appears. A name registered twice with different words — a second meaning,
// a second range or a second shape — fails here, naming the flag and the two commands.
//
// Two allowances, both of one definition: a final parenthesis is the command's note on the same
// meaning (shape_flags.hpp: "Number of positions L (rows)"), and the output flags list the formats
// the command writes (add_output_flags: --format, -o/--output; add_gif_flag: what --gif animates).
// No other exception: a name with a second meaning gets a name of its own (issue 45).
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
  std::size_t shared = 0;
  for (const auto& [flag, definitions] : table) {
    if (kPerCommandWords.count(flag)) continue;
    std::size_t commands = 0;
    for (const auto& d : definitions) commands += d.second.size();
    if (commands > 1) ++shared;
    if (definitions.size() < 2) continue;
    const auto first = definitions.begin();
    for (auto other = std::next(first); other != definitions.end(); ++other)
      FAIL_CHECK(std::string(flag + " is defined " + std::to_string(definitions.size()) + " ways: " +
                             difference(first->first, first->second.front(), other->first, other->second.front())));
  }
  // the shared definitions are in use (a table where every name appears once would pass vacuously)
  CHECK(shared > 20);
}

TEST_CASE("flag table: the shared matrix, head and show flags; the old spellings are unknown flags") {
  const FlagTable table = flag_table();
  const auto commands_of = [&](const std::string& flag) {
    std::set<std::string> out;
    REQUIRE(table.count(flag) == 1);
    REQUIRE(table.at(flag).size() == 1);
    for (const auto& c : table.at(flag).begin()->second) out.insert(c);
    return out;
  };
  CHECK(commands_of("--x") == std::set<std::string>{"attention", "encoder", "decoder", "layernorm"});
  CHECK(commands_of("--q") == std::set<std::string>{"attention", "rope relative"});
  CHECK(commands_of("--k") == std::set<std::string>{"attention", "rope relative"});
  CHECK(commands_of("--head") == std::set<std::string>{"trace", "model attention"});
  CHECK(commands_of("--show") == std::set<std::string>{"attention", "encoder", "decoder", "trace"});
  CHECK(commands_of("--dims") == std::set<std::string>{"pe curves", "pe linear"});
  CHECK(commands_of("--offset") == std::set<std::string>{"pe shift", "pe linear"});
  CHECK(commands_of("--layer") == std::set<std::string>{"model attention"});
  CHECK(commands_of("--pairs") == std::set<std::string>{"train"});
  // a renamed flag's old spelling is an error naming the new one, not a silent alias
  const std::pair<const char*, const char*> renamed[] = {
      {"pe shift --k 3", "'--offset'"}, {"pe shift --show", "'--rotation'"}, {"pe linear --k 2", "'--offset'"},
      {"complexity --k 3", "'--kernel'"}, {"project king queen man --dims 3", "'--components'"},
      {"project king queen man --pairs king:queen", "'--arrows'"}, {"translate '나는 학생 이다' --layer 1", "'--decoder-layer'"},
      {"tokenize train x.txt --show", "'--lesson'"}, {"model ablate m abc --head 0.0", "'--ablate-heads'"},
      {"model generate m abc --show 3", "'--candidates'"}, {"model quantize m --show abc", "'--measure'"},
      {"lr --factor 2", "'--lr-factor'"}, {"patches --height 64", "'--image-height'"}};
  for (const auto& [old_spelling, now] : renamed) {
    const std::string old = old_spelling, expected = now;
    CAPTURE(old);
    const Run r = run_tfx(old);
    CHECK(r.code == 2);
    CHECK(has(r.err, "tfx: error: "));
    CHECK(has(r.err, "is now called " + expected));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("flag table: --x, --q and --k take a file or the rows inline, the same matrix either way") {
  TempDir t;
  write_file(t.path / "x.csv", "4,2,3,5\n2,1,-3,2\n");
  write_file(t.path / "q.csv", "1,0,0.5,-1\n");
  const std::string rows = "'4,2,3,5;2,1,-3,2'";
  for (const std::string& command : {std::string("layernorm --tokens a,b"), std::string("attention --identity"), std::string("encoder"),
                                     std::string("decoder --memory-x x.csv")}) {
    CAPTURE(command);
    const Run file = run_tfx(command + " --x x.csv --format csv", t.path), inline_rows = run_tfx(command + " --x " + rows + " --format csv", t.path);
    CHECK(file.code == 0);
    CHECK(!file.out.empty());
    CHECK(file.out == inline_rows.out);
  }
  const Run qkv_file = run_tfx("attention --q x.csv --k x.csv --v x.csv --format csv", t.path);
  CHECK(qkv_file.code == 0);
  CHECK(qkv_file.out == run_tfx("attention --q " + rows + " --k " + rows + " --v " + rows + " --format csv", t.path).out);
  const Run rope_file = run_tfx("rope relative --q q.csv --k 0,1,1,0.25 --len 4 --format csv", t.path);
  CHECK(rope_file.code == 0);
  CHECK(rope_file.out == run_tfx("rope relative --q 1,0,0.5,-1 --k 0,1,1,0.25 --len 4 --format csv", t.path).out);
  // rope relative takes one row; a ragged inline matrix and trace's --head all are one-line usage errors
  check_one_line_error(run_tfx("rope relative --q '1,0;0,1' --k 1,0", t.path), 2, "--q: expected one row of D numbers (a vector), got 2 rows");
  check_one_line_error(run_tfx("rope relative --q 1,0 --k x.csv", t.path), 2, "--k: expected one row of D numbers (a vector), got 2 rows");
  check_one_line_error(run_tfx("attention --x '1,2;3'", t.path), 2, "--x: row 2 has 1 values but row 1 has 2");
  check_one_line_error(run_tfx("attention --x missing.csv", t.path), 1, "--x missing.csv: cannot read");
  check_one_line_error(run_tfx("trace '나는 학생 이다' --head all", t.path), 2, "--head all: trace draws one head; give one from 0 … 3");
  check_one_line_error(run_tfx("trace '나는 학생 이다' --head 4", t.path), 2, "--head 4: the model has 4 heads (0 … 3)");
  check_one_line_error(run_tfx("layernorm --x '1,inf'", t.path), 2, "--x: 'inf' is not a finite number");
}
