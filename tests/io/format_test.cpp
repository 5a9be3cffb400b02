// Output layer: table summaries, CSV quoting, JSON schema, Markdown, npy header, emit's
// temp-file-and-rename.
#include <nlohmann/json.hpp>

#include <pty.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

#include "helpers.hpp"
#include "tfx/io/format.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {
Result sample(std::size_t rows, std::size_t cols) {
  Matrix m;
  m.name = "m";
  m.values = Tensor({rows, cols});
  for (std::size_t i = 0; i < m.values.size(); ++i) m.values[i] = static_cast<float>(i);
  m.row_axis = "r";
  m.col_axis = "c";
  Result r;
  r.command = "test";
  r.params = {{"rows", rows}};
  r.blocks.push_back(m);
  return r;
}
}  // namespace

TEST_CASE("table: small matrices in full, big ones summarised with … unless --full") {
  OutputOptions o;
  std::string small = encode_table(sample(3, 4), o);
  CHECK(small.find("…") == std::string::npos);
  CHECK(small.find("11.0000") != std::string::npos);  // last element 3·4−1
  std::string big = encode_table(sample(100, 100), o);
  CHECK(big.find("…") != std::string::npos);
  CHECK(count_lines(big) < 30);
  CHECK(big.find("9999.0000") != std::string::npos);  // the last element is shown
  o.full = true;
  std::string full = encode_table(sample(100, 100), o);
  CHECK(full.find("…") == std::string::npos);
  CHECK(count_lines(full) == 1 + 1 + 100);  // title, header, rows
}

TEST_CASE("table: masked cells are marked, tiny values switch to scientific notation") {
  Result r = sample(2, 2);
  auto& m = std::get<Matrix>(r.blocks[0]);
  m.masked = {0, 1, 0, 0};
  m.values[1] = 0;
  std::string t = encode_table(r, {});
  CHECK(t.find("0.0000*") != std::string::npos);
  CHECK(t.find("masked") != std::string::npos);
  Result tiny = sample(1, 2);
  std::get<Matrix>(tiny.blocks[0]).values[1] = 0.000123f;
  CHECK(encode_table(tiny, {}).find("1.2300e-04") != std::string::npos);
}

TEST_CASE("table: --precision 2 keeps fixed notation; only a value that would print as 0 is scientific (issue 37)") {
  Result r = sample(2, 2);
  auto& v = std::get<Matrix>(r.blocks[0]).values;
  v[0] = 0.247f, v[1] = -0.00356f, v[2] = 0.11f, v[3] = 1.0f;  // column 1: -0.00356 and 1.0
  OutputOptions o;
  o.precision = 2;
  const std::string t = encode_table(r, o);
  CAPTURE(t);
  CHECK(t.find("0.25") != std::string::npos);       // not 2.47e-01
  CHECK(t.find("2.47e-01") == std::string::npos);
  CHECK(t.find("-3.56e-03") != std::string::npos);  // 0.00 would hide it
  CHECK(t.find("1.00") != std::string::npos);       // its column neighbour stays fixed
  CHECK(t.find("1.00e+00") == std::string::npos);
}

TEST_CASE("csv: header row, labels, quoting; records") {
  Result r = sample(2, 2);
  std::get<Matrix>(r.blocks[0]).row_labels = {"a,b", "say \"hi\""};
  OutputOptions o;
  CHECK(encode_csv(r, o) == "r,0,1\n\"a,b\",0,1\n\"say \"\"hi\"\"\",2,3\n");
  Result rec;
  rec.command = "x";
  rec.blocks.push_back(Records{"top", {"rank", "word", "score"}, {{1LL, std::string("queen"), 0.5}}});
  CHECK(encode_csv(rec, o) == "rank,word,score\n1,queen,0.5\n");
}

TEST_CASE("json: command, params, shape, data; NaN becomes null") {
  Result r = sample(2, 3);
  std::get<Matrix>(r.blocks[0]).values[0] = std::nanf("");
  r.summary["max_error"] = 1e-7;
  auto j = nlohmann::json::parse(encode_json(r, {}));
  CHECK(j["command"] == "test");
  CHECK(j["params"]["rows"] == 2);
  CHECK(j["shape"] == nlohmann::json::array({2, 3}));
  CHECK(j["data"][1][2] == 5.0);
  CHECK(j["data"][0][0].is_null());
  CHECK(j["summary"]["max_error"] == 1e-7);
}

