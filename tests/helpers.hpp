// Test helpers: run the built tfx binary and capture its exit code, stdout and stderr (json_of:
// its JSON output; check_stdout, check_stderr, check_wrote: what a run must have done); a fresh
// temporary directory per test; matrix CSV cells against a formula; the path of ../shared/data
// (tests that need it skip with a message when it is absent).
#pragma once
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace tfx::test {

struct Run {
  int code = -1;
  std::string out, err;
};

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
}

// A GloVe file of `n` words (w0, w1, …) × `d` dimensions (values from a fixed integer sequence,
// "-123e-3"), about 380 bytes a row for d = 50: the big file of tests that need several windows.
inline void write_glove(const std::filesystem::path& p, int n, int d) {
  std::ofstream f(p);
  unsigned x = 12345;
  for (int i = 0; i < n; ++i) {
    f << "w" << i;
    for (int j = 0; j < d; ++j) {
      x = x * 1103515245u + 12345u;
      f << ' ' << static_cast<int>((x >> 16) % 2001) - 1000 << "e-3";
    }
    f << '\n';
  }
}

// A temporary directory removed at scope exit.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "tfx-test-XXXXXX").string();
    char* p = mkdtemp(tmpl.data());
    REQUIRE(p != nullptr);
    path = p;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::filesystem::path operator/(const std::string& name) const { return path / name; }
};

inline std::string shell_quote(const std::string& s) {
  std::string o = "'";
  for (char c : s) {
    if (c == '\'') o += "'\\''";
    else o += c;
  }
  return o + "'";
}

// Runs `tfx ARGS` (args is a shell fragment, e.g. "pe --len 4 --dim 4") in `cwd` with `env`
// prefixed (e.g. "NO_COLOR=1"); stdin from /dev/null unless `stdin_file` is given.
inline Run run_tfx(const std::string& args, const std::filesystem::path& cwd = {}, const std::string& env = "",
                   const std::string& stdin_file = "/dev/null") {
  TempDir io;
  std::string cmd;
  if (!cwd.empty()) cmd += "cd " + shell_quote(cwd.string()) + " && ";
  cmd += "env " + env + " " + shell_quote(TFX_BINARY) + " " + args + " <" + shell_quote(stdin_file) + " >" +
         shell_quote((io / "out").string()) + " 2>" + shell_quote((io / "err").string());
  int status = std::system(cmd.c_str());
  Run r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(io / "out");
  r.err = read_file(io / "err");
  return r;
}

// True when `part` occurs in s.
inline bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The message of the exception (a tfx::Error, or any std::exception) that f throws; "" when none.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// A matrix CSV as tfx writes it: a header row, then rows of a numeric label and numbers. Each row's
// cells as numbers, the label first.
struct CsvNumbers {
  std::string header;
  std::vector<std::vector<double>> rows;
};
inline CsvNumbers read_csv_numbers(const std::string& text) {
  CsvNumbers t;
  std::istringstream in(text);
  std::getline(in, t.header);
  for (std::string line; std::getline(in, line);) {
    std::istringstream cells(line);
    std::vector<double> row;
    for (std::string cell; std::getline(cells, cell, ',');) row.push_back(std::stod(cell));
    t.rows.push_back(std::move(row));
  }
  return t;
}

// The matrix CSV of `tfx ARGS --format csv -o FILE` run in `dir` (the run must succeed).
inline CsvNumbers csv_of(const TempDir& dir, const std::string& args, const std::string& file) {
  Run r = run_tfx(args + " --format csv -o " + file, dir.path);
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  return read_csv_numbers(read_file(dir / file));
}

// The largest |cell − want(pos, j)| of a matrix CSV whose rows are a position and `cols` numbers
// (each row must have them).
template <class Want>
double csv_max_diff(const CsvNumbers& csv, std::size_t cols, Want want) {
  double m = 0;
  for (const auto& row : csv.rows) {
    REQUIRE(row.size() == 1 + cols);
    const int p = static_cast<int>(row[0]);
    for (std::size_t j = 0; j < cols; ++j) m = std::max(m, std::abs(row[1 + j] - want(p, static_cast<int>(j))));
  }
  return m;
}

