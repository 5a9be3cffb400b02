// Private to the embeddings sources: the storage behind tfx::Embeddings (owned buffers, static
// built-in data, or a memory-mapped cache file), the word hash table, and the helpers the
// loaders, the cache and the queries share.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <new>
#include <fcntl.h>
#include <sys/mman.h>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/parallel.hpp"
#include "tfx/embeddings/embeddings.hpp"

namespace tfx {

// An uninitialised array: pages are only touched when written, and big arrays come straight
// from mmap so freeing one returns its memory to the system at once. Building a big matrix
// while the parser's blocks are freed one by one keeps peak memory near one copy.
template <class T>
struct Buffer {
  T* p = nullptr;
  std::size_t n = 0;
  bool mapped = false;
  void* file_map = nullptr;  // map_file(): the shared mapping of a file, from its byte 0
  std::size_t file_map_len = 0;
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept : p(o.p), n(o.n), mapped(o.mapped), file_map(o.file_map), file_map_len(o.file_map_len) {
    o.p = nullptr, o.n = 0, o.file_map = nullptr;
  }
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) {
      release();
      p = o.p, n = o.n, mapped = o.mapped, file_map = o.file_map, file_map_len = o.file_map_len;
      o.p = nullptr, o.n = 0, o.file_map = nullptr;
    }
    return *this;
  }
  // `count` T's at byte `offset` of the open file `fd`, mapped shared: what is written here is
  // written to the file (its pages in the page cache), with no copy. The file's space is reserved
  // first (fallocate), so a full disk is an error here rather than a SIGBUS later. False (and
  // nothing mapped) when that fails.
  bool map_file(int fd, std::size_t offset, std::size_t count) {
    release();
    const std::size_t len = offset + count * sizeof(T);
    if (posix_fallocate(fd, 0, static_cast<off_t>(len)) != 0) return false;
    void* m = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) return false;
    file_map = m;
    file_map_len = len;
    p = reinterpret_cast<T*>(static_cast<char*>(m) + offset);
    n = count;
    mapped = true;
    return true;
  }
  ~Buffer() { release(); }
  void allocate(std::size_t count) {
    release();
    n = count;
    const std::size_t bytes = count * sizeof(T);
    if (bytes >= (std::size_t{1} << 20)) {
      // aligned to 2 MB and marked for huge pages: a 2.4 GB matrix then takes ~1,200 page faults
      // instead of ~600,000 (the kernel's cost of first touching memory)
      constexpr std::size_t huge = std::size_t{2} << 20;
      const std::size_t len = (bytes + 4095) / 4096 * 4096;
      void* m = mmap(nullptr, len + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (m == MAP_FAILED) throw std::bad_alloc();
      const auto a = reinterpret_cast<std::uintptr_t>(m);
      const std::uintptr_t aligned = (a + huge - 1) / huge * huge;
      if (aligned > a) munmap(m, aligned - a);
      if (a + huge > aligned) munmap(reinterpret_cast<void*>(aligned + len), a + huge - aligned);
      madvise(reinterpret_cast<void*>(aligned), len, MADV_HUGEPAGE);
      p = reinterpret_cast<T*>(aligned);
      mapped = true;
    } else {
      p = count ? new T[count] : nullptr;
      mapped = false;
    }
  }
  void release() {
    if (file_map) munmap(file_map, file_map_len);
    else if (p) {
      if (mapped) munmap(p, n * sizeof(T));
      else delete[] p;
    }
    p = nullptr;
    n = 0;
    file_map = nullptr;
  }
  T* data() { return p; }
  const T* data() const { return p; }
};

// The vector of an out-of-vocabulary word built from its character n-grams (fastText subwords).
struct SubwordRow {
  std::string word;
  std::vector<float> v;     // (d,)
  float norm = 0;           // ‖v‖
  std::size_t ngrams = 0;   // n-grams averaged (with repeats)
};

