// emit(): the one writer of output files and stdout. A file is written to a unique temporary
// beside it (TempFile) and renamed into place, so a failed run leaves no partial file; a path that
// is one of this process's own descriptors (/dev/stdout, /dev/fd/N) is written through it; binary
// bytes are refused on a terminal.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tfx/core/error.hpp"
#include "tfx/io/emit_together.hpp"
#include "tfx/io/format.hpp"
#include "tfx/io/temp_file.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {

// The descriptor `path` names when it is one of this process's open files — /dev/stdout,
// /dev/stderr, /dev/fd/N, /proc/self/fd/N — else -1. Such a path is written through the open
// descriptor: renaming onto it would replace /dev/stdout itself, and reopening it would truncate
// a file the shell opened for appending.
int own_descriptor(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const std::size_t n = std::strlen(prefix);
    if (path.size() > n && path.compare(0, n, prefix) == 0 &&
        path.find_first_not_of("0123456789", n) == std::string::npos && path.size() - n < 9)
      return std::atoi(path.c_str() + n);
  }
  return -1;
}

void write_descriptor(int fd, std::string_view bytes, const std::string& what, const std::string& path) {
  const char* p = bytes.data();
  std::size_t n = bytes.size();
  while (n) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw Error(fmt::format(N_("{} {}: cannot write: {}"), what, path, std::strerror(errno)));
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

// What writing `path` replaces: the file itself, or for a symlink the file it points to (written
// through, as a shell's `>` does; the link stays), also when that file does not exist yet.
std::string write_target(const std::string& path) {
  struct stat lst {};
  if (::lstat(path.c_str(), &lst) != 0 || !S_ISLNK(lst.st_mode)) return path;
  if (char* real = ::realpath(path.c_str(), nullptr)) {
    std::string target = real;
    std::free(real);
    return target;
  }
  // a dangling link: the name it holds, relative to the link's directory
  std::string link(4096, '\0');
  const ssize_t n = ::readlink(path.c_str(), link.data(), link.size() - 1);
  if (n <= 0) return path;
  link.resize(static_cast<std::size_t>(n));
  if (link[0] == '/') return link;
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? link : path.substr(0, slash + 1) + link;
}

// Where a write goes once the special cases are out of the way: `direct` (stdout, a descriptor,
// a device or FIFO: written in place, now) or a regular file staged in `tmp`, renamed by commit.
struct Staged {
  std::unique_ptr<TempFile> tmp;
  std::string target, path, what;
  mode_t mode = 0;
};

// Writes what `produce` gives for `path`: at once when the destination is not a regular file
// (returns an empty Staged), else into a unique temporary beside it (returned, not yet renamed).
// `known`: the same bytes as pieces already in memory, when they are (a symlink's target is
// written in place, and its space reserved first, so it needs the size before the first byte).
Staged stage(const std::function<void(const Sink&)>& produce, const std::vector<std::string_view>* known, const std::string& path,
             bool binary, const std::string& what) {
  if (path == "-") {
    if (binary && isatty(fileno(stdout)))
      throw usage_error(fmt::format(N_("{} -: refusing to write binary output to a terminal; give a file name or pipe it"), what));
    produce([&](std::string_view bytes) {
      if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size())
        throw Error(fmt::format(N_("{}: cannot write to stdout: {}"), what, std::strerror(errno)));
    });
    if (std::fflush(stdout) != 0) throw Error(fmt::format(N_("{}: cannot write to stdout: {}"), what, std::strerror(errno)));
    return {};
  }
  // 1. this process's own stdout/stderr/fd N: written through the descriptor
  if (const int fd = own_descriptor(path); fd >= 0) {
    if (binary && isatty(fd))
      throw usage_error(fmt::format(N_("{} {}: refusing to write binary output to a terminal; give a file name or pipe it"), what, path));
    std::fflush(stdout);
    produce([&](std::string_view bytes) { write_descriptor(fd, bytes, what, path); });
    return {};
  }
  // 2. a device or FIFO (/dev/null, /dev/full, a named pipe) is written in place: renaming a
  //    temporary over it would replace the device with a regular file
  const std::string target = write_target(path);
  struct stat st {};
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode))
    throw Error(fmt::format(N_("{} {}: cannot write: it is a directory; give a file name"), what, path));
  if (exists && !S_ISREG(st.st_mode)) {
    const int fd = ::open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) throw Error(fmt::format(N_("{} {}: cannot write: {}"), what, path, std::strerror(errno)));
    if (binary && isatty(fd)) {  // -o /dev/tty (or a pts) is the terminal as much as stdout is
      ::close(fd);
      throw usage_error(fmt::format(N_("{} {}: refusing to write binary output to a terminal; give a file name or pipe it"), what, path));
    }
    try {
      produce([&](std::string_view bytes) { write_descriptor(fd, bytes, what, path); });
    } catch (...) {
      ::close(fd);
      throw;
    }
    if (::close(fd) != 0) throw Error(fmt::format(N_("{} {}: cannot write: {}"), what, path, std::strerror(errno)));
    return {};
  }
  // 3. a regular file named through a symlink: written in place, as a shell's `>` does (the same
  //    inode, so its owner, mode and every hard link see the new bytes; docs/formats.md). The
  //    space is reserved first (posix_fallocate), so a full disk is refused before a byte changes.
  struct stat lst {};
  if (exists && ::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
    std::string gathered;  // a streamed result, gathered to learn its size
    std::vector<std::string_view> held;
    if (!known) {
      produce([&](std::string_view bytes) { gathered.append(bytes); });
      held.push_back(gathered);
    }
    const std::vector<std::string_view>& pieces = known ? *known : held;
    const int fd = ::open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) throw Error(fmt::format("{} {}: cannot write: {}", what, path, std::strerror(errno)));
    std::size_t total = 0;
    for (std::string_view bytes : pieces) total += bytes.size();
    try {
      struct stat fst {};
      if (::fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode))
        throw Error(fmt::format("{} {}: cannot write: the link's target changed while writing", what, path));
      if (total > 0) {
        const int r = ::posix_fallocate(fd, 0, static_cast<off_t>(total));
        if (r != 0 && r != EOPNOTSUPP && r != EINVAL)
          throw Error(fmt::format("{} {}: cannot write: {}", what, path, std::strerror(r)));
      }
      for (std::string_view bytes : pieces) write_descriptor(fd, bytes, what, path);
      if (::ftruncate(fd, static_cast<off_t>(total)) != 0)
        throw Error(fmt::format("{} {}: cannot write: {}", what, path, std::strerror(errno)));
    } catch (...) {
      ::close(fd);
      throw;
    }
    if (::close(fd) != 0) throw Error(fmt::format("{} {}: cannot write: {}", what, path, std::strerror(errno)));
    return {};
  }
  // 4. a regular file: refused when it could not be opened for writing (as cp and a shell's `>`
  //    refuse a read-only file); else written whole to a unique temporary beside it, to be renamed
  //    onto it keeping its mode (a new file gets 0666 less the umask)
  Staged out;
  out.mode = default_file_mode();
  if (exists) {
    const int probe = ::open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (probe < 0) throw Error(fmt::format(N_("{} {}: cannot write: {}"), what, path, std::strerror(errno)));
    ::close(probe);
    out.mode = st.st_mode & 07777;
  }
  const std::size_t slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : target.substr(0, slash);
  out.tmp = std::make_unique<TempFile>(dir, ".tfx-", ".tmp", what + " " + path);
  produce([&](std::string_view bytes) {
    if (!out.tmp->write_all(bytes.data(), bytes.size()))
      throw Error(fmt::format(N_("{} {}: cannot write: {}"), what, path, std::strerror(errno)));
  });
  if (exists && (st.st_uid != ::geteuid() || st.st_gid != ::getegid())) {
    if (::fchown(out.tmp->fd(), st.st_uid, st.st_gid) != 0) {
      // only root may give a file away: others write it as their own, as cp does
    }
  }
  out.target = target;
  out.path = path;
  out.what = what;
  return out;
}