// Number of lines in s.
inline int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// The JSON a successful run printed (the run must succeed; its stderr is shown when it did not).
inline nlohmann::json json_of(const Run& r) {
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  return nlohmann::json::parse(r.out);
}

// A run that exits with `code` and prints `part` on stdout.
inline void check_stdout(const Run& r, int code, const std::string& part) {
  CAPTURE(r.err);
  CHECK(r.code == code);
  CHECK(r.out.find(part) != std::string::npos);
}
// A run that succeeds and leaves `file` behind.
inline void check_wrote(const Run& r, const std::filesystem::path& file) {
  CAPTURE(r.err);
  CHECK(r.code == 0);
  CHECK(std::filesystem::exists(file));
}
// A run that exits with `code` and says `part` on stderr (check_stderr_starts: stderr begins with
// `prefix`).
inline void check_stderr(const Run& r, int code, const std::string& part) {
  CAPTURE(r.err);
  CHECK(r.code == code);
  CHECK(r.err.find(part) != std::string::npos);
}
inline void check_stderr_starts(const Run& r, int code, const std::string& prefix) {
  CAPTURE(r.err);
  CHECK(r.code == code);
  CHECK(r.err.find(prefix) == 0);
}

// The conventions' bad-input outcome: exit `code`, stderr exactly one line that starts with
// "tfx: error: " and contains `part`, nothing on stdout.
inline void check_one_line_error(const Run& r, int code, const std::string& part = "") {
  CAPTURE(r.err);
  CHECK(r.code == code);
  CHECK(r.err.rfind("tfx: error: ", 0) == 0);
  CHECK(has(r.err, part));
  CHECK(count_lines(r.err) == 1);
  CHECK(r.out.empty());
}

// Files below `dir` whose name says they are temporaries (".tmp"): what an interrupted or failed
// write must not leave behind.
inline std::vector<std::string> temporaries(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    if (it->path().filename().string().find(".tmp") != std::string::npos) out.push_back(it->path().string());
  return out;
}

// ../shared/data, or empty when absent: then the case prints "TFX-SKIP: <reason>", which ctest
// reports as skipped (cmake/tests/doctest_ctest.cmake), and the caller returns.
inline std::filesystem::path shared_data(const char* file = nullptr) {
  const char* env = std::getenv("TFX_SHARED_DATA");  // lets a run pretend ../shared is absent
  std::filesystem::path dir = env ? env : TFX_SHARED_DATA;
  std::filesystem::path p = file ? dir / file : dir;
  if (!std::filesystem::exists(p)) {
    std::cout << "TFX-SKIP: " << p.string() << " is absent (../shared/data is not checked out beside the repo)\n";
    return {};
  }
  return p;
}

// True in the sanitizer build (AddressSanitizer, with UBSan; cmake --preset asan): the one place the
// tests ask, for the limits ASan changes (an address-space rlimit cannot apply under its shadow
// memory) and the time it takes.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizerBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitizerBuild = true;
#else
inline constexpr bool kSanitizerBuild = false;
#endif
#else
inline constexpr bool kSanitizerBuild = false;
#endif

// In the sanitizer build, a case whose point is what a long training run reaches
// (held-out accuracy, attention that sharpens) prints "TFX-SKIP: <reason>" — reported as skipped —
// and the caller returns: the Release suite checks the outcome, and the same training code runs
// under the sanitizers in the short training cases (a few steps each), where a memory error would
// show as well. Outside the sanitizer build it returns false and the case runs.
inline bool skip_learning_outcome_under_sanitizer() {
  if (kSanitizerBuild)
    std::cout << "TFX-SKIP: a learning outcome, checked by the Release suite (under the sanitizers training is 10-20 times "
                 "slower; the short training cases run this code)\n";
  return kSanitizerBuild;
}

}  // namespace tfx::test
