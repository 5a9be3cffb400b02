// The bytes of an embedding file: open (mmap a regular file, read a pipe or device whole) and
// gunzip (zlib, concatenated members, optionally stopping after a number of lines).
#include "tfx/io/text_file.hpp"
#include "embeddings_bytes.hpp"
#include "tfx/core/memory.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {
// zlib's inflate messages (inflate.c), marked so that the message catalogue translates them
// inside "corrupt gzip data (zlib: …)"; zlib's own words are printed.
[[maybe_unused]] constexpr const char* kZlibMessages[] = {
    N_("incorrect header check"), N_("unknown compression method"), N_("invalid window size"), N_("unknown header flags set"),
    N_("header crc mismatch"), N_("invalid block type"), N_("invalid stored block lengths"), N_("too many length or distance symbols"),
    N_("invalid code lengths set"), N_("invalid bit length repeat"), N_("invalid code -- missing end-of-block"),
    N_("invalid literal/lengths set"), N_("invalid distances set"), N_("invalid literal/length code"), N_("invalid distance code"),
    N_("invalid distance too far back"), N_("incorrect data check"), N_("incorrect length check")};
}  // namespace


namespace {

[[noreturn]] void fail(const std::string& msg) { throw Error(msg); }

// Inflates gzip data (several members allowed), stopping once `max_lines` newlines are out
// (0 = no limit; none either once `lines_unbounded` accepts the first line).
void gunzip(const std::string& path, const char* in, std::size_t n, std::size_t max_lines, LineCheck lines_unbounded,
            std::string& out) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 32) != Z_OK) fail(path + ": zlib could not be initialised");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in));
  std::size_t remaining = n;
  std::size_t lines = 0;
  const std::size_t chunk = std::size_t{1} << 20;
  std::size_t counted = 0;
  for (;;) {
    const uInt feed = static_cast<uInt>(std::min<std::size_t>(remaining, 1u << 30));
    z.avail_in = feed;
    const std::size_t before_in = z.avail_in;
    // a gzip bomb (6 GiB of zeros in 28 MB) must not fill memory: the inflated text counts
    // against the memory budget before it grows
    if (static_cast<double>(out.size() + chunk) > static_cast<double>(memory_budget())) {
      inflateEnd(&z);
      check_memory(static_cast<double>(out.size() + chunk), fmt::format("{}: inflating it (more than {} MiB so far)", path,
                                                                      out.size() >> 20));
    }
    out.resize(out.size() + chunk);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + out.size() - chunk);
    z.avail_out = static_cast<uInt>(chunk);
    const int rc = inflate(&z, Z_NO_FLUSH);
    out.resize(out.size() - z.avail_out);
    remaining -= before_in - z.avail_in;
    if (rc == Z_STREAM_END) {
      if (remaining == 0) break;
      // another gzip member follows (concatenated .gz files are valid)
      if (inflateReset(&z) != Z_OK) break;
      continue;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      const std::string why = z.msg ? z.msg : "invalid data";
      inflateEnd(&z);
      fail(fmt::format(N_("{}: corrupt gzip data (zlib: {}); expected a gzip-compressed embedding file"), path, why));
    }
    if (rc == Z_BUF_ERROR && remaining == 0 && z.avail_in == 0) {
      inflateEnd(&z);
      fail(fmt::format(N_("{}: truncated gzip data (the compressed stream ends early)"), path));
    }
    if (max_lines) {
      for (; counted < out.size(); ++counted) {
        if (out[counted] != '\n') continue;
        // a header line "N D" may announce binary vectors, whose bytes hold random '\n's:
        // then there is no line count to stop at
        if (lines++ == 0 && lines_unbounded(std::string_view(out.data(), counted))) max_lines = 0;
      }
      if (max_lines && lines > max_lines) break;
    }
  }
  inflateEnd(&z);
}

}  // namespace

void open_bytes(const std::string& path, std::size_t max_lines, LineCheck lines_unbounded, Bytes& b) {
  struct stat st{};
  if (stat(path.c_str(), &st) != 0)
    fail(fmt::format(N_("{}: {} (expected an embedding file: GloVe, word2vec or fastText)"), path,
                     errno == ENOENT ? "no such file" : std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) fail(fmt::format(N_("{} is a directory; expected an embedding file"), path));
  const int fd = open_input_fd(path);  // a FIFO with no writer reads as empty, never waits forever
  if (fd < 0) fail(fmt::format(N_("{}: cannot open: {}"), path, std::strerror(errno)));
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    b.map_size = static_cast<std::size_t>(st.st_size);
    void* m = mmap(nullptr, b.map_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
      close(fd);
      fail(fmt::format(N_("{}: cannot map: {}"), path, std::strerror(errno)));
    }
    b.map = m;
    b.watch = watch_mapping(m, b.map_size, path);  // truncated while parsed: an error, not a crash
    b.data = static_cast<const char*>(m);
    b.size = b.map_size;
    madvise(m, b.map_size, MADV_SEQUENTIAL);
    b.fd = fd;
  } else {  // a pipe or device: read it all
    char buf[1 << 16];
    for (;;) {
      const ssize_t r = read(fd, buf, sizeof buf);
      if (r < 0) {
        close(fd);
        fail(fmt::format(N_("{}: read error: {}"), path, std::strerror(errno)));
      }
      if (r == 0) break;
      b.owned.append(buf, static_cast<std::size_t>(r));
    }
    b.data = b.owned.data();
    b.size = b.owned.size();
    close(fd);
  }
  if (b.size == 0) fail(fmt::format(N_("{}: empty file; expected GloVe, word2vec or fastText vectors"), path));
  if (b.size >= 2 && static_cast<unsigned char>(b.data[0]) == 0x1f && static_cast<unsigned char>(b.data[1]) == 0x8b) {
    std::string out;
    gunzip(path, b.data, b.size, max_lines, lines_unbounded, out);
    b.unmap();
    b.owned = std::move(out);
    b.data = b.owned.data();
    b.size = b.owned.size();
    b.gzip = true;
    if (b.size == 0) fail(fmt::format(N_("{}: empty file (after gzip decompression)"), path));
  }
}


}  // namespace tfx
