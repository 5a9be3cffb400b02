// emit_together (tfx/io/emit_together.hpp): files that belong together are replaced together or
// not at all — a file that cannot be staged leaves every target as it was — and a termination
// signal during the renames takes effect only after the last one (defer/resume_termination_signals).
#include <signal.h>
#include <sys/wait.h>

#include <set>
#include <unistd.h>

#include "helpers.hpp"
#include "tfx/core/error.hpp"
#include "tfx/io/emit_together.hpp"
#include "tfx/io/temp_file.hpp"

using namespace tfx::test;
namespace fs = std::filesystem;

TEST_CASE("emit_together: both files replaced; one that cannot be written leaves both as they were, no temporary") {
  TempDir t;
  const std::string a = (t / "m.vocab.txt").string(), b = (t / "m.safetensors").string();
  tfx::emit_together({{{"new vocabulary\n"}, a, false, "vocabulary"}, {{"new weights"}, b, true, "-o"}});
  CHECK(read_file(a) == "new vocabulary\n");
  CHECK(read_file(b) == "new weights");
  // the second target is a folder: refused while staging, before the first is renamed
  fs::create_directory(t / "d.safetensors");
  const std::string err = error_of([&] {
    tfx::emit_together({{{"other vocabulary\n"}, a, false, "vocabulary"}, {{"w"}, (t / "d.safetensors").string(), true, "-o"}});
  });
  CHECK(has(err, "it is a directory"));
  CHECK(read_file(a) == "new vocabulary\n");
  std::size_t temporaries = 0;
  for (const auto& e : fs::directory_iterator(t.path)) temporaries += has(e.path().filename().string(), ".tmp");
  CHECK(temporaries == 0);
}

TEST_CASE("termination signals deferred: a SIGTERM while deferred acts only when resumed (temporaries removed, killed by it)") {
  TempDir t;
  const fs::path marker = t / "after-raise", tmpdir = t / "tmp";
  fs::create_directory(tmpdir);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    signal(SIGTERM, SIG_DFL);  // (doctest's own handler would stay: the cleanup replaces only defaults)
    tfx::install_temp_file_cleanup();
    tfx::TempFile tmp(tmpdir.string(), ".tfx-", ".tmp", "test");
    tfx::defer_termination_signals();
    raise(SIGTERM);
    write_file(marker, "still running");  // the signal was held back
    tfx::resume_termination_signals();   // now it ends the process, removing the temporary
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFSIGNALED(status));
  if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(read_file(marker) == "still running");
  CHECK(fs::is_empty(tmpdir));
}

TEST_CASE("emit_together under fire: a SIGTERM at any moment leaves every file of one generation, never a mix, and no temporary") {
  // A child replaces 64 files together, generation after generation, until a SIGTERM from here
  // ends it — at a moment this test does not choose, so over several runs it lands while staging,
  // between renames and between generations. Whatever the moment, the files all hold the same
  // generation (the renames are one step) and the folder holds no temporary.
  constexpr int kFiles = 64;
  for (int trial = 0; trial < 12; ++trial) {
    CAPTURE(trial);
    TempDir t;
    const fs::path ready = t / "ready";
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      signal(SIGTERM, SIG_DFL);
      tfx::install_temp_file_cleanup();
      for (long gen = 0;; ++gen) {
        std::vector<std::string> bodies(kFiles, std::to_string(gen) + std::string(4000, 'x'));
        std::vector<tfx::EmitFile> files;
        for (int k = 0; k < kFiles; ++k)
          files.push_back({{bodies[static_cast<std::size_t>(k)]}, (t / ("f" + std::to_string(k))).string(), false, "file"});
        tfx::emit_together(files);
        if (gen == 0) write_file(ready, "1");
      }
    }
    while (!fs::exists(ready)) usleep(1000);
    usleep(static_cast<useconds_t>(3000 + 7919 * trial % 20000));
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status));
    std::set<std::string> generations;
    std::size_t temporaries = 0;
    for (const auto& e : fs::directory_iterator(t.path)) {
      const std::string name = e.path().filename().string();
      if (has(name, ".tmp")) ++temporaries;
      else if (name != "ready") generations.insert(read_file(e.path()).substr(0, 8));
    }
    CHECK(generations.size() == 1);
    CHECK(temporaries == 0);
  }
}