struct Embeddings::Store {
  std::size_t n = 0, d = 0;
  // views (into the owned buffers, static data, or the mapping)
  const float* vectors = nullptr;         // (n, d)
  const float* norms = nullptr;           // (n,)
  const std::uint64_t* offsets = nullptr; // (n+1,) byte offsets of each word in chars
  const char* chars = nullptr;            // all words, concatenated
  const std::uint32_t* slots = nullptr;   // open-addressing hash table: row+1, 0 = empty
  std::uint64_t slot_count = 0;           // a power of two >= 2n

  Buffer<float> own_vectors, own_norms;
  Buffer<std::uint64_t> own_offsets;
  std::string own_chars;
  Buffer<std::uint32_t> own_slots;

  // fastText subwords (a .bin model or its cache): bucket rows and n-gram lengths; none when
  // buckets == nullptr
  const float* buckets = nullptr;         // (bucket_count, d)
  std::uint64_t bucket_count = 0;
  std::size_t minn = 0, maxn = 0;
  Buffer<float> own_buckets;
  // rows n, n+1, … : out-of-vocabulary words built from subwords on request (memoised)
  mutable std::mutex extra_mu;
  mutable std::deque<SubwordRow> extras;

  void* map = nullptr;                    // a mapped cache file, unmapped at destruction
  std::size_t map_size = 0;
  int map_watch = -1;  // the mapping's entry for the SIGBUS handler (tfx/io/mapped_file.hpp)

  std::string name;
  LoadInfo info;
  std::vector<std::string> axes;

  // case-folded lookup table, built on first use
  mutable std::once_flag fold_once;
  mutable std::vector<std::uint32_t> fold_slots;

  Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  ~Store();

  std::string_view word(std::size_t i) const {
    return {chars + offsets[i], static_cast<std::size_t>(offsets[i + 1] - offsets[i])};
  }
  // Row of `w` or -1 (looks at all n rows of the store).
  std::int64_t lookup(std::string_view w) const;
};

// FNV-1a, 64-bit: the hash of the word table (also stored in cache files, so it must not change).
inline std::uint64_t word_hash(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// Row i >= s.n of the store: a word built from subwords (throws when there is no such row).
const SubwordRow& subword_row_of(const Embeddings::Store& s, std::size_t i);

// fastText's n-gram buckets of `word`, each given to f(bucket) in fastText's order (see
// fasttext_ngram_buckets in embeddings.hpp): nothing is stored, so a long word costs no memory.
template <class F>
void for_each_ngram_bucket(std::string_view word, std::size_t minn, std::size_t maxn, std::size_t bucket, F&& f) {
  if (bucket == 0 || maxn == 0) return;
  // `<word>`: n-grams are counted in characters; a UTF-8 continuation byte (10xxxxxx) never starts
  // one and always stays with the character before it (Dictionary::computeSubwords)
  auto at = [&](std::size_t k) { return k == 0 ? '<' : k == word.size() + 1 ? '>' : word[k - 1]; };
  auto continuation = [](char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; };
  const std::size_t len = word.size() + 2;
  for (std::size_t i = 0; i < len; ++i) {
    if (continuation(at(i))) continue;
    // extend the n-gram one character at a time, updating its hash byte by byte (fasttext_hash)
    std::uint32_t h = 2166136261u;
    std::size_t j = i;
    for (std::size_t n = 1; j < len && n <= maxn; ++n) {
      do {
        h ^= static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int8_t>(at(j))));
        h *= 16777619u;
        ++j;
      } while (j < len && continuation(at(j)));
      // the 1-grams '<' and '>' alone are not n-grams of the word
      if (n >= minn && !(n == 1 && (i == 0 || j == len))) f(static_cast<std::uint32_t>(h % bucket));
    }
  }
}

// Smallest power of two >= 2n (at least 16): the slot count of the word hash table.
std::uint64_t slot_count_for(std::size_t n);

// Words in parse order, before duplicates are dropped.
struct WordList {
  std::string chars;
  std::vector<std::uint64_t> ends;  // end offset of word i in chars
  std::size_t size() const { return ends.size(); }
  std::string_view operator[](std::size_t i) const {
    const std::uint64_t b = i ? ends[i - 1] : 0;
    return {chars.data() + b, static_cast<std::size_t>(ends[i] - b)};
  }
  void push(std::string_view w) {
    chars.append(w);
    ends.push_back(chars.size());
  }
};

