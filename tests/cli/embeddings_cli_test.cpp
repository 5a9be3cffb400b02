// End-to-end tests of `tfx analogy` and `tfx embeddings info|convert`: results on the built-in
// and on hand-built files, flags, and every bad input of issue 5 (one error line naming the
// file and line, non-zero exit, nothing cached).
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "helpers.hpp"

using namespace tfx::test;

namespace {

// First data row's word of `tfx … --format csv` (rank,word,score).
std::string first_word(const std::string& csv) {
  const auto l1 = csv.find('\n');
  const auto c1 = csv.find(',', l1);
  const auto c2 = csv.find(',', c1 + 1);
  if (l1 == std::string::npos || c1 == std::string::npos || c2 == std::string::npos) return "";
  return csv.substr(c1 + 1, c2 - c1 - 1);
}

bool dir_empty(const std::filesystem::path& p) {
  return !std::filesystem::exists(p) || std::filesystem::is_empty(p);
}

// A GloVe file whose geometry makes the 3CosAdd query land exactly on queen: king, man, woman
// are unit vectors, so unit(king) − unit(man) + unit(woman) = (0.6, −0.2, 1, 0) = queen.
const char* kSmall =
    "king 0.6 0.8 0 0\n"
    "man 0 1 0 0\n"
    "woman 0 0 1 0\n"
    "queen 0.6 -0.2 1 0\n"
    "apple 0 0 0 1\n"
    "King 0.5 0.5 0.5 0.5\n";

// Score of `word` in `tfx … --format csv` output (last column), or NaN.
double score_of(const std::string& csv, const std::string& word) {
  const auto p = csv.find("," + word + ",");
  if (p == std::string::npos) return std::nan("");
  const auto e = csv.find('\n', p);
  const auto c = csv.rfind(',', e);
  return std::stod(csv.substr(c + 1, e - c - 1));
}

}  // namespace

TEST_CASE("tfx analogy on the built-in teaching embedding") {
  TempDir t;
  const std::string env = "XDG_CACHE_HOME=" + (t / "cache").string() + " TFX_EMBEDDINGS=";
  auto r = run_tfx("analogy king man woman --format csv", {}, env);
  REQUIRE(r.code == 0);
  CHECK(first_word(r.out) == "queen");
  CHECK(count_lines(r.out) == 6);  // header + 5
  CHECK(first_word(run_tfx("analogy paris france germany --format csv", {}, env).out) == "berlin");
  CHECK(first_word(run_tfx("analogy dogs dog cat --format csv", {}, env).out) == "cats");
  CHECK(first_word(run_tfx("analogy king man woman --method mul --format csv", {}, env).out) == "queen");
  auto table = run_tfx("analogy king man woman", {}, env);
  CHECK(table.out.find("constructed for teaching") != std::string::npos);
  auto j = run_tfx("analogy king man woman -k 2 --format json", {}, env);
  CHECK(j.out.find("\"best\":\"queen\"") != std::string::npos);
  CHECK(dir_empty(t / "cache"));  // the built-in is never cached
}

TEST_CASE("tfx analogy on a hand-built file: exact geometry, --keep-inputs, --ignore-case, -k") {
  TempDir t;
  write_file(t / "s.txt", kSmall);
  const std::string env = "XDG_CACHE_HOME=" + (t / "cache").string();
  const std::string f = " --embeddings " + shell_quote((t / "s.txt").string());
  auto r = run_tfx("analogy king man woman -k 1 --format csv" + f, {}, env);
  REQUIRE(r.code == 0);
  // queen = king − man + woman exactly: cosine 1
  CHECK(first_word(r.out) == "queen");
  CHECK(score_of(r.out, "queen") == doctest::Approx(1.0).epsilon(1e-6));
  // with the inputs kept: cos(king, m) = (0.36 − 0.16)/‖m‖, ‖m‖ = √1.4; cos(woman, m) = 1/√1.4
  auto keep = run_tfx("analogy king man woman -k 6 --keep-inputs --format csv" + f, {}, env);
  CHECK(score_of(keep.out, "king") == doctest::Approx(0.2 / std::sqrt(1.4)).epsilon(1e-6));
  CHECK(score_of(keep.out, "woman") == doctest::Approx(1.0 / std::sqrt(1.4)).epsilon(1e-6));
  CHECK(std::isnan(score_of(r.out, "king")));
  // a cache was written on the first call, and used on the second
  CHECK(!dir_empty(t / "cache"));
  auto info = run_tfx("embeddings info --format csv" + f, {}, env);
  CHECK(info.out.find("cache,hit") != std::string::npos);
  // case: "KING" is not a word; with --ignore-case the exact "king" wins over "King"
  auto oov = run_tfx("analogy KING man woman" + f, {}, env);
  check_stderr(oov, 1, "--ignore-case");
  auto ic = run_tfx("analogy KING man woman -k 1 --ignore-case --format csv" + f, {}, env);
  CHECK(first_word(ic.out) == "queen");
  CHECK(score_of(ic.out, "queen") == doctest::Approx(1.0).epsilon(1e-6));
  // TFX_EMBEDDINGS instead of --embeddings
  auto envr = run_tfx("analogy king man woman -k 1 --format csv", {}, env + " TFX_EMBEDDINGS=" + shell_quote((t / "s.txt").string()));
  CHECK(envr.out == r.out);
}

