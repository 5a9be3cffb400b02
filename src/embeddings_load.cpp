// Parsers of embedding files: GloVe text (no header), word2vec text (`N D` header), fastText
// .vec (word2vec text with trailing spaces), word2vec binary (with or without '\n' after each
// vector), any of them gzip-compressed; format detection; the real-file quirks (UTF-8 BOM, CRLF,
// trailing spaces, words containing spaces, duplicate words, invalid UTF-8 kept as bytes).
// Text is parsed on all cores with a hand-written float parser whose results are bit-identical
// to Python's float() followed by a float32 cast (what gensim does).
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "embeddings_numbers.hpp"
#include "embeddings_store.hpp"

namespace tfx {

namespace {

using namespace numbers;

constexpr std::size_t kMaxDim = 100000;       // the widest real embeddings have a few thousand
constexpr std::size_t kMaxWordBytes = 100000;  // longer "words" mean the file is not what it claims
constexpr std::size_t kBlockFloats = std::size_t{1} << 20;  // floats per parse block (4 MB, one allocation)

[[noreturn]] void fail(const std::string& msg) { throw Error(msg); }

// ---- the bytes of a file -------------------------------------------------------------------

// A file's bytes: memory-mapped, or read/decompressed into `owned`.
struct Bytes {
  const char* data = nullptr;
  std::size_t size = 0;
  void* map = nullptr;
  std::size_t map_size = 0;
  std::string owned;
  bool gzip = false;
  Bytes() = default;
  Bytes(const Bytes&) = delete;
  Bytes& operator=(const Bytes&) = delete;
  ~Bytes() {
    if (map) munmap(map, map_size);
  }
  bool mapped() const { return map != nullptr; }
};

bool first_line_is_header(std::string_view line);

// Inflates gzip data (several members allowed), stopping once `max_lines` newlines are out
// (0 = no limit).
void gunzip(const std::string& path, const char* in, std::size_t n, std::size_t max_lines, std::string& out) {
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
      fail(fmt::format("{}: corrupt gzip data (zlib: {}); expected a gzip-compressed embedding file", path, why));
    }
    if (rc == Z_BUF_ERROR && remaining == 0 && z.avail_in == 0) {
      inflateEnd(&z);
      fail(fmt::format("{}: truncated gzip data (the compressed stream ends early)", path));
    }
    if (max_lines) {
      for (; counted < out.size(); ++counted) {
        if (out[counted] != '\n') continue;
        // a header line "N D" may announce binary vectors, whose bytes hold random '\n's:
        // then there is no line count to stop at
        if (lines++ == 0 && first_line_is_header(std::string_view(out.data(), counted))) max_lines = 0;
      }
      if (max_lines && lines > max_lines) break;
    }
  }
  inflateEnd(&z);
}

void open_bytes(const std::string& path, std::size_t max_lines, Bytes& b) {
  struct stat st{};
  if (stat(path.c_str(), &st) != 0)
    fail(fmt::format("{}: {} (expected an embedding file: GloVe, word2vec or fastText)", path,
                     errno == ENOENT ? "no such file" : std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) fail(fmt::format("{} is a directory; expected an embedding file", path));
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    b.map_size = static_cast<std::size_t>(st.st_size);
    void* m = mmap(nullptr, b.map_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
      close(fd);
      fail(fmt::format("{}: cannot map: {}", path, std::strerror(errno)));
    }
    b.map = m;
    b.data = static_cast<const char*>(m);
    b.size = b.map_size;
    madvise(m, b.map_size, MADV_SEQUENTIAL);
  } else {  // a pipe or device: read it all
    char buf[1 << 16];
    for (;;) {
      const ssize_t r = read(fd, buf, sizeof buf);
      if (r < 0) {
        close(fd);
        fail(fmt::format("{}: read error: {}", path, std::strerror(errno)));
      }
      if (r == 0) break;
      b.owned.append(buf, static_cast<std::size_t>(r));
    }
    b.data = b.owned.data();
    b.size = b.owned.size();
  }
  close(fd);
  if (b.size == 0) fail(fmt::format("{}: empty file; expected GloVe, word2vec or fastText vectors", path));
  if (b.size >= 2 && static_cast<unsigned char>(b.data[0]) == 0x1f && static_cast<unsigned char>(b.data[1]) == 0x8b) {
    std::string out;
    gunzip(path, b.data, b.size, max_lines, out);
    if (b.map) munmap(b.map, b.map_size);
    b.map = nullptr;
    b.owned = std::move(out);
    b.data = b.owned.data();
    b.size = b.owned.size();
    b.gzip = true;
    if (b.size == 0) fail(fmt::format("{}: empty file (after gzip decompression)", path));
  }
}

