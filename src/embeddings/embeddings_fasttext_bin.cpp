// fastText's binary model format (.bin: what `fasttext save-model` writes and the official
// per-language downloads ship), read from a byte buffer:
//   [magic 793712314 (int32), version 11|12 (int32)]   absent in the oldest layout
//   args: dim ws epoch minCount neg wordNgrams loss model bucket minn maxn lrUpdateRate (int32 each), t (double)
//   dictionary: size nwords nlabels (int32), ntokens (int64), [pruneidx_size (int64)],
//               size × (word bytes, NUL, count int64, type int8), pruneidx_size × (int32, int32)
//   input matrix: [quant (bool)], rows (int64) = nwords + bucket, cols (int64) = dim, float32 rows
//   output matrix (skipped): [quant (bool)], rows, cols (int64), float32 rows
// (bracketed fields only with the magic). All little-endian, as fastText writes them on x86.
// Word vectors are composed as fastText and gensim do: the mean of the word's own input row and
// the rows of its character n-gram buckets (embeddings_subwords.cpp hashes them).
#include "embeddings_fasttext_bin.hpp"
#include "embeddings_parse.hpp"
#include "tfx/core/i18n.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <thread>

namespace tfx {

namespace {

constexpr std::int32_t kMagic = 793712314;
constexpr std::size_t kArgsBytes = 12 * 4 + 8;

[[noreturn]] void fail(const std::string& msg) { throw Error(msg); }

struct Args {
  std::int32_t dim, ws, epoch, min_count, neg, word_ngrams, loss, model, bucket, minn, maxn, lr_update_rate;
  double t;
};

// Sequential little-endian reads that fail with "truncated in the <part>" at the end of the buffer.
struct Cursor {
  const char* data;
  std::size_t size, pos;
  const std::string& name;
  std::size_t left() const { return size - pos; }
  void need(std::size_t bytes, const std::string& part) const {
    if (left() < bytes)
      fail(fmt::format(N_("{}: truncated fastText model: the file ends at byte {} inside the {} ({} more bytes expected "
                       "at byte {})"),
                       name, size, part, bytes - left(), pos));
  }
  template <class T>
  T get(const std::string& part) {
    need(sizeof(T), part);
    T v;
    std::memcpy(&v, data + pos, sizeof v);
    pos += sizeof v;
    return v;
  }
};

Args read_args(Cursor& c, bool oldest) {
  Args a{};
  std::int32_t* ints[12] = {&a.dim, &a.ws, &a.epoch, &a.min_count, &a.neg, &a.word_ngrams,
                            &a.loss, &a.model, &a.bucket, &a.minn, &a.maxn, &a.lr_update_rate};
  c.need(kArgsBytes, oldest ? "header (the training arguments; oldest layout, no magic number)"
                            : "header (the training arguments)");
  for (auto* p : ints) *p = c.get<std::int32_t>("header");
  a.t = c.get<double>("header");
  return a;
}

bool plausible(const Args& a) {
  return a.dim >= 1 && a.dim <= static_cast<std::int32_t>(kMaxDim) && a.ws >= 0 && a.ws <= 100000 && a.epoch >= 0 && a.min_count >= 0 &&
         a.neg >= 0 && a.word_ngrams >= 0 && a.word_ngrams <= 1000 && a.loss >= 1 && a.loss <= 4 && a.model >= 1 &&
         a.model <= 3 && a.bucket >= 0 && a.minn >= 0 && a.minn <= 1000 && a.maxn >= 0 && a.maxn <= 1000 &&
         a.lr_update_rate >= 0 && std::isfinite(a.t) && a.t >= 0 && a.t <= 1;
}

// What a buffer that is not a fastText model looks like, for the error message.
std::string looks_like(const char* d, std::size_t n) {
  if (n >= 8 && std::memcmp(d, "TFXEMB1\n", 8) == 0) return "a tfx table (cache), not a fastText .bin model";
  if (n >= 2 && static_cast<unsigned char>(d[0]) == 0x1f && static_cast<unsigned char>(d[1]) == 0x8b)
    return "gzip-compressed data, not a fastText .bin model";
  // "N D\n": the header line of word2vec/fastText text and of word2vec binary
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t b = i;
    while (i < n && i < 40 && d[i] >= '0' && d[i] <= '9') ++i;
    return i > b;
  };
  if (digits() && i < n && d[i] == ' ' && (++i, digits())) {
    while (i < n && (d[i] == ' ' || d[i] == '\r')) ++i;
    if (i < n && d[i] == '\n') {
      const std::string header(d, i);
      // binary vectors hold control bytes within the first rows; text does not
      bool binary = false;
      for (std::size_t k = i + 1; k < n && k < i + 4096 && !binary; ++k)
        binary = static_cast<unsigned char>(d[k]) < 0x20 && d[k] != '\n' && d[k] != '\r' && d[k] != '\t';
      return binary ? fmt::format(N_("a word2vec binary file (text header '{}', then raw float32 rows), not a fastText "
                                  ".bin model"),
                                  header)
                    : fmt::format(N_("a word2vec or fastText .vec text file (header '{}'), not a fastText .bin model"),
                                  header);
    }
  }
  bool text = n > 0;
  for (std::size_t k = 0; k < n && k < 4096 && text; ++k)
    text = static_cast<unsigned char>(d[k]) >= 0x20 || d[k] == '\n' || d[k] == '\r' || d[k] == '\t';
  if (text) return "a text file (GloVe or word2vec text?), not a fastText .bin model";
  return "";
}

// Checks the training arguments, with a message naming the bad one.
void check_args(const Args& a, const std::string& name) {
  if (a.dim <= 0 || a.dim > static_cast<std::int32_t>(kMaxDim))
    fail(fmt::format(N_("{}: the fastText header says dim {}; expected 1 to {}"), name, a.dim, kMaxDim));
  if (a.model == 3)
    fail(fmt::format(N_("{}: a supervised fastText model (a text classifier, trained with `fasttext supervised`): its "
                     "rows predict labels and are not word vectors to compare; use an unsupervised (cbow or skipgram) "
                     "model such as cc.en.300.bin"),
                     name));
  if (a.model != 1 && a.model != 2)
    fail(fmt::format(N_("{}: the fastText header says model type {}; expected 1 (cbow), 2 (skipgram) or 3 (supervised)"),
                     name, a.model));
  if (a.minn < 0 || a.maxn < 0 || a.minn > 1000 || a.maxn > 1000)
    fail(fmt::format(N_("{}: the fastText header says minn {} and maxn {}; expected n-gram lengths 0 to 1000"), name, a.minn,
                     a.maxn));
  if (a.maxn > 0 && a.minn > a.maxn)
    fail(fmt::format(N_("{}: the fastText header says minn {} > maxn {}; expected minn ≤ maxn (character n-gram lengths)"),
                     name, a.minn, a.maxn));
  if (a.bucket < 0) fail(fmt::format(N_("{}: the fastText header says bucket {}; expected a count ≥ 0"), name, a.bucket));
  if (a.bucket == 0 && a.maxn > 0)
    fail(fmt::format(N_("{}: the fastText header says bucket 0 with subwords on (minn {}, maxn {}); n-grams need buckets "
                     "to hash into"),
                     name, a.minn, a.maxn));
}

}  // namespace

