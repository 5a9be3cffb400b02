// read_text_input and without_bom (text_file.hpp).
#include "tfx/io/text_file.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

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

std::string read_input_bytes(const std::string& path, const std::string& what, std::size_t cap, std::size_t stream_cap) {
  const std::string name = path == "-" ? "<stdin>" : path;
  std::FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (!f) {
    const int err = errno;
    throw Error(fmt::format("{} {}: {}", what, name, err == ENOENT ? "no such file" : std::strerror(err)));
  }
  struct Closer {
    std::FILE* f;
    ~Closer() {
      if (f != stdin) std::fclose(f);
    }
  } closer{f};
  struct stat st {};
  bool regular = false;
  if (fstat(fileno(f), &st) == 0) {
    regular = S_ISREG(st.st_mode);
    if (S_ISDIR(st.st_mode)) throw Error(fmt::format(N_("{} {}: is a directory; expected a file"), what, name));
    if (S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > cap)
      throw Error(fmt::format(N_("{} {}: {} bytes is more than the {} MiB tfx reads"), what, name, st.st_size, cap >> 20));
  }
  // a pipe or device is read up to its own cap: its size is not known in advance
  if (!regular) cap = stream_cap;
  std::string bytes;
  char buf[1 << 16];
  for (;;) {
    const std::size_t got = std::fread(buf, 1, sizeof buf, f);
    bytes.append(buf, got);
    if (bytes.size() > cap)
      throw Error(fmt::format(N_("{} {}: more than {} MiB (a device or an endless stream?); expected a file"), what, name,
                              cap >> 20));
    if (got < sizeof buf) break;
  }
  if (std::ferror(f)) throw Error(fmt::format(N_("{} {}: read error: {}"), what, name, std::strerror(errno)));
  return bytes;
}

}  // namespace tfx