// A word or field for an error message: at most 40 characters, valid UTF-8 kept, control bytes and
// invalid UTF-8 (binary junk) written as \xNN so one message stays one readable line.
std::string show_token(std::string_view t) {
  std::string o;
  std::size_t i = 0, shown = 0;
  while (i < t.size() && shown < 40) {
    const auto c = static_cast<unsigned char>(t[i]);
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (len > 1 && c < 0xc2) len = 0;  // overlong lead byte
    for (std::size_t k = 1; k < len; ++k)
      if (i + k >= t.size() || (static_cast<unsigned char>(t[i + k]) & 0xc0) != 0x80) len = 0;
    if (len == 1 && c >= 0x20 && c != 0x7f) {
      o += static_cast<char>(c);
    } else if (len > 1) {
      o.append(t.substr(i, len));
    } else {
      o += fmt::format("\\x{:02x}", c);
      len = 1;
    }
    i += len;
    ++shown;
  }
  if (i < t.size()) o += "…";
  return o;
}

// ---- text formats --------------------------------------------------------------------------

struct Block {
  Buffer<float> values;  // (rows, D)
  std::size_t rows = 0;
  WordList words;
  std::vector<std::uint64_t> line_offsets;  // byte offset of each row's line
};

struct Part {
  std::vector<Block> blocks;
  std::uint64_t error_at = UINT64_MAX;  // byte offset of the first bad line
  std::string error;                    // message without the "FILE:LINE: " prefix
  std::size_t rows = 0;
};

struct Token {
  const char* b;
  const char* e;
};

