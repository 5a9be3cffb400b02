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

#include "embeddings_store.hpp"
#include "tfx/io/temp_file.hpp"

namespace tfx {

namespace {

struct SourceStat {
  std::int64_t size = 0, mtime_ns = 0;
  bool regular = true;  // false for a pipe or device (`--embeddings <(zcat f.gz)`): read once, never cached
};

SourceStat stat_source(const std::string& path) {
  struct stat st{};
  if (stat(path.c_str(), &st) != 0)
    throw Error(fmt::format("{}: {} (expected an embedding file: GloVe, word2vec or fastText)", path,
                            errno == ENOENT ? "no such file" : std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) throw Error(fmt::format("{} is a directory; expected an embedding file", path));
  // a pipe is read to its end (`--embeddings <(zcat f.gz)`); a device such as /dev/zero never ends
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
    throw Error(fmt::format("{} is a device, not a file; expected an embedding file", path));
  return {static_cast<std::int64_t>(st.st_size),
          static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000ll + st.st_mtim.tv_nsec, S_ISREG(st.st_mode)};
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

std::string fallback_cache_dir() { return (std::filesystem::temp_directory_path() / "tfx-cache").string(); }

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
    auto s = map_table(path, -1, -1, why);
    if (!s) throw Error(fmt::format("{}: not a usable tfx table ({}); re-create it with `tfx embeddings convert`", path, why));
    s->name = path;
    s->info.cache_state = "this file is a tfx table";
    s->info.cache_path = path;
    s->info.format = EmbeddingFormat::tfx_cache;
    return view(std::move(s));
  }
  // 3. the cache of a text/binary file, if fresh
  const std::string cp = cache_path_for(path, src.cache_dir);
  std::string state;
  // a pipe's path (/dev/fd/63) and stat say nothing about its content: no cache
  const bool use_cache = src.use_cache && st.regular;
  if (use_cache) {
    std::string why;
    auto s = map_table(cp, st.size, st.mtime_ns, why);
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
  auto s = parse_embedding_file(src, path, into);
  if (!src.use_cache) {
    s->info.cache_state = "disabled (use_cache = false)";
  } else if (!use_cache) {
    s->info.cache_state = "not used (not a regular file)";
  } else if (src.limit) {
    s->info.cache_state = "not written (limit reads only part of the file)";
  } else {
    try {
      write_table(*s, s->n, cp, st.size, st.mtime_ns, into);
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
