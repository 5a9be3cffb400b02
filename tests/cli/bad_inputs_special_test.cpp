// The bad situations of the catalogue that are not one command with one error line: a closed
// pipe, a full disk (a small tmpfs), two processes building the same cache at once, and a
// read-only cache directory. (The table-driven cases are in bad_inputs_test.cpp.)
#include <sys/mount.h>
#include <sys/stat.h>

#include <algorithm>

#include "helpers.hpp"

using namespace tfx::test;
namespace fs = std::filesystem;

namespace {

// Runs a sh script in `dir` with $TFX set; returns the exit status of sh.
int sh(const fs::path& dir, const std::string& script) {
  const std::string cmd = "cd " + shell_quote(dir.string()) + " && TFX=" + shell_quote(TFX_BINARY) + " sh -c " +
                          shell_quote(script) + " </dev/null";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Entries of `dir` (names), empty when it does not exist.
std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec)) names.push_back(fs::relative(e.path(), dir).string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("bad situations: a closed pipe (tfx pe --len 5000 --dim 512 | head -1) ends tfx quietly") {
  TempDir t;
  // with SIGPIPE at its default and ignored by the parent (trap '' PIPE), which turns the
  // signal into an EPIPE write error
  for (const std::string trap : {"", "trap '' PIPE; "})
    for (const std::string args : {"pe --len 5000 --dim 512", "pe --len 5000 --dim 512 --format csv",
                                   "pe sim --len 2000 --dim 64 --format json", "pe --len 50 --dim 128 --view --width 300"}) {
      CAPTURE(trap + args);
      sh(t.path, trap + "\"$TFX\" " + args + " 2>err | head -1 >out");
      CHECK(read_file(t / "err").empty());
      CHECK(count_lines(read_file(t / "out")) == 1);
    }
}

TEST_CASE("bad situations: a full disk (a 64 KiB tmpfs, filled) gives one clear error and leaves no partial file") {
  TempDir t;
  const fs::path full = t / "full";
  fs::create_directory(full);
  if (mount("tmpfs", full.c_str(), "tmpfs", 0, "size=64k") != 0) {
    std::cout << "TFX-SKIP: cannot mount a small tmpfs for a full disk (" << std::strerror(errno)
              << "; needs root or CAP_SYS_ADMIN)\n";
    return;
  }
  struct Unmount {
    fs::path p;
    ~Unmount() { umount2(p.c_str(), MNT_DETACH); }
  } unmount{full};
  // fill it, so even a small write fails
  sh(t.path, "cat /dev/zero > full/filler 2>/dev/null; true");
  write_file(t / "e.txt", "king 1 2\nman 1 3\nwoman 2 1\nqueen 2 0\n");
  for (const std::string args : {"pe --len 40 --dim 8 --format csv -o full/pe.csv", "pe --len 4 --dim 4 --format npy -o full/pe.npy",
                                 "pe --len 8 --dim 8 --png full/pe.png", "embeddings convert e.txt full/e.tfx",
                                 "embeddings convert e.txt full/e.vec --to-format fasttext"}) {
    CAPTURE(args);
    const Run r = run_tfx(args, t.path);
    check_one_line_error(r, 1, "No space left on device");
    CHECK(entries(full) == std::vector<std::string>{"filler"});
  }
  // the cache on a full disk: the command works, warns once, and leaves no partial cache file
  const Run r = run_tfx("analogy king man woman --embeddings e.txt --format csv", t.path, "XDG_CACHE_HOME=" + full.string());
  CAPTURE(r.err);
  CHECK(r.code == 0);
  CHECK(has(r.out, "queen"));
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.rfind("tfx: warning: the cache of e.txt was not written", 0) == 0);
  for (const auto& name : entries(full)) CHECK((name == "filler" || name == "tfx"));
}

