// load_embeddings(): the built-in embedding, a tfx table file, the fresh cache of a text or
// binary file (embeddings_table.cpp's format, under the caller's cache_dir or
// fallback_cache_dir()), or a fresh parse that writes the cache as it goes.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <signal.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

#include <algorithm>

#include "embeddings_store.hpp"
#include "vectors_hash.hpp"
#include "tfx/io/temp_file.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {

struct SourceStat {
  SourceKey key;
  bool regular = true;  // false for a pipe or device (`--embeddings <(zcat f.gz)`): read once, never cached
};

// XXH3 of the first and the last MiB of a regular file (2 MiB read however big it is): a rewrite
// that keeps size and mtime almost never keeps these too.
std::uint64_t edge_hash(const std::string& path, std::int64_t size) {
  constexpr std::int64_t kEdge = 1 << 20;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  std::string buf(static_cast<std::size_t>(std::min(size, 2 * kEdge)), '\0');
  const std::int64_t head = std::min(size, kEdge), tail = std::min(size - head, kEdge);
  ssize_t got = ::pread(fd, buf.data(), static_cast<std::size_t>(head), 0);
  if (got == head && tail > 0) got += ::pread(fd, buf.data() + head, static_cast<std::size_t>(tail), size - tail);
  ::close(fd);
  return xxh3_64(buf.data(), got > 0 ? static_cast<std::size_t>(got) : 0);
}

SourceStat stat_source(const std::string& path) {
  struct stat st{};
  if (stat(path.c_str(), &st) != 0)
    throw Error(fmt::format(N_("{}: {} (expected an embedding file: GloVe, word2vec or fastText)"), path,
                            errno == ENOENT ? "no such file" : std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) throw Error(fmt::format(N_("{} is a directory; expected an embedding file"), path));
  // a pipe is read to its end (`--embeddings <(zcat f.gz)`); a device such as /dev/zero never ends
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
    throw Error(fmt::format(N_("{} is a device, not a file; expected an embedding file"), path));
  SourceStat s;
  s.regular = S_ISREG(st.st_mode);
  s.key.size = static_cast<std::int64_t>(st.st_size);
  s.key.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000ll + st.st_mtim.tv_nsec;
  s.key.ctime_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000ll + st.st_ctim.tv_nsec;
  s.key.inode = static_cast<std::uint64_t>(st.st_ino);
  if (s.regular) s.key.edges = edge_hash(path, s.key.size);
  return s;
}

// Removes the cache temporaries in `dir` whose writer is gone (killed mid-load before the signal
// cleanup existed, or by SIGKILL): names "<hash>-<name>.tfxemb.tmp.<pid>[.XXXXXX]" whose pid no
// longer runs.
void remove_stale_temporaries(const std::filesystem::path& dir) {
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(dir, ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::size_t at = name.find(".tfxemb.tmp.");
    if (at == std::string::npos) continue;
    const char* p = name.c_str() + at + std::strlen(".tfxemb.tmp.");
    char* end = nullptr;
    const long pid = std::strtol(p, &end, 10);
    if (pid <= 0 || end == p || (*end != '\0' && *end != '.')) continue;
    if (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) unlink(it->path().c_str());
  }
}

}  // namespace

// Why `dir` must not hold this user's cache, or "" when it may: a cache another local user can
// write could serve them planted vectors as a "hit" (and a symlink there could aim our writes).
static std::string unsafe_cache_dir(const std::string& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return "";  // made by us, 0700
  if (S_ISLNK(st.st_mode)) return fmt::format("{} is a symbolic link", dir);
  if (!S_ISDIR(st.st_mode)) return fmt::format(N_("{} is not a directory"), dir);
  if (st.st_uid != ::geteuid()) return fmt::format("{} belongs to another user (uid {})", dir, st.st_uid);
  if (st.st_mode & 022) return fmt::format("{} is writable by other users (mode {:o})", dir, st.st_mode & 07777);
  return "";
}

// Per user: a shared /tmp/tfx-cache could be prepared by anyone.
std::string fallback_cache_dir() {
  return (std::filesystem::temp_directory_path() / fmt::format("tfx-cache-{}", ::geteuid())).string();
}

std::string cache_path_for(const std::string& path, const std::string& cache_dir) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  const std::string key = ec ? path : abs.lexically_normal().string();
  std::string base = std::filesystem::path(path).filename().string();
  for (auto& c : base)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_')) c = '_';
  if (base.size() > 80) base.resize(80);
  return fmt::format("{}/{:016x}-{}.tfxemb", cache_dir.empty() ? fallback_cache_dir() : cache_dir, word_hash(key), base);
}

