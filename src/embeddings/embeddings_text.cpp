// Text embedding files (GloVe, word2vec text, fastText .vec): rows "word v1 … vD" read in windows
// of whole lines (pread) and parsed on all cores with the exact float parser of
// embeddings_numbers.hpp (bit-identical to gensim's float32(float(token))), each row's norm taken
// while it is in cache; words containing spaces, ragged rows, CRLF and trailing spaces; GloVe's
// dimension from the most common field count; the header's word count checked.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "embeddings_numbers.hpp"
#include "embeddings_parse.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {

using namespace numbers;

[[noreturn]] void fail(const std::string& msg) { throw Error(msg); }

struct Part {
  RowWords words;                       // the rows' words and line offsets
  std::uint64_t error_at = UINT64_MAX;  // byte offset of the first bad line
  std::string error;                    // message without the "FILE:LINE: " prefix
  std::size_t rows = 0;
};

struct Token {
  const char* b;
  const char* e;
};

// A field as an error message shows it (show_token).
std::string show(const Token& t) { return show_token({t.b, static_cast<std::size_t>(t.e - t.b)}); }

// Drops the pages of a mapped file before `upto` from this process's memory once 4 MB have been
// read (they stay in the page cache), so a 5 GB file does not count 5 GB against peak memory.
struct PageRelease {
  std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::uintptr_t released;
  bool on;
  PageRelease(const char* from, bool enabled)
      : released((reinterpret_cast<std::uintptr_t>(from) + page - 1) / page * page), on(enabled) {}
  void operator()(const char* upto) {
    const std::uintptr_t done = reinterpret_cast<std::uintptr_t>(upto) / page * page;
    if (on && done >= released + (std::size_t{4} << 20)) {
      madvise(reinterpret_cast<void*>(released), done - released, MADV_DONTNEED);
      released = done;
    }
  }
};

// The bytes [begin, end) of a file, a window of whole lines at a time. A mapped file is read with
// pread into a 4 MiB buffer: on this kind of machine that runs 3–7 times faster than walking the
// mapping (no page faults, no TLB misses on 4 KiB pages, no pages to drop again), and the input
// then takes no memory of the process. Bytes already in memory (a pipe, a gunzipped file) are one
// window, and so is the rest of a file whose line does not fit in 64 MiB (read from the mapping).
// f(w, w_end, w_off, hard_end, mapped) sees the whole lines [w, w_end), at file offset w_off;
// wide loads may read up to hard_end; `mapped` says the window is the mapping itself (so its
// pages can be dropped as they are done). Stops when f returns false. A short read (the file
// was cut meanwhile) is an error naming `path`. `drop_read`: each window read with pread leaves
// the page cache once parsed (POSIX_FADV_DONTNEED) — see parse_text.
template <class F>
void for_each_window(const std::string& path, const Bytes& b, std::size_t begin, std::size_t end, bool drop_read, F&& f) {
  constexpr std::size_t kPad = 16;  // spaces after the bytes read, for the wide loads
  if (b.fd < 0) {
    f(b.data + begin, b.data + end, std::uint64_t{begin}, b.data + b.size, b.mapped());
    return;
  }
  std::size_t cap = std::size_t{4} << 20;
  std::vector<char> buf;
  std::size_t pos = begin;
  constexpr std::size_t kFolio = std::size_t{2} << 20;
  std::size_t dropped = (begin + kFolio - 1) / kFolio * kFolio;  // not the folio the range before ends in
  while (pos < end) {
    const std::size_t want = std::min(cap, end - pos);
    if (buf.size() < want + kPad) buf.resize(want + kPad);
    for (std::size_t got = 0; got < want;) {
      const ssize_t r = pread(b.fd, buf.data() + got, want - got, static_cast<off_t>(pos + got));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0)
        fail(fmt::format(N_("{}: the file changed while reading (truncated by another program?); nothing was written"), path));
      got += static_cast<std::size_t>(r);
    }
    std::memset(buf.data() + want, ' ', kPad);
    std::size_t len = want;
    if (pos + want < end) {
      const void* nl = memrchr(buf.data(), '\n', want);
      if (!nl) {  // a line longer than the window
        if (cap >= (std::size_t{64} << 20)) {
          f(b.data + pos, b.data + end, std::uint64_t{pos}, b.data + b.size, true);
          return;
        }
        cap *= 2;
        continue;
      }
      len = static_cast<std::size_t>(static_cast<const char*>(nl) - buf.data()) + 1;
    }
    if (!f(buf.data(), buf.data() + len, std::uint64_t{pos}, buf.data() + want + kPad, false)) return;
    pos += len;
    // what is done leaves the page cache, in 2 MiB-aligned steps: the kernel drops only whole
    // folios, and a file's page cache may hold 2 MiB ones
    const std::size_t upto = pos == end ? end : pos / kFolio * kFolio;
    if (drop_read && upto > dropped) {
      posix_fadvise(b.fd, static_cast<off_t>(dropped), static_cast<off_t>(upto - dropped), POSIX_FADV_DONTNEED);
      dropped = upto;
    }
  }
}

