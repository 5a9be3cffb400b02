// The binary embedding table format (the cache and `tfx embeddings convert`): writing it, and
// mapping it back into memory with every section checked.
//
// Table file layout (little-endian, sections 64-byte aligned):
//   header (256 bytes: magic "TFXEMB1\n", version, N, D, source size/mtime/format, section offsets,
//   checksum) · vectors (N, D) float32 · norms (N,) float32 · word offsets (N+1,) uint64 ·
//   hash slots (S,) uint32 · word bytes · strings (source path, first duplicate) · for a fastText
//   model, its subword bucket rows (B, D) float32 (B = 0: none; minn/maxn in the header).
// The checksum (64-bit, over the header and every section except the vectors) catches corrupt
// or truncated files; the file size must match the header exactly.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <vector>
#include <cstddef>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include "core/parallel.hpp"
#include "embeddings_store.hpp"
#include "tfx/io/mapped_file.hpp"
#include "vectors_hash.hpp"
#include "tfx/io/temp_file.hpp"
#include "tfx/core/i18n.hpp"


namespace tfx {

namespace {

constexpr char kMagic[8] = {'T', 'F', 'X', 'E', 'M', 'B', '1', '\n'};
constexpr std::uint32_t kVersion = 2;  // 2: the vectors hash and the fuller source key
constexpr std::uint32_t kEndian = 0x01020304;

struct TableHeader {
  char magic[8];
  std::uint32_t version, endian;
  std::uint64_t n, d;
  std::int64_t source_size, source_mtime_ns;
  std::uint32_t source_format, gzip;
  std::uint64_t duplicates, file_rows;
  std::uint64_t off_vectors, off_norms, off_offsets, off_slots, slot_count, off_chars, chars_len, off_strings,
      path_len, dup_len;
  std::uint64_t file_size;
  std::uint64_t checksum;
  std::uint64_t off_buckets, bucket_count;  // fastText subwords (zero in tables without them)
  std::uint32_t minn, maxn;
  std::uint64_t vectors_hash;            // XXH3 of the vectors and buckets (vectors_hash())
  std::int64_t source_ctime_ns;          // the rest of the source key (SourceKey)
  std::uint64_t source_inode, source_edges;
  char pad[256 - 8 - 8 - 16 - 16 - 8 - 16 - 80 - 16 - 24 - 32];
};
static_assert(sizeof(TableHeader) == 256 && kTableVectorsOffset == 256);

std::uint64_t align64(std::uint64_t x) { return (x + 63) / 64 * 64; }

// A 64-bit multiply-xorshift hash over 8-byte words (not cryptographic; catches corruption).
std::uint64_t checksum_bytes(std::uint64_t h, const void* data, std::size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  }
  for (; i < n; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
  return h;
}

// XXH3 of the vectors (and fastText buckets): 64 MiB blocks hashed on all cores, then the block
// hashes hashed, so the value does not depend on the thread count. A flipped byte in any row
// changes it (the header checksum below leaves the big sections to this).
std::uint64_t vectors_hash(const float* vectors, std::size_t vector_bytes, const float* buckets, std::size_t bucket_bytes) {
  constexpr std::size_t kBlock = std::size_t{64} << 20;
  const std::size_t nv = (vector_bytes + kBlock - 1) / kBlock, nb = (bucket_bytes + kBlock - 1) / kBlock;
  std::vector<std::uint64_t> blocks(nv + nb);
  auto block = [&](std::size_t i) {
    const char* base = reinterpret_cast<const char*>(i < nv ? vectors : buckets);
    const std::size_t total = i < nv ? vector_bytes : bucket_bytes, at = (i < nv ? i : i - nv) * kBlock;
    blocks[i] = xxh3_64(base + at, std::min(kBlock, total - at));
  };
  parallel_for_threads(worker_threads(vector_bytes / 4 + bucket_bytes / 4), [&](unsigned t, unsigned T) {
    for (std::size_t i = t; i < blocks.size(); i += T) block(i);
  });
  return xxh3_64(blocks.data(), blocks.size() * sizeof(std::uint64_t));
}

// Checksum of the header (checksum field zeroed) and the sections other than the vectors.
std::uint64_t table_checksum(const TableHeader& hdr, const void* norms, const void* offsets, const void* slots,
                             const void* chars, const void* strings) {
  TableHeader copy = hdr;
  copy.checksum = 0;
  std::uint64_t h = checksum_bytes(0xcbf29ce484222325ull, &copy, sizeof copy);
  h = checksum_bytes(h, norms, hdr.n * 4);
  h = checksum_bytes(h, offsets, (hdr.n + 1) * 8);
  h = checksum_bytes(h, slots, hdr.slot_count * 4);
  h = checksum_bytes(h, chars, hdr.chars_len);
  h = checksum_bytes(h, strings, hdr.path_len + hdr.dup_len);
  return h;
}

// Why the sections of a table of `size` bytes with header h cannot be read, or nullptr. Every
// count is bounded before it is multiplied or added, so no size computation can wrap around.
const char* layout_problem(const TableHeader& h, std::size_t size) {
  const auto within = [&](std::uint64_t off, std::uint64_t bytes, std::uint64_t align) {
    return off % align == 0 && off <= size && bytes <= size - off;
  };
  if (h.n == 0 || h.d == 0 || h.d > 1000000 || h.n > (std::uint64_t{1} << 31)) return "impossible N or D";
  // the writer makes S the smallest power of two ≥ 2N, so S ≤ 2^32 here and some slot is empty
  if (h.slot_count <= h.n || h.slot_count > (std::uint64_t{1} << 32) || (h.slot_count & (h.slot_count - 1)) != 0)
    return "impossible hash table size";
  if (h.path_len > size || h.dup_len > size) return "a section lies outside the file";
  if (!within(h.off_vectors, h.n * h.d * 4, 4) || !within(h.off_norms, h.n * 4, 4) ||
      !within(h.off_offsets, (h.n + 1) * 8, 8) || !within(h.off_slots, h.slot_count * 4, 4) ||
      !within(h.off_chars, h.chars_len, 1) || !within(h.off_strings, h.path_len + h.dup_len, 1))
    return "a section lies outside the file";
  // fastText subword buckets (B = 0: none)
  if (h.bucket_count > (std::uint64_t{1} << 32) ||
      (h.bucket_count && (h.maxn == 0 || h.minn > h.maxn || h.bucket_count > UINT64_MAX / 4 / h.d ||
                          !within(h.off_buckets, h.bucket_count * h.d * 4, 4))))
    return "a section lies outside the file";
  return nullptr;
}

}  // namespace


bool is_table_file(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char m[8] = {};
  const bool ok = read(fd, m, 8) == 8 && std::memcmp(m, kMagic, 8) == 0;
  close(fd);
  return ok;
}

bool fix_table_checksum(char* file, std::size_t size) {
  TableHeader h;
  if (size < sizeof h) return false;
  std::memcpy(&h, file, sizeof h);
  if (layout_problem(h, size)) return false;
  h.checksum = table_checksum(h, file + h.off_norms, file + h.off_offsets, file + h.off_slots, file + h.off_chars,
                              file + h.off_strings);
  std::memcpy(file + offsetof(TableHeader, checksum), &h.checksum, sizeof h.checksum);
  return true;
}

std::shared_ptr<Embeddings::Store> map_table(const std::string& table_path, const SourceKey& expect, std::string& why) {
  const int fd = open(table_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    why = errno == ENOENT ? "missing" : std::strerror(errno);
    return nullptr;
  }
  struct stat st{};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<std::size_t>(st.st_size) < sizeof(TableHeader)) {
    close(fd);
    why = N_("corrupt: shorter than its header");
    return nullptr;
  }
  const std::size_t size = static_cast<std::size_t>(st.st_size);
  // MAP_POPULATE: the whole table is read anyway (the vectors hash, then every query), and the
  // kernel maps it in far fewer steps than one page fault per 4 KiB
  void* m = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED) {
    why = std::strerror(errno);
    return nullptr;
  }
  auto s = std::make_shared<Embeddings::Store>();
  s->map = m;
  s->map_size = size;
  s->map_watch = watch_mapping(m, size, table_path);  // truncated while read: an error, not a crash
  const char* base = static_cast<const char*>(m);
  TableHeader h;
  std::memcpy(&h, base, sizeof h);
  // 1. identity and layout
  auto bad = [&](const char* what) {
    why = std::string("corrupt: ") + what;
    return nullptr;
  };
  if (std::memcmp(h.magic, kMagic, 8) != 0) return bad(N_("not a tfx table"));
  if (h.version != kVersion || h.endian != kEndian) return bad(N_("written by another tfx version"));
  if (h.file_size != size) return bad(N_("its size does not match its header (truncated?)"));
  if (const char* problem = layout_problem(h, size)) return bad(problem);
  // 2. checksum of everything but the vectors
  if (table_checksum(h, base + h.off_norms, base + h.off_offsets, base + h.off_slots, base + h.off_chars,
                     base + h.off_strings) != h.checksum) return bad(N_("checksum mismatch"));
  // the word table (the checksum only catches accidents): word offsets ascend through the word
  // bytes, every slot is empty or names a row, and some slot is empty, so each lookup ends.
  // One pass over N + S small integers: a few milliseconds for millions of words.
  const auto* offsets = reinterpret_cast<const std::uint64_t*>(base + h.off_offsets);
  if (offsets[0] != 0 || offsets[h.n] != h.chars_len) return bad(N_("word offsets do not match the word bytes"));
  for (std::uint64_t i = 0; i < h.n; ++i)
    if (offsets[i] > offsets[i + 1]) return bad(N_("word offsets are not ascending"));
  const auto* slots = reinterpret_cast<const std::uint32_t*>(base + h.off_slots);
  std::uint64_t used = 0;
  for (std::uint64_t i = 0; i < h.slot_count; ++i) {
    if (slots[i] > h.n) return bad(N_("a hash slot names a row past the end"));
    used += slots[i] != 0;
  }
  if (used > h.n) return bad(N_("more hash slots in use than words"));
  // 3. staleness: the source file changed since the cache was written (a rewrite with the same
  //    size and a `touch -d`-restored mtime still changes its ctime, and mostly its inode or ends)
  if (expect.size >= 0 && (h.source_size != expect.size || h.source_mtime_ns != expect.mtime_ns ||
                           h.source_ctime_ns != expect.ctime_ns || h.source_inode != expect.inode ||
                           h.source_edges != expect.edges)) {
    why = "stale: the source file changed";
    return nullptr;
  }
  // 4. the vectors themselves: a flipped byte in a row would otherwise be served as a "hit"
  if (vectors_hash(reinterpret_cast<const float*>(base + h.off_vectors), h.n * h.d * 4,
                   h.bucket_count ? reinterpret_cast<const float*>(base + h.off_buckets) : nullptr,
                   h.bucket_count * h.d * 4) != h.vectors_hash)
    return bad(N_("the vectors do not match their hash"));
  s->n = h.n;
  s->d = h.d;
  s->vectors = reinterpret_cast<const float*>(base + h.off_vectors);
  s->norms = reinterpret_cast<const float*>(base + h.off_norms);
  s->offsets = offsets;
  s->chars = base + h.off_chars;
  s->slots = slots;
  s->slot_count = h.slot_count;
  s->info.format = static_cast<EmbeddingFormat>(h.source_format);
  s->info.gzip = h.gzip != 0;
  s->info.duplicates = h.duplicates;
  s->info.file_rows = h.file_rows;
  s->info.path = std::string(base + h.off_strings, h.path_len);
  s->info.first_duplicate = std::string(base + h.off_strings + h.path_len, h.dup_len);
  if (h.bucket_count) {
    s->buckets = reinterpret_cast<const float*>(base + h.off_buckets);
    s->bucket_count = h.bucket_count;
    s->minn = h.minn;
    s->maxn = h.maxn;
  }
  madvise(const_cast<char*>(base) + (h.off_vectors & ~std::uint64_t{4095}), h.n * h.d * 4, MADV_WILLNEED);
  return s;
}