bool looks_like_fasttext_bin(const char* data, std::size_t size) {
  if (size < 8) return false;
  std::int32_t magic;
  std::memcpy(&magic, data, 4);
  if (magic == kMagic) return true;
  if (size < kArgsBytes + 20) return false;
  const std::string name;
  Cursor c{data, size, 0, name};
  return plausible(read_args(c, true));
}

std::shared_ptr<Embeddings::Store> parse_fasttext_bin(const char* data, std::size_t size, const std::string& name,
                                                      const Progress& progress) {
  Cursor c{data, size, 0, name};
  // 1. the header: magic and version, or the oldest layout (the args start at byte 0)
  if (size < 4) fail(fmt::format(N_("{}: truncated fastText model: {} bytes, shorter than any header"), name, size));
  std::int32_t magic;
  std::memcpy(&magic, data, 4);
  const bool oldest = magic != kMagic;
  std::int32_t version = 0;
  if (!oldest) {
    c.pos = 4;
    version = c.get<std::int32_t>("header (the version after the magic number)");
    if (version != 11 && version != 12)
      fail(fmt::format(N_("{}: fastText file format version {}; tfx reads versions 11 and 12 (and the oldest layout "
                       "without a magic number)"),
                       name, version));
  } else if (const std::string what = looks_like(data, size); !what.empty()) {
    fail(fmt::format(N_("{}: this looks like {}"), name, what));
  }
  const Args a = read_args(c, oldest);
  check_args(a, name);
  if (oldest && !plausible(a))
    fail(fmt::format(N_("{}: not a fastText .bin model: no magic number 793712314 at byte 0, and the bytes do not read "
                     "as the oldest layout's training arguments (dim {}, ws {}, loss {}, model type {}, t {})"),
                     name, a.dim, a.ws, a.loss, a.model, a.t));
  const std::size_t D = static_cast<std::size_t>(a.dim);

  // 2. the dictionary: counts, then size × (word NUL count type)
  const std::int32_t entries = c.get<std::int32_t>("dictionary header");
  const std::int32_t nwords = c.get<std::int32_t>("dictionary header");
  const std::int32_t nlabels = c.get<std::int32_t>("dictionary header");
  c.get<std::int64_t>("dictionary header");  // ntokens
  const std::int64_t pruned = oldest ? -1 : c.get<std::int64_t>("dictionary header");
  if (nlabels > 0)
    fail(fmt::format(N_("{}: a supervised fastText model (a text classifier with {} labels, trained with `fasttext "
                     "supervised`): its rows are not word vectors to compare; use an unsupervised (cbow or skipgram) "
                     "model such as cc.en.300.bin"),
                     name, nlabels));
  if (entries < 0 || nwords < 0 || nlabels < 0 || entries != nwords + nlabels)
    fail(fmt::format(N_("{}: the fastText dictionary header says {} entries = {} words + {} labels; expected counts ≥ 0 "
                     "that add up"),
                     name, entries, nwords, nlabels));
  if (nwords == 0) fail(fmt::format(N_("{}: the fastText dictionary has no words"), name));
  // each entry takes at least 10 bytes (NUL, count, type): refuse impossible counts before
  // allocating anything for them
  if (static_cast<std::size_t>(entries) > c.left() / 10)
    fail(fmt::format(N_("{}: the fastText dictionary says {} words, but only {} bytes follow (at least 10 per word); "
                     "truncated or corrupt"),
                     name, entries, c.left()));
  if (pruned > 0)
    fail(fmt::format(N_("{}: a pruned dictionary ({} entries kept by `fasttext quantize`): quantized models (.ftz) are "
                     "not supported; use the full .bin model"),
                     name, pruned));
  if (pruned < -1) fail(fmt::format(N_("{}: the fastText dictionary header says {} pruned entries; expected -1 or 0"), name, pruned));
  WordList words;
  words.ends.reserve(static_cast<std::size_t>(nwords));
  for (std::int32_t i = 0; i < entries; ++i) {
    const std::string part = fmt::format("dictionary (entry {} of {})", i + 1, entries);
    const char* w = data + c.pos;
    const void* nul = std::memchr(w, '\0', c.left());
    if (!nul) c.need(c.left() + 1, part);
    const std::size_t len = static_cast<std::size_t>(static_cast<const char*>(nul) - w);
    // (an empty word is possible: toy-model-pretrained.bin has one, and gensim keeps it)
    c.pos += len + 1;
    c.get<std::int64_t>(part);  // count
    const auto type = c.get<std::int8_t>(part);
    if (type != 0 || i >= nwords)
      fail(fmt::format(N_("{}: the fastText dictionary's entry {} (byte {}) has type {}; expected 0 (a word)"), name, i + 1,
                       c.pos - 1, type));
    words.push({w, len});
  }

  // 3. the input matrix: (nwords + bucket) × dim float32
  if (!oldest) {
    const auto quant = c.get<std::uint8_t>("input matrix header");
    if (quant == 1)
      fail(fmt::format(N_("{}: a quantized fastText model (.ftz, product-quantized input matrix): not supported; use the "
                       "full .bin model"),
                       name));
    if (quant != 0) fail(fmt::format(N_("{}: the input matrix's quantization flag is {}; expected 0 or 1"), name, quant));
  }
  const auto rows = c.get<std::int64_t>("input matrix header");
  const auto cols = c.get<std::int64_t>("input matrix header");
  const std::int64_t expect_rows = static_cast<std::int64_t>(nwords) + a.bucket;
  if (cols != a.dim || rows != expect_rows)
    fail(fmt::format(N_("{}: the input matrix is {} × {}; expected (words + bucket) × dim = ({} + {}) × {}"), name, rows, cols,
                     nwords, a.bucket, a.dim));
  const std::size_t matrix_at = c.pos;
  c.need(static_cast<std::size_t>(rows) * D * 4, fmt::format("input matrix ({} × {} float32)", rows, cols));
  c.pos += static_cast<std::size_t>(rows) * D * 4;

  // 4. the output matrix is not needed, but a model cut short in it is a broken download
  if (!oldest) c.get<std::uint8_t>("output matrix header");
  const auto orows = c.get<std::int64_t>("output matrix header");
  const auto ocols = c.get<std::int64_t>("output matrix header");
  if (orows < 0 || ocols < 0 || ocols > static_cast<std::int64_t>(kMaxDim) || (ocols > 0 && static_cast<std::uint64_t>(orows) > c.left() / 4 / static_cast<std::uint64_t>(ocols)))
    fail(fmt::format(N_("{}: truncated fastText model: the output matrix says {} × {} float32 but {} bytes follow"), name,
                     orows, ocols, c.left()));

  // 5. the store: the vocabulary, the bucket rows, then each word's vector composed on all cores
  auto s = std::make_shared<Embeddings::Store>();
  std::vector<unsigned char> keep;
  build_word_table(*s, words, keep);
  s->d = D;
  s->info.file_rows = words.size();
  s->info.duplicates = words.size() - s->n;
  const char* const input = data + matrix_at;
  const bool subwords = a.maxn > 0;
  const std::size_t B = subwords ? static_cast<std::size_t>(a.bucket) : 0;
  if (subwords) {
    s->own_buckets.allocate(B * D);
    s->bucket_count = B;
    s->minn = static_cast<std::size_t>(a.minn);
    s->maxn = static_cast<std::size_t>(a.maxn);
  }
  // the n-grams every word's vector sums (maxn up to 1000 and a long word: 10⁹ of them), bounded
  // before any is hashed (they are summed as they are hashed: no list is kept)
  if (subwords) {
    double total = 0;
    std::size_t most = 0, longest = 0;
    for (std::size_t i = 0; i < words.size(); ++i) {
      if (!keep[i]) continue;
      const std::size_t k = fasttext_ngram_count(words[i], static_cast<std::size_t>(a.minn), static_cast<std::size_t>(a.maxn));
      total += static_cast<double>(k);
      if (k > most) most = k, longest = i;
    }
    // ~26 n-grams a word × 2 M words × 300 dims ≈ 1.6·10¹⁰ for cc.en.300.bin; 10× that is a minute
    constexpr double kMaxNgramAdds = 2e11;
    if (total * static_cast<double>(D) > kMaxNgramAdds)
      fail(fmt::format(N_("{}: the character n-grams of its words (minn {}, maxn {}; the longest, '{}…' of {} bytes, has {}) need "
                       "{:.3g} additions of {}-dimensional rows; expected at most {:.0e} (is maxn or a word corrupt?)"),
                       name, a.minn, a.maxn, show_token(std::string_view(words[longest]).substr(0, 24)), words[longest].size(), most,
                       total * static_cast<double>(D), D, kMaxNgramAdds));
  }
  std::vector<std::size_t> dst(words.size());  // row in the store of each kept word
  for (std::size_t i = 0, r = 0; i < words.size(); ++i) dst[i] = keep[i] ? r++ : SIZE_MAX;
  s->own_vectors.allocate(s->n * D);
  float* const B_rows = s->own_buckets.data();
  float* const V = s->own_vectors.data();
  const std::size_t W = words.size();
  std::vector<std::string> bad(std::thread::hardware_concurrency() + 8);  // one per worker thread
  // 5a. bucket rows (copied: the file's floats need not be 4-byte aligned)
  parallel_for_threads(worker_threads(B * D), [&](unsigned t, unsigned T) {
    for (std::size_t b = B * t / T; b < B * (t + 1) / T; ++b) {
      float* out = B_rows + b * D;
      std::memcpy(out, input + (W + b) * D * 4, D * 4);
      for (std::size_t j = 0; j < D; ++j)
        if (!std::isfinite(out[j]) && bad[t].empty())
          bad[t] = fmt::format("bucket row {} (input matrix row {})", b, W + b);
    }
  });
  // 5b. v(w) = (row(w) + Σ_k bucket[h_k]) / (1 + K), summed in float in n-gram order (gensim's
  //     adjust_vectors; fastText's getWordVector for a vocabulary word)
  const unsigned T = worker_threads(W * D * 8);
  // words composed, reported as the same share of the file's bytes (one unit for every format)
  const Progress in_bytes = progress ? Progress([&](std::size_t done, std::size_t words) {
    progress(static_cast<std::size_t>(static_cast<double>(size) * static_cast<double>(done) / static_cast<double>(words)), size);
  }) : Progress{};
  parallel_for_threads(T, [&](unsigned t, unsigned TT) {
    const std::size_t begin = W * t / TT;
    ProgressTicker tick(t == 0 ? in_bytes : Progress{}, W);  // thread 0's share, scaled to all words
    for (std::size_t i = begin; i < W * (t + 1) / TT; ++i) {
      tick(std::min(W, (i - begin) * TT));
      if (dst[i] == SIZE_MAX) continue;
      float* v = V + dst[i] * D;
      std::memcpy(v, input + i * D * 4, D * 4);
      for (std::size_t j = 0; j < D; ++j)
        if (!std::isfinite(v[j]) && bad[t].empty()) bad[t] = fmt::format("the row of '{}' (input matrix row {})", show_token(words[i]), i);
      if (!subwords) continue;
      std::size_t count = 0;
      for_each_ngram_bucket(words[i], s->minn, s->maxn, B, [&](std::uint32_t h) {
        const float* b = B_rows + static_cast<std::size_t>(h) * D;
        for (std::size_t j = 0; j < D; ++j) v[j] += b[j];
        ++count;
      });
      const float k = static_cast<float>(count + 1);
      for (std::size_t j = 0; j < D; ++j) v[j] /= k;
    }
  });
  if (progress) progress(size, size);
  for (const auto& b : bad)
    if (!b.empty()) fail(fmt::format(N_("{}: {} holds a NaN or infinite value; expected finite float32"), name, b));
  s->vectors = V;
  if (subwords) s->buckets = B_rows;
  compute_norms(*s);
  if (s->info.duplicates)
    for (std::size_t i = 0; i < W; ++i)
      if (!keep[i]) {
        s->info.first_duplicate = fmt::format("'{}' (dictionary entry {})", show_token(words[i]), i + 1);
        break;
      }
  s->info.format = EmbeddingFormat::fasttext_bin;
  s->name = name;
  (void)version;
  return s;
}

}  // namespace tfx
