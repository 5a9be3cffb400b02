// Terminal tables fit the width like numpy's linewidth (middle columns elided with "…" and
// counted, notes wrapped), tiny values switch to scientific notation, and Hangul labels align
// by display width.
#include <doctest/doctest.h>

#include "helpers.hpp"
#include "pty.hpp"
#include "tfx/io/format.hpp"
#include "tfx/core/text_width.hpp"

using namespace tfx;
using namespace tfx::test;

TEST_CASE("table: rows fit the width; hidden columns are counted") {
  Result r;
  r.command = "t";
  Tensor t({3, 40});
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = -0.5f + static_cast<float>(i % 7) / 7;
  r.blocks.push_back(Matrix{"m", t, {}, {}, "pos", "i", {}, ""});
  r.blocks.push_back(Text{std::string(25, 'x') + " " + std::string(25, 'y') + " " + std::string(25, 'z')});
  OutputOptions o;
  o.width = 60;
  const std::string s = encode_table(r, o);
  CAPTURE(s);
  for (const auto& l : split_lines(s)) CHECK(display_width(l) <= 60);
  CHECK(has(s, "…"));
  CHECK(has(s, "3 of 3 rows"));
  CHECK(has(s, "of 40 columns shown"));
  CHECK(has(s, "\n" + std::string(25, 'x') + " " + std::string(25, 'y') + "\n  " + std::string(25, 'z') + "\n"));
  // the first and last columns stay
  const auto lines = split_lines(s);
  CHECK(has(lines[1], " 0  "));
  CHECK(lines[1].substr(lines[1].size() - 2) == "39");
  // no width: numpy's summary only (5 + 5 columns)
  const std::string wide = encode_table(r, {});
  CHECK(has(wide, "10 of 40 columns shown"));
}

TEST_CASE("table: a column with a value that would print as 0 switches to scientific notation") {
  Result r;
  r.command = "t";
  r.blocks.push_back(Matrix{"inv_freq", Tensor::matrix({{1.0f, 0.01f, 2.5e-6f}}), {}, {}, "", "", {}, ""});
  const std::string s = encode_table(r, {});
  CAPTURE(s);
  CHECK(has(s, "2.5000e-06"));
  CHECK(has(s, "  1.0000  "));  // per column, like reading a table: the others stay fixed
  CHECK(has(s, "0.0100"));
  CHECK(!has(s, "0.0000"));
  Records rec{"r", {"x", "y"}, {{1e-7, 0.5}}};
  Result rr;
  rr.blocks.push_back(rec);
  const std::string sr = encode_table(rr, {});
  CHECK(has(sr, "1.0000e-07"));
  CHECK(has(sr, "0.5000"));
}

TEST_CASE("table: Hangul words take two columns each and stay aligned") {
  Result r;
  r.command = "t";
  Records rec{"r", {"word", "cosine"}, {{std::string("왕"), 0.5}, {std::string("여왕"), 0.25}, {std::string("king"), 1.0}}};
  r.blocks.push_back(rec);
  const auto lines = split_lines(encode_table(r, {}));
  REQUIRE(lines.size() == 4);
  for (const auto& l : lines) CHECK(display_width(l) == display_width(lines[0]));
  CHECK(lines[1] == "왕    0.5000");
  CHECK(lines[2] == "여왕  0.2500");
}

TEST_CASE("cli: tfx pe on an 80-column terminal: no row wraps, notes neither") {
  PtyRun r = run_in_pty({"pe", "--len", "50", "--dim", "128"}, 80, 24);
  if (!r.ok) return;
  CHECK(r.code == 0);
  for (const auto& l : split_lines(r.screen)) {
    CAPTURE(l);
    CHECK(display_width(l) <= 80);
  }
  CHECK(has(r.screen, "of 128 columns shown"));
  PtyRun yarn = run_in_pty({"rope", "freqs", "--dim", "128", "--scaling", "yarn", "--factor", "32", "--original-max-pos", "4096"}, 120, 40);
  CAPTURE(yarn.screen);
  CHECK(yarn.code == 0);
  for (const auto& l : split_lines(yarn.screen)) CHECK(display_width(l) <= 120);
}
