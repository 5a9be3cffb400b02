// `tfx layernorm` (the lecture's table) and `tfx lr` (the warm-up schedule) against values
// computed by hand.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "helpers.hpp"
#include "png.hpp"
#include "tfx/attention/schedule.hpp"

using namespace tfx;
using namespace tfx::test;

TEST_CASE("warm-up schedule: linear rise, peak at warmup, 1/sqrt decay") {
  // peak: 512^-0.5 · 4000^-0.5 = 1/sqrt(2,048,000)
  CHECK(warmup_learning_rate(4000, 512, 4000) == doctest::Approx(1.0 / std::sqrt(2048000.0)));
  // step 1000 < warmup: 1000 · 4000^-1.5 / sqrt(512)
  CHECK(warmup_learning_rate(1000, 512, 4000) == doctest::Approx(1000.0 / (4000.0 * std::sqrt(4000.0)) / std::sqrt(512.0)));
  // step 16000 > warmup: 1/sqrt(16000 · 512) = 1/sqrt(8,192,000)
  CHECK(warmup_learning_rate(16000, 512, 4000) == doctest::Approx(1.0 / std::sqrt(8192000.0)));
  CHECK(warmup_learning_rate(2000, 512, 4000) == doctest::Approx(2 * warmup_learning_rate(1000, 512, 4000)));
}

TEST_CASE("cli: tfx lr json has the peak, tfx lr --step spells out the formula") {
  Run r = run_tfx("lr --format json");
  REQUIRE(r.code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["summary"]["peak_lr_warmup4000"].get<double>() == doctest::Approx(6.98771e-4).epsilon(1e-5));
  Run s = run_tfx("lr --step 1000");
  check_stdout(s, 0, "min(1000^(-0.5), 1000 · 4000^(-1.5))");
  CHECK(s.out.find("0.00017469") != std::string::npos);
}

TEST_CASE("cli: tfx lr --png draws each schedule peaking at its warm-up step, the shorter warm-up higher") {
  TempDir dir;
  Run r = run_tfx("lr --warmup 4000,8000 --steps 40000 --png", dir.path);
  REQUIRE(r.code == 0);
  const Decoded d = decode_png(read_file(dir / "lr_d512_warmup4000-8000_steps40000.png"));
  // the two curves are the two most common saturated colors
  std::map<std::tuple<int, int, int>, std::size_t> counts;
  for (const Rgb& p : d.px)
    if (std::max({p.r, p.g, p.b}) - std::min({p.r, p.g, p.b}) > 80) ++counts[{p.r, p.g, p.b}];
  std::vector<std::pair<std::size_t, std::tuple<int, int, int>>> by_count;
  for (const auto& [c, n] : counts) by_count.push_back({n, c});
  std::sort(by_count.rbegin(), by_count.rend());
  REQUIRE(by_count.size() >= 2);
  // each curve: its leftmost pixel (step 1) and its highest pixel (the peak); the legend's sample
  // line, right of the plot after a gap, is left out
  struct Curve {
    int left = 1 << 30, peak_x = 0, peak_y = 1 << 30;
  };
  auto trace = [&](std::tuple<int, int, int> c) {
    std::vector<int> cols;
    for (int x = 0; x < d.w; ++x)
      for (int y = 0; y < d.h; ++y)
        if (d.at(x, y).r == std::get<0>(c) && d.at(x, y).g == std::get<1>(c) && d.at(x, y).b == std::get<2>(c)) {
          cols.push_back(x);
          break;
        }
    REQUIRE(!cols.empty());
    int end = cols.back();
    for (std::size_t i = 1; i < cols.size(); ++i)
      if (cols[i] - cols[i - 1] > 8) {
        end = cols[i - 1];
        break;
      }
    Curve k;
    for (int x = cols.front(); x <= end; ++x)
      for (int y = 0; y < d.h; ++y)
        if (d.at(x, y).r == std::get<0>(c) && d.at(x, y).g == std::get<1>(c) && d.at(x, y).b == std::get<2>(c)) {
          k.left = std::min(k.left, x);
          if (y < k.peak_y) k.peak_y = y, k.peak_x = x;
        }
    return k;
  };
  Curve a = trace(by_count[0].second), b = trace(by_count[1].second);
  if (a.peak_x > b.peak_x) std::swap(a, b);  // a: warm-up 4000, b: warm-up 8000
  CHECK(a.left == doctest::Approx(b.left).epsilon(0.05));  // both start at step 1 (anti-aliased edges: a few px)
  // lr peaks at step = warmup: the 4000 peak is half as far from the start as the 8000 one
  const double ratio = static_cast<double>(a.peak_x - a.left) / static_cast<double>(b.peak_x - b.left);
  CHECK(ratio == doctest::Approx(0.5).epsilon(0.1));
  // and higher (512^-0.5·w^-0.5 falls with w; a higher value is a smaller pixel row)
  CHECK(a.peak_y < b.peak_y);
}