TEST_CASE("tfx analogy --queries: FILE and stdin, one load, errors name the line") {
  TempDir t;
  write_file(t / "q.txt", ": family\nking man woman\n\n# comment line here\nparis france germany berlin\n");
  auto r = run_tfx("analogy --queries " + shell_quote((t / "q.txt").string()) + " -k 1 --format csv", {}, "TFX_EMBEDDINGS=");
  REQUIRE(r.code == 0);
  CHECK(r.out == "a,b,c,rank,word,cosine\n" + r.out.substr(23));
  CHECK(r.out.find("king,man,woman,1,queen,") != std::string::npos);
  CHECK(r.out.find("paris,france,germany,1,berlin,") != std::string::npos);
  auto s = run_tfx("analogy --queries - -k 1 --format csv", {}, "TFX_EMBEDDINGS=", (t / "q.txt").string());
  CHECK(s.out == r.out);
  write_file(t / "bad.txt", "king man woman\nking man kweeen\n");
  auto b = run_tfx("analogy --queries " + shell_quote((t / "bad.txt").string()), {}, "TFX_EMBEDDINGS=");
  check_stderr(b, 0, "bad.txt:2: 'kweeen' is not in the vocabulary");  // the unknown word skips its line only (tests/batch_test.cpp)
  write_file(t / "two.txt", "king man\n");
  auto two = run_tfx("analogy --queries " + shell_quote((t / "two.txt").string()), {}, "TFX_EMBEDDINGS=");
  check_stderr(two, 1, "two.txt:1:");
}

TEST_CASE("tfx analogy: bad queries") {
  auto oov = run_tfx("analogy kng man woman", {}, "TFX_EMBEDDINGS=");
  CHECK(oov.code == 1);
  CHECK(count_lines(oov.err) == 1);
  CHECK(oov.err.find("'kng' is not in the vocabulary") != std::string::npos);
  CHECK(oov.err.find("close spellings: 'king'") != std::string::npos);
  auto same = run_tfx("analogy king king king", {}, "TFX_EMBEDDINGS=");
  CHECK(same.code == 2);
  CHECK(count_lines(same.err) == 1);
  CHECK(run_tfx("analogy king man", {}, "TFX_EMBEDDINGS=").code == 2);
  CHECK(run_tfx("analogy king man woman -k 0", {}, "TFX_EMBEDDINGS=").code == 2);
  CHECK(run_tfx("analogy king man woman --method sub", {}, "TFX_EMBEDDINGS=").code == 2);
  CHECK(run_tfx("analogy king man woman --embeddings-format xml", {}, "TFX_EMBEDDINGS=").code == 2);
}