// The open OutputBatch's staged files (nullptr: none open; files are renamed as they are written)
// and the "wrote FILE" lines to print once they are renamed
std::vector<Staged>* g_batch = nullptr;
std::vector<std::pair<std::FILE*, std::string>> g_announced;

// Renames a staged file now, or keeps it for the open batch's commit: given its mode and closed
// now, so that a command writing many files (a slide deck) holds no descriptor for each
void finish(Staged s) {
  if (!s.tmp) return;
  if (!g_batch) return s.tmp->commit(s.target, s.mode, s.what);
  if ((s.tmp->fd() >= 0 && ::fchmod(s.tmp->fd(), s.mode) != 0) || !s.tmp->close_fd())
    throw Error(fmt::format(N_("{} {}: cannot write: {}"), s.what, s.path, std::strerror(errno)));
  g_batch->push_back(std::move(s));
}

// The renames of several staged files, with the termination signals held back until all are
// done, so a Ctrl-C between two renames cannot leave a new file beside an old one (whichever
// thread a signal is delivered to: the handler remembers it, and it takes effect after the last
// rename)
void commit_all(std::vector<Staged>& staged) {
  defer_termination_signals();
  try {
    for (Staged& s : staged)
      if (s.tmp) s.tmp->commit(s.target, s.mode, s.what);
  } catch (...) {
    resume_termination_signals();
    throw;
  }
  resume_termination_signals();
}

