// Shared by the fuzz targets: a private working directory (inputs that must be files are
// written there; the cache, $HOME and $TFX_EMBEDDINGS cannot leak in), loading an embedding
// file and touching every word and row of the result, and running the tfx command line.
// An invariant broken by a loaded table traps, so libFuzzer reports it like a crash.
#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "tfx/embeddings/embeddings.hpp"
#include "tfx/core/error.hpp"

namespace tfx::fuzz {

// The process's scratch directory (created on first use; $XDG_CACHE_HOME and $HOME point
// into it). It outlives static destruction (never freed) so the exit handler can remove it.
inline const std::string& work_dir() {
  static const std::string& dir = *[] {
    std::string tmpl = (std::filesystem::temp_directory_path() / "tfx-fuzz-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) std::abort();
    setenv("XDG_CACHE_HOME", tmpl.c_str(), 1);
    setenv("HOME", tmpl.c_str(), 1);
    unsetenv("TFX_EMBEDDINGS");
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(work_dir(), ec);
    });
    return new std::string(tmpl);
  }();
  return dir;
}

// Writes bytes to work_dir()/name (replacing it) and returns the path.
inline std::string write_input(const std::string& name, const void* data, std::size_t size) {
  const std::string path = work_dir() + "/" + name;
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) std::abort();
  const char* p = static_cast<const char*>(data);
  for (std::size_t done = 0; done < size;) {
    const ssize_t w = write(fd, p + done, size - done);
    if (w <= 0) std::abort();
    done += static_cast<std::size_t>(w);
  }
  close(fd);
  return path;
}

inline void check(bool ok) {
  if (!ok) __builtin_trap();
}

// Reads every word, row and norm of e and looks every word up again: a table that loaded must
// be memory-safe to query, and a lookup must find a row spelled the same. Parsed files must
// find every word; a tfx table may not: a hand-edited one whose hash slots leave a word out
// (with a recomputed checksum) loads and answers "not in the vocabulary" for that word.
// Verifying every slot on load would cost each cache hit a pass over all words; the checksum
// catches accidents.
inline void exercise(const Embeddings& e) {
  const std::size_t D = e.dim();
  check(e.empty() || D > 0);
  const bool table = e.info().format == EmbeddingFormat::tfx_cache;
  double sum = 0;
  for (std::size_t i = 0; i < e.size(); ++i) {
    const std::string_view w = e.word(i);
    const auto found = e.find(w);
    check(found || table);
    if (found) check(*found < e.size() && e.word(*found) == w);
    if (const auto folded = e.find_ignore_case(w)) check(*folded < e.size());
    const auto row = e.row(i);
    check(row.size() == D);
    for (float x : row) sum += x;
    sum += e.norm(i);
  }
  if (!e.empty()) (void)nearest(e, e.row(0), 3);
  // a fastText model: vectors of unknown words from their n-gram buckets
  if (e.subwords()) {
    for (const char* unknown : {"zq", "unknownword", "\xc3\xa9t\xc3\xa9", "<>"})
      if (const auto r = e.subword_row(unknown)) {
        check(e.has_row(*r) && e.is_subword_row(*r) && e.row(*r).size() == D);
        for (float x : e.row(*r)) sum += x;
      }
  }
  (void)sum;
}

// Loads `path` as `format` without any cache (limit 0 = all rows), then exercise()s the table.
// Data errors (tfx::Error) are the expected outcome for most inputs.
inline void load_and_exercise(const std::string& path, EmbeddingFormat format, std::size_t limit) {
  EmbeddingSource src;
  src.path = path;
  src.format = format;
  src.limit = limit;
  src.use_cache = false;
  try {
    exercise(load_embeddings(src));
  } catch (const Error&) {
  }
}

// An embedding-file target: the first byte picks --limit (its low 3 bits, 0 = all), the rest is
// the file.
inline int embedding_target(const std::uint8_t* data, std::size_t size, EmbeddingFormat format) {
  if (size == 0) return 0;
  const std::string path = write_input("embeddings.txt", data + 1, size - 1);
  load_and_exercise(path, format, data[0] & 7);
  return 0;
}

}  // namespace tfx::fuzz

#include <cmath>

#include "tfx/io/matrix_io.hpp"

namespace tfx::fuzz {

// A matrix target: parse(text) must either throw tfx::Error or give an (R, C) matrix of finite
// values with 0 or R row labels and 0 or C column labels.
template <class Parse>
int matrix_target(const std::uint8_t* data, std::size_t size, Parse parse) {
  try {
    const LoadedMatrix m = parse(std::string_view(reinterpret_cast<const char*>(data), size), std::string("fuzz"));
    check(m.values.rank() == 2 && m.values.rows() >= 1 && m.values.cols() >= 1);
    check(m.values.size() == m.values.rows() * m.values.cols());
    check(m.row_labels.empty() || m.row_labels.size() == m.values.rows());
    check(m.col_labels.empty() || m.col_labels.size() == m.values.cols());
    for (std::size_t i = 0; i < m.values.size(); ++i) check(std::isfinite(m.values.data()[i]));
  } catch (const Error&) {
  }
  return 0;
}

}  // namespace tfx::fuzz
