// tfx similar's figure: one bar per neighbour, in the table's order, each labelled with the
// table's cosine at 2 decimals (the same rounding a reader applies to the table's 4), and the
// values drawn inside the frame.
#include <doctest/doctest.h>

#include <cstdio>
#include <regex>
#include <sstream>

#include "helpers.hpp"

using namespace tfx::test;

TEST_CASE("similar: the figure's bar values are the table's cosines at 2 decimals, in the table's order") {
  const Run csv = run_tfx("similar king -k 8 --format csv");
  REQUIRE(csv.code == 0);
  const Run svg = run_tfx("similar king -k 8 --svg -");
  REQUIRE(svg.code == 0);
  // the bar values: the <text> elements that are a bare decimal with 2 digits (axis ticks have 1)
  std::vector<std::string> shown;
  static const std::regex value(R"(>((?:−)?\d+\.\d\d)</text>)");
  for (auto it = std::sregex_iterator(svg.out.begin(), svg.out.end(), value); it != std::sregex_iterator(); ++it) shown.push_back((*it)[1]);
  std::vector<std::string> expected;
  std::istringstream rows(csv.out);
  std::string line;
  std::getline(rows, line);  // rank,word,cosine
  while (std::getline(rows, line)) {
    const double cosine = std::stod(line.substr(line.rfind(',') + 1));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", cosine);
    expected.push_back(buf);
  }
  CAPTURE(svg.out);
  CHECK(expected.size() == 8);
  CHECK(shown == expected);
}
