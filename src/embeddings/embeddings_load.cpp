// Loading an embedding file: format detection (a "N D" header, then text or binary rows),
// word2vec binary (with or without '\n' after each vector), the header checks, and assembly of
// the parsed rows into a store (UTF-8 BOM skipped, duplicate words dropped, first kept, invalid
// UTF-8 kept as bytes). The bytes come from embeddings_bytes.cpp (mmap, gunzip), the text rows
// from embeddings_text.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "embeddings_fasttext_bin.hpp"
#include "embeddings_numbers.hpp"
#include "embeddings_parse.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {

using namespace numbers;

[[noreturn]] void fail(const std::string& msg) { throw Error(msg); }

}  // namespace

// 1-based line number of byte offset `off`.
std::size_t line_of(const char* base, std::uint64_t off) {
  return 1 + static_cast<std::size_t>(std::count(base, base + off, '\n'));
}

// Assembles parsed blocks into a store, dropping duplicate words (first kept). `where(i)` says
// where row i (in parse order) came from, for the duplicate warning.
std::shared_ptr<Embeddings::Store> assemble(Buffer<float> matrix, std::vector<RowWords*>& blocks, std::size_t D,
                                            const RowPlace& where, Buffer<float>* norms) {
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
  // 1. duplicates (rare): the warning names the first; later rows move up over the dropped ones
  float* const v = matrix.data();
  std::size_t g = 0, dst = 0;
  for (auto* b : blocks)
    for (std::size_t i = 0; i < b->rows; ++i, ++g) {
      if (!keep[g]) {
        if (s->info.duplicates++ == 0) s->info.first_duplicate = fmt::format("'{}' ({})", show_token(all[g]), where(b, i));
        continue;
      }
      if (dst != g) {
        std::memmove(v + dst * D, v + g * D, D * sizeof(float));
        if (norms) norms->data()[dst] = norms->data()[g];
      }
      ++dst;
    }
  // 2. the matrix is the store's (peak memory: one copy of the vectors)
  s->own_vectors = std::move(matrix);
  s->vectors = s->own_vectors.data();
  s->info.file_rows = total;
  if (norms) {
    s->own_norms = std::move(*norms);
    s->norms = s->own_norms.data();
  } else {
    compute_norms(*s);
  }
  return s;
}

bool is_integer_token(std::string_view t) {
  if (!t.empty() && t[0] == '-') t.remove_prefix(1);
  return !t.empty() && t.size() <= 18 && std::all_of(t.begin(), t.end(), is_digit);
}

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
  // "4 4611686018427387904", "4 +2", "4 0x2": a header with a number tfx cannot take, not a
  // one-dimensional GloVe row (whose value would be a decimal like 0.25)
  auto integer_like = [](std::string_view t) {
    if (!t.empty() && (t[0] == '+' || t[0] == '-')) t.remove_prefix(1);
    if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) t.remove_prefix(2);
    return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }) &&
           std::any_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (f.size() == 2 && f[0].find_first_not_of("0123456789") == std::string_view::npos && integer_like(f[1]) &&
      !(is_integer_token(f[0]) && is_integer_token(f[1])))
    fail(fmt::format(N_("{}:1: the header '{} {}' is not two whole numbers 'WORDS DIMENSIONS' (word2vec/fastText; at most {} "
                     "dimensions)"),
                     path, show_token(f[0]), show_token(f[1]), kMaxDim));
  if (f.size() != 2 || !is_integer_token(f[0]) || !is_integer_token(f[1])) {
    if (required)
      fail(fmt::format(N_("{}:1: expected a header line 'WORDS DIMENSIONS' (word2vec/fastText), found '{}'"), path,
                       show_token({base + start, static_cast<std::size_t>(le - base - start)})));
    return h;
  }
  h.present = true;
  h.n = std::atoll(std::string(f[0]).c_str());
  h.d = std::atoll(std::string(f[1]).c_str());
  if (h.n <= 0 || h.d <= 0)
    fail(fmt::format(N_("{}:1: the header says {} words of {} dimensions; expected two positive numbers 'WORDS DIMENSIONS'"),
                     path, h.n, h.d));
  if (static_cast<std::size_t>(h.d) > kMaxDim)
    fail(fmt::format(N_("{}:1: the header says {} dimensions; tfx reads at most {}"), path, h.d, kMaxDim));
  h.data_begin = nl ? static_cast<std::size_t>(nl - base) + 1 : size;
  return h;
}

namespace {

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
    fail(fmt::format(N_("{}:1: the header says {} words of {} dimensions (at least {} bytes), but only {} bytes follow; "
                     "truncated or not word2vec binary"),
                     path, h.n, D, static_cast<double>(want) * static_cast<double>(min_row), avail));
  RowWords blk;
  Buffer<float> matrix;
  matrix.allocate(want * D);
  const char* p = b.data + h.data_begin;
  const char* const end = b.data + b.size;
  for (std::size_t r = 0; r < want; ++r) {
    while (p < end && (*p == '\n' || *p == '\r')) ++p;  // the C tool writes '\n' after a vector; gensim does not
    const std::size_t off = static_cast<std::size_t>(p - b.data);
    if (p == end)
      fail(fmt::format(N_("{}: the header (line 1) says {} words, but the file ends after {} (truncated)"), path, h.n, r));
    const char* sp = static_cast<const char*>(std::memchr(p, ' ', std::min<std::size_t>(end - p, kMaxWordBytes)));
    if (!sp)
      fail(fmt::format(N_("{}: row {} (byte {}): no space after the word within {} bytes; truncated or not word2vec binary"),
                       path, r + 1, off, std::min<std::size_t>(end - p, kMaxWordBytes)));
    if (sp == p) fail(fmt::format(N_("{}: row {} (byte {}): empty word"), path, r + 1, off));
    const std::string_view w(p, static_cast<std::size_t>(sp - p));
    p = sp + 1;
    if (static_cast<std::size_t>(end - p) < 4 * D)
      fail(fmt::format(N_("{}: row {} (byte {}, '{}'): truncated: {} bytes of float32 expected, {} remain"), path, r + 1, off,
                       show_token(w), 4 * D, end - p));
    float* row = matrix.data() + r * D;
    std::memcpy(row, p, 4 * D);  // little-endian float32, as the C tool and gensim write them
    for (std::size_t j = 0; j < D; ++j)
      if (!std::isfinite(row[j]))
        fail(fmt::format(N_("{}: row {} (byte {}, '{}'): value {} of {} is {}; NaN and infinite values are not allowed"),
                         path, r + 1, off, show_token(w), j + 1, D, std::isnan(row[j]) ? "NaN" : "inf"));
    p += 4 * D;
    blk.words.push(w);
    blk.line_offsets.push_back(r);
    ++blk.rows;
  }
  std::vector<RowWords*> blocks{&blk};
  return assemble(std::move(matrix), blocks, D, [](const RowWords*, std::size_t i) { return fmt::format("row {}", i + 1); });
}


}  // namespace