std::function<void(const Sink&)> pieces_producer(const std::vector<std::string_view>& pieces) {
  return [&pieces](const Sink& sink) {
    for (std::string_view bytes : pieces) sink(bytes);
  };
}

}  // namespace

void emit(std::string_view bytes, const std::string& path, bool binary, const std::string& what) {
  emit(std::vector<std::string_view>{bytes}, path, binary, what);
}

void emit(const std::vector<std::string_view>& pieces, const std::string& path, bool binary, const std::string& what) {
  finish(stage(pieces_producer(pieces), &pieces, path, binary, what));
}

void emit_streamed(const std::function<void(const Sink&)>& produce, const std::string& path, bool binary, const std::string& what) {
  // the producer's small pieces gathered into megabyte writes
  const auto gathered = [&](const Sink& out) {
    std::string buffer;
    produce([&](std::string_view bytes) {
      buffer.append(bytes);
      if (buffer.size() >= (std::size_t{1} << 20)) {
        out(buffer);
        buffer.clear();
      }
    });
    if (!buffer.empty()) out(buffer);
  };
  finish(stage(gathered, nullptr, path, binary, what));
}

void emit_together(const std::vector<EmitFile>& files) {
  // 1. every file whole in its temporary (a full disk, a file-size limit or a signal here leaves
  //    every target as it was: the temporaries are removed)
  std::vector<Staged> staged;
  for (const EmitFile& f : files) staged.push_back(stage(pieces_producer(f.pieces), &f.pieces, f.path, f.binary, f.what));
  // 2. the renames together (or, in a batch, at its commit)
  if (g_batch) {
    for (Staged& s : staged) finish(std::move(s));
    return;
  }
  commit_all(staged);
}

void commit_file(std::unique_ptr<TempFile> tmp, const std::string& target, mode_t mode, const std::string& what) {
  Staged s;
  s.tmp = std::move(tmp);
  s.target = target;
  s.path = target;
  s.mode = mode;
  s.what = what;
  finish(std::move(s));
}

OutputBatch::OutputBatch() {
  if (g_batch) throw Error("an output batch is already open");
  g_batch = new std::vector<Staged>();
}

OutputBatch::~OutputBatch() {
  delete g_batch;  // the uncommitted temporaries removed (TempFile's destructor)
  g_batch = nullptr;
  g_announced.clear();
}

void OutputBatch::commit() {
  std::vector<Staged> staged = std::move(*g_batch);
  g_batch->clear();
  commit_all(staged);
  for (const auto& [stream, line] : g_announced) std::fprintf(stream, "%s\n", line.c_str());
  g_announced.clear();
}

void announce_written(std::FILE* stream, const std::string& line) {
  if (g_batch) g_announced.emplace_back(stream, line);
  else std::fprintf(stream, "%s\n", line.c_str());
}

}  // namespace tfx