TEST_CASE("bad situations: a read-only cache folder warns with the real reason (issue 36)") {
  TempDir t;
  const fs::path ro = t / "ro";
  fs::create_directory(ro);
  if (mount("tmpfs", ro.c_str(), "tmpfs", MS_RDONLY, "size=64k") != 0) {
    std::cout << "TFX-SKIP: cannot mount a read-only tmpfs (" << std::strerror(errno) << "; needs root or CAP_SYS_ADMIN)\n";
    return;
  }
  struct Unmount {
    fs::path p;
    ~Unmount() { umount2(p.c_str(), MNT_DETACH); }
  } unmount{ro};
  write_file(t / "e.txt", "king 1 2\nman 1 3\nwoman 2 1\nqueen 2 0\n");
  const Run r = run_tfx("analogy king man woman --embeddings e.txt --format csv", t.path, "XDG_CACHE_HOME=" + ro.string());
  CAPTURE(r.err);
  CHECK(r.code == 0);
  CHECK(has(r.out, "queen"));
  CHECK(count_lines(r.err) == 1);
  CHECK(has(r.err, "ro/tfx: cannot create the folder: Read-only file system"));
}

TEST_CASE("bad situations: two processes loading the same big embedding file for the first time leave one valid cache") {
  TempDir t;
  write_glove(t / "big.txt", 60000, 50);  // ~25 MB of text
  const std::string env = "XDG_CACHE_HOME=" + (t / "cache").string();
  const int rc = sh(t.path, env + " \"$TFX\" embeddings info big.txt --format json >o1 2>e1 & " + env +
                                " \"$TFX\" embeddings info big.txt --format json >o2 2>e2 & "
                                "wait %1; a=$?; wait %2; b=$?; exit $((a + b))");
  CHECK(rc == 0);
  CHECK(read_file(t / "e1").empty());
  CHECK(read_file(t / "e2").empty());
  // exactly one cache file, no temporary left behind, and it is used and right
  const auto cached = entries(t / "cache" / "tfx");
  REQUIRE(cached.size() == 1);
  CHECK(has(cached[0], "big.txt.tfxemb"));
  const Run info = run_tfx("embeddings info big.txt --format json", t.path, env);
  CHECK(has(info.out, "\"hit\""));
  const Run hit = run_tfx("similar w7 w123 -k 5 --format csv --embeddings big.txt", t.path, env);
  const Run parsed = run_tfx("similar w7 w123 -k 5 --format csv --embeddings big.txt --no-cache", t.path, env);
  CHECK(hit.code == 0);
  CHECK(!hit.out.empty());
  CHECK(hit.out == parsed.out);
}

TEST_CASE("bad situations: a read-only cache directory: the command works, warns once, caches nothing") {
  const bool root = geteuid() == 0;
  if (root && access("/usr/bin/setpriv", X_OK) != 0) {
    std::cout << "TFX-SKIP: running as root without setpriv, so a read-only directory would still be writable\n";
    return;
  }
  TempDir t;
  chmod(t.path.c_str(), 0755);
  write_file(t / "e.txt", "king 1 2\nman 1 3\nwoman 2 1\nqueen 2 0\n");
  chmod((t / "e.txt").c_str(), 0644);
  fs::create_directories(t / "ro" / "tfx");
  chmod((t / "ro" / "tfx").c_str(), 0555);
  chmod((t / "ro").c_str(), 0555);
  const std::string as_user = root ? "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  const int rc = sh(t.path, as_user + "env XDG_CACHE_HOME=" + (t / "ro").string() +
                                " \"$TFX\" analogy king man woman --embeddings e.txt --format csv > " +
                                shell_quote((t / "out").string()) + " 2> " + shell_quote((t / "err").string()));
  const std::string out = read_file(t / "out"), err = read_file(t / "err");
  CAPTURE(err);
  CHECK(rc == 0);
  CHECK(has(out, "queen"));
  CHECK(count_lines(err) == 1);
  CHECK(err.rfind("tfx: warning: the cache of e.txt was not written", 0) == 0);
  CHECK(entries(t / "ro").size() == 1);  // only ro/tfx, empty
  chmod((t / "ro").c_str(), 0755);
  chmod((t / "ro" / "tfx").c_str(), 0755);
}
