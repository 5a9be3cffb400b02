// Nothing tfx writes damages the files around it (issue: safe output writing): -o through this
// process's own descriptors (never renamed onto), through symlinks (the link stays, its target is
// written), onto a read-only file (refused for a user, as cp and a shell do; mode kept), with a
// planted symlink where a fixed temporary name used to be, two runs writing one file at once,
// 255-byte names, and SIGINT/SIGTERM/SIGHUP in the middle of a first cache load or a write.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <thread>

#include "helpers.hpp"

using namespace tfx::test;
namespace fs = std::filesystem;

namespace {

std::string pe_csv() {
  const Run r = run_tfx("pe --len 3 --dim 4 --format csv");
  REQUIRE(r.code == 0);
  return r.out;
}

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

}  // namespace

TEST_CASE("output: -o /dev/fd/1 and /proc/self/fd/1 write through stdout (redirected to a file), never rename onto it") {
  TempDir t;
  for (const char* dev : {"/dev/fd/1", "/proc/self/fd/1", "/dev/stdout"}) {
    CAPTURE(dev);
    const fs::path out = t / "out.csv";
    const std::string cmd = "cd " + shell_quote(t.path.string()) + " && " + shell_quote(TFX_BINARY) +
                            " pe --len 3 --dim 4 --format csv -o " + dev + " > out.csv 2>err.txt";
    CHECK(std::system(cmd.c_str()) == 0);
    CHECK(read_file(out) == pe_csv());
    CHECK(temporaries(t.path).empty());
  }
  CHECK(fs::is_symlink("/dev/stdout"));  // still the machine's link, not a regular file
  // appending: `>>` keeps what was there (a reopened path would have been truncated)
  write_file(t / "log.csv", "before\n");
  const std::string cmd = "cd " + shell_quote(t.path.string()) + " && " + shell_quote(TFX_BINARY) +
                          " pe --len 3 --dim 4 --format csv -o /dev/fd/1 >> log.csv";
  CHECK(std::system(cmd.c_str()) == 0);
  CHECK(read_file(t / "log.csv") == "before\n" + pe_csv());
}

TEST_CASE("output: -o through a symlink writes its target and keeps the link; a dangling link gets its target made") {
  TempDir t;
  write_file(t / "real.csv", "old\n");
  fs::create_symlink("real.csv", t / "link.csv");
  CHECK(run_tfx("pe --len 3 --dim 4 -o link.csv", t.path).code == 0);
  CHECK(fs::is_symlink(t / "link.csv"));
  CHECK(read_file(t / "real.csv") == pe_csv());
  fs::create_symlink("made.csv", t / "dangling.csv");
  CHECK(run_tfx("pe --len 3 --dim 4 -o dangling.csv", t.path).code == 0);
  CHECK(fs::is_symlink(t / "dangling.csv"));
  CHECK(read_file(t / "made.csv") == pe_csv());
  CHECK(temporaries(t.path).empty());
}

TEST_CASE("output: a file's mode is kept; a read-only file is refused to a user who cannot open it for writing") {
  TempDir t;
  write_file(t / "private.csv", "old\n");
  fs::permissions(t / "private.csv", fs::perms(0600));
  CHECK(run_tfx("pe --len 3 --dim 4 -o private.csv", t.path).code == 0);
  CHECK(mode_of(t / "private.csv") == 0600);  // was 0644 after the rename
  CHECK(read_file(t / "private.csv") == pe_csv());
  write_file(t / "ro.csv", "keep me\n");
  fs::permissions(t / "ro.csv", fs::perms(0444));
  if (::geteuid() == 0) {
    // root may write any file (a shell's `>` does too): the contents change, the mode stays
    CHECK(run_tfx("pe --len 3 --dim 4 -o ro.csv", t.path).code == 0);
    CHECK(mode_of(t / "ro.csv") == 0444);
    // as an ordinary user (nobody), in a directory that user may write: refused, file untouched
    write_file(t / "ro.csv", "keep me\n");
    fs::permissions(t.path, fs::perms(0777));
    const std::string cmd = "cd " + shell_quote(t.path.string()) + " && setpriv --reuid=65534 --regid=65534 --clear-groups " +
                            shell_quote(TFX_BINARY) + " pe --len 3 --dim 4 -o ro.csv 2>err.txt";
    const int status = std::system(cmd.c_str());
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
      MESSAGE("setpriv is not available: the refusal of a read-only file is not checked");
      return;
    }
    CHECK(WEXITSTATUS(status) == 1);
    CHECK(has(read_file(t / "err.txt"), "-o ro.csv: cannot write: Permission denied"));
  } else {
    check_one_line_error(run_tfx("pe --len 3 --dim 4 -o ro.csv", t.path), 1, "-o ro.csv: cannot write: Permission denied");
  }
  CHECK(read_file(t / "ro.csv") == "keep me\n");
  CHECK(mode_of(t / "ro.csv") == 0444);
  CHECK(temporaries(t.path).empty());
}