// Parses lines in [begin, end) of `base` (each a word then D numbers) into `part`.
// Stops at the first bad line, recording its offset and what is wrong.
void parse_text_range(const char* base, std::size_t size, std::size_t begin, std::size_t end, std::size_t D,
                      bool release, Part& part) {
  const char* const hard_end = base + size;  // wide loads may read up to here
  const char* p = base + begin;
  const char* const stop = base + end;
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::uintptr_t released = (reinterpret_cast<std::uintptr_t>(p) + page - 1) / page * page;
  std::vector<Token> toks;
  Block* blk = nullptr;
  const std::size_t block_rows = std::max<std::size_t>(16, kBlockFloats / D);
  std::vector<double> mant(D);
  std::vector<int> expo(D);
  std::vector<unsigned char> sign(D);
  std::vector<std::pair<std::size_t, float>> slow;  // fields converted by strtod in this row
  auto error = [&](const char* line, std::string msg) {
    part.error_at = static_cast<std::uint64_t>(line - base);
    part.error = std::move(msg);
  };
  while (p < stop) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(stop - p)));
    const char* line = p;
    const char* le = nl ? nl : stop;
    p = nl ? nl + 1 : stop;
    // the line without trailing spaces, tabs and CR (CRLF files, fastText's trailing space)
    while (le > line && (is_sep(le[-1]) || le[-1] == '\r')) --le;
    if (le == line) continue;  // blank line
    if (!blk || blk->rows == block_rows) {
      part.blocks.emplace_back();
      blk = &part.blocks.back();
      blk->values.allocate(block_rows * D);
    }
    float* row = blk->values.data() + blk->rows * D;
    // 1. fast path: word = first field, then exactly D numbers (scanned, then converted at once)
    const char* q = line;
    while (q < le && !is_sep(*q)) ++q;
    const char* word_end = q;
    bool fast = word_end > line;
    for (std::size_t j = 0; fast && j < D; ++j) {
      if (q == le || !is_sep(*q)) {
        fast = false;
        break;
      }
      while (q < le && is_sep(*q)) ++q;
      bool neg;
      std::uint64_t m;
      float v;
      if (q == le) {
        fast = false;
      } else if (scan_decimal(q, le, hard_end, m, expo[j], neg)) {
        mant[j] = static_cast<double>(m);
        sign[j] = neg;
      } else if (parse_number(q, le, hard_end, v) == Num::ok) {
        slow.push_back({j, v});  // converted already (strtod)
        mant[j] = 0;
        expo[j] = 0;
        sign[j] = 0;
      } else {
        fast = false;
      }
    }
    if (fast && q != le) fast = false;  // more fields: a word with spaces, or a ragged row
    if (fast) {
      convert_row(mant.data(), expo.data(), sign.data(), D, row);
      for (const auto& [j, v] : slow) row[j] = v;
    }
    slow.clear();
    if (!fast) {
      // 2. slow path: split the line; the last D fields are the numbers, the rest is the word
      toks.clear();
      for (const char* r = line; r < le;) {
        while (r < le && is_sep(*r)) ++r;
        const char* tb = r;
        while (r < le && !is_sep(*r)) ++r;
        if (r > tb) toks.push_back({tb, r});
      }
      const std::size_t nt = toks.size();
      if (nt < D + 1) {
        error(line, nt <= 1 ? fmt::format("expected a word and {} numbers, found {} field", D, nt)
                            : fmt::format("the row for '{}' has {} numbers, expected {}", show_token({toks[0].b, static_cast<std::size_t>(toks[0].e - toks[0].b)}), nt - 1, D));
        return;
      }
      // extra fields that are all numbers make a ragged row, not a word with spaces
      bool word_has_text = false;
      for (std::size_t t = 1; t < nt - D && !word_has_text; ++t) {
        float dummy;
        const char* r = toks[t].b;
        word_has_text = parse_number(r, toks[t].e, hard_end, dummy) != Num::ok;
      }
      if (nt > D + 1 && !word_has_text) {
        error(line, fmt::format("the row for '{}' has {} numbers, expected {}",
                                show_token({toks[0].b, static_cast<std::size_t>(toks[0].e - toks[0].b)}), nt - 1, D));
        return;
      }
      for (std::size_t j = 0; j < D; ++j) {
        const Token& t = toks[nt - D + j];
        const char* r = t.b;
        const Num st = parse_number(r, t.e, hard_end, row[j]);
        if (st != Num::ok || r != t.e) {
          const std::string tok = show_token({t.b, static_cast<std::size_t>(t.e - t.b)});
          const std::string w(line, toks[nt - D - 1].e);
          error(line, st == Num::non_finite
                          ? fmt::format("'{}' in the row for '{}' (number {} of {}): NaN and infinite values are not allowed", tok, show_token(w), j + 1, D)
                      : st == Num::out_of_range
                          ? fmt::format("'{}' in the row for '{}' (number {} of {}) is out of float32 range", tok, show_token(w), j + 1, D)
                          : fmt::format("'{}' in the row for '{}' (number {} of {}) is not a number", tok, show_token(w), j + 1, D));
          return;
        }
      }
      word_end = toks[nt - D - 1].e;
    }
    if (static_cast<std::size_t>(word_end - line) > kMaxWordBytes) {
      error(line, fmt::format("a word of {} bytes; expected a word and {} numbers", word_end - line, D));
      return;
    }
    blk->words.push({line, static_cast<std::size_t>(word_end - line)});
    blk->line_offsets.push_back(static_cast<std::uint64_t>(line - base));
    ++blk->rows;
    ++part.rows;
    // 3. drop parsed pages of a mapped file from memory (they stay in the page cache)
    if (release) {
      const std::uintptr_t done = reinterpret_cast<std::uintptr_t>(p) / page * page;
      if (done >= released + (std::size_t{4} << 20)) {
        madvise(reinterpret_cast<void*>(released), done - released, MADV_DONTNEED);
        released = done;
      }
    }
  }
}

