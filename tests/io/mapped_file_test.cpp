// The SIGBUS guard of mapped files (tfx/io/mapped_file.hpp) watches any number of mappings: 100
// files mapped and watched at once (more than the 32 the table once held), the 75th truncated
// and then touched, is the one error line naming that file and exit 1, not a SIGBUS death.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.hpp"
#include "tfx/io/mapped_file.hpp"

using namespace tfx::test;

TEST_CASE("mapped files: 100 mappings watched at once; the 75th truncated and touched is one error line, exit 1") {
  TempDir t;
  const long page = sysconf(_SC_PAGESIZE);
  std::vector<std::string> paths;
  for (int i = 1; i <= 100; ++i) {
    paths.push_back((t / ("shard-" + std::to_string(i) + ".bin")).string());
    write_file(paths.back(), std::string(static_cast<std::size_t>(4 * page), static_cast<char>('a' + i % 26)));
  }
  const std::string err_path = (t / "err").string();
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err < 0) _exit(120);
    dup2(err, 2);
    tfx::install_sigbus_handler();
    std::vector<const char*> maps;
    for (const std::string& p : paths) {
      const int fd = ::open(p.c_str(), O_RDONLY);
      void* m = ::mmap(nullptr, static_cast<std::size_t>(4 * page), PROT_READ, MAP_SHARED, fd, 0);
      ::close(fd);
      if (m == MAP_FAILED) _exit(121);
      if (tfx::watch_mapping(m, static_cast<std::size_t>(4 * page), p) < 0) _exit(122);
      maps.push_back(static_cast<const char*>(m));
    }
    if (::truncate(paths[74].c_str(), 0) != 0) _exit(123);
    volatile char c = maps[74][2 * page];  // past the new end: SIGBUS
    (void)c;
    _exit(0);  // not reached when the guard works
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const std::string err = read_file(err_path);
  CAPTURE(err);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
  CHECK(err == "tfx: error: " + paths[74] + ": the file changed while reading (truncated by another program?); nothing was written\n");
}

TEST_CASE("mapped files: a handle unwatched is reused; handles of a grown table are distinct") {
  std::vector<int> handles;
  static const char block[64] = {};
  for (int i = 0; i < 200; ++i) handles.push_back(tfx::watch_mapping(block, 1, "x"));
  std::vector<int> sorted = handles;
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
  for (int h : handles) CHECK(h >= 0);
  tfx::unwatch_mapping(handles[150]);
  CHECK(tfx::watch_mapping(block, 1, "y") == handles[150]);
  for (int h : handles) tfx::unwatch_mapping(h);
}