TEST_CASE("output: a planted out.csv.tmp symlink is never followed; 255-byte names work") {
  TempDir t;
  write_file(t / "victim.txt", "precious\n");
  fs::create_symlink("victim.txt", t / "out.csv.tmp");
  CHECK(run_tfx("pe --len 3 --dim 4 -o out.csv", t.path).code == 0);
  CHECK(read_file(t / "victim.txt") == "precious\n");
  CHECK(read_file(t / "out.csv") == pe_csv());
  const std::string longest = std::string(251, 'n') + ".csv";  // NAME_MAX = 255
  CHECK(run_tfx("pe --len 3 --dim 4 -o " + longest, t.path).code == 0);
  CHECK(read_file(t / longest) == pe_csv());
  const std::string png = std::string(251, 'p') + ".png";
  CHECK(run_tfx("pe --len 3 --dim 4 --png " + png, t.path).code == 0);
  CHECK(fs::file_size(t / png) > 100);
}

TEST_CASE("output: two runs writing the same -o at once leave exactly one of the two outputs") {
  TempDir t;
  const std::string a = run_tfx("pe --len 300 --dim 64 --format csv").out, b = run_tfx("pe --len 200 --dim 64 --format csv").out;
  for (int round = 0; round < 5; ++round) {
    const std::string cmd = "cd " + shell_quote(t.path.string()) + " && (" + shell_quote(TFX_BINARY) +
                            " pe --len 300 --dim 64 -o same.csv & " + shell_quote(TFX_BINARY) +
                            " pe --len 200 --dim 64 -o same.csv & wait)";
    CHECK(std::system(cmd.c_str()) == 0);
    const std::string got = read_file(t / "same.csv");
    CHECK((got == a || got == b));
  }
  CHECK(temporaries(t.path).empty());
}

TEST_CASE("signals: SIGINT, SIGTERM and SIGHUP in a first cache load remove the cache temporary; a stale one is removed later") {
  TempDir t;
  // a 60,000 × 100 GloVe file: its first load takes long enough to be interrupted
  {
    std::string text;
    text.reserve(60000 * 700);
    for (int w = 0; w < 60000; ++w) {
      text += "w" + std::to_string(w);
      for (int j = 0; j < 100; ++j) text += j % 2 ? " 0.123456" : " -0.654321";
      text += '\n';
    }
    write_file(t / "big.txt", text);
  }
  const fs::path cache = t / "cache";
  int interrupted = 0;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    CAPTURE(sig);
    fs::remove_all(cache);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      setenv("XDG_CACHE_HOME", cache.c_str(), 1);
      std::freopen("/dev/null", "w", stdout);
      std::freopen("/dev/null", "w", stderr);
      execl(TFX_BINARY, "tfx", "similar", "w7", "--embeddings", (t / "big.txt").c_str(), nullptr);
      _exit(127);
    }
    // wait for the temporary to appear, then interrupt
    bool seen = false;
    for (int i = 0; i < 20000 && !seen; ++i) {
      seen = !temporaries(cache).empty();
      if (!seen) std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    if (seen) kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    if (seen && WIFSIGNALED(status)) {
      ++interrupted;
      CHECK(WTERMSIG(status) == sig);  // it dies of the signal, as a shell expects
      CHECK(temporaries(cache).empty());
    }
  }
  MESSAGE(interrupted << " of 3 loads interrupted by their signal");
  if (interrupted == 0) MESSAGE("every load finished before the signal: nothing interrupted");
  // a temporary left by a writer that no longer runs (killed with SIGKILL) is removed by the next load
  fs::create_directories(cache / "tfx");
  const pid_t gone = fork();
  REQUIRE(gone >= 0);
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  const fs::path stale = cache / "tfx" / ("0123456789abcdef-old.txt.tfxemb.tmp." + std::to_string(gone) + ".abcdef");
  write_file(stale, "half a table");
  CHECK(run_tfx("similar w7 --embeddings " + shell_quote((t / "big.txt").string()), {}, "XDG_CACHE_HOME=" + cache.string()).code == 0);
  CHECK(!fs::exists(stale));
  CHECK(temporaries(cache).empty());
}

