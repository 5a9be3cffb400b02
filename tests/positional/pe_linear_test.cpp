// `tfx pe linear` (note 002's linear vs sinusoidal PE): the linear code p/(L−1) against the
// closed form, the sin/cos columns against std::sin/std::cos at chosen points, the rotation
// property, the figure, and bad input.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "helpers.hpp"
#include "png.hpp"
#include "tfx/positional/positional.hpp"

using nlohmann::json;
using namespace tfx;
using namespace tfx::test;

TEST_CASE("linear_position_code: p/(L−1), first word 0, last 1; another length, another code for the same p") {
  const auto c10 = linear_position_code(10), c50 = linear_position_code(50);
  REQUIRE(c10.size() == 10);
  REQUIRE(c50.size() == 50);
  CHECK(c10.front() == 0.0);
  CHECK(c10.back() == 1.0);
  CHECK(c50.back() == 1.0);
  // position 9 by hand: 9/9 and 9/49
  CHECK(c10[9] == doctest::Approx(1.0));
  CHECK(c50[9] == doctest::Approx(9.0 / 49.0));
  // the step between neighbours is 1/(L−1): shrinks as the sentence grows
  CHECK(c10[1] - c10[0] == doctest::Approx(1.0 / 9));
  CHECK(c50[1] - c50[0] == doctest::Approx(1.0 / 49));
  CHECK(linear_position_code(1) == std::vector<double>{0.0});
  CHECK(linear_position_code(0).empty());
}

TEST_CASE("cli: tfx pe linear --format json — linear codes of two lengths and sin/cos columns by the formula") {
  const Run r = run_tfx("pe linear --len 12 --short 4 --dim 8 --dims 0,1,2,7 --format json");
  const json j = json_of(r);
  REQUIRE(j["shape"] == json::array({12, 7}));
  const auto& d = j["data"];
  for (int p = 0; p < 12; ++p) {
    CHECK(d[p][0].get<double>() == p);                                      // the raw index
    CHECK(d[p][1].get<double>() == doctest::Approx(p / 11.0).epsilon(1e-6));  // p/(L−1), L = 12
    if (p < 4)
      CHECK(d[p][2].get<double>() == doctest::Approx(p / 3.0).epsilon(1e-6));  // p/(S−1), S = 4
    else
      CHECK(d[p][2].is_null());  // the short sentence has no position p
    // PE(p, 2m) = sin(p·exp(−2m·ln(10000)/8)), PE(p, 2m+1) = cos(…): the div_term way, not pow
    const auto w = [](int m) { return std::exp(-2.0 * m * std::log(10000.0) / 8.0); };
    CHECK(d[p][3].get<double>() == doctest::Approx(std::sin(p * w(0))).epsilon(1e-6));
    CHECK(d[p][4].get<double>() == doctest::Approx(std::cos(p * w(0))).epsilon(1e-6));
    CHECK(d[p][5].get<double>() == doctest::Approx(std::sin(p * w(1))).epsilon(1e-6));
    CHECK(d[p][6].get<double>() == doctest::Approx(std::cos(p * w(3))).epsilon(1e-6));
  }
  const auto& s = j["summary"];
  CHECK(s["position"] == 3);
  CHECK(s["linear code, short sentence"].get<double>() == doctest::Approx(1.0));
  CHECK(s["linear code, long sentence"].get<double>() == doctest::Approx(3.0 / 11));
  CHECK(s["largest raw index"] == 11);
  CHECK(s["largest |PE|"].get<double>() <= 1.0);
  CHECK(s["rotation max error"].get<double>() < 1e-5);
}

TEST_CASE("cli: tfx pe linear csv: the default 50 vs 10 words, position 9 is 1 and 9/49") {
  TempDir dir;
  const Run r = run_tfx("pe linear -o " + shell_quote((dir / "l.csv").string()));
  REQUIRE(r.code == 0);
  const std::string csv = read_file(dir / "l.csv");
  CHECK(has(csv, "pos/49 (L=50)"));
  CHECK(has(csv, "pos/9 (L=10)"));
  CHECK(has(csv, "sin(dim 30)"));
  const Run t = run_tfx("pe linear");
  CHECK(t.code == 0);
  CHECK(has(t.out, "Position 9: p/(L−1) = 1 in the 10-word sentence but 0.1837 in the 50-word one"));
}

TEST_CASE("cli: tfx pe linear --png draws two panels; at --scale 2 twice the size") {
  TempDir dir;
  const Run a = run_tfx("pe linear --png " + shell_quote((dir / "a.png").string()));
  const Run b = run_tfx("pe linear --scale 2 --lang ko --png " + shell_quote((dir / "b.png").string()));
  REQUIRE(a.code == 0);
  REQUIRE(b.code == 0);
  const Decoded x = decode_png(read_file(dir / "a.png")), y = decode_png(read_file(dir / "b.png"));
  CHECK(x.w > 1200);  // two panels side by side
  CHECK(x.w > x.h);
  CHECK(std::abs(y.w - 2 * x.w) <= 2);
  std::size_t ink = 0;
  for (const Rgb& c : x.px) ink += c.r < 128 && c.g < 128 && c.b < 128;
  CHECK(ink > 2000);  // titles, axes and curves, not a blank page
}

TEST_CASE("cli: tfx pe linear bad input: one-line usage errors") {
  check_one_line_error(run_tfx("pe linear --len 10 --short 20"), 2, "--short 20 is longer than --len 10");
  check_one_line_error(run_tfx("pe linear --len 0"), 2, "--len");
  check_one_line_error(run_tfx("pe linear --dim 8"), 2, "--dims 30");
  check_one_line_error(run_tfx("pe linear --len 4 --short 2 --offset 4"), 2, "--offset 4: the shift must be shorter than --len 4");
}
