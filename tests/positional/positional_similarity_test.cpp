// PE·PEᵀ similarity and the shift rotation: entries against Σ cos(k·ω) computed the PyTorch way
// (div_term = exp(−2i·ln(base)/D)), cosine = dot/(D/2), hand cases for D = 2, the rotation
// against the lecture's 2×2 matrix and its group properties, and `tfx pe sim|shift` end to end.
#include <nlohmann/json.hpp>

#include <cmath>

#include "helpers.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/positional/positional.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

// Σ_{m < D/2} cos(k · exp(−2m · ln(base) / D))
double sum_cos(double k, std::size_t D, double base = 10000.0) {
  double s = 0;
  for (std::size_t m = 0; m < D / 2; ++m) s += std::cos(k * std::exp(-2.0 * static_cast<double>(m) * std::log(base) / static_cast<double>(D)));
  return s;
}

}  // namespace

TEST_CASE("pe_similarity dot: every entry is Σ cos((j−i)·ω) to float32 accuracy") {
  const std::size_t L = 40, D = 64;
  Tensor s = pe_similarity(sinusoidal_encoding(L, D), PeMetric::dot);
  REQUIRE(s.shape() == std::vector<std::size_t>{L, L});
  double maxdiff = 0;
  for (std::size_t i = 0; i < L; ++i)
    for (std::size_t j = 0; j < L; ++j)
      maxdiff = std::max(maxdiff, std::abs(s(i, j) - sum_cos(static_cast<double>(j) - static_cast<double>(i), D)));
  CHECK(maxdiff < 1e-4);
  CHECK(s(7, 7) == doctest::Approx(D / 2.0));  // ‖PE(p)‖² = D/2: each pair contributes sin² + cos² = 1
}

TEST_CASE("pe_similarity: D = 2 by hand is cos(j − i); cosine = dot / (D/2)") {
  Tensor s = pe_similarity(sinusoidal_encoding(5, 2), PeMetric::dot);
  CHECK(s(0, 3) == doctest::Approx(std::cos(3.0)).epsilon(1e-6));
  CHECK(s(4, 1) == doctest::Approx(std::cos(3.0)).epsilon(1e-6));
  const std::size_t L = 30, D = 48;
  Tensor pe = sinusoidal_encoding(L, D);
  Tensor dot = pe_similarity(pe, PeMetric::dot), cos = pe_similarity(pe, PeMetric::cosine);
  double maxdiff = 0;
  for (std::size_t k = 0; k < dot.size(); ++k) maxdiff = std::max(maxdiff, std::abs(cos[k] - dot[k] / (D / 2.0)));
  CHECK(maxdiff < 1e-6);
  CHECK(cos(3, 3) == doctest::Approx(1.0));
  CHECK_THROWS_AS(parse_pe_metric("bogus"), Error);
}

TEST_CASE("pe_dot_closed_form and offset_profile: constant diagonals for even D, not for odd D") {
  CHECK(pe_dot_closed_form(0, 128) == doctest::Approx(64.0));
  CHECK(pe_dot_closed_form(5, 16) == doctest::Approx(sum_cos(5, 16)));
  CHECK(pe_dot_closed_form(-5, 16) == doctest::Approx(pe_dot_closed_form(5, 16)));
  std::vector<double> f = pe_dot_closed_form_profile(9, 16);
  REQUIRE(f.size() == 9);
  CHECK(f[0] == doctest::Approx(8.0));
  CHECK(f[7] == doctest::Approx(sum_cos(7, 16)));
  Tensor s = pe_similarity(sinusoidal_encoding(20, 16), PeMetric::dot);
  OffsetProfile p = offset_profile(s);
  REQUIRE(p.offset.size() == 39);
  CHECK(p.offset.front() == -19);
  CHECK(p.offset[19] == 0);
  CHECK(p.max_spread < 1e-5);
  for (std::size_t n = 0; n < p.offset.size(); ++n) CHECK(p.mean[n] == doctest::Approx(sum_cos(static_cast<double>(p.offset[n]), 16)).epsilon(1e-5));
  // odd D: the lone sine column adds sin(iω)sin(jω), which is not a function of j − i
  OffsetProfile odd = offset_profile(pe_similarity(sinusoidal_encoding(20, 3, 10.0), PeMetric::dot));
  CHECK(odd.max_spread > 1e-3);
}