TEST_CASE("cache: without HOME and XDG_CACHE_HOME it is per user (0700); a directory others can write is not used") {
  const fs::path data = shared_data("glove.6B.50d.top2446.txt");
  if (data.empty()) return;
  TempDir t;
  const std::string glove = shell_quote(data.string());
  // 1. the fallback: $TMPDIR/tfx-cache-<uid>, made 0700
  const Run r = run_tfx("analogy king man woman --embeddings " + glove, {},
                        "-u HOME -u XDG_CACHE_HOME TMPDIR=" + shell_quote(t.path.string()));
  CHECK(r.code == 0);
  CHECK(has(r.out, "queen"));
  const fs::path fallback = t / ("tfx-cache-" + std::to_string(::geteuid()));
  REQUIRE(fs::is_directory(fallback));
  CHECK(mode_of(fallback) == 0700);
  CHECK(!fs::is_empty(fallback));  // the cache was written there
  // 2. a cache directory writable by others: said so, run uncached, a planted table never read
  const fs::path shared = t / "xdg" / "tfx";
  fs::create_directories(shared);
  fs::permissions(shared, fs::perms(0777));
  for (const auto& e : fs::directory_iterator(fallback)) fs::copy_file(e.path(), shared / e.path().filename());
  // damage the copied table's vectors: were it read, the answer would change or the checksum fail
  for (const auto& e : fs::directory_iterator(shared)) {
    std::string bytes = read_file(e.path());
    for (std::size_t i = bytes.size() / 2; i < bytes.size() / 2 + 4096 && i < bytes.size(); ++i) bytes[i] = '\x7f';
    write_file(e.path(), bytes);
  }
  const Run u = run_tfx("analogy king man woman --embeddings " + glove, {},
                        "XDG_CACHE_HOME=" + shell_quote((t / "xdg").string()));
  CAPTURE(u.err);
  CHECK(u.code == 0);
  CHECK(has(u.out, "queen"));
  CHECK(has(u.err, "writable by other users"));
  CHECK(count_lines(u.err) == 1);
}

TEST_CASE("cache: a flipped byte in a vector, or a same-size rewrite with its mtime restored, is never served") {
  const fs::path data = shared_data("glove.6B.50d.top2446.txt");
  if (data.empty()) return;
  TempDir t;
  fs::copy_file(data, t / "glove.txt");
  const std::string env = "XDG_CACHE_HOME=" + shell_quote((t / "cache").string());
  const std::string query = "analogy king man woman --format csv --embeddings " + shell_quote((t / "glove.txt").string());
  const Run truth = run_tfx(query + " --no-cache");
  REQUIRE(truth.code == 0);
  REQUIRE(has(truth.out, "queen"));
  REQUIRE(run_tfx(query, {}, env).code == 0);  // writes the cache
  fs::path table;
  for (const auto& e : fs::recursive_directory_iterator(t / "cache"))
    if (e.path().extension() == ".tfxemb") table = e.path();
  REQUIRE(!table.empty());
  // 1. one byte of king's row (row 691: header 256 bytes, 50 floats a row) flipped
  std::string bytes = read_file(table);
  bytes[256 + 691 * 200 + 11] ^= 0x40;  // the sign-and-exponent byte of its third value
  write_file(table, bytes);
  const Run flipped = run_tfx(query, {}, env);
  CHECK(flipped.out == truth.out);  // was: 'sri' as a cache "hit"
  const Run info = run_tfx("embeddings info " + shell_quote((t / "glove.txt").string()) + " --format csv", {}, env);
  CHECK(has(info.out, "hit"));  // rebuilt by the query above, so a hit again now
  // 2. the source rewritten with the same size, its mtime put back (touch -d): stale, not a hit
  std::string text = read_file(t / "glove.txt");
  const std::size_t king = text.find("\nking ");
  REQUIRE(king != std::string::npos);
  text.replace(king + 1, 4, "gnik");  // same size
  const auto mtime = fs::last_write_time(t / "glove.txt");
  write_file(t / "glove.txt", text);
  fs::last_write_time(t / "glove.txt", mtime);
  const Run stale = run_tfx(query, {}, env);
  CAPTURE(stale.err);
  CHECK(stale.code == 1);  // king is no longer in the vocabulary
  CHECK(has(stale.err, "'king' is not in the vocabulary"));
}