// Number of non-blank lines in [p, stop): the rows a text range holds (or fewer, when a line is
// bad — then parsing stops there with an error anyway).
std::size_t count_rows(const char* p, const char* const stop, bool release) {
  PageRelease drop(p, release);
  std::size_t rows = 0;
  while (p < stop) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(stop - p)));
    const char* le = nl ? nl : stop;
    const char* q = p;
    while (q < le && (is_sep(*q) || *q == '\r')) ++q;  // usually stops at once: a word starts the line
    rows += q < le;
    p = nl ? nl + 1 : stop;
    drop(p);
  }
  return rows;
}

// Parses the lines [w, stop) — file offset w_off — (each a word then D numbers) into `part`, the
// vectors into out[0, rows·D) after the part's rows so far (rows = count_rows of the whole range),
// and, when `norms` is set, each row's row_norm into norms[0, rows) while the row is in cache.
// Stops at the first bad line, recording its file offset and what is wrong. `parsed` counts the
// bytes done by all threads; `report` (when set) gets (parsed, total) every MB.
void parse_text_range(const char* const w, const char* const stop, std::uint64_t w_off, const char* const hard_end,
                      std::size_t D, bool release, float* out, float* norms, std::size_t rows,
                      std::atomic<std::size_t>& parsed, const Progress* report, std::size_t total, Part& part) {
  const char* p = w;
  PageRelease drop(p, release);
  const char* reported = p;
  std::vector<Token> toks;
  RowWords* blk = &part.words;
  ScannedRow nums(D);
  std::vector<std::pair<std::size_t, float>> slow;  // fields converted by strtod in this row
  auto error = [&](const char* line, std::string msg) {
    part.error_at = w_off + static_cast<std::uint64_t>(line - w);
    part.error = std::move(msg);
  };
  // a row whose fields do not add up: a carriage return inside it is the likelier cause (a file
  // with old Mac line ends is one long line), so say that instead of counting its fields
  // (the slow path's fields are in toks: the first is shown as the row's word)
  auto field_error = [&](const char* line, const char* le, std::string msg) {
    if (std::memchr(line, '\r', static_cast<std::size_t>(le - line)))
      msg = fmt::format(fmt::runtime(D == 1 ? N_("the row for '{}' has a carriage return (\\r) inside it, where a word and {} number was "
                                                 "expected; lines end in \\n or \\r\\n (old Mac line ends? tr '\\r' '\\n' < FILE > NEW "
                                                 "converts them)")
                                              : N_("the row for '{}' has a carriage return (\\r) inside it, where a word and {} numbers were "
                                                   "expected; lines end in \\n or \\r\\n (old Mac line ends? tr '\\r' '\\n' < FILE > NEW "
                                                   "converts them)")),
                        show(toks[0]), D);
    error(line, std::move(msg));
  };
  while (p < stop) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(stop - p)));
    const char* line = p;
    const char* le = nl ? nl : stop;
    p = nl ? nl + 1 : stop;
    // the line without trailing spaces, tabs and CR (CRLF files, fastText's trailing space)
    while (le > line && (is_sep(le[-1]) || le[-1] == '\r')) --le;
    if (le == line) continue;  // blank line
    if (blk->rows == rows) {  // cannot happen: count_rows counted every non-blank line
      error(line, "more rows than counted");
      return;
    }
    float* row = out + blk->rows * D;
    // 1. fast path: word = first field, then exactly D numbers (scanned, then converted at once)
    const char* q = line;
    while (q < le && !is_sep(*q)) ++q;
    const char* word_end = q;
    const bool fast = word_end > line && scan_row(word_end, le, hard_end, D, nums, slow);
    if (fast) {
      nums.convert(D, row);
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
        field_error(line, le,
                    nt <= 1 ? fmt::format(fmt::runtime(D == 1 ? N_("expected a word and {} number, found {} field")
                                                              : N_("expected a word and {} numbers, found {} field")),
                                          D, nt)
                            : fmt::format(fmt::runtime(nt == 2 ? N_("the row for '{}' has {} number, expected {}")
                                                               : N_("the row for '{}' has {} numbers, expected {}")),
                                          show(toks[0]), nt - 1, D));
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
        field_error(line, le, fmt::format(N_("the row for '{}' has {} numbers, expected {}"),  // nt − 1 > D ≥ 1: plural
                                show(toks[0]), nt - 1, D));
        return;
      }
      for (std::size_t j = 0; j < D; ++j) {
        const Token& t = toks[nt - D + j];
        const char* r = t.b;
        const Num st = parse_number(r, t.e, hard_end, row[j]);
        if (st != Num::ok || r != t.e) {
          const std::string tok = show(t);
          const std::string w(line, toks[nt - D - 1].e);
          field_error(line, le, st == Num::non_finite
                          ? fmt::format(N_("'{}' in the row for '{}' (number {} of {}): NaN and infinite values are not allowed"), tok, show_token(w), j + 1, D)
                      : st == Num::out_of_range
                          ? fmt::format(N_("'{}' in the row for '{}' (number {} of {}) is out of float32 range"), tok, show_token(w), j + 1, D)
                          : fmt::format(N_("'{}' in the row for '{}' (number {} of {}) is not a number"), tok, show_token(w), j + 1, D));
          return;
        }
      }
      word_end = toks[nt - D - 1].e;
    }
    if (static_cast<std::size_t>(word_end - line) > kMaxWordBytes) {
      error(line, fmt::format(N_("a word of {} bytes, over the {}-byte limit of a word; expected a word and {} numbers"), word_end - line,
                              kMaxWordBytes, D));
      return;
    }
    if (norms) norms[blk->rows] = row_norm(row, D);
    blk->words.push({line, static_cast<std::size_t>(word_end - line)});
    blk->line_offsets.push_back(w_off + static_cast<std::uint64_t>(line - w));
    ++blk->rows;
    ++part.rows;
    // 3. drop parsed pages of a mapped file from memory; count the bytes done every 1 MB
    drop(p);
    if (p - reported >= (1 << 20)) {
      const std::size_t now = parsed += static_cast<std::size_t>(p - reported);
      reported = p;
      if (report) (*report)(std::min(now, total), total);
    }
  }
  parsed += static_cast<std::size_t>(p - reported);
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

}  // namespace