TEST_CASE("bad embedding files: one line naming file (and line), non-zero exit, nothing cached") {
  TempDir t;
  const auto cache = t / "cache";
  const std::string env = "XDG_CACHE_HOME=" + cache.string();
  auto check_bad = [&](const std::string& name, const std::string& content, const std::string& expect) {
    CAPTURE(name);
    if (!content.empty() || name == "empty.txt") write_file(t / name, content);
    auto r = run_tfx("analogy a b c --embeddings " + shell_quote((t / name).string()), {}, env);
    CHECK(r.code == 1);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.rfind("tfx: error: ", 0) == 0);
    CHECK_MESSAGE(r.err.find(expect) != std::string::npos, r.err);
    CHECK(r.out.empty());
    CHECK(dir_empty(cache));
  };
  check_bad("empty.txt", "", "empty.txt: empty file");
  std::filesystem::create_directory(t / "adir");
  check_bad("adir", "", "adir is a directory");
  check_bad("missing.txt", "", "missing.txt: no such file");
  check_bad("h3.txt", "3 2\na 1 2\nb 3 4\n", "h3.txt:4: the header (line 1) says 3 words, but the file ends after 2");
  check_bad("h0.txt", "2 0\na\nb\n", "h0.txt:1: the header says 2 words of 0 dimensions");
  check_bad("hneg.txt", "2 -3\na 1 2 3\n", "hneg.txt:1: the header says 2 words of -3 dimensions");
  check_bad("ragged.txt", "a 1 2 3\nb 1 2 3\nc 1 2\n", "ragged.txt:3: the row for 'c' has 2 numbers, expected 3");
  check_bad("dots.txt", "a 1 2\nb 0.1.2 3\n", "dots.txt:2: '0.1.2' in the row for 'b' (number 1 of 2) is not a number");
  check_bad("abc.txt", "a 1 2\nb 1 abc\n", "abc.txt:2: 'abc' in the row for 'b' (number 2 of 2) is not a number");
  check_bad("nan.txt", "a 1 2\nb NaN 1\n", "nan.txt:2: 'NaN'");
  check_bad("inf.txt", "a 1 2\nb 1 inf\n", "inf.txt:2: 'inf' in the row for 'b' (number 2 of 2): NaN and infinite values are not allowed");
  std::string bin = "2 3\na ";
  bin += std::string(12, '\0');
  bin += "b ";
  bin += std::string(5, '\0');
  check_bad("trunc.bin", bin, "trunc.bin: row 2 (byte 18, 'b'): truncated: 12 bytes of float32 expected, 5 remain");
  check_bad("huge.bin", "1000000000000 10\nw " + std::string(40, '\x01'), "huge.bin:1: the header says 1000000000000 words");
  check_bad("corrupt.gz", std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage!garbage!", 26), "corrupt.gz: corrupt gzip data");
  // a 10 MB single line: numbers (a 2.5-million-dimension "row") and text
  std::string longnum;
  longnum.reserve(10'000'000);
  while (longnum.size() < 10'000'000) longnum += "0.1 ";
  check_bad("long.txt", "w " + longnum, "long.txt:1: a line of");
  check_bad("longword.txt", std::string(10'000'000, 'x') + "\n", "longword.txt:1: expected a word followed by its numbers");
}

TEST_CASE("a truncated gzip file and a gzip file cut mid-stream") {
  TempDir t;
  std::string text;
  for (int i = 0; i < 2000; ++i) {
    text += 'w';
    text += std::to_string(i);
    text += " 0.5 0.25 -1\n";
  }
  write_file(t / "v.txt", text);
  REQUIRE(std::system(("gzip -k " + shell_quote((t / "v.txt").string())).c_str()) == 0);
  const std::string gz = read_file(t / "v.txt.gz");
  write_file(t / "cut.txt.gz", gz.substr(0, gz.size() / 2));
  auto r = run_tfx("embeddings info " + shell_quote((t / "cut.txt.gz").string()), {}, "XDG_CACHE_HOME=" + (t / "cache").string());
  check_stderr(r, 1, "cut.txt.gz: truncated gzip data");
  CHECK(dir_empty(t / "cache"));
  auto ok = run_tfx("embeddings info --format csv " + shell_quote((t / "v.txt.gz").string()), {}, "XDG_CACHE_HOME=" + (t / "cache").string());
  check_stdout(ok, 0, "words,2000");
  CHECK(ok.out.find("glove (gzip)") != std::string::npos);
}

TEST_CASE("invalid UTF-8 and duplicate words: loaded, warned once, output does not crash") {
  TempDir t;
  write_file(t / "u.txt", "king 1 1 0\nman 0 1 0\nwoman 0 0 1\nq\xff\xfen 1 0 1\nman 5 5 5\nman 6 6 6\n");
  const std::string env = "XDG_CACHE_HOME=" + (t / "cache").string();
  auto r = run_tfx("analogy king man woman -k 1 --format json --embeddings " + shell_quote((t / "u.txt").string()), {}, env);
  check_stdout(r, 0, "\"best\":\"q");
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find("warning: ") != std::string::npos);
  CHECK(r.err.find("2 duplicate words dropped") != std::string::npos);
  CHECK(r.err.find("'man' (line 5)") != std::string::npos);
  // the cached load warns the same
  auto again = run_tfx("analogy king man woman -k 1 --format csv --embeddings " + shell_quote((t / "u.txt").string()), {}, env);
  CHECK(again.err.find("2 duplicate words dropped") != std::string::npos);
}

