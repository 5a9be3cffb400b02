// Sinusoidal PE: values against the lecture's worked numbers and the formula computed another
// way; `tfx pe` output formats and bad input.
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "tfx/positional/positional.hpp"

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
  check_stdout(r, 0, "sin(1 / 100)");
  CHECK(r.out.find("0.00999983") != std::string::npos);
}

TEST_CASE("cli: tfx pe csv and json match the formula to 1e-6") {
  TempDir dir;
  const CsvNumbers csv = csv_of(dir, "pe --len 7 --dim 6", "pe.csv");
  CHECK(csv.header == "pos,0,1,2,3,4,5");
  const double maxdiff = csv_max_diff(csv, 6, [](int p, int j) {
    return j % 2 == 0 ? std::sin(p / std::pow(10000.0, (j - j % 2) / 6.0)) : std::cos(p / std::pow(10000.0, (j - j % 2) / 6.0));
  });
  CHECK(csv.rows.size() == 7);
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
  check_wrote(r, dir / "pe_len50_dim128.png");
  CHECK(r.out.find("pe_len50_dim128.png") != std::string::npos);
}

TEST_CASE("cli: tfx pe bad input gives one error line and exit 2, no file") {
  TempDir dir;
  for (const char* args : {"pe --len 0", "pe --len -3", "pe --len abc", "pe --len 1e12", "pe --dim 0",
                           "pe --len 100000000 --dim 100000", "pe --len 5 --pos 5 --i 0", "pe --dim 4 --pos 0 --i 4",
                           "pe --format bogus", "pe --pos 1"}) {
    CAPTURE(args);
    check_one_line_error(run_tfx(args, dir.path), 2);
  }
  Run r = run_tfx("pe --len 4 --dim 4 --format csv -o /nonexistent/dir/x.csv", dir.path);
  check_stderr(r, 1, "/nonexistent/dir/x.csv");
  // unwritable even for root: /proc does not take new files
  Run ro = run_tfx("pe --len 4 --dim 4 --png /proc/tfx-test.png", dir.path);
  check_stderr(ro, 1, "/proc/tfx-test.png");
  CHECK(std::filesystem::is_empty(dir.path));  // no output, no .tmp left behind
}

namespace {
// PE(p, j) computed independently of the library: ω = exp(−(j − j mod 2)·ln(base)/D), then sin for
// even j, cos for odd j (the PyTorch div_term way).
double pe_formula(std::size_t p, std::size_t j, std::size_t D, double base = 10000.0) {
  const double w = std::exp(-static_cast<double>(j - j % 2) * std::log(base) / static_cast<double>(D));
  return j % 2 == 0 ? std::sin(static_cast<double>(p) * w) : std::cos(static_cast<double>(p) * w);
}
}  // namespace

TEST_CASE("cli: every value of tfx pe's npy and json matches the formula to 1e-6") {
  TempDir dir;
  const std::size_t L = 50, D = 22;
  REQUIRE(run_tfx("pe --len 50 --dim 22 --base 500 --format npy -o pe.npy", dir.path).code == 0);
  std::string b = read_file(dir / "pe.npy");
  REQUIRE(b.size() > 10);
  const std::size_t hlen = static_cast<unsigned char>(b[8]) | (static_cast<unsigned char>(b[9]) << 8);
  CHECK(b.substr(10, hlen).find("'fortran_order': False") != std::string::npos);
  CHECK(b.substr(10, hlen).find("'shape': (50, 22)") != std::string::npos);
  REQUIRE(b.size() == 10 + hlen + L * D * 4);
  double maxdiff = 0;
  for (std::size_t p = 0; p < L; ++p)
    for (std::size_t j = 0; j < D; ++j) {
      // little-endian float32, C order: byte order assembled by hand, not by memcpy
      const std::size_t at = 10 + hlen + (p * D + j) * 4;
      std::uint32_t bits = 0;
      for (int k = 3; k >= 0; --k) bits = (bits << 8) | static_cast<unsigned char>(b[at + static_cast<std::size_t>(k)]);
      float v;
      std::memcpy(&v, &bits, 4);
      maxdiff = std::max(maxdiff, std::abs(v - pe_formula(p, j, D, 500.0)));
    }
  CHECK(maxdiff < 1e-6);

  Run r = run_tfx("pe --len 50 --dim 22 --base 500 --format json");
  REQUIRE(r.code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["shape"] == nlohmann::json::array({50, 22}));
  CHECK(j["params"]["base"] == 500.0);
  REQUIRE(j["data"].size() == L);
  maxdiff = 0;
  for (std::size_t p = 0; p < L; ++p) {
    REQUIRE(j["data"][p].size() == D);
    for (std::size_t c = 0; c < D; ++c) maxdiff = std::max(maxdiff, std::abs(j["data"][p][c].get<double>() - pe_formula(p, c, D, 500.0)));
  }
  CHECK(maxdiff < 1e-6);
}

