// Tests of fastText .bin models: fastText's n-gram hash and buckets, the vocabulary and word
// vectors in and out of the vocabulary against gensim's load_facebook_model(...).wv (constants
// from tests/reference/gen_fasttext_reference.py), the cache, every bad input the format allows,
// and the word commands on words built from subwords.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "tfx/embeddings/embeddings.hpp"
#include "reference/fasttext_reference.inc"

using namespace tfx;
using namespace tfx::test;

namespace {

Embeddings load_bin(const std::filesystem::path& p, bool cache = false, const std::string& cache_dir = "") {
  EmbeddingSource s;
  s.path = p.string();
  s.use_cache = cache;
  s.cache_dir = cache_dir;
  return load_embeddings(s);
}

double max_diff(std::span<const float> a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double m = 0;
  for (std::size_t j = 0; j < a.size(); ++j) m = std::max(m, std::fabs(static_cast<double>(a[j]) - b[j]));
  return m;
}

// A fastText .bin in the magic + version layout, written field by field (fastText's save order).
struct Model {
  std::int32_t version = 12;
  std::int32_t dim = 2, model = 2, loss = 2, bucket = 4, minn = 3, maxn = 4;
  std::vector<std::string> words = {"ab", "cd"};
  std::int32_t nlabels = 0;
  std::int64_t pruned = -1;
  std::uint8_t quant = 0;
  std::int64_t rows = -1;  // -1 = words + bucket
  float scale = 1;         // every input-matrix value multiplied by it
};
template <class T>
void put(std::string& s, T v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof v);
}
// Row r of the input matrix is (r + 1, −(r + 1)).
std::string model_bytes(const Model& m, bool with_magic = true) {
  std::string s;
  if (with_magic) {
    put<std::int32_t>(s, 793712314);
    put<std::int32_t>(s, m.version);
  }
  for (std::int32_t v : {m.dim, 5, 5, 1, 5, 1, m.loss, m.model, m.bucket, m.minn, m.maxn, 100}) put(s, v);
  put<double>(s, 1e-4);
  const auto nw = static_cast<std::int32_t>(m.words.size());
  put<std::int32_t>(s, nw + m.nlabels);
  put<std::int32_t>(s, nw);
  put<std::int32_t>(s, m.nlabels);
  put<std::int64_t>(s, 100);
  if (with_magic) put<std::int64_t>(s, m.pruned);
  for (const auto& w : m.words) {
    s += w;
    s += '\0';
    put<std::int64_t>(s, 7);
    put<std::int8_t>(s, 0);
  }
  if (with_magic) put<std::uint8_t>(s, m.quant);
  const std::int64_t rows = m.rows >= 0 ? m.rows : nw + m.bucket;
  put<std::int64_t>(s, rows);
  put<std::int64_t>(s, m.dim);
  for (std::int64_t r = 0; r < rows && r < 1000; ++r)
    for (std::int32_t j = 0; j < m.dim; ++j) put<float>(s, static_cast<float>(j % 2 ? -(r + 1) : r + 1) * m.scale);
  if (with_magic) put<std::uint8_t>(s, 0);
  put<std::int64_t>(s, 1);
  put<std::int64_t>(s, m.dim);
  for (std::int32_t j = 0; j < m.dim; ++j) put<float>(s, 0.5f);
  return s;
}

std::string load_error(const TempDir& d, const std::string& bytes, EmbeddingFormat f = EmbeddingFormat::detect) {
  write_file(d / "m.bin", bytes);
  EmbeddingSource s;
  s.path = (d / "m.bin").string();
  s.format = f;
  s.use_cache = false;
  return error_of([&] { load_embeddings(s); });
}

}  // namespace

TEST_CASE("fastText hash and n-gram buckets equal gensim's ft_hash_bytes / ft_ngram_hashes, bytes >= 0x80 included") {
  for (const auto& h : fasttext_ref::hashes) {
    const std::string bytes = h.bytes;
    CAPTURE(bytes);
    CHECK(fasttext_hash(h.bytes) == h.hash);
  }
  for (const auto& b : fasttext_ref::buckets) {
    const std::string word = b.word;
    CAPTURE(word);
    CHECK(fasttext_ngram_buckets(b.word, b.minn, b.maxn, b.bucket) == b.rows);
  }
  // closed form: FNV-1a of one byte 0xff sign-extended = (2166136261 ^ 0xffffffff) · 16777619 mod 2^32
  CHECK(fasttext_hash("\xff") == static_cast<std::uint32_t>((2166136261u ^ 0xffffffffu) * 16777619u));
}