// 1-based line number of byte offset `off`.
std::size_t line_of(const char* base, std::uint64_t off) {
  return 1 + static_cast<std::size_t>(std::count(base, base + off, '\n'));
}

// Offset just past the `rows`-th non-blank line starting at `from`, or `end`.
std::size_t end_after_rows(const char* base, std::size_t from, std::size_t end, std::size_t rows) {
  std::size_t p = from, seen = 0;
  while (p < end && seen < rows) {
    const char* nl = static_cast<const char*>(std::memchr(base + p, '\n', end - p));
    const std::size_t le = nl ? static_cast<std::size_t>(nl - base) : end;
    bool blank = true;
    for (std::size_t k = p; k < le && blank; ++k) blank = base[k] == ' ' || base[k] == '\t' || base[k] == '\r';
    seen += !blank;
    p = nl ? le + 1 : end;
  }
  return p;
}

// Assembles parsed blocks into a store, dropping duplicate words (first kept). `where(i)` says
// where row i (in parse order) came from, for the duplicate warning.
template <class Where>
std::shared_ptr<Embeddings::Store> assemble(std::vector<Block*>& blocks, std::size_t D, Where where) {
  auto s = std::make_shared<Embeddings::Store>();
  WordList all;
  std::size_t total = 0, chars = 0;
  for (auto* b : blocks) total += b->rows, chars += b->words.chars.size();
  all.chars.reserve(chars);
  all.ends.reserve(total);
  for (auto* b : blocks)
    for (std::size_t i = 0; i < b->rows; ++i) all.push(b->words[i]);
  std::vector<unsigned char> keep;
  build_word_table(*s, all, keep);
  s->d = D;
  s->own_vectors.allocate(s->n * D);
  // 1. where each block's kept rows go (and the duplicates, for the warning)
  std::vector<std::size_t> first_row(blocks.size() + 1, 0), first_global(blocks.size() + 1, 0);
  std::size_t g = 0;
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    first_row[k + 1] = first_row[k];
    first_global[k + 1] = first_global[k] + blocks[k]->rows;
    for (std::size_t i = 0; i < blocks[k]->rows; ++i, ++g) {
      if (keep[g]) ++first_row[k + 1];
      else if (s->info.duplicates++ == 0)
        s->info.first_duplicate = fmt::format("'{}' ({})", show_token(all[g]), where(blocks[k], i));
    }
  }
  // 2. copy on all cores, freeing each block as soon as it is copied (peak memory ≈ one copy)
  float* const out = s->own_vectors.data();
  parallel_for_threads(worker_threads(total * D), [&](unsigned t, unsigned T) {
    for (std::size_t k = blocks.size() * t / T; k < blocks.size() * (t + 1) / T; ++k) {
      float* dst = out + first_row[k] * D;
      for (std::size_t i = 0; i < blocks[k]->rows; ++i)
        if (keep[first_global[k] + i]) {
          std::memcpy(dst, blocks[k]->values.data() + i * D, D * sizeof(float));
          dst += D;
        }
      blocks[k]->values.release();
    }
  });
  s->vectors = s->own_vectors.data();
  s->info.file_rows = total;
  compute_norms(*s);
  return s;
}

// Number of whitespace-separated fields in [b, e).
std::size_t count_fields(const char* b, const char* e) {
  std::size_t n = 0;
  for (const char* r = b; r < e;) {
    while (r < e && (is_sep(*r) || *r == '\r')) ++r;
    if (r < e) ++n;
    while (r < e && !is_sep(*r) && *r != '\r') ++r;
  }
  return n;
}