// Builds the word table of `s` (offsets, chars, slots) from `words`, dropping duplicates.
// keep[i] = 1 when word i is the first of its spelling. Returns the number of kept words.
std::size_t build_word_table(Embeddings::Store& s, const WordList& words, std::vector<unsigned char>& keep);

// ‖v‖ of d floats, summed in double in four interleaved partial sums (element j into sum j mod 4,
// then (s0 + s1) + (s2 + s3)): how every norm of a store is computed, by compute_norms or by a
// parser while the row is still in cache. Four sums, not one, so the additions do not wait on
// each other (a 300-dimensional row: 75 dependent additions instead of 300); the order is fixed,
// so the result is the same on every machine.
inline float row_norm(const float* v, std::size_t d) {
  double s[4] = {0, 0, 0, 0};
  std::size_t j = 0;
  for (; j + 4 <= d; j += 4)
    for (std::size_t k = 0; k < 4; ++k) s[k] += static_cast<double>(v[j + k]) * v[j + k];
  for (; j < d; ++j) s[j % 4] += static_cast<double>(v[j]) * v[j];
  return static_cast<float>(std::sqrt((s[0] + s[1]) + (s[2] + s[3])));
}

// Fills s.own_norms with ‖row i‖ (row_norm) and points s.norms at it. Parallel.
void compute_norms(Embeddings::Store& s);
// Refuses a table with a row whose length overflows float32 (a GloVe row "big 3e38 3e38"): its
// cosines would print as NaN or -inf. The error names `path`, the word and the row.
void check_norms(const Embeddings::Store& s, const std::string& path);

// The built-in table's store (static vectors).
std::shared_ptr<const Embeddings::Store> builtin_store();

// The cache file being written while its source is parsed: a text parser maps the file's vectors
// section (Buffer::map_file at kTableVectorsOffset) and writes the rows there, so they reach the
// page cache once instead of being copied there from memory afterwards (the slowest part of a
// first load of a 5 GB file: fresh memory is expensive to touch).
struct CacheTarget {
  int fd = -1;
  std::string tmp;  // its name until write_table renames it
};
constexpr std::size_t kTableVectorsOffset = 256;  // the table header's size (embeddings_table.cpp)

// The parser of a source file (embeddings_load.cpp). `target`: see CacheTarget (nullptr = none).
std::shared_ptr<Embeddings::Store> parse_embedding_file(const EmbeddingSource& src, const std::string& path,
                                                        const CacheTarget* target = nullptr);
// What identifies the version of a source file a cache was made from: size, mtime and ctime in
// nanoseconds, inode, and a hash of its first and last MiB. size -1 = no source (a table given
// directly): no staleness check.
struct SourceKey {
  std::int64_t size = -1, mtime_ns = -1, ctime_ns = -1;
  std::uint64_t inode = 0, edges = 0;
};
// The table format (embeddings_table.cpp). A mapped cache/table file, or nullptr with `why` set
// when it is missing, stale or corrupt (its vectors are checked against their hash).
std::shared_ptr<Embeddings::Store> map_table(const std::string& table_path, const SourceKey& expect, std::string& why);
// Writes the table file (tmp + rename); the source key, format and gzip stored in it.
// With `target`, the table is written into that open tmp file (the vectors not again when the
// store's vectors already live in it).
void write_table(const Embeddings::Store& s, std::size_t n, const std::string& path, const SourceKey& source,
                 const CacheTarget* target = nullptr);

// True when the file starts with the tfx table magic.
bool is_table_file(const std::string& path);

// For the fuzz target only: rewrites the checksum in the header of the table image `file` so that
// mutated bytes reach the checks after it. False (nothing written) when the header's sections do
// not lie inside the image.
bool fix_table_checksum(char* file, std::size_t size);

}  // namespace tfx
