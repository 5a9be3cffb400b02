// Sinusoidal PE: values against the lecture's worked numbers and the formula computed another
// way; `tfx pe` output formats and bad input.
#include <cmath>

#include "helpers.hpp"
#include "tfx/positional.hpp"

using namespace tfx;
using namespace tfx::test;

TEST_CASE("PE(1,2) for d=4 is the lecture's sin(1/100) = 0.00999983") {
  CHECK(sinusoidal_value(1, 2, 4) == doctest::Approx(0.00999983).epsilon(1e-7));
  // lecture ex_1: PE(0,0) = sin(0) = 0, PE(0,1) = cos(0) = 1
  CHECK(sinusoidal_value(0, 0, 4) == 0.0);
  CHECK(sinusoidal_value(0, 1, 4) == 1.0);
}

TEST_CASE("sinusoidal_encoding matches the closed form via exp/log (the PyTorch div_term way)") {
  const std::size_t L = 50, D = 128;
  Tensor pe = sinusoidal_encoding(L, D);
  REQUIRE(pe.shape() == std::vector<std::size_t>{L, D});
  double maxdiff = 0;
  for (std::size_t p = 0; p < L; ++p)
    for (std::size_t i = 0; i < D / 2; ++i) {
      // div_term = exp(2i · (−ln 10000 / D))
      double div = std::exp(static_cast<double>(2 * i) * (-std::log(10000.0) / D));
      maxdiff = std::max(maxdiff, std::abs(pe(p, 2 * i) - std::sin(p * div)));
      maxdiff = std::max(maxdiff, std::abs(pe(p, 2 * i + 1) - std::cos(p * div)));
    }
  CHECK(maxdiff < 1e-6);
}

TEST_CASE("odd dim: last column is a sine") {
  Tensor pe = sinusoidal_encoding(3, 5);
  CHECK(pe(2, 4) == doctest::Approx(std::sin(2.0 / std::pow(10000.0, 4.0 / 5))));
}

TEST_CASE("cli: tfx pe --dim 4 --pos 1 --i 2 prints the worked example") {
  Run r = run_tfx("pe --dim 4 --pos 1 --i 2");
  CHECK(r.code == 0);
  CHECK(r.out.find("sin(1 / 100)") != std::string::npos);
  CHECK(r.out.find("0.00999983") != std::string::npos);
}

TEST_CASE("cli: tfx pe csv and json match the formula to 1e-6") {
  TempDir dir;
  Run r = run_tfx("pe --len 7 --dim 6 --format csv -o pe.csv", dir.path);
  REQUIRE(r.code == 0);
  std::istringstream csv(read_file(dir / "pe.csv"));
  std::string line;
  std::getline(csv, line);
  CHECK(line == "pos,0,1,2,3,4,5");
  int rows = 0;
  double maxdiff = 0;
  while (std::getline(csv, line)) {
    std::istringstream ls(line);
    std::string cell;
    std::getline(ls, cell, ',');
    int p = std::stoi(cell);
    for (int j = 0; j < 6; ++j) {
      std::getline(ls, cell, ',');
      double want = (j % 2 == 0 ? std::sin(p / std::pow(10000.0, (j - j % 2) / 6.0)) : std::cos(p / std::pow(10000.0, (j - j % 2) / 6.0)));
      maxdiff = std::max(maxdiff, std::abs(std::stod(cell) - want));
    }
    ++rows;
  }
  CHECK(rows == 7);
  CHECK(maxdiff < 1e-6);

  Run j = run_tfx("pe --len 3 --dim 4 --format json");
  REQUIRE(j.code == 0);
  CHECK(j.out.find("\"command\":\"pe\"") != std::string::npos);
  CHECK(j.out.find("\"shape\":[3,4]") != std::string::npos);
}

TEST_CASE("cli: tfx pe npy is a valid numpy 1.0 float32 file") {
  TempDir dir;
  Run r = run_tfx("pe --len 5 --dim 4 --format npy -o pe.npy", dir.path);
  REQUIRE(r.code == 0);
  std::string b = read_file(dir / "pe.npy");
  REQUIRE(b.size() > 10);
  CHECK(b.substr(0, 6) == "\x93NUMPY");
  CHECK(b[6] == 1);
  std::size_t hlen = static_cast<unsigned char>(b[8]) | (static_cast<unsigned char>(b[9]) << 8);
  CHECK((10 + hlen) % 64 == 0);
  std::string header = b.substr(10, hlen);
  CHECK(header.find("'descr': '<f4'") != std::string::npos);
  CHECK(header.find("'shape': (5, 4)") != std::string::npos);
  REQUIRE(b.size() == 10 + hlen + 5 * 4 * 4);
  float v;
  std::memcpy(&v, b.data() + 10 + hlen + (1 * 4 + 2) * 4, 4);  // PE(1, 2)
  CHECK(v == doctest::Approx(std::sin(0.01)).epsilon(1e-6));
}

TEST_CASE("cli: tfx pe --png writes the default-named figure and says where") {
  TempDir dir;
  Run r = run_tfx("pe --len 50 --dim 128 --png", dir.path);
  CHECK(r.code == 0);
  CHECK(std::filesystem::exists(dir / "pe_len50_dim128.png"));
  CHECK(r.out.find("pe_len50_dim128.png") != std::string::npos);
}

TEST_CASE("cli: tfx pe bad input gives one error line and exit 2, no file") {
  TempDir dir;
  for (const char* args : {"pe --len 0", "pe --len -3", "pe --len abc", "pe --len 1e12", "pe --dim 0",
                           "pe --len 100000000 --dim 100000", "pe --len 5 --pos 5 --i 0", "pe --dim 4 --pos 0 --i 4",
                           "pe --format bogus", "pe --pos 1"}) {
    CAPTURE(args);
    Run r = run_tfx(args, dir.path);
    CHECK(r.code == 2);
    CHECK(r.err.rfind("tfx: error: ", 0) == 0);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.out.empty());
  }
  Run r = run_tfx("pe --len 4 --dim 4 --format csv -o /nonexistent/dir/x.csv", dir.path);
  CHECK(r.code == 1);
  CHECK(r.err.find("/nonexistent/dir/x.csv") != std::string::npos);
  // unwritable even for root: /proc does not take new files
  Run ro = run_tfx("pe --len 4 --dim 4 --png /proc/tfx-test.png", dir.path);
  CHECK(ro.code == 1);
  CHECK(ro.err.find("/proc/tfx-test.png") != std::string::npos);
  CHECK(std::filesystem::is_empty(dir.path));  // no output, no .tmp left behind
}