namespace {

// What a file that failed to parse as word vectors looks like instead ("" when nothing
// recognisable): another input of tfx given to --embeddings by mistake.
std::string looks_like_other_file(const Bytes& b, std::size_t start) {
  const std::string_view all(b.data + start, b.size - start);
  if (all.rfind("\x93NUMPY", 0) == 0) return N_("a .npy array");
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
    if (line[0] == '[' || line[0] == '{') return fmt::format(N_("JSON (line {} is '{}')"), lineno, shown);
    if (line.size() > 2 && line[0] == ':' && line[1] == ' ')
      return fmt::format(N_("an analogy-question file (line {} is the section line '{}'; questions are 'a b c d' lines)"), lineno, shown);
    const std::size_t tabs = static_cast<std::size_t>(std::count(line.begin(), line.end(), '\t'));
    if (tabs == 2) {
      const std::string_view score = line.substr(line.rfind('\t') + 1);
      float v;
      const char* q = score.data();
      if (parse_number(q, score.data() + score.size(), b.data + b.size, v) == Num::ok && q == score.data() + score.size())
        return fmt::format(N_("a word-pair file (line {} is 'word1<TAB>word2<TAB>score')"), lineno);
    }
    if (line.find(',') != std::string_view::npos && line.find(' ') == std::string_view::npos)
      return fmt::format(N_("a CSV table (line {} is '{}')"), lineno, shown);
    return "";
  }
  return "";
}

}  // namespace

std::shared_ptr<Embeddings::Store> parse_embedding_file(const EmbeddingSource& src, const std::string& path,
                                                        const CacheTarget* target) {
  Bytes b;
  // with --limit, a gzip file is only inflated as far as needed (+1 for a header line)
  open_bytes(path, src.limit ? src.limit + 1 : 0, first_line_is_header, b);
  // 0. a fastText .bin model (its own parser; --limit is applied to the loaded table)
  if (src.format == EmbeddingFormat::fasttext_bin ||
      (src.format == EmbeddingFormat::detect && looks_like_fasttext_bin(b.data, b.size))) {
    if (b.gzip && src.limit) {  // inflated only partly: a binary model has no lines to count
      EmbeddingSource whole = src;
      whole.limit = 0;
      whole.format = EmbeddingFormat::fasttext_bin;
      return parse_embedding_file(whole, path);
    }
    auto s = parse_fasttext_bin(b.data, b.size, path, src.progress);
    s->info.gzip = b.gzip;
    s->info.path = path;
    check_norms(*s, path);
    return s;
  }
  // 1. a UTF-8 byte-order mark is not part of the first word
  std::size_t start = 0;
  if (b.size >= 3 && std::memcmp(b.data, "\xEF\xBB\xBF", 3) == 0) start = 3;
  if (start == b.size) fail(fmt::format(N_("{}: empty file (only a byte-order mark)"), path));
  // 2. the format: forced, or detected from a header line and the first row
  EmbeddingFormat fmt = src.format;
  const bool header_format = fmt == EmbeddingFormat::word2vec || fmt == EmbeddingFormat::word2vec_bin ||
                             fmt == EmbeddingFormat::fasttext;
  Header h;
  if (fmt != EmbeddingFormat::glove) h = read_header(path, b.data, start, b.size, header_format);
  if (fmt == EmbeddingFormat::detect) {
    if (!h.present) fmt = EmbeddingFormat::glove;
    else if (h.data_begin >= b.size)
      fail(fmt::format(N_("{}: the header (line 1) says {} words, but the file ends after 0"), path, h.n));
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
      s = parse_text(path, b, start, h, glove_dimension(path, b, start), src.limit, src.progress, target, src.count_progress);
    } else {
      s = parse_text(path, b, h.data_begin, h, static_cast<std::size_t>(h.d), src.limit, src.progress, target, src.count_progress);
    }
  } catch (const Error&) {
    // another kind of file given as word vectors: say what it looks like instead of its first bad number
    if (src.format == EmbeddingFormat::detect)
      if (const std::string kind = looks_like_other_file(b, start); !kind.empty())
        fail(fmt::format(N_("{} looks like {}, not word vectors; expected an embedding file (GloVe 'word v1 … vD' lines, "
                         "word2vec or fastText)"),
                         path, kind));
    throw;
  }
  s->info.format = fmt;
  s->info.gzip = b.gzip;
  s->info.path = path;
  s->name = path;
  check_norms(*s, path);
  return s;
}

}  // namespace tfx