TEST_CASE("shift_rotation: the lecture's blocks [[cos kω, sin kω], [−sin kω, cos kω]]") {
  const std::size_t D = 8;
  Tensor r = shift_rotation(3, D);
  for (std::size_t m = 0; m < D / 2; ++m) {
    const double w = std::exp(-2.0 * static_cast<double>(m) * std::log(10000.0) / D), a = 3 * w;
    CHECK(r(2 * m, 2 * m) == doctest::Approx(std::cos(a)));
    CHECK(r(2 * m, 2 * m + 1) == doctest::Approx(std::sin(a)));
    CHECK(r(2 * m + 1, 2 * m) == doctest::Approx(-std::sin(a)));
    CHECK(r(2 * m + 1, 2 * m + 1) == doctest::Approx(std::cos(a)));
  }
  CHECK(r(0, 2) == 0.0f);
  // D = 2, k = 1 applied to PE(0) = (sin 0, cos 0) = (0, 1) by hand: (sin 1, cos 1) = PE(1)
  Tensor r1 = shift_rotation(1, 2);
  CHECK(r1(0, 1) == doctest::Approx(std::sin(1.0)));
  CHECK(r1(1, 1) == doctest::Approx(std::cos(1.0)));
  // R(k)·R(−k) = I and R(2)·R(3) = R(5)
  Tensor id = matmul(shift_rotation(4, D), shift_rotation(-4, D));
  Tensor r23 = matmul(shift_rotation(2, D), shift_rotation(3, D)), r5 = shift_rotation(5, D);
  for (std::size_t i = 0; i < D; ++i)
    for (std::size_t j = 0; j < D; ++j) {
      CHECK(id(i, j) == doctest::Approx(i == j ? 1.0 : 0.0).epsilon(1e-6));
      CHECK(r23(i, j) == doctest::Approx(r5(i, j)).epsilon(1e-6));
    }
  CHECK_THROWS_AS(shift_rotation(1, 7), Error);
}

TEST_CASE("check_shift: max |PE(p+k) − R(k)·PE(p)| < 1e-5 for positive, negative and zero k") {
  const std::size_t L = 50, D = 128;
  Tensor pe = sinusoidal_encoding(L, D);
  for (std::int64_t k : {0, 1, 3, 17, 49, -1, -3, -20, -49}) {
    CAPTURE(k);
    ShiftCheck c = check_shift(pe, shift_rotation(k, D), k);
    CHECK(c.max_error < 1e-5);
    CHECK(c.positions == L - static_cast<std::size_t>(std::abs(k)));
  }
  // a wrong rotation is caught: R(3) against the shift by 4
  CHECK(check_shift(pe, shift_rotation(3, D), 4).max_error > 1e-2);
}

TEST_CASE("cli: tfx pe sim csv entries match the closed form; --profile json; cosine") {
  TempDir dir;
  const CsvNumbers csv = csv_of(dir, "pe sim --len 12 --dim 16", "sim.csv");
  const double maxdiff = csv_max_diff(csv, 12, [](int i, int j) { return sum_cos(j - i, 16); });
  CHECK(csv.rows.size() == 12);
  CHECK(maxdiff < 1e-5);

  Run p = run_tfx("pe sim --len 10 --dim 32 --metric cosine --profile --format json");
  REQUIRE(p.code == 0);
  auto j = nlohmann::json::parse(p.out);
  CHECK(j["command"] == "pe sim");
  REQUIRE(j["data"].size() == 19);
  for (const auto& row : j["data"]) {
    const double k = row["k"].get<double>();
    CHECK(row["cosine"].get<double>() == doctest::Approx(sum_cos(k, 32) / 16).epsilon(1e-5));
  }
  CHECK(j["summary"]["max_diagonal_spread"].get<double>() < 1e-5);

  Run t = run_tfx("pe sim --len 8 --dim 8 --profile");
  check_stdout(t, 0, "depends only on the offset");
}

TEST_CASE("cli: tfx pe sim --png draws viridis from the diagonal (max D/2) outwards") {
  TempDir dir;
  Run r = run_tfx("pe sim --len 50 --dim 128 --png", dir.path);
  REQUIRE(r.code == 0);
  CHECK(std::filesystem::exists(dir / "pe_sim_len50_dim128.png"));
  Run v = run_tfx("pe sim --len 50 --dim 128 --view --width 60 --color never");
  REQUIRE(v.code == 0);
  // the diagonal is the maximum: the first picture line (after the title, and the row label
  // " 0 " for rows 0…49) starts with the top of the ramp
  const std::size_t first = v.out.find('\n') + 1;
  CHECK(v.out.substr(first, 4) == " 0 @");
}