TEST_CASE("cli: tfx pe bad values say what was expected") {
  TempDir dir;
  struct Case {
    const char* args;
    const char* says;
  };
  for (Case c : {Case{"pe --len abc", "expected a whole number"}, Case{"pe --len 1e12", "got '1e12'"},
                 Case{"pe --len 1.5", "whole number"}, Case{"pe --len -3", "--len: expected a whole number ≥ 1, got '-3'"},
                 Case{"pe --len 0", "--len"}, Case{"pe --dim 0", "--dim"},
                 Case{"pe --len 99999999999999999999999", "99999999999999999999999 is past the largest value 1099511627776"},
                 Case{"pe --len 100000000 --dim 100000", "try smaller values"},
                 Case{"pe --len 100000000 --dim 100000", "--len 100000000 --dim 100000"},
                 Case{"pe --len 5 --pos 5 --i 0", "positions 0..4"}, Case{"pe --dim 4 --pos 0 --i 4", "dimensions 0..3"},
                 Case{"pe --pos -1 --i 0", "--pos"}, Case{"pe --dim 4 --pos 0 --i 99999999999999999999", "--i"},
                 Case{"pe --base 0", "expected a positive number"}, Case{"pe --base nan", "'nan'"},
                 Case{"pe --base -1", "'-1'"}, Case{"pe --format bogus", "bogus"},
                 Case{"pe --len 3 --dim 2 --precision 100", "--precision"}, Case{"pe --bogus", "--bogus"},
                 Case{"pe --len 3 --dim 2 -o ''", "got an empty one"}}) {
    CAPTURE(c.args);
    check_one_line_error(run_tfx(c.args, dir.path), 2, c.says);
  }
  CHECK(std::filesystem::is_empty(dir.path));
}

TEST_CASE("cli: tfx pe unwritable outputs: exit 1, path named, nothing left, old file untouched") {
  TempDir dir;
  std::filesystem::create_directory(dir / "sub");
  Run d = run_tfx("pe --len 4 --dim 4 -o sub", dir.path);  // a directory, not a file
  check_stderr(d, 1, "sub");
  CHECK(count_lines(d.err) == 1);

  write_file(dir / "old.csv", "keep me\n");
  Run bad = run_tfx("pe --len 0 --format csv -o old.csv", dir.path);
  CHECK(bad.code == 2);
  CHECK(read_file(dir / "old.csv") == "keep me\n");

  // a read-only directory: root may write anyway, so the check only binds for other users
  // (the /proc case in the test above binds for everyone)
  std::filesystem::create_directory(dir / "ro");
  REQUIRE(chmod((dir / "ro").c_str(), 0555) == 0);
  Run ro = run_tfx("pe --len 4 --dim 4 --png ro/pe.png", dir.path);
  if (geteuid() != 0) {
    check_stderr(ro, 1, "ro/pe.png");
    CHECK(count_lines(ro.err) == 1);
    CHECK(std::filesystem::is_empty(dir / "ro"));
  }
  chmod((dir / "ro").c_str(), 0755);
  std::filesystem::remove_all(dir / "ro");
  std::filesystem::remove(dir / "old.csv");
  std::filesystem::remove(dir / "sub");
  CHECK(std::filesystem::is_empty(dir.path));  // no output and no .tmp left behind
}

TEST_CASE("cli: tfx pe --png with --format json keeps stdout for the JSON; the notice goes to stderr") {
  TempDir dir;
  Run r = run_tfx("pe --len 3 --dim 4 --png --format json", dir.path);
  REQUIRE(r.code == 0);
  CHECK(std::filesystem::exists(dir / "pe_len3_dim4.png"));
  CHECK(r.err.find("wrote pe_len3_dim4.png") != std::string::npos);
  auto j = nlohmann::json::parse(r.out);  // throws (fails the test) if anything else is on stdout
  CHECK(j["shape"] == nlohmann::json::array({3, 4}));
  // --png alone: the path is the result, on stdout
  Run only = run_tfx("pe --len 3 --dim 4 --png", dir.path);
  CHECK(only.out.find("wrote pe_len3_dim4.png") != std::string::npos);
}