bool is_integer_token(std::string_view t) {
  if (!t.empty() && t[0] == '-') t.remove_prefix(1);
  return !t.empty() && t.size() <= 18 && std::all_of(t.begin(), t.end(), is_digit);
}

}  // namespace

namespace {

// True for "N D" (two integers), the word2vec/fastText header.
bool first_line_is_header(std::string_view line) {
  std::vector<std::string_view> f;
  std::size_t i = 0;
  while (i < line.size() && f.size() <= 2) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const std::size_t b = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > b) f.push_back(line.substr(b, i - b));
  }
  return f.size() == 2 && is_integer_token(f[0]) && is_integer_token(f[1]);
}

struct Header {
  bool present = false;
  long long n = 0, d = 0;
  std::size_t data_begin = 0;  // offset after the header line
};

// A first line of exactly two integers is a word2vec/fastText header.
Header read_header(const std::string& path, const char* base, std::size_t start, std::size_t size, bool required) {
  Header h;
  const char* nl = static_cast<const char*>(std::memchr(base + start, '\n', size - start));
  const char* le = nl ? nl : base + size;
  std::vector<std::string_view> f;
  for (const char* r = base + start; r < le;) {
    while (r < le && (is_sep(*r) || *r == '\r')) ++r;
    const char* tb = r;
    while (r < le && !is_sep(*r) && *r != '\r') ++r;
    if (r > tb) f.emplace_back(tb, static_cast<std::size_t>(r - tb));
    if (f.size() > 2) break;
  }
  if (f.size() != 2 || !is_integer_token(f[0]) || !is_integer_token(f[1])) {
    if (required)
      fail(fmt::format("{}:1: expected a header line 'WORDS DIMENSIONS' (word2vec/fastText), found '{}'", path,
                       show_token({base + start, static_cast<std::size_t>(le - base - start)})));
    return h;
  }
  h.present = true;
  h.n = std::atoll(std::string(f[0]).c_str());
  h.d = std::atoll(std::string(f[1]).c_str());
  if (h.n <= 0 || h.d <= 0)
    fail(fmt::format("{}:1: the header says {} words of {} dimensions; expected two positive numbers 'WORDS DIMENSIONS'",
                     path, h.n, h.d));
  if (static_cast<std::size_t>(h.d) > kMaxDim)
    fail(fmt::format("{}:1: the header says {} dimensions; tfx reads at most {}", path, h.d, kMaxDim));
  h.data_begin = nl ? static_cast<std::size_t>(nl - base) + 1 : size;
  return h;
}

// True when the line at `off` reads as text: a word and D numbers.
bool looks_like_text_row(const char* base, std::size_t off, std::size_t size, std::size_t D) {
  const std::size_t window = std::min<std::size_t>(size - off, 1u << 20);
  const char* nl = static_cast<const char*>(std::memchr(base + off, '\n', window));
  if (!nl) nl = base + off + window;
  if (off + window < size && nl == base + off + window) return false;  // no line end: binary
  Part part;
  parse_text_range(base, size, off, static_cast<std::size_t>(nl - base), D, false, part);
  if (part.error.empty() && part.rows == 1) return true;
  // Not D numbers — but text all the same (so the error names the ragged row) when the line has
  // no control bytes and ends in a number: float32 bytes almost never manage both.
  const char* b = base + off;
  const char* e = nl;
  while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) --e;
  for (const char* c = b; c < e; ++c)
    if (static_cast<unsigned char>(*c) < 0x20 && *c != '\t') return false;
  const char* t = e;
  while (t > b && t[-1] != ' ' && t[-1] != '\t') --t;
  if (t == b) return false;
  float v;
  const char* q = t;
  return parse_number(q, e, base + size, v) == Num::ok && q == e;
}