TEST_CASE("pe_similarity_block_means: the closed-form block means equal block means of the matmul") {
  for (PeMetric metric : {PeMetric::dot, PeMetric::cosine}) {
    const std::size_t L = 43, D = 16;  // blocks of 6 (the last one partial: 43 = 7·6 + 1)
    std::size_t b = 0;
    Tensor fast = pe_similarity_block_means(L, D, 10000.0, metric, 8, &b);
    CHECK(b == 6);
    REQUIRE(fast.shape() == std::vector<std::size_t>{8, 8});
    Tensor s = pe_similarity(sinusoidal_encoding(L, D), metric);
    double maxdiff = 0;
    for (std::size_t r = 0; r < 8; ++r)
      for (std::size_t c = 0; c < 8; ++c) {
        double sum = 0;
        std::size_t n = 0;
        for (std::size_t i = r * 6; i < std::min(L, r * 6 + 6); ++i)
          for (std::size_t j = c * 6; j < std::min(L, c * 6 + 6); ++j) sum += s(i, j), ++n;
        maxdiff = std::max(maxdiff, std::abs(fast(r, c) - sum / static_cast<double>(n)));
      }
    CHECK(maxdiff < 1e-4);
  }
  CHECK_THROWS_AS(pe_similarity_block_means(10, 7, 10000.0, PeMetric::dot, 4), Error);
}

TEST_CASE("cli: pe sim figures for any L: 100000 positions drawn from the closed form, downsampled") {
  TempDir dir;
  Run r = run_tfx("pe sim --len 100000 --dim 64 --png big.png", dir.path);
  REQUIRE(r.code == 0);
  CHECK(std::filesystem::file_size(dir / "big.png") > 1000);
  Run v = run_tfx("pe sim --len 100000 --dim 64 --view --width 40 --color never");
  REQUIRE(v.code == 0);
  CHECK(v.out.find("100000") != std::string::npos);
}

TEST_CASE("cli: tfx pe shift reports the max error for negative k and prints R(k) with --rotation") {
  Run r = run_tfx("pe shift --offset -3 --dim 8 --len 50 --format json");
  REQUIRE(r.code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["summary"]["max_error"].get<double>() < 1e-5);
  CHECK(j["summary"]["positions_checked"] == 47);
  Run s = run_tfx("pe shift --offset 3 --dim 8 --rotation --format csv");
  REQUIRE(s.code == 0);
  std::istringstream csv(s.out);
  std::string line;
  std::getline(csv, line);
  std::getline(csv, line);  // row 0: cos 3, sin 3, 0, ...
  CHECK(line.rfind("0,", 0) == 0);
  std::istringstream ls(line.substr(2));
  std::string a, b;
  std::getline(ls, a, ',');
  std::getline(ls, b, ',');
  CHECK(std::stod(a) == doctest::Approx(std::cos(3.0)).epsilon(1e-6));
  CHECK(std::stod(b) == doctest::Approx(std::sin(3.0)).epsilon(1e-6));
}

TEST_CASE("cli: pe sim / pe shift bad input: one error line, exit code, no file") {
  TempDir dir;
  for (const char* args : {"pe sim --metric bogus", "pe sim --len 0", "pe sim --dim -1", "pe sim --len 100000 --format npy",
                           "pe sim --len 100000 --dim 127 --png", "pe sim --len 100000 --profile --png", "pe sim --view --width 10", "pe sim --cmap bogus", "pe sim --color sometimes",
                           "pe shift --offset 50 --len 50", "pe shift --offset -50 --len 50", "pe shift --offset 1000000 --len 50",
                           "pe shift --dim 7", "pe shift --offset abc", "pe shift --dim 1", "pe sim --png - --view"}) {
    CAPTURE(args);
    check_one_line_error(run_tfx(args, dir.path), 2);
  }
  Run big = run_tfx("pe sim --len 100000 --format csv", dir.path);
  CHECK(big.err.find("--len 100000") != std::string::npos);
  Run k = run_tfx("pe shift --offset 50 --len 50", dir.path);
  CHECK(k.err.find("--offset 50") != std::string::npos);
  Run ro = run_tfx("pe sim --len 8 --dim 8 --png /proc/tfx-sim.png", dir.path);
  check_stderr(ro, 1, "/proc/tfx-sim.png");
  CHECK(std::filesystem::is_empty(dir.path));
}