TEST_CASE("fastText .bin models against gensim: vocabulary, dim, minn/maxn/bucket, vectors in and out of vocabulary, neighbours") {
  if (shared_data("lee_fasttext.bin").empty()) return;
  for (const auto& m : fasttext_ref::models) {
    const std::string file = m.file;
    CAPTURE(file);
    const Embeddings e = load_bin(shared_data(m.file));
    CHECK(e.info().format == EmbeddingFormat::fasttext_bin);
    CHECK(e.size() == m.words);
    CHECK(e.dim() == m.dim);
    REQUIRE(e.subwords());
    CHECK(e.subwords()->minn == m.minn);
    CHECK(e.subwords()->maxn == m.maxn);
    CHECK(e.subwords()->buckets == m.bucket);
    for (const auto& w : m.in_vocab) {
      const std::string word = w.word;
      CAPTURE(word);
      const auto i = e.find(w.word);
      REQUIRE(i);
      CHECK(max_diff(e.row(*i), w.v) <= 1e-5);
    }
    for (const auto& w : m.oov) {
      const std::string word = w.word;
      CAPTURE(word);
      CHECK(!e.find(w.word));
      const std::size_t i = require_word(e, w.word, false);
      CHECK(e.is_subword_row(i));
      CHECK(e.word(i) == w.word);
      CHECK(max_diff(e.row(i), w.v) <= 1e-5);
      CHECK(require_word(e, w.word, false) == i);  // built once, then kept
    }
    // every vocabulary vector at once: the per-dimension sums
    for (std::size_t j = 0; j < e.dim(); ++j) {
      double sum = 0;
      for (std::size_t i = 0; i < e.size(); ++i) sum += e.row(i)[j];
      CHECK(sum == doctest::Approx(m.vocab_sum[j]).epsilon(1e-5));
    }
    for (const auto& nb : m.neighbours) {
      const std::string query = nb.query;
      CAPTURE(query);
      const std::size_t q = require_word(e, nb.query, false);
      const std::size_t one[1] = {q};
      const auto best = most_similar(e, one, {}, nb.words.size());
      REQUIRE(best.size() == nb.words.size());
      for (std::size_t r = 0; r < best.size(); ++r) {
        CHECK(best[r].score == doctest::Approx(nb.scores[r]).epsilon(1e-5));
        // the word at rank r, unless a neighbour's score is within 1e-5 (a tie at float precision)
        const bool tie = (r > 0 && nb.scores[r - 1] - nb.scores[r] < 1e-5) ||
                         (r + 1 < best.size() && nb.scores[r] - nb.scores[r + 1] < 1e-5);
        if (!tie) CHECK(e.word(best[r].index) == nb.words[r]);
      }
    }
  }
}

TEST_CASE("fastText .bin: the cache holds vocabulary, word rows and bucket rows; a hit gives the same vectors") {
  const auto p = shared_data("lee_fasttext_new.bin");
  if (p.empty()) return;
  TempDir d;
  const Embeddings a = load_bin(p, true, d.path.string());
  CHECK(a.info().cache_state == "written");
  const Embeddings b = load_bin(p, true, d.path.string());
  CHECK(b.info().cache_state == "hit");
  CHECK(b.info().format == EmbeddingFormat::fasttext_bin);
  REQUIRE(b.subwords());
  CHECK(b.subwords()->buckets == 1000);
  CHECK(b.size() == a.size());
  for (std::size_t i = 0; i < a.size(); i += 97) CHECK(max_diff(b.row(i), std::vector<float>(a.row(i).begin(), a.row(i).end())) == 0);
  const std::size_t ia = require_word(a, "governmentally", false), ib = require_word(b, "governmentally", false);
  CHECK(max_diff(b.row(ib), std::vector<float>(a.row(ia).begin(), a.row(ia).end())) == 0);
}