std::shared_ptr<Embeddings::Store> parse_text(const std::string& path, const Bytes& b, std::size_t start,
                                              const Header& h, std::size_t D, std::size_t limit) {
  // 1. the rows to read: all, the header's N, or --limit
  std::size_t end = b.size;
  std::size_t want = h.present ? static_cast<std::size_t>(h.n) : 0;
  if (limit && (want == 0 || limit < want)) want = limit;
  if (limit) end = end_after_rows(b.data, start, b.size, want);
  // 2. split at line boundaries, one range per thread
  const unsigned T = worker_threads(end - start);
  std::vector<std::size_t> cut(T + 1);
  cut[0] = start;
  cut[T] = end;
  for (unsigned t = 1; t < T; ++t) {
    std::size_t c = std::max(cut[t - 1], start + (end - start) / T * t);
    const char* nl = static_cast<const char*>(std::memchr(b.data + c, '\n', end - c));
    cut[t] = nl ? static_cast<std::size_t>(nl - b.data) + 1 : end;
  }
  std::vector<Part> parts(T);
  parallel_for_threads(T, [&](unsigned t, unsigned) {
    parse_text_range(b.data, b.size, cut[t], cut[t + 1], D, b.mapped(), parts[t]);
  });
  // 3. the first error in file order wins
  for (auto& part : parts)
    if (!part.error.empty()) fail(fmt::format("{}:{}: {}", path, line_of(b.data, part.error_at), part.error));
  std::size_t rows = 0;
  for (auto& part : parts) rows += part.rows;
  if (rows == 0) fail(fmt::format("{}: no vectors after the header; expected lines 'word v1 … v{}'", path, D));
  // 4. the header's count
  if (h.present) {
    const std::size_t promised = static_cast<std::size_t>(h.n);
    if (rows < promised && !(limit && rows >= limit))
      fail(fmt::format("{}:{}: the header (line 1) says {} words, but the file ends after {}", path,
                       line_of(b.data, end) + (end > 0 && b.data[end - 1] != '\n' ? 1 : 0), promised, rows));
    if (rows > promised) {
      std::size_t seen = 0;
      for (auto& part : parts)
        for (auto& blk : part.blocks) {
          if (seen + blk.rows > promised)
            fail(fmt::format("{}:{}: more rows than the header (line 1) says ({} words)", path,
                             line_of(b.data, blk.line_offsets[promised - seen]), promised));
          seen += blk.rows;
        }
    }
  }
  std::vector<Block*> blocks;
  for (auto& part : parts)
    for (auto& blk : part.blocks) blocks.push_back(&blk);
  return assemble(blocks, D, [&](const Block* blk, std::size_t i) {
    return fmt::format("line {}", line_of(b.data, blk->line_offsets[i]));
  });
}