TEST_CASE("json: floats are written as their shortest round-trip decimal") {
  Result r = sample(1, 1);
  std::get<Matrix>(r.blocks[0]).values[0] = 0.1f;
  CHECK(encode_json(r, {}).find("[[0.1]]") != std::string::npos);
}

TEST_CASE("markdown: a pipe table") {
  std::string md = encode_markdown(sample(2, 2), {});
  CHECK(md.find("| r\\c | 0 | 1 |") != std::string::npos);
  CHECK(md.find("| --- | ---: | ---: |") != std::string::npos);
}

TEST_CASE("npy: the whole file for rank 1 and rank 3 shapes, as NumPy's format 1.0 specifies it") {
  // NEP 1 / numpy.lib.format: "\x93NUMPY", major 1, minor 0, a little-endian u16 header length,
  // an ASCII dict padded with spaces and ended by '\n' so that data starts at a multiple of 64,
  // then the C-order values ('<f4': little-endian float32).
  auto check_file = [](const Tensor& t, const std::string& shape) {
    const std::string b = encode_npy(t);
    REQUIRE(b.size() >= 10);
    CHECK(b.substr(0, 6) == std::string("\x93NUMPY", 6));
    CHECK(b[6] == 1);
    CHECK(b[7] == 0);
    const std::size_t hl = static_cast<unsigned char>(b[8]) | static_cast<std::size_t>(static_cast<unsigned char>(b[9])) << 8;
    CHECK((10 + hl) % 64 == 0);
    REQUIRE(b.size() == 10 + hl + 4 * t.size());
    const std::string header = b.substr(10, hl);
    const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
    CHECK(header.substr(0, dict.size()) == dict);
    CHECK(header.back() == '\n');
    CHECK(header.find_first_not_of(' ', dict.size()) == hl - 1);  // only padding between dict and '\n'
    for (std::size_t i = 0; i < t.size(); ++i) {
      const auto* p = reinterpret_cast<const unsigned char*>(b.data() + 10 + hl + 4 * i);
      const std::uint32_t bits = p[0] | p[1] << 8 | p[2] << 16 | static_cast<std::uint32_t>(p[3]) << 24;  // little-endian
      float v;
      std::memcpy(&v, &bits, 4);
      CHECK(v == t[i]);
    }
  };
  Tensor v({3});
  for (std::size_t i = 0; i < 3; ++i) v[i] = 1.5f * static_cast<float>(i) - 2.0f;
  check_file(v, "(3,)");  // a 1-tuple keeps its comma in Python
  Tensor c({2, 3, 4});
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = 0.25f * static_cast<float>(i) - 3.0f;  // C order: index i = (a·3 + b)·4 + k
  check_file(c, "(2, 3, 4)");
}

TEST_CASE("npy of a result without a matrix is a usage error") {
  Result rec;
  rec.command = "x";
  rec.blocks.push_back(Records{"t", {"a"}, {{1LL}}});
  CHECK_THROWS_AS(encode_npy(rec), Error);
}

TEST_CASE("emit: writes through a temporary file and leaves nothing on failure") {
  TempDir dir;
  emit("hello", (dir / "out.txt").string(), false);
  CHECK(read_file(dir / "out.txt") == "hello");
  CHECK(!std::filesystem::exists(dir / "out.txt.tmp"));
  CHECK_THROWS_AS(emit("x", (dir / "missing" / "out.txt").string(), false), Error);
  CHECK(!std::filesystem::exists(dir / "missing"));
}

TEST_CASE("parse_format rejects unknown names") {
  CHECK(parse_format("csv") == Format::csv);
  CHECK_THROWS_AS(parse_format("bogus"), Error);
}