TEST_CASE("tfx embeddings info and convert") {
  TempDir t;
  const std::string env = "XDG_CACHE_HOME=" + (t / "cache").string() + " TFX_EMBEDDINGS=";
  auto b = run_tfx("embeddings info", {}, env);
  REQUIRE(b.code == 0);
  CHECK(b.out.find("CONSTRUCTED FOR TEACHING") != std::string::npos);
  CHECK(b.out.find("--embeddings glove.6B.100d.txt") != std::string::npos);
  CHECK(b.out.find("royalty") != std::string::npos);
  write_file(t / "s.txt", kSmall);
  const std::string s = shell_quote((t / "s.txt").string());
  auto i1 = run_tfx("embeddings info --format csv " + s, {}, env);
  CHECK(i1.out.find("format,glove") != std::string::npos);
  CHECK(i1.out.find("words,6") != std::string::npos);
  CHECK(i1.out.find("cache,written") != std::string::npos);
  auto nc = run_tfx("embeddings info --no-cache --format csv " + s, {}, env);
  CHECK(nc.out.find("cache,disabled (--no-cache)") != std::string::npos);
  // convert to a tfx table and to word2vec binary; both answer the same query
  const std::string tbl = shell_quote((t / "s.tfx").string()), w2v = shell_quote((t / "s.bin").string());
  CHECK(run_tfx("embeddings convert " + s + " " + tbl, {}, env).code == 0);
  CHECK(run_tfx("embeddings convert " + s + " " + w2v + " --to-format word2vec-bin", {}, env).code == 0);
  for (const auto& f : {tbl, w2v}) {
    auto r = run_tfx("analogy king man woman -k 1 --format csv --no-cache --embeddings " + f, {}, env);
    CHECK(first_word(r.out) == "queen");
    CHECK(score_of(r.out, "queen") == doctest::Approx(1.0).epsilon(1e-6));
  }
  auto ti = run_tfx("embeddings info --format csv " + tbl, {}, env);
  CHECK(ti.out.find("format,tfx") != std::string::npos);
  // a corrupt table given directly is an error, not a crash
  std::string bytes = read_file(t / "s.tfx");
  write_file(t / "bad.tfx", bytes.substr(0, bytes.size() - 8));
  auto bad = run_tfx("embeddings info " + shell_quote((t / "bad.tfx").string()), {}, env);
  check_stderr(bad, 1, "bad.tfx: not a usable tfx table");
  CHECK(run_tfx("embeddings convert " + s + " " + s, {}, env).code == 2);
  CHECK(run_tfx("embeddings convert " + s + " x --to-format xml", {}, env).code == 2);
}

TEST_CASE("cli: a pipe as --embeddings is read whole and never cached (no stale hit for the next pipe)") {
  TempDir t;
  const std::string env = "XDG_CACHE_HOME=" + (t / "cache").string();
  const auto fifo = t / "vectors.fifo";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  // feeds `text` to the FIFO in a child process (open blocks until tfx opens the other end)
  auto query = [&](const std::string& text) {
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      std::FILE* f = std::fopen(fifo.c_str(), "w");
      if (f) {
        std::fputs(text.c_str(), f);
        std::fclose(f);
      }
      _exit(0);
    }
    Run r = run_tfx("analogy king man woman -k 1 --format csv --embeddings " + shell_quote(fifo.string()), {}, env);
    int status = 0;
    waitpid(child, &status, 0);
    return r;
  };
  // unit(king) − unit(man) + unit(woman) = (1,0) − (0,1) + (1,1)/√2 = (1.71, −0.29): the word at (1,0)
  // wins (cosine 0.99; the one at (0,1) has −0.17). The second pipe swaps queen and prince.
  Run a = query("king 1 0\nman 0 1\nwoman 1 1\nqueen 1 0\nprince 0 1\n");
  REQUIRE(a.code == 0);
  CHECK(a.out.find("queen") != std::string::npos);
  CHECK(a.out.find("prince") == std::string::npos);
  Run b = query("king 1 0\nman 0 1\nwoman 1 1\nqueen 0 1\nprince 1 0\n");
  REQUIRE(b.code == 0);
  CHECK(b.out.find("prince") != std::string::npos);
  const bool no_cache = !std::filesystem::exists(t / "cache" / "tfx") || std::filesystem::is_empty(t / "cache" / "tfx");
  CHECK(no_cache);
}

