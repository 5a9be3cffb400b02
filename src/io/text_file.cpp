// read_text_input and without_bom (text_file.hpp).
#include "tfx/io/text_file.hpp"

#include <fmt/format.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

std::string_view without_bom(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  return text;
}

std::string read_text_input(const std::string& path, const std::string& what, std::size_t cap) {
  std::string bytes = read_input_bytes(path, what, cap, std::min(cap, kMaxTextStream));
  if (bytes.starts_with("\xEF\xBB\xBF")) bytes.erase(0, 3);
  return bytes;
}

int open_input_fd(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return -1;
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);  // from now on a writer's data is waited for
  return fd;
}

std::string read_input_bytes(const std::string& path, const std::string& what, std::size_t cap, std::size_t stream_cap) {
  const std::string name = path == "-" ? "<stdin>" : path;
  // a named pipe that nothing writes to is opened without waiting for a writer (open_input_fd) and
  // reads as empty, refused below: never a wait that lasts forever
  const int fd = path == "-" ? 0 : open_input_fd(path);
  if (fd < 0) {
    const int err = errno;
    throw Error(err == ENOENT ? fmt::format(N_("{} {}: no such file"), what, name)
                              : fmt::format(N_("{} {}: cannot read: {}"), what, name, std::strerror(err)));
  }
  struct Closer {
    int fd;
    ~Closer() {
      if (fd > 0) ::close(fd);
    }
  } closer{fd};
  struct stat st {};
  bool regular = false, fifo = false;
  if (fstat(fd, &st) == 0) {
    regular = S_ISREG(st.st_mode);
    fifo = S_ISFIFO(st.st_mode);
    if (S_ISDIR(st.st_mode)) throw Error(fmt::format(N_("{} {}: is a directory; expected a file"), what, name));
    if (S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > cap)
      throw Error(fmt::format(N_("{} {}: {} bytes is more than the {} MiB tfx reads"), what, name, st.st_size, cap >> 20));
  }
  // a pipe or device is read up to its own cap: its size is not known in advance
  if (!regular) cap = stream_cap;
  std::string bytes;
  if (regular) bytes.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw Error(fmt::format(N_("{} {}: read error: {}"), what, name, std::strerror(errno)));
    if (got == 0) break;
    bytes.append(buf, static_cast<std::size_t>(got));
    if (bytes.size() > cap)
      throw Error(fmt::format(N_("{} {}: more than {} MiB (a device or an endless stream?); expected a file"), what, name,
                              cap >> 20));
  }
  if (fifo && path != "-" && bytes.empty())
    throw Error(fmt::format(N_("{} {}: a named pipe that nothing wrote to; expected a file"), what, name));
  return bytes;
}

}  // namespace tfx
