// How much touching fresh memory costs on this machine: writes MB megabytes into a new file
// through a shared mapping, as the first load of a big embedding file writes its cache (the
// page cache gets MB of new pages, each zeroed by the kernel before it is written), and prints
// the seconds. bench/fresh_pages.sh runs it back to back and after the machine has been idle:
// on a virtual machine whose host takes freed memory back, the idle case can cost several
// times more, whichever program touches the memory (docs/bench.md, "The big case").
//
// usage: fresh_pages DIR MB   → "fresh_pages MB seconds"
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: fresh_pages DIR MB\n");
    return 2;
  }
  const std::string path = std::string(argv[1]) + "/fresh_pages.tmp." + std::to_string(getpid());
  const std::size_t len = std::strtoull(argv[2], nullptr, 10) << 20;
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0 || len == 0) {
    std::perror(path.c_str());
    return 1;
  }
  unlink(path.c_str());  // gone when closed
  const auto t0 = std::chrono::steady_clock::now();
  if (posix_fallocate(fd, 0, static_cast<off_t>(len)) != 0) {
    std::fprintf(stderr, "fresh_pages: no room for %s MB in %s\n", argv[2], argv[1]);
    return 1;
  }
  auto* m = static_cast<volatile char*>(mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  if (m == MAP_FAILED) {
    std::perror("mmap");
    return 1;
  }
  for (std::size_t i = 0; i < len; i += 64) m[i] = static_cast<char>(i);
  munmap(const_cast<char*>(m), len);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("fresh_pages %s %.3f\n", argv[2], s);
  close(fd);
  return 0;
}