TEST_CASE("cli: empty file names and a device or directory as convert's OUT are usage errors") {
  TempDir t;
  const std::string env = "XDG_CACHE_HOME=" + (t / "cache").string();
  write_file(t / "v.txt", "king 1 0\nman 0 1\n");
  // '' used to mean the built-in embedding silently
  for (const char* args : {"analogy king man woman --embeddings ''", "embeddings info ''", "embeddings convert '' x.tfx"}) {
    Run r = run_tfx(args, t.path, env);
    check_stderr(r, 2, "expected a file name, got an empty one");
  }
  CHECK(!std::filesystem::exists(t / "x.tfx"));
  // renaming OUT.tmp.PID over /dev/null would replace the device (as root) with a regular file
  Run dev = run_tfx("embeddings convert v.txt /dev/null", t.path, env);
  check_stderr(dev, 2, "'/dev/null' is a device or pipe");
  struct stat st {};
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  std::filesystem::create_directory(t / "d");
  Run dir = run_tfx("embeddings convert v.txt d --to-format glove", t.path, env);
  check_stderr(dir, 2, "'d' is a directory");
  CHECK(count_lines(dir.err) == 1);
}

TEST_CASE("cli: binary junk in an embedding file is shown as \\xNN in the one-line error, UTF-8 words as they are") {
  TempDir t;
  write_file(t / "junk2.txt", std::string("\x1b[31mred 1 \x0d\x07\n"));
  write_file(t / "utf.txt", "caf\xc3\xa9 1 x\n");
  Run j = run_tfx("embeddings info --no-cache junk2.txt", t.path);
  CHECK(j.code == 1);
  CHECK(count_lines(j.err) == 1);
  CHECK(j.err.find('\x1b') == std::string::npos);
  CHECK(j.err.find("\\x1b[31mred") != std::string::npos);
  Run u = run_tfx("embeddings info --no-cache utf.txt", t.path);
  check_stderr(u, 1, "'café'");
}

TEST_CASE("cli: a $TFX_EMBEDDINGS naming a missing file is reported as $TFX_EMBEDDINGS; --embeddings overrides it") {
  TempDir t;
  write_file(t / "v.txt", "king 1 0\nman 0 1\nwoman 1 1\nqueen 2 0\n");
  const std::string env = "XDG_CACHE_HOME=" + (t / "cache").string() + " TFX_EMBEDDINGS=" + (t / "gone.txt").string();
  Run r = run_tfx("analogy king man woman", t.path, env);
  check_stderr_starts(r, 1, "tfx: error: $TFX_EMBEDDINGS is ");
  CHECK(r.err.find("gone.txt: no such file") != std::string::npos);
  Run ok = run_tfx("analogy king man woman -k 1 --embeddings v.txt", t.path, env);
  check_stdout(ok, 0, "queen");
}

TEST_CASE("cli: analogy --queries with a directory or a missing file says which") {
  TempDir t;
  std::filesystem::create_directory(t / "d");
  Run d = run_tfx("analogy --queries d", t.path);
  CHECK(d.code == 1);  // a bad input file is a data error, whichever flag names it
  CHECK(d.err.find("tfx: error: --queries d: is a directory") == 0);  // was "d: no queries"
  Run m = run_tfx("analogy --queries missing.txt", t.path);
  check_stderr(m, 1, "no such file");
}

TEST_CASE("cli: analogy over a vocabulary of only A, B, C is an error, not an empty table with exit 0") {
  TempDir t;
  write_file(t / "three.txt", "king 1 0\nman 0 1\nwoman 1 1\n");
  const std::string env = "XDG_CACHE_HOME=" + (t / "cache").string();
  Run r = run_tfx("analogy king man woman --embeddings three.txt", t.path, env);
  check_stderr_starts(r, 1, "tfx: error: three.txt has no word besides king, man, woman");
  // with the inputs kept, the answer is king: unit(A) − unit(B) + unit(C) = (1.71, −0.29), nearest (1, 0)
  Run keep = run_tfx("analogy king man woman --embeddings three.txt --keep-inputs -k 1 --format csv", t.path, env);
  check_stdout(keep, 0, "1,king,");
}
