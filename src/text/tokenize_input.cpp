// Reading the tokenize commands' documents (tokenize_input.hpp).
#include "tfx/text/tokenize_input.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/core/memory.hpp"
#include "tfx/text/unicode.hpp"

namespace tfx {

std::string byte_position(std::string_view text, std::size_t at) {
  const std::size_t line = static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n')) + 1;
  const std::size_t nl = at ? text.rfind('\n', at - 1) : std::string_view::npos;
  const std::size_t column = at - (nl == std::string_view::npos ? 0 : nl + 1) + 1;
  return trf("byte {} (line {}, column {})", at, line, column);
}

std::string read_document(const std::string& file) {
  const std::string name = file == "-" ? "<stdin>" : file;
  int fd = 0;
  if (file != "-") {
    // O_NONBLOCK: opening a FIFO that no one writes to returns at once instead of waiting forever
    fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      throw Error(fmt::format(N_("--file {}: {}"), name, err == ENOENT ? tr("no such file") : std::strerror(err)));
    }
  }
  struct Closer {
    int fd;
    ~Closer() {
      if (fd > 0) ::close(fd);
    }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw Error(fmt::format(N_("--file {}: {}"), name, std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) throw Error(fmt::format(N_("--file {}: {}"), name, tr("is a directory; expected a text file")));
  const std::size_t budget = memory_budget() / kTokenizeBytesPerByte;
  std::size_t cap = budget;
  const bool regular = S_ISREG(st.st_mode);
  if (regular) {
    const auto size = static_cast<std::size_t>(st.st_size);
    if (size > budget)
      throw Error(fmt::format(N_("--file {}: {}"), name,
                              trf("{} bytes; tokenizing it needs about {} MiB, over the memory budget of {} MiB (set "
                                  "TFX_MEMORY_LIMIT, e.g. 16G, or split the file)",
                                  size, size * kTokenizeBytesPerByte >> 20, memory_budget() >> 20)));
  } else {
    cap = std::min<std::size_t>(cap, std::size_t{256} << 20);
  }
  if (fd > 0) {
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);  // now wait for a writer's data
  }
  std::string text;
  if (regular) text.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format(N_("--file {}: {}"), name, std::strerror(errno)));
    }
    if (got == 0) break;
    text.append(buf, static_cast<std::size_t>(got));
    if (text.size() > cap)
      throw Error(fmt::format(N_("--file {}: {}"), name,
                              trf("more than {} MiB from a pipe or device (an endless stream?); expected a text file", cap >> 20)));
  }
  if (S_ISFIFO(st.st_mode) && file != "-" && text.empty())
    throw Error(fmt::format(N_("--file {}: {}"), name, tr("a named pipe that nothing wrote to; expected a text file")));
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = unicode::utf8_decode(text, i);
    if (n == 0)
      throw Error(fmt::format(N_("--file {}: {}"), name, trf("invalid UTF-8 at {}; expected UTF-8 text", byte_position(text, i))));
    i += n;
  }
  return text;
}

std::string document_text(const std::string& text, bool text_given, const std::string& file) {
  if (text_given && !file.empty()) throw usage_error(tr("give the text once: TEXT or --file FILE, not both"));
  if (!text_given && file.empty()) throw usage_error(tr("no text: give TEXT, or --file FILE (- for standard input)"));
  return text_given ? text : read_document(file);
}

std::vector<std::string_view> document_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t e = text.find('\n', i);
    if (e == std::string_view::npos) e = text.size();
    std::string_view line = text.substr(i, e - i);
    if (line.ends_with('\r')) line.remove_suffix(1);
    lines.push_back(line);
    i = e + 1;
  }
  return lines;
}

}  // namespace tfx