TEST_CASE("cli: -o and --png to a device write in place; to a directory, refused with nothing left") {
  // Renaming FILE.tmp over /dev/null would replace the device with a regular file (as root) or fail.
  Run null = run_tfx("pe --len 3 --dim 4 -o /dev/null");
  CHECK(null.code == 0);
  CHECK(null.err.empty());
  struct stat st {};
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  Run full = run_tfx("pe --len 3 --dim 4 --format csv -o /dev/full");
  check_stderr_starts(full, 1, "tfx: error: -o /dev/full: cannot write");
  CHECK(count_lines(full.err) == 1);

  TempDir dir;
  std::filesystem::create_directory(dir / "sub");
  Run d = run_tfx("pe --len 3 --dim 4 -o sub", dir.path);
  check_stderr(d, 1, "-o sub: cannot write: it is a directory");
  Run png = run_tfx("pe --len 3 --dim 4 --png sub", dir.path);
  check_stderr(png, 1, "--png sub: cannot write: it is a directory");
  CHECK(!std::filesystem::exists(dir / "sub.tmp"));
}

TEST_CASE("cli: --format npy to a terminal is refused, naming --format npy") {
  // script(1) is not needed: a pty from openpty makes stdout a terminal
  int master = -1, slave = -1;
  if (openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) {
    MESSAGE("no pty available; skipped");
    return;
  }
  TempDir io;
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    dup2(slave, STDOUT_FILENO);
    std::freopen((io / "err").c_str(), "w", stderr);
    execl(TFX_BINARY, "tfx", "pe", "--len", "2", "--dim", "2", "--format", "npy", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(slave);
  int status = 0;
  waitpid(child, &status, 0);
  close(master);
  CHECK(WEXITSTATUS(status) == 2);
  CHECK(read_file(io / "err") ==
        "tfx: error: --format npy -o -: refusing to write binary output to a terminal; give a file name or pipe it\n");
}

TEST_CASE("cli: csv/json/--full of more than 2^25 numbers is refused with a pointer to npy") {
  // 8193 × 4096 = 33,558,528 > 2^25 = 33,554,432; 8192 × 4096 is exactly 2^25 and allowed
  Run big = run_tfx("pe --len 8193 --dim 4096 --format csv -o out.csv");
  check_stderr_starts(big, 2, "tfx: error: --format csv would write 3.36e+07 numbers as text");
  Run full = run_tfx("pe --len 8193 --dim 4096 --full");
  check_stderr(full, 2, "--full would write");
  CHECK(run_tfx("pe --len 8193 --dim 4096").code == 0);  // the summary table is small
}

TEST_CASE("cli: -o FILE without --format takes the format from FILE's extension") {
  TempDir dir;
  REQUIRE(run_tfx("pe --len 3 --dim 4 -o x.csv", dir.path).code == 0);
  const std::string csv = read_file(dir / "x.csv");
  CHECK(csv.rfind("pos,", 0) == 0);  // a CSV header row, not a table title
  CHECK(count_lines(csv) == 4);       // header + 3 positions
  REQUIRE(run_tfx("pe --len 3 --dim 4 -o x.npy", dir.path).code == 0);
  CHECK(read_file(dir / "x.npy").rfind("\x93NUMPY", 0) == 0);
  REQUIRE(run_tfx("pe --len 3 --dim 4 -o x.json", dir.path).code == 0);
  CHECK(read_file(dir / "x.json").front() == '{');
  // an explicit --format wins over the extension; .txt keeps the table; an extension that names
  // no format is refused (it used to get a table silently)
  REQUIRE(run_tfx("pe --len 3 --dim 4 --format json -o y.csv", dir.path).code == 0);
  CHECK(read_file(dir / "y.csv").front() == '{');
  REQUIRE(run_tfx("pe --len 3 --dim 4 -o t.txt", dir.path).code == 0);
  CHECK(read_file(dir / "t.txt").find("pos\\i") != std::string::npos);
  check_one_line_error(run_tfx("pe --len 3 --dim 4 -o t.xlsx", dir.path), 2,
                       "-o t.xlsx: '.xlsx' names no output format; use .csv, .json, .npy or .md");
  CHECK(!std::filesystem::exists(dir / "t.xlsx"));
  REQUIRE(run_tfx("pe --len 3 --dim 4 --format csv -o t.tsv", dir.path).code == 0);
}