Embeddings load_embeddings(const EmbeddingSource& src) {
  // 1. the built-in teaching embedding
  if (src.path.empty()) {
    auto s = builtin_store();
    return Embeddings(s, src.limit ? std::min(src.limit, s->n) : s->n);
  }
  const std::string& path = src.path;
  const SourceStat st = stat_source(path);
  auto view = [&](std::shared_ptr<Embeddings::Store> s) {
    const std::size_t n = src.limit ? std::min(src.limit, s->n) : s->n;
    return Embeddings(std::shared_ptr<const Embeddings::Store>(std::move(s)), n);
  };
  // 2. a tfx table given directly (written by `tfx embeddings convert`)
  // (a pipe is never probed: reading its first 8 bytes would take them from the parser)
  if (src.format == EmbeddingFormat::tfx_cache || (src.format == EmbeddingFormat::detect && st.regular && is_table_file(path))) {
    std::string why;
    auto s = map_table(path, SourceKey{}, why);
    if (!s) throw Error(fmt::format(N_("{}: not a usable tfx table ({}); re-create it with `tfx embeddings convert`"), path, why));
    s->name = path;
    s->info.cache_state = "this file is a tfx table";
    s->info.cache_path = path;
    s->info.format = EmbeddingFormat::tfx_cache;
    return view(std::move(s));
  }
  // 3. the cache of a text/binary file, if fresh
  const std::string cp = cache_path_for(path, src.cache_dir);
  std::string state;
  // a pipe's path (/dev/fd/63) and stat say nothing about its content: no cache; nor a cache
  // directory another user could have written
  const std::string cache_dir = std::filesystem::path(cp).parent_path().string();
  const std::string unsafe = src.use_cache && st.regular ? unsafe_cache_dir(cache_dir) : "";
  const bool use_cache = src.use_cache && st.regular && unsafe.empty();
  if (use_cache) {
    std::string why;
    auto s = map_table(cp, st.key, why);
    if (s && src.format != EmbeddingFormat::detect && s->info.format != src.format) {
      s.reset();
      why = "stale: read with another format";
    }
    if (s) {
      s->name = path;
      s->info.path = path;
      s->info.cache_path = cp;
      s->info.cache_state = "hit";
      return view(std::move(s));
    }
    state = why == "missing" ? "written" : "rebuilt (" + why + ")";
  }
  // 4. parse (text straight into the cache file being written), then write the rest of the
  //    cache (never for a failed parse, never for a partial read)
  CacheTarget target;
  struct MadeDirs {  // the directories made for the temporary, removed when no cache was written
    std::vector<std::filesystem::path> made;  // deepest last
    ~MadeDirs() {
      std::error_code ec;
      for (auto it = made.rbegin(); it != made.rend(); ++it) std::filesystem::remove(*it, ec);  // only if empty
    }
  } made_dirs;
  std::optional<TempFile> tmp;  // closed and removed on every way out (before made_dirs), and on SIGINT/TERM/HUP
  if (use_cache && !src.limit) {
    std::error_code ec;
    const std::filesystem::path dir = std::filesystem::path(cp).parent_path();
    for (auto d = dir; !d.empty() && !std::filesystem::exists(d, ec); d = d.parent_path())
      made_dirs.made.insert(made_dirs.made.begin(), d);
    std::filesystem::create_directories(dir, ec);
    if (!made_dirs.made.empty()) std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);  // 0700
    remove_stale_temporaries(dir);
    try {
      // <cache file>.tmp.<pid>.XXXXXX: unique (O_EXCL), and a later run can tell whether its
      // writer is still alive
      tmp.emplace(dir.string(), fmt::format("{}.tmp.{}.", std::filesystem::path(cp).filename().string(), getpid()), "",
                  "cache");
      target.fd = tmp->fd();
      target.tmp = tmp->path();
    } catch (const Error&) {
      // no temporary, no cache: the file is still read
    }
  }
  const CacheTarget* into = target.fd >= 0 ? &target : nullptr;
  std::shared_ptr<Embeddings::Store> s;
  try {
    s = parse_embedding_file(src, path, into);
  } catch (const Error&) {
    // a file cut or rewritten while it was parsed fails on some row; say what really happened
    if (st.regular) {
      struct stat now {};
      if (::stat(path.c_str(), &now) != 0 || now.st_size != st.key.size ||
          static_cast<std::int64_t>(now.st_mtim.tv_sec) * 1000000000ll + now.st_mtim.tv_nsec != st.key.mtime_ns)
        throw Error(fmt::format(N_("{}: the file changed while reading (truncated by another program?); nothing was written"), path));
    }
    throw;
  }
  if (!src.use_cache) {
    s->info.cache_state = "disabled (use_cache = false)";
  } else if (!unsafe.empty()) {
    s->info.cache_state = "not written: " + unsafe + "; not used";
  } else if (!use_cache) {
    s->info.cache_state = "not used (not a regular file)";
  } else if (src.limit) {
    s->info.cache_state = "not written (limit reads only part of the file)";
  } else {
    try {
      write_table(*s, s->n, cp, st.key, into);
      if (tmp) tmp->renamed();
      s->info.cache_state = state;
      s->info.cache_path = cp;
    } catch (const Error& e) {
      s->info.cache_state = std::string("not written: ") + e.what();
    }
  }
  return view(std::move(s));
}

}  // namespace tfx