std::shared_ptr<Embeddings::Store> parse_binary(const std::string& path, const Bytes& b, const Header& h,
                                                std::size_t limit) {
  const std::size_t D = static_cast<std::size_t>(h.d);
  std::size_t want = static_cast<std::size_t>(h.n);
  if (limit && limit < want) want = limit;
  // every row is at least a 1-byte word, a space and 4·D bytes: refuse impossible headers
  // before allocating anything (a header claiming 10^12 words must not allocate 10^12 rows)
  const std::size_t avail = b.size - h.data_begin;
  const std::size_t min_row = 4 * D + 2;
  if (want > avail / min_row + 1)
    fail(fmt::format("{}:1: the header says {} words of {} dimensions (at least {} bytes), but only {} bytes follow; "
                     "truncated or not word2vec binary",
                     path, h.n, D, static_cast<double>(want) * static_cast<double>(min_row), avail));
  Block blk;
  blk.values.allocate(want * D);
  const char* p = b.data + h.data_begin;
  const char* const end = b.data + b.size;
  for (std::size_t r = 0; r < want; ++r) {
    while (p < end && (*p == '\n' || *p == '\r')) ++p;  // the C tool writes '\n' after a vector; gensim does not
    const std::size_t off = static_cast<std::size_t>(p - b.data);
    if (p == end)
      fail(fmt::format("{}: the header (line 1) says {} words, but the file ends after {} (truncated)", path, h.n, r));
    const char* sp = static_cast<const char*>(std::memchr(p, ' ', std::min<std::size_t>(end - p, kMaxWordBytes)));
    if (!sp)
      fail(fmt::format("{}: row {} (byte {}): no space after the word within {} bytes; truncated or not word2vec binary",
                       path, r + 1, off, std::min<std::size_t>(end - p, kMaxWordBytes)));
    if (sp == p) fail(fmt::format("{}: row {} (byte {}): empty word", path, r + 1, off));
    const std::string_view w(p, static_cast<std::size_t>(sp - p));
    p = sp + 1;
    if (static_cast<std::size_t>(end - p) < 4 * D)
      fail(fmt::format("{}: row {} (byte {}, '{}'): truncated: {} bytes of float32 expected, {} remain", path, r + 1, off,
                       show_token(w), 4 * D, end - p));
    float* row = blk.values.data() + r * D;
    std::memcpy(row, p, 4 * D);  // little-endian float32, as the C tool and gensim write them
    for (std::size_t j = 0; j < D; ++j)
      if (!std::isfinite(row[j]))
        fail(fmt::format("{}: row {} (byte {}, '{}'): value {} of {} is {}; NaN and infinite values are not allowed",
                         path, r + 1, off, show_token(w), j + 1, D, std::isnan(row[j]) ? "NaN" : "infinite"));
    p += 4 * D;
    blk.words.push(w);
    blk.line_offsets.push_back(r);
    ++blk.rows;
  }
  std::vector<Block*> blocks{&blk};
  return assemble(blocks, D, [](const Block*, std::size_t i) { return fmt::format("row {}", i + 1); });
}

}  // namespace

bool is_table_file(const std::string& path);

namespace {

// What a file that failed to parse as word vectors looks like instead ("" when nothing
// recognisable): another input of tfx given to --embeddings by mistake.
std::string looks_like_other_file(const Bytes& b, std::size_t start) {
  const std::string_view all(b.data + start, b.size - start);
  if (all.rfind("\x93NUMPY", 0) == 0) return "a .npy array";
  std::size_t p = 0, n = 0;
  while (p < all.size() && n < 20) {
    std::size_t e = all.find('\n', p);
    if (e == std::string_view::npos) e = all.size();
    std::string_view line = all.substr(p, e - p);
    const std::size_t lineno = 1 + static_cast<std::size_t>(std::count(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(p), '\n'));
    p = e + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.empty() || line[0] == '#') continue;
    ++n;
    const std::string shown = show_token(line);
    if (line[0] == '[' || line[0] == '{') return fmt::format("JSON (line {} is '{}')", lineno, shown);
    if (line.size() > 2 && line[0] == ':' && line[1] == ' ')
      return fmt::format("an analogy-question file (line {} is the section line '{}'; questions are 'a b c d' lines)", lineno, shown);
    const std::size_t tabs = static_cast<std::size_t>(std::count(line.begin(), line.end(), '\t'));
    if (tabs == 2) {
      const std::string_view score = line.substr(line.rfind('\t') + 1);
      float v;
      const char* q = score.data();
      if (parse_number(q, score.data() + score.size(), b.data + b.size, v) == Num::ok && q == score.data() + score.size())
        return fmt::format("a word-pair file (line {} is 'word1<TAB>word2<TAB>score')", lineno);
    }
    if (line.find(',') != std::string_view::npos && line.find(' ') == std::string_view::npos)
      return fmt::format("a CSV table (line {} is '{}')", lineno, shown);
    return "";
  }
  return "";
}

}  // namespace