TEST_CASE("fastText .bin bad input: truncation, impossible counts, bad args, other formats, versions, supervised, quantized") {
  TempDir d;
  Model ok;
  const std::string good = model_bytes(ok);
  {  // the hand-written model loads: "ab" = (row 0 + its n-gram rows) / (1 + K)
    write_file(d / "ok.bin", good);
    const Embeddings e = load_bin(d / "ok.bin");
    REQUIRE(e.size() == 2);
    const auto hs = fasttext_ngram_buckets("ab", 3, 4, 4);  // <ab, ab>, <ab> (3- and 4-grams)
    CHECK(hs.size() == 3);
    double v0 = 1;
    for (auto h : hs) v0 += static_cast<double>(2 + h + 1);  // bucket row h is input row 2 + h
    CHECK(e.row(0)[0] == doctest::Approx(v0 / 4));
    CHECK(e.row(0)[1] == doctest::Approx(-v0 / 4));
  }
  // truncated in the header, the dictionary, the input matrix, the output matrix
  const std::size_t dict_at = 8 + 56 + 4 * 3 + 16;
  CHECK(has(load_error(d, good.substr(0, 30)), "truncated fastText model: the file ends at byte 30 inside the header"));
  CHECK(has(load_error(d, good.substr(0, dict_at + 2)), "the fastText dictionary says 2 words, but only 2 bytes follow"));
  CHECK(has(load_error(d, good.substr(0, dict_at + 14) + std::string(30, 'x')), "inside the dictionary (entry 2 of 2)"));
  CHECK(has(load_error(d, good.substr(0, good.size() - 40)), "inside the input matrix (6 × 2 float32)"));
  CHECK(has(load_error(d, good.substr(0, good.size() - 3)), "truncated fastText model: the output matrix says 1 × 2"));
  // impossible counts are refused before anything is allocated; `with` changes one field of the good model
  auto with = [&](auto change) {
    Model m = ok;
    change(m);
    return m;
  };
  std::string huge = good;
  const std::int32_t many = 2147483647;
  std::memcpy(huge.data() + 8 + 56, &many, 4);
  std::memcpy(huge.data() + 8 + 56 + 4, &many, 4);
  CHECK(has(load_error(d, huge), "the fastText dictionary says 2147483647 words, but only"));
  CHECK(has(load_error(d, model_bytes(with([](Model& m) { m.rows = 1000000000000; }))),
            "the input matrix is 1000000000000 × 2; expected (words + bucket) × dim = (2 + 4) × 2"));
  CHECK(has(load_error(d, model_bytes(with([](Model& m) { m.dim = 0; }))), "the fastText header says dim 0; expected 1 to 100000"));
  CHECK(has(load_error(d, model_bytes(with([](Model& m) { m.dim = 0; }), false), EmbeddingFormat::fasttext_bin),
            "the fastText header says dim 0"));
  CHECK(has(load_error(d, model_bytes(with([](Model& m) { m.minn = 5; }))), "minn 5 > maxn 4"));
  CHECK(has(load_error(d, model_bytes(with([](Model& m) { m.bucket = 0; }))), "bucket 0 with subwords on (minn 3, maxn 4)"));
  CHECK(has(load_error(d, model_bytes(with([](Model& m) { m.version = 13; }))),
            "fastText file format version 13; tfx reads versions 11 and 12"));
  CHECK(has(load_error(d, model_bytes(with([](Model& m) { m.model = 3; }))), "a supervised fastText model (a text classifier"));
  CHECK(has(load_error(d, model_bytes(with([](Model& m) { m.nlabels = 2; }))),
            "a supervised fastText model (a text classifier with 2 labels"));
  CHECK(has(load_error(d, model_bytes(with([](Model& m) { m.quant = 1; }))), "a quantized fastText model (.ftz"));
  CHECK(has(load_error(d, model_bytes(with([](Model& m) { m.pruned = 3; }))), "quantized models (.ftz) are not supported"));
  // other formats named as fastText .bin say what they look like
  std::string w2v = "2 3\nab ";
  for (int i = 0; i < 3; ++i) put<float>(w2v, 1.0f);
  w2v += "cd ";
  for (int i = 0; i < 3; ++i) put<float>(w2v, 2.0f);
  CHECK(has(load_error(d, w2v, EmbeddingFormat::fasttext_bin), "looks like a word2vec binary file (text header '2 3'"));
  CHECK(has(load_error(d, "2 3\nab 1 2 3\ncd 4 5 6\n", EmbeddingFormat::fasttext_bin), "a word2vec or fastText .vec text file"));
  CHECK(has(load_error(d, "ab 1 2 3\n", EmbeddingFormat::fasttext_bin), "a text file (GloVe or word2vec text?)"));
  // the oldest layout (no magic) is detected and read too
  write_file(d / "old.bin", model_bytes(ok, false));
  CHECK(load_bin(d / "old.bin").size() == 2);
}