TEST_CASE("cli: tfx layernorm reproduces the lecture's μ and σ (μ=3.5 σ=1.118; μ=0.5 σ=2.06)") {
  Run r = run_tfx("layernorm --format json");
  REQUIRE(r.code == 0);
  auto j = nlohmann::json::parse(r.out);
  auto stats = j["tables"]["stats"];
  // the lecture prints μ = 2.5 for "thinking" (4,2,3,5), but (4+2+3+5)/4 = 3.5; σ = √1.25 = 1.118
  CHECK(stats[0]["mean μ"].get<double>() == doctest::Approx(3.5));
  CHECK(stats[0]["std σ"].get<double>() == doctest::Approx(std::sqrt(1.25)));
  CHECK(stats[1]["mean μ"].get<double>() == doctest::Approx(0.5));
  CHECK(stats[1]["std σ"].get<double>() == doctest::Approx(2.06).epsilon(0.001));
  // normalized (4 − 3.5)/√(1.25 + 1e-5), then y = 3·x̂ + 1 for feature h1
  double xhat = 0.5 / std::sqrt(1.25 + 1e-5);
  CHECK(j["matrices"]["normalized"]["data"][0][0].get<double>() == doctest::Approx(xhat).epsilon(1e-6));
  CHECK(j["data"][0][0].get<double>() == doctest::Approx(3 * xhat + 1).epsilon(1e-6));
  // feature h3 has γ = −1, β = 0: y = −x̂
  double xhat3 = (-3 - 0.5) / std::sqrt(4.25 + 1e-5);
  CHECK(j["data"][1][2].get<double>() == doctest::Approx(-xhat3).epsilon(1e-6));
}

TEST_CASE("cli: layernorm and lr bad input") {
  for (const char* args : {"layernorm --x \"1,2;3\"", "layernorm --x \"1,abc\"", "layernorm --x \"1,2\" --gamma 1,2,3",
                           "layernorm --x \"1;2\"", "lr --warmup 0", "lr --d-model -1", "lr --step 0"}) {
    CAPTURE(args);
    check_one_line_error(run_tfx(args), 2);
  }
}

TEST_CASE("cli: layernorm refuses 0/0 (σ = 0 with --eps 0) and float32 overflow instead of printing nan/inf") {
  Run zero = run_tfx("layernorm --x 1,1 --gamma '' --beta '' --eps 0");
  check_stderr_starts(zero, 2, "tfx: error: --eps 0: token 'x0' has σ = 0");
  CHECK(count_lines(zero.err) == 1);
  // x̂ = (-1, 1); y_2 = 3e38·1 + 3e38 = 6e38 > FLT_MAX
  Run big = run_tfx("layernorm --x 1,2 --gamma 3e38,3e38 --beta 3e38,3e38");
  check_stderr(big, 2, "overflows float32");
  CHECK(big.out.find("inf") == std::string::npos);
  // the same constant row with the default ε is fine: x̂ = 0/√ε = 0
  Run ok = run_tfx("layernorm --x 1,1 --gamma '' --beta '' --format csv");
  CHECK(ok.code == 0);
  CHECK(ok.out.find("nan") == std::string::npos);
}

TEST_CASE("cli: lr refuses a schedule whose peak overflows float32 instead of a column of inf") {
  // peak = 1e300 · 512^(-0.5) · 4000^(-0.5) ≈ 6.99e296 > FLT_MAX ≈ 3.4e38
  Run big = run_tfx("lr --lr-factor 1e300");
  check_stderr_starts(big, 2, "tfx: error: --lr-factor 1e+300 --d-model 512: the peak learning rate");
  CHECK(big.out.find("inf") == std::string::npos);
  // 1e30 · 512^(-0.5) · 4000^(-0.5) ≈ 6.99e26 fits
  Run ok = run_tfx("lr --lr-factor 1e30 --format csv");
  CHECK(ok.code == 0);
  CHECK(ok.out.find("inf") == std::string::npos);
}