std::shared_ptr<Embeddings::Store> parse_embedding_file(const EmbeddingSource& src, const std::string& path) {
  Bytes b;
  // with --limit, a gzip file is only inflated as far as needed (+1 for a header line)
  open_bytes(path, src.limit ? src.limit + 1 : 0, b);
  // 1. a UTF-8 byte-order mark is not part of the first word
  std::size_t start = 0;
  if (b.size >= 3 && std::memcmp(b.data, "\xEF\xBB\xBF", 3) == 0) start = 3;
  if (start == b.size) fail(fmt::format("{}: empty file (only a byte-order mark)", path));
  // 2. the format: forced, or detected from a header line and the first row
  EmbeddingFormat fmt = src.format;
  const bool header_format = fmt == EmbeddingFormat::word2vec || fmt == EmbeddingFormat::word2vec_bin ||
                             fmt == EmbeddingFormat::fasttext;
  Header h;
  if (fmt != EmbeddingFormat::glove) h = read_header(path, b.data, start, b.size, header_format);
  if (fmt == EmbeddingFormat::detect) {
    if (!h.present) fmt = EmbeddingFormat::glove;
    else if (h.data_begin >= b.size)
      fail(fmt::format("{}: the header (line 1) says {} words, but the file ends after 0", path, h.n));
    else if (looks_like_text_row(b.data, h.data_begin, b.size, static_cast<std::size_t>(h.d))) {
      const char* nl = static_cast<const char*>(std::memchr(b.data + h.data_begin, '\n', b.size - h.data_begin));
      fmt = (nl && nl > b.data + h.data_begin && (nl[-1] == ' ' || (nl[-1] == '\r' && nl - 1 > b.data && nl[-2] == ' ')))
                ? EmbeddingFormat::fasttext
                : EmbeddingFormat::word2vec;
    } else {
      fmt = EmbeddingFormat::word2vec_bin;
    }
  }
  std::shared_ptr<Embeddings::Store> s;
  try {
    if (fmt == EmbeddingFormat::word2vec_bin) {
      s = parse_binary(path, b, h, src.limit);
    } else if (fmt == EmbeddingFormat::glove) {
      // D = fields − 1 of the first line (the most common count among the first 100 lines,
      // in case an early word contains a space)
      std::vector<std::size_t> counts;
      std::size_t p = start;
      while (p < b.size && counts.size() < 100) {
        const char* nl = static_cast<const char*>(std::memchr(b.data + p, '\n', b.size - p));
        const std::size_t le = nl ? static_cast<std::size_t>(nl - b.data) : b.size;
        const std::size_t f = count_fields(b.data + p, b.data + le);
        if (f > kMaxDim + 1)
          fail(fmt::format("{}:{}: a line of {} fields ({} bytes); tfx reads at most {} dimensions", path,
                           line_of(b.data, p), f, le - p, kMaxDim));
        if (f > 0) counts.push_back(f);
        p = nl ? le + 1 : b.size;
      }
      if (counts.empty()) fail(fmt::format("{}: no vectors (only blank lines)", path));
      // the most common count; on a tie, the first line's
      std::size_t best = counts[0];
      std::size_t best_n = static_cast<std::size_t>(std::count(counts.begin(), counts.end(), best));
      for (std::size_t c : counts) {
        const auto k = static_cast<std::size_t>(std::count(counts.begin(), counts.end(), c));
        if (k > best_n) best = c, best_n = k;
      }
      if (best < 2)
        fail(fmt::format("{}:1: expected a word followed by its numbers (GloVe: 'word v1 … vD'), found one field", path));
      s = parse_text(path, b, start, h, best - 1, src.limit);
    } else {
      s = parse_text(path, b, h.data_begin, h, static_cast<std::size_t>(h.d), src.limit);
    }
  } catch (const Error&) {
    // another kind of file given as word vectors: say what it looks like instead of its first bad number
    if (src.format == EmbeddingFormat::detect)
      if (const std::string kind = looks_like_other_file(b, start); !kind.empty())
        fail(fmt::format("{} looks like {}, not word vectors; expected an embedding file (GloVe 'word v1 … vD' lines, "
                         "word2vec or fastText)",
                         path, kind));
    throw;
  }
  s->info.format = fmt;
  s->info.gzip = b.gzip;
  s->info.path = path;
  s->name = path;
  return s;
}

}  // namespace tfx