void write_table(const Embeddings::Store& src, std::size_t n, const std::string& path, const SourceKey& source,
                 const CacheTarget* target) {
  // 1. a word table for the first n rows (the store's own when n is all of it)
  Embeddings::Store rebuilt;
  const Embeddings::Store* s = &src;
  if (n < src.n) {
    WordList wl;
    for (std::size_t i = 0; i < n; ++i) wl.push(src.word(i));
    std::vector<unsigned char> keep;
    build_word_table(rebuilt, wl, keep);
    s = &rebuilt;
  }
  const std::size_t d = src.d;
  TableHeader h{};
  std::memcpy(h.magic, kMagic, 8);
  h.version = kVersion;
  h.endian = kEndian;
  h.n = n;
  h.d = d;
  h.source_size = source.size;
  h.source_mtime_ns = source.mtime_ns;
  h.source_ctime_ns = source.ctime_ns;
  h.source_inode = source.inode;
  h.source_edges = source.edges;
  h.source_format = static_cast<std::uint32_t>(src.info.format);
  h.gzip = src.info.gzip;
  h.duplicates = src.info.duplicates;
  h.file_rows = src.info.file_rows;
  h.slot_count = s->slot_count;
  h.chars_len = s->offsets[n];
  h.path_len = src.info.path.size();
  h.dup_len = src.info.first_duplicate.size();
  h.off_vectors = sizeof(TableHeader);
  h.off_norms = align64(h.off_vectors + n * d * 4);
  h.off_offsets = align64(h.off_norms + n * 4);
  h.off_slots = align64(h.off_offsets + (n + 1) * 8);
  h.off_chars = align64(h.off_slots + h.slot_count * 4);
  h.off_strings = align64(h.off_chars + h.chars_len);
  h.bucket_count = src.buckets ? src.bucket_count : 0;
  h.minn = static_cast<std::uint32_t>(src.minn);
  h.maxn = static_cast<std::uint32_t>(src.maxn);
  h.off_buckets = align64(h.off_strings + h.path_len + h.dup_len);
  const std::size_t bucket_bytes = h.bucket_count * d * 4;
  h.file_size = h.bucket_count ? h.off_buckets + bucket_bytes : h.off_strings + h.path_len + h.dup_len;
  h.vectors_hash = vectors_hash(src.vectors, n * d * 4, h.bucket_count ? src.buckets : nullptr, bucket_bytes);
  // 2. the small sections in memory (for the checksum), then one sequential write
  std::string small(h.file_size - bucket_bytes - h.off_norms, '\0');
  auto put = [&](std::uint64_t off, const void* p, std::size_t bytes) {
    if (bytes) std::memcpy(small.data() + (off - h.off_norms), p, bytes);
  };
  put(h.off_norms, src.norms, n * 4);
  put(h.off_offsets, s->offsets, (n + 1) * 8);
  put(h.off_slots, s->slots, h.slot_count * 4);
  put(h.off_chars, s->chars, h.chars_len);
  put(h.off_strings, src.info.path.data(), h.path_len);
  put(h.off_strings + h.path_len, src.info.first_duplicate.data(), h.dup_len);
  auto at = [&](std::uint64_t off) { return small.data() + (off - h.off_norms); };  // file offset -> `small`
  h.checksum = table_checksum(h, at(h.off_norms), at(h.off_offsets), at(h.off_slots), at(h.off_chars), at(h.off_strings));
  // 3. tmp file + rename, so a reader never sees half a table
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty() && !std::filesystem::create_directories(parent, ec) && ec)  // (false without ec: it exists)
    throw Error(fmt::format(N_("{}: cannot create the folder: {}"), parent.string(), ec.message()));
  // (a unique temporary, O_EXCL: never a planted symlink, never another run's file)
  std::optional<TempFile> own;
  if (!target) {
    const std::string dir = std::filesystem::path(path).parent_path().string();
    own.emplace(dir.empty() ? "." : dir, std::filesystem::path(path).filename().string() + ".tmp." +
                                             std::to_string(getpid()) + ".", "", path);
  }
  const std::string tmp = target ? target->tmp : own->path();
  const int fd = target ? target->fd : own->fd();
  // the vectors already in the file: parsed straight into its mapping (CacheTarget)
  const bool in_place = target && src.own_vectors.file_map && n == src.n &&
                        reinterpret_cast<const char*>(src.vectors) ==
                            static_cast<const char*>(src.own_vectors.file_map) + h.off_vectors;
  // pwrite at explicit offsets, so the big vectors section is copied into the page cache by
  // all cores at once; returns false on failure
  auto write_at = [&](const void* p, std::size_t bytes, std::uint64_t off) {
    const char* c = static_cast<const char*>(p);
    while (bytes) {
      const ssize_t w = pwrite(fd, c, std::min<std::size_t>(bytes, std::size_t{1} << 20), static_cast<off_t>(off));
      if (w <= 0) return false;
      c += w;
      off += static_cast<std::uint64_t>(w);
      bytes -= static_cast<std::size_t>(w);
    }
    return true;
  };
  const std::size_t vec_bytes = n * d * 4;
  std::atomic<bool> ok = write_at(&h, sizeof h, 0) && write_at(small.data(), small.size(), h.off_norms);
  parallel_for_threads(worker_threads((in_place ? 0 : vec_bytes / 4) + bucket_bytes / 4), [&](unsigned t, unsigned T) {
    const std::size_t b0 = vec_bytes * t / T, b1 = vec_bytes * (t + 1) / T;
    if (!in_place && !write_at(reinterpret_cast<const char*>(src.vectors) + b0, b1 - b0, h.off_vectors + b0)) ok = false;
    const std::size_t c0 = bucket_bytes * t / T, c1 = bucket_bytes * (t + 1) / T;
    if (c1 > c0 && !write_at(reinterpret_cast<const char*>(src.buckets) + c0, c1 - c0, h.off_buckets + c0)) ok = false;
  });
  // (a file parsed into may be longer than the table when duplicate rows were dropped)
  if (!ok || ftruncate(fd, static_cast<off_t>(h.file_size)) != 0) {
    const std::string err = std::strerror(errno);
    unlink(tmp.c_str());
    throw Error(fmt::format(N_("{}: write failed: {}"), path, err));
  }
  if (own) {
    own->commit(path, default_file_mode(), "table");
  } else if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string err = std::strerror(errno);
    unlink(tmp.c_str());
    throw Error(fmt::format(N_("{}: cannot write: {}"), path, err));
  }
}

void write_embedding_table(const Embeddings& e, const std::string& path) {
  write_table(e.store(), e.size(), path, SourceKey{});
}

}  // namespace tfx