TEST_CASE("fastText .bin: gensim's refusal of the supervised pang_lee model, said in tfx's words") {
  const auto p = shared_data("pang_lee_polarity_fasttext.bin");
  if (p.empty()) return;
  const Run r = run_tfx("similar good --embeddings " + p.string() + " --no-cache");
  check_one_line_error(r, 1, "a supervised fastText model (a text classifier");
}

TEST_CASE("word commands on a fastText model: out-of-vocabulary words get subword vectors and say so") {
  const auto p = shared_data("lee_fasttext.bin");
  if (p.empty()) return;
  TempDir d;
  const std::string emb = " --embeddings " + p.string() + " --no-cache";
  const std::string note = "'governmentally' is not in the vocabulary: its vector is the mean of";
  Run r = run_tfx("lookup --words government,governmentally" + emb);
  CHECK(r.code == 0);
  CHECK(has(r.out, note));
  r = run_tfx("similar governmentally -k 3" + emb + " --format json");
  CHECK(r.code == 0);
  CHECK(has(r.out, "government,"));  // gensim's nearest (see the reference constants)
  r = run_tfx("similarity government governmentally" + emb);
  CHECK(r.code == 0);
  CHECK(has(r.out, note));
  r = run_tfx("analogy governmentally government minister" + emb);
  CHECK(r.code == 0);
  CHECK(has(r.out, note));
  r = run_tfx("direction --from government --to governmentally --words the" + emb);
  CHECK(r.code == 0);
  CHECK(has(r.out, note));
  r = run_tfx("project government governmentally the minister --format csv" + emb, d.path);
  CHECK(r.code == 0);
  CHECK(has(r.out, "governmentally,"));
  // no n-gram of 3–6 characters: only possible for a model with a larger minn
  Model m;
  m.minn = 5;
  m.maxn = 6;
  m.words = {"abcdef", "ghijkl"};
  write_file(d / "m5.bin", model_bytes(m));
  r = run_tfx("similarity ab abcdef --embeddings " + (d / "m5.bin").string() + " --no-cache");
  check_one_line_error(r, 1, "'ab' is not in the vocabulary of");
  CHECK(has(r.err, "has no character n-gram of 5–6 characters"));
}

TEST_CASE("fastText .bin: vectors whose n-gram sum overflows float32 are an error naming the word, never a nan cosine") {
  TempDir d;
  Model m;
  // 1. rows up to 6 · 5e37 = 3e38, each finite, but a word's rows add past float32's 3.4e38 at load
  m.scale = 5e37f;
  write_file(d / "m.bin", model_bytes(m));
  Run r = run_tfx("similarity cd ab --embeddings m.bin --no-cache", d.path);
  check_one_line_error(r, 1, "m.bin: the vector of 'ab' (row 1) is too large for float32");
  // 2. the words' own 4 rows stay finite (≤ 4 · 6 · 1.2e37), an unknown word's 13 n-gram rows do not
  m.scale = 1.2e37f;
  write_file(d / "m.bin", model_bytes(m));
  CHECK(run_tfx("similarity cd ab --embeddings m.bin --no-cache", d.path).code == 0);
  r = run_tfx("similarity abcdefgh ab --embeddings m.bin --no-cache", d.path);
  check_one_line_error(r, 1, "m.bin: the subword vector of 'abcdefgh' (the mean of");
  CHECK(has(r.err, "overflows float32"));
}

TEST_CASE("fastText n-grams: the count from the length alone equals the n-grams hashed, for every minn ≤ maxn and UTF-8 words") {
  for (const std::string& w : std::vector<std::string>{"", "a", "ab", "where", "\xED\x95\x99\xEC\x83\x9D", "caf\xC3\xA9s", std::string(40, 'x')})
    for (std::size_t minn = 0; minn <= 7; ++minn)
      for (std::size_t maxn = std::max<std::size_t>(minn, 1); maxn <= 9; ++maxn) {
        CAPTURE(w);
        CAPTURE(minn);
        CAPTURE(maxn);
        CHECK(fasttext_ngram_count(w, minn, maxn) == fasttext_ngram_buckets(w, minn, maxn, 97).size());
      }
}

TEST_CASE("fastText .bin: maxn 1000 and a 100,000-character word is refused by its n-gram count before any is hashed (issue 36)") {
  TempDir d;
  Model m;
  m.dim = 10000;
  m.maxn = 1000;
  m.words = {"ab", std::string(100000, 'x')};
  CHECK(has(load_error(d, model_bytes(m)), "the character n-grams of its words (minn 3, maxn 1000; the longest, 'xxxxxxxxxxxxxxxxxxxxxxxx…' of 100000 bytes"));
}