TEST_CASE("BOM: a UTF-8 byte-order mark starts no header row in a CSV matrix and skips no --queries query") {
  TempDir t;
  write_file(t / "q.csv", "1,0\n0.5,-2.25\n");
  write_file(t / "bom.csv", "\xEF\xBB\xBF" "1,0\n0.5,-2.25\n");
  const Run plain = run_tfx("attention --q q.csv --k q.csv --v q.csv --format csv", t.path);
  const Run bom = run_tfx("attention --q bom.csv --k bom.csv --v bom.csv --format csv", t.path);
  REQUIRE(plain.code == 0);
  CHECK(bom.code == 0);
  CHECK(bom.out == plain.out);  // two rows each, the first not taken for a header
  write_file(t / "queries.txt", "\xEF\xBB\xBF" "king man woman\nparis france germany\n");
  const Run batch = run_tfx("analogy --queries queries.txt -k 1 --format csv", t.path);
  CAPTURE(batch.err);
  CHECK(batch.code == 0);
  CHECK(has(batch.out, "queen"));
  CHECK(batch.err.empty());  // nothing skipped
  write_file(t / "vocab.txt", "\xEF\xBB\xBF" "[PAD]\n[UNK]\nhello\n");
  const Run tok = run_tfx("tokenize hello --vocab vocab.txt --format csv", t.path);
  CHECK(tok.out == "position,token,id\n0,hello,2\n");  // [PAD] is id 0, not "\xEF\xBB\xBF[PAD]"
}

namespace {

// A GloVe file of `words` × 100 whose first load takes long enough to be interfered with.
void write_big_glove(const fs::path& p, int words) {
  std::string text;
  text.reserve(static_cast<std::size_t>(words) * 1000);
  for (int w = 0; w < words; ++w) {
    text += "w" + std::to_string(w);
    for (int j = 0; j < 100; ++j) text += (j * 7 + w) % 3 ? " 0.123456" : " -0.654321";
    text += '\n';
  }
  write_file(p, text);
}

struct Child {
  pid_t pid;
  fs::path err;
};

Child spawn_tfx(const std::vector<std::string>& args, const fs::path& cache, const fs::path& err) {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    setenv("XDG_CACHE_HOME", cache.c_str(), 1);
    std::freopen("/dev/null", "w", stdout);
    std::freopen(err.c_str(), "w", stderr);
    std::vector<char*> argv{const_cast<char*>("tfx")};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(TFX_BINARY, argv.data());
    _exit(127);
  }
  return {pid, err};
}