// True when the line at `off` reads as text: a word and D numbers.
bool looks_like_text_row(const char* base, std::size_t off, std::size_t size, std::size_t D) {
  const std::size_t window = std::min<std::size_t>(size - off, 1u << 20);
  const char* nl = static_cast<const char*>(std::memchr(base + off, '\n', window));
  if (!nl) nl = base + off + window;
  if (off + window < size && nl == base + off + window) return false;  // no line end: binary
  Part part;
  std::vector<float> row(D);
  std::atomic<std::size_t> parsed{0};
  parse_text_range(base + off, nl, off, base + size, D, false, row.data(), nullptr, 1, parsed, nullptr, 0, part);
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

std::size_t glove_dimension(const std::string& path, const Bytes& b, std::size_t start) {
  // D = fields − 1 of the first line (the most common count among the first 100 lines,
  // in case an early word contains a space)
  std::vector<std::size_t> counts;
  std::size_t p = start;
  while (p < b.size && counts.size() < 100) {
    const char* nl = static_cast<const char*>(std::memchr(b.data + p, '\n', b.size - p));
    const std::size_t le = nl ? static_cast<std::size_t>(nl - b.data) : b.size;
    const std::size_t f = count_fields(b.data + p, b.data + le);
    if (f > kMaxDim + 1)
      fail(fmt::format(N_("{}:{}: a line of {} fields ({} bytes); tfx reads at most {} dimensions"), path,
                       line_of(b.data, p), f, le - p, kMaxDim));
    if (f > 0) counts.push_back(f);
    p = nl ? le + 1 : b.size;
  }
  if (counts.empty()) fail(fmt::format(N_("{}: no vectors (only blank lines)"), path));
  // the most common count; on a tie, the first line's
  std::size_t best = counts[0];
  std::size_t best_n = static_cast<std::size_t>(std::count(counts.begin(), counts.end(), best));
  for (std::size_t c : counts) {
    const auto k = static_cast<std::size_t>(std::count(counts.begin(), counts.end(), c));
    if (k > best_n) best = c, best_n = k;
  }
  if (best < 2)
    fail(fmt::format(N_("{}:1: expected a word followed by its numbers (GloVe: 'word v1 … vD'), found one field"), path));
  return best - 1;
}

std::shared_ptr<Embeddings::Store> parse_text(const std::string& path, const Bytes& b, std::size_t start,
                                              const Header& h, std::size_t D, std::size_t limit,
                                              const Progress& progress, const CacheTarget* target,
                                              const Progress& count_progress) {
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
  // 3. rows per range, so every range parses straight into its rows of one matrix (no second
  //    copy of the vectors, no growing buffers)
  //    (the caller's thread reports the bytes counted by all threads, a window at a time)
  std::vector<std::size_t> first(T + 1, 0);
  const std::size_t total_bytes = end - start;
  std::atomic<std::size_t> counted{0};
  if (count_progress) count_progress(0, total_bytes);  // the pass starts (a bar's clock with it)
  parallel_for_threads(T, [&](unsigned t, unsigned) {
    for_each_window(path, b, cut[t], cut[t + 1], false, [&](const char* w, const char* w_end, std::uint64_t, const char*, bool mapped) {
      first[t + 1] += count_rows(w, w_end, mapped);
      const std::size_t now = counted += static_cast<std::size_t>(w_end - w);
      if (t == 0 && count_progress) count_progress(std::min(now, total_bytes), total_bytes);
      return true;
    });
  });
  if (count_progress) count_progress(total_bytes, total_bytes);
  for (unsigned t = 0; t < T; ++t) first[t + 1] += first[t];
  Buffer<float> matrix;
  const bool into_cache = target && matrix.map_file(target->fd, kTableVectorsOffset, first[T] * D);
  if (!into_cache) matrix.allocate(first[T] * D);
  Buffer<float> norms;  // each row's norm, computed while the row is in cache (not in a pass of its own)
  norms.allocate(first[T]);
  std::vector<Part> parts(T);
  std::atomic<std::size_t> parsed{0};
  // When this load writes the cache, the text is not read again (later loads map the cache), so
  // each window leaves the page cache once parsed, as `dd iflag=nocache` reads: a 5 GB file does
  // not push other programs' data out, and the cache's new pages come from the text's just-freed
  // ones. Fresh memory is the slow part of a first load on a virtual machine whose host takes
  // freed memory back (docs/bench.md, "The big case"): 2.4 GB of it cost 4–5 s there.
  const bool drop_read = into_cache;
  if (progress) progress(0, total_bytes);
  parallel_for_threads(T, [&](unsigned t, unsigned) {
    // the caller's thread (t = 0) reports the bytes of all threads
    for_each_window(path, b, cut[t], cut[t + 1], drop_read, [&](const char* w, const char* w_end, std::uint64_t w_off, const char* hard_end, bool mapped) {
      parse_text_range(w, w_end, w_off, hard_end, D, mapped, matrix.data() + first[t] * D, norms.data() + first[t],
                       first[t + 1] - first[t], parsed, t == 0 && progress ? &progress : nullptr, total_bytes, parts[t]);
      return parts[t].error.empty();
    });
  });
  if (progress) progress(total_bytes, total_bytes);
  // 4. the first error in file order wins
  for (auto& part : parts)
    if (!part.error.empty()) fail(fmt::format("{}:{}: {}", path, line_of(b.data, part.error_at), part.error));
  std::size_t rows = 0;
  for (auto& part : parts) rows += part.rows;
  if (rows == 0) fail(fmt::format(N_("{}: no vectors after the header; expected lines 'word v1 … v{}'"), path, D));
  // 5. the header's count
  if (h.present) {
    const std::size_t promised = static_cast<std::size_t>(h.n);
    if (rows < promised && !(limit && rows >= limit))
      fail(fmt::format(N_("{}:{}: the header (line 1) says {} words, but the file ends after {}"), path,
                       line_of(b.data, end) + (end > 0 && b.data[end - 1] != '\n' ? 1 : 0), promised, rows));
    if (rows > promised) {
      std::size_t seen = 0;
      for (auto& part : parts) {
        const RowWords& blk = part.words;
        if (seen + blk.rows > promised)
          fail(fmt::format(N_("{}:{}: more rows than the header (line 1) says ({} words)"), path,
                           line_of(b.data, blk.line_offsets[promised - seen]), promised));
        seen += blk.rows;
      }
    }
  }
  std::vector<RowWords*> blocks;
  for (auto& part : parts) blocks.push_back(&part.words);
  return assemble(
      std::move(matrix), blocks, D,
      [&](const RowWords* blk, std::size_t i) { return fmt::format("line {}", line_of(b.data, blk->line_offsets[i])); }, &norms);
}

}  // namespace tfx
