// Private to the embeddings loader: the bytes of an embedding file — memory-mapped when it is a
// regular file, read whole from a pipe or device, gunzipped when it starts with the gzip magic.
// The parsers (embeddings_load.cpp, embeddings_text.cpp) only ever see a Bytes.
#pragma once
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <string>

#include "tfx/io/mapped_file.hpp"
#include <string_view>

namespace tfx {

// A file's bytes: memory-mapped, or read/decompressed into `owned`.
struct Bytes {
  const char* data = nullptr;
  std::size_t size = 0;
  void* map = nullptr;
  std::size_t map_size = 0;
  std::string owned;
  bool gzip = false;
  int watch = -1;  // the mapping's entry for the SIGBUS handler (tfx/io/mapped_file.hpp)
  int fd = -1;     // a mapped file stays open: the text parser reads big files with pread (see
                   // embeddings_text.cpp), which is several times faster here than walking the map
  Bytes() = default;
  Bytes(const Bytes&) = delete;
  Bytes& operator=(const Bytes&) = delete;
  ~Bytes() { unmap(); }
  void unmap() {
    unwatch_mapping(watch);
    watch = -1;
    if (map) munmap(map, map_size);
    map = nullptr;
    if (fd >= 0) close(fd);
    fd = -1;
  }
  bool mapped() const { return map != nullptr; }
};

// A test on the first line of a file (without its '\n').
using LineCheck = bool (*)(std::string_view first_line);

// Opens `path` into `b`: mapped, or read; gunzipped when it starts with 1f 8b (several gzip
// members allowed). With max_lines > 0 a gzip file is only inflated until that many lines are
// out, unless `lines_unbounded` says the first line announces binary data (whose bytes hold
// random '\n's). Throws tfx::Error naming the path: missing, a directory, unreadable, empty,
// corrupt or truncated gzip.
void open_bytes(const std::string& path, std::size_t max_lines, LineCheck lines_unbounded, Bytes& b);

}  // namespace tfx