int wait_code(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

TEST_CASE("SIGBUS: a source truncated during its first load, or a cache truncated during eval-analogies, is one error naming it") {
  TempDir t;
  const fs::path cache = t / "cache";
  // 1. the source file cut to 4 KiB while the first load parses it (mapped)
  int cut = 0;
  for (int attempt = 0; attempt < 3 && cut == 0; ++attempt) {
    write_big_glove(t / "big.txt", 60000);
    fs::remove_all(cache);
    Child c = spawn_tfx({"similar", "w7", "--embeddings", (t / "big.txt").string()}, cache, t / "err1.txt");
    bool seen = false;
    for (int i = 0; i < 20000 && !seen; ++i) {
      seen = !temporaries(cache).empty();
      if (!seen) std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    if (seen) fs::resize_file(t / "big.txt", 4096);
    const int code = wait_code(c.pid);
    if (!seen || code == 0) continue;  // finished first: try again
    ++cut;
    const std::string err = read_file(c.err);
    CAPTURE(err);
    CHECK(code == 1);  // was 135: SIGBUS
    CHECK(err == "tfx: error: " + (t / "big.txt").string() +
                     ": the file changed while reading (truncated by another program?); nothing was written\n");
    CHECK(temporaries(cache).empty());
  }
  MESSAGE(cut << " first load(s) cut mid-parse");
  // 2. the cache table cut while eval-analogies reads it
  write_big_glove(t / "big.txt", 60000);
  fs::remove_all(cache);
  REQUIRE(run_tfx("similar w7 --embeddings " + shell_quote((t / "big.txt").string()), {}, "XDG_CACHE_HOME=" + cache.string()).code == 0);
  fs::path table;
  for (const auto& e : fs::recursive_directory_iterator(cache))
    if (e.path().extension() == ".tfxemb") table = e.path();
  REQUIRE(!table.empty());
  std::string questions;
  for (int q = 0; q < 3000; ++q)
    questions += "w" + std::to_string(q) + " w" + std::to_string(q + 1) + " w" + std::to_string(q + 2) + " w" + std::to_string(q + 3) + "\n";
  write_file(t / "questions.txt", ": synthetic\n" + questions);
  Child c = spawn_tfx({"eval-analogies", (t / "questions.txt").string(), "--embeddings", (t / "big.txt").string()}, cache,
                      t / "err2.txt");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  fs::resize_file(table, 4096);
  const int code = wait_code(c.pid);
  const std::string err = read_file(c.err);
  CAPTURE(err);
  if (code == 0) {
    MESSAGE("eval-analogies finished before the cut");
  } else {
    CHECK(code == 1);
    CHECK(has(err, table.string() + ": the file changed while reading"));
    CHECK(count_lines(err) == 1);
  }
}

TEST_CASE("memory: steps that grow with the square of their input are refused with the estimate and the budget, before allocating") {
  TempDir t;
  {
    std::string csv;
    for (int i = 0; i < 20000; ++i) csv += "0.5,1\n";
    write_file(t / "x.csv", csv);
  }
  const std::string lim = "TFX_MEMORY_LIMIT=1G";
  Run r = run_tfx("attention --x x.csv --identity", t.path, lim);  // 20,000² floats × 4 matrices ≈ 6 GiB
  check_one_line_error(r, 1, "attention over 20000 × 20000 positions with 1 head needs about 6.0 GiB, over the memory budget of 1.0 GiB");
  CHECK(has(r.err, "TFX_MEMORY_LIMIT"));
  check_one_line_error(run_tfx("encoder --x x.csv --heads 1", t.path, lim), 1, "the encoder over 20000 positions");
  check_one_line_error(run_tfx("rope relative --len 32000 --dim 8", t.path, lim), 1,
                       "RoPE relative scores for len 32000 (L × L tables) needs about 15.3 GiB");
  check_one_line_error(run_tfx("pe sim --len 20000 --dim 8", t.path, lim), 1, "PE·PEᵀ for len 20000");
  // a gzip bomb: 200 MB of zeros in 0.9 MB stops at the budget, naming the file
  REQUIRE(std::system(("head -c 200000000 /dev/zero | gzip -1 > " + shell_quote((t / "bomb.gz").string())).c_str()) == 0);
  check_one_line_error(run_tfx("similar a --embeddings bomb.gz --no-cache", t.path, "TFX_MEMORY_LIMIT=64M"), 1,
                       "bomb.gz: inflating it");
  // the budget itself: a size, else a usage error
  check_one_line_error(run_tfx("pe --len 3 --dim 4", t.path, "TFX_MEMORY_LIMIT=lots"), 2,
                       "TFX_MEMORY_LIMIT: expected a size such as 16G, 512M or a number of bytes, got 'lots'");
  // under a budget that fits, a step runs
  write_file(t / "small.csv", "0.5,1\n1,0\n");
  CHECK(run_tfx("attention --x small.csv --identity", t.path, "TFX_MEMORY_LIMIT=1M").code == 0);
}

TEST_CASE("pe: a summary table of a huge matrix computes only the rows it prints, each the closed form") {
  // 10^9 × 1 (was 28 s and 3.9 GB): the 16 rows shown, PE(p, 0) = sin(p) at 4 decimals
  const Run r = run_tfx("pe --len 1000000000 --dim 1");
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "pe [1000000000, 1]"));
  CHECK(has(r.out, "(… = not shown: 16 of 1000000000 rows, 1 of 1 columns shown; --full prints all)"));
  std::istringstream lines(r.out);
  int rows = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream f(line);
    long long p = -1;
    double v = 0;
    if (!(f >> p >> v)) continue;
    CAPTURE(line);
    CHECK(std::abs(v - std::sin(static_cast<double>(p))) < 6e-5);
    CHECK((p < 8 || p >= 1000000000 - 8));
    ++rows;
  }
  CHECK(rows == 16);
}

TEST_CASE("a word of 1 MB in a vector file is refused with the limit it is over") {
  TempDir t;
  write_file(t / "w.txt", std::string(1000000, 'a') + " 1 2\nking 1 3\n");
  check_one_line_error(run_tfx("similar king --embeddings w.txt --no-cache", t.path), 1,
                       "w.txt:1: a word of 1000000 bytes, over the 100000-byte limit of a word");
}
