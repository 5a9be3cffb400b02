// fastText subwords: the hash of a character n-gram, the bucket rows of a word's n-grams, and
// the vectors of out-of-vocabulary words built from them (fastText's getWordVector, gensim's
// FastTextKeyedVectors.get_vector). Those rows are kept in the table after its N vocabulary rows
// (indices N, N+1, …), so every query that takes row indices works on them unchanged.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "embeddings_parse.hpp"
#include "embeddings_store.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

// FNV-1a, 32-bit, with fastText's sign extension: h = (h ^ uint32(int8(byte))) · 16777619.
// A byte ≥ 0x80 enters as 0xFFFFFFxx, not 0x000000xx (Dictionary::hash casts through int8_t).
std::uint32_t fasttext_hash(std::string_view bytes) {
  std::uint32_t h = 2166136261u;
  for (char c : bytes) {
    h ^= static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int8_t>(c)));
    h *= 16777619u;
  }
  return h;
}

// L characters in <word>: a start i gives the lengths n = max(minn, 1) … min(maxn, L − i); the
// 1-grams '<' (i = 0) and '>' (i = L − 1) are not counted
std::size_t fasttext_ngram_count(std::string_view word, std::size_t minn, std::size_t maxn) {
  if (maxn == 0) return 0;
  std::size_t L = 2;
  for (char c : word) L += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  const std::size_t lo = std::max<std::size_t>(minn, 1);
  std::size_t count = 0;
  for (std::size_t i = 0; i < L; ++i) {
    const std::size_t hi = std::min(maxn, L - i);
    if (hi >= lo) count += hi - lo + 1;
  }
  if (lo == 1) count -= 2;  // '<' and '>' alone (L ≥ 2 always)
  return count;
}

std::vector<std::uint32_t> fasttext_ngram_buckets(std::string_view word, std::size_t minn, std::size_t maxn,
                                                  std::size_t bucket) {
  std::vector<std::uint32_t> out;
  for_each_ngram_bucket(word, minn, maxn, bucket, [&](std::uint32_t h) { out.push_back(h); });
  return out;
}

std::optional<SubwordInfo> Embeddings::subwords() const {
  if (!s_->buckets || s_->bucket_count == 0) return std::nullopt;
  return SubwordInfo{s_->minn, s_->maxn, s_->bucket_count};
}

std::optional<std::size_t> Embeddings::subword_row(std::string_view w) const {
  const Store& s = *s_;
  if (!s.buckets || s.bucket_count == 0) return std::nullopt;
  std::lock_guard<std::mutex> lock(s.extra_mu);
  for (std::size_t k = 0; k < s.extras.size(); ++k)
    if (s.extras[k].word == w) return s.n + k;
  // v = (1/K) Σ_k bucket[h_k], summed in float in n-gram order (gensim's get_vector)
  SubwordRow r;
  r.v.assign(s.d, 0.0f);
  for_each_ngram_bucket(w, s.minn, s.maxn, s.bucket_count, [&](std::uint32_t h) {
    const float* b = s.buckets + static_cast<std::size_t>(h) * s.d;
    for (std::size_t j = 0; j < s.d; ++j) r.v[j] += b[j];
    ++r.ngrams;
  });
  if (r.ngrams == 0) return std::nullopt;
  r.word = std::string(w);
  for (auto& x : r.v) x /= static_cast<float>(r.ngrams);
  r.norm = row_norm(r.v.data(), r.v.size());
  // the buckets are finite (checked at load), but their sum can still overflow float32
  if (!std::isfinite(r.norm))
    throw Error(fmt::format(N_("{}: the subword vector of '{}' (the mean of {} n-gram rows) overflows float32: the model's "
                            "values are too large"),
                            s.name.empty() ? s.info.path : s.name, show_token(w), r.ngrams));
  s.extras.push_back(std::move(r));
  return s.n + s.extras.size() - 1;
}

bool Embeddings::is_subword_row(std::size_t i) const {
  if (i < s_->n) return false;
  std::lock_guard<std::mutex> lock(s_->extra_mu);
  return i - s_->n < s_->extras.size();
}

std::size_t Embeddings::subword_ngrams(std::size_t i) const { return subword_row_of(*s_, i).ngrams; }

bool Embeddings::has_row(std::size_t i) const { return i < n_ || is_subword_row(i); }

const SubwordRow& subword_row_of(const Embeddings::Store& s, std::size_t i) {
  std::lock_guard<std::mutex> lock(s.extra_mu);
  if (i < s.n || i - s.n >= s.extras.size())
    throw Error(fmt::format(N_("embedding row {} is out of range (table has {} rows)"), i, s.n));
  return s.extras[i - s.n];  // a deque: the element stays where it is when more are added
}

}  // namespace tfx
