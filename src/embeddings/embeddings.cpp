// tfx::Embeddings: the table (word hash table, norms, case-folded lookup) and the queries on it —
// nearest neighbours, gensim's most_similar (3CosAdd) and most_similar_cosmul (3CosMul),
// analogies, and close spellings for out-of-vocabulary words.
#include "tfx/embeddings/embeddings.hpp"

#include <fmt/format.h>
#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "embeddings_parse.hpp"
#include "embeddings_store.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/io/mapped_file.hpp"
#include "tfx/text/unicode.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

// ---- storage -------------------------------------------------------------------------------

Embeddings::Store::~Store() {
  unwatch_mapping(map_watch);
  if (map) munmap(map, map_size);
}

std::uint64_t slot_count_for(std::size_t n) {
  std::uint64_t c = 16;
  while (c < 2 * static_cast<std::uint64_t>(n)) c <<= 1;
  return c;
}

std::int64_t Embeddings::Store::lookup(std::string_view w) const {
  if (!slots || slot_count == 0) return -1;
  const std::uint64_t mask = slot_count - 1;
  for (std::uint64_t h = word_hash(w) & mask;; h = (h + 1) & mask) {
    const std::uint32_t s = slots[h];
    if (s == 0) return -1;
    if (word(s - 1) == w) return static_cast<std::int64_t>(s - 1);
  }
}

std::size_t build_word_table(Embeddings::Store& s, const WordList& words, std::vector<unsigned char>& keep) {
  const std::size_t total = words.size();
  keep.assign(total, 0);
  s.slot_count = slot_count_for(total);
  s.own_slots.allocate(s.slot_count);
  std::fill_n(s.own_slots.data(), s.slot_count, 0u);
  s.own_offsets.allocate(total + 1);
  s.own_chars.clear();
  s.own_chars.reserve(words.chars.size());
  s.own_offsets.data()[0] = 0;
  const std::uint64_t mask = s.slot_count - 1;
  std::size_t n = 0;
  for (std::size_t i = 0; i < total; ++i) {
    const std::string_view w = words[i];
    std::uint64_t h = word_hash(w) & mask;
    bool dup = false;
    for (;; h = (h + 1) & mask) {
      const std::uint32_t v = s.own_slots.data()[h];
      if (v == 0) break;
      const std::uint64_t b = s.own_offsets.data()[v - 1], e = s.own_offsets.data()[v];
      if (std::string_view(s.own_chars.data() + b, e - b) == w) {
        dup = true;
        break;
      }
    }
    if (dup) continue;
    keep[i] = 1;
    s.own_chars.append(w);
    s.own_slots.data()[h] = static_cast<std::uint32_t>(n + 1);
    s.own_offsets.data()[++n] = s.own_chars.size();
  }
  s.n = n;
  s.chars = s.own_chars.data();
  s.offsets = s.own_offsets.data();
  s.slots = s.own_slots.data();
  return n;
}

void compute_norms(Embeddings::Store& s) {
  s.own_norms.allocate(s.n);
  float* out = s.own_norms.data();
  const float* v = s.vectors;
  const std::size_t n = s.n, d = s.d;
  parallel_for_threads(worker_threads(n * d), [&](unsigned t, unsigned T) {
    for (std::size_t i = n * t / T; i < n * (t + 1) / T; ++i) out[i] = row_norm(v + i * d, d);
  });
  s.norms = out;
}

void check_norms(const Embeddings::Store& s, const std::string& path) {
  for (std::size_t i = 0; i < s.n; ++i)
    if (!std::isfinite(s.norms[i]))
      throw Error(fmt::format(N_("{}: the vector of '{}' (row {}) is too large for float32: its length overflows (keep values "
                              "under about 1e18); cosines with it would be NaN"),
                              path, s.word(i), i + 1));
}

// ---- the table -----------------------------------------------------------------------------

Embeddings::Embeddings() : Embeddings(std::make_shared<Store>(), 0) {}

Embeddings::Embeddings(std::shared_ptr<const Store> store, std::size_t n) : s_(std::move(store)), n_(n) {}

Embeddings Embeddings::from_rows(std::vector<std::string> words, const Tensor& vectors, std::string name) {
  if (vectors.rank() != 2 || vectors.rows() != words.size())
    throw Error(fmt::format(N_("embedding table: {} words but vectors of shape {}"), words.size(), vectors.shape_str()));
  auto s = std::make_shared<Store>();
  WordList wl;
  for (const auto& w : words) wl.push(w);
  std::vector<unsigned char> keep;
  build_word_table(*s, wl, keep);
  s->d = vectors.cols();
  s->own_vectors.allocate(s->n * s->d);
  std::size_t r = 0;
  for (std::size_t i = 0; i < words.size(); ++i)
    if (keep[i]) std::copy_n(vectors.data() + i * s->d, s->d, s->own_vectors.data() + (r++) * s->d);
  s->vectors = s->own_vectors.data();
  compute_norms(*s);
  s->name = std::move(name);
  s->info.duplicates = words.size() - s->n;
  s->info.file_rows = words.size();
  s->info.format = EmbeddingFormat::memory;
  const std::size_t n = s->n;
  return Embeddings(std::move(s), n);
}

std::size_t Embeddings::dim() const { return s_->d; }
// rows i >= the stored N are words built from subwords (embeddings_subwords.cpp)
std::string_view Embeddings::word(std::size_t i) const { return i < s_->n ? s_->word(i) : subword_row_of(*s_, i).word; }
std::span<const float> Embeddings::row(std::size_t i) const {
  if (i >= s_->n) return subword_row_of(*s_, i).v;
  return {s_->vectors + i * s_->d, s_->d};
}
float Embeddings::norm(std::size_t i) const { return i < s_->n ? s_->norms[i] : subword_row_of(*s_, i).norm; }
const float* Embeddings::data() const { return s_->vectors; }
const float* Embeddings::norms() const { return s_->norms; }
const std::string& Embeddings::name() const { return s_->name; }
const LoadInfo& Embeddings::info() const { return s_->info; }
const std::vector<std::string>& Embeddings::axes() const { return s_->axes; }

std::vector<float> Embeddings::unit_row(std::size_t i) const {
  auto r = row(i);
  std::vector<float> u(r.begin(), r.end());
  const double nrm = norm(i);
  if (nrm > 0)
    for (auto& x : u) x = static_cast<float>(x / nrm);
  return u;
}

Tensor Embeddings::rows(std::span<const std::size_t> indices, bool unit) const {
  Tensor t({indices.size(), dim()});
  for (std::size_t k = 0; k < indices.size(); ++k) {
    if (!has_row(indices[k])) throw Error(fmt::format(N_("embedding row {} is out of range (table has {} rows)"), indices[k], n_));
    auto src = unit ? unit_row(indices[k]) : std::vector<float>(row(indices[k]).begin(), row(indices[k]).end());
    std::copy(src.begin(), src.end(), t.row(k).begin());
  }
  return t;
}

std::optional<std::size_t> Embeddings::find(std::string_view w) const {
  const std::int64_t i = s_->lookup(w);
  if (i < 0 || static_cast<std::size_t>(i) >= n_) return std::nullopt;
  return static_cast<std::size_t>(i);
}

namespace {

char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string fold(std::string_view w) {
  std::string o(w);
  for (auto& c : o) c = ascii_lower(c);
  return o;
}

bool equal_folded(std::string_view a, std::string_view folded) {
  if (a.size() != folded.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (ascii_lower(a[i]) != folded[i]) return false;
  return true;
}

}  // namespace

std::optional<std::size_t> Embeddings::find_ignore_case(std::string_view w) const {
  if (auto i = find(w)) return i;
  const Store& s = *s_;
  // Built once per table: first row (file order) of each folded spelling.
  std::call_once(s.fold_once, [&s] {
    const std::uint64_t cap = slot_count_for(s.n), mask = cap - 1;
    s.fold_slots.assign(cap, 0);
    for (std::size_t i = 0; i < s.n; ++i) {
      const std::string f = fold(s.word(i));
      std::uint64_t h = word_hash(f) & mask;
      bool seen = false;
      for (;; h = (h + 1) & mask) {
        const std::uint32_t v = s.fold_slots[h];
        if (v == 0) break;
        if (equal_folded(s.word(v - 1), f)) {
          seen = true;
          break;
        }
      }
      if (!seen) s.fold_slots[h] = static_cast<std::uint32_t>(i + 1);
    }
  });
  const std::string f = fold(w);
  const std::uint64_t mask = s.fold_slots.size() - 1;
  for (std::uint64_t h = word_hash(f) & mask;; h = (h + 1) & mask) {
    const std::uint32_t v = s.fold_slots[h];
    if (v == 0) return std::nullopt;
    if (equal_folded(s.word(v - 1), f)) {
      // the first folded match may lie beyond a --limit view; then look no further
      if (v - 1 >= n_) return std::nullopt;
      return static_cast<std::size_t>(v - 1);
    }
  }
}

// ---- queries -------------------------------------------------------------------------------

namespace {

// Σ a_j·b_j in float with 8 independent accumulators (vectorises; error ~1e-7 relative for D ≤ 1000).
inline float dot8(const float* a, const float* b, std::size_t d) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t j = 0;
  for (; j + 8 <= d; j += 8)
    for (std::size_t k = 0; k < 8; ++k) acc[k] += a[j + k] * b[j + k];
  float tail = 0;
  for (; j < d; ++j) tail += a[j] * b[j];
  return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail;
}

// Top-k of score(i) over rows [0, n) not in `exclude`, on all cores. score: (i) -> double.
template <class Score>
std::vector<Neighbour> top_rows(std::size_t n, std::size_t d, std::size_t k, std::span<const std::size_t> exclude,
                                Score score) {
  k = std::min(k, n);
  const unsigned T = worker_threads(n * d);
  std::vector<std::vector<TopK<double>::Entry>> partial(T);
  parallel_for_threads(T, [&](unsigned t, unsigned TT) {
    TopK<double> best(k);
    for (std::size_t i = n * t / TT; i < n * (t + 1) / TT; ++i) {
      if (std::find(exclude.begin(), exclude.end(), i) != exclude.end()) continue;
      const double s = score(i);
      best.push(i, std::isnan(s) ? -INFINITY : s);
    }
    partial[t] = best.sorted();
  });
  TopK<double> best(k);
  for (const auto& p : partial)
    for (const auto& [i, s] : p) best.push(i, s);
  std::vector<Neighbour> out;
  for (const auto& [i, s] : best.sorted()) out.push_back({i, s});
  return out;
}

}  // namespace

std::vector<Neighbour> nearest(const Embeddings& e, std::span<const float> q, std::size_t k,
                               std::span<const std::size_t> exclude) {
  if (q.size() != e.dim()) throw Error(fmt::format(N_("query vector has {} dimensions, the table {}"), q.size(), e.dim()));
  // q̂ = q/‖q‖; score(i) = row_i·q̂ / ‖row_i‖
  double qn = 0;
  for (float x : q) qn += static_cast<double>(x) * x;
  qn = std::sqrt(qn);
  std::vector<float> qu(q.begin(), q.end());
  if (qn > 0)
    for (auto& x : qu) x = static_cast<float>(x / qn);
  const float* V = e.data();
  const float* N = e.norms();
  const std::size_t d = e.dim();
  return top_rows(e.size(), d, k, exclude, [&](std::size_t i) -> double {
    return N[i] > 0 ? static_cast<double>(dot8(V + i * d, qu.data(), d)) / N[i] : 0.0;
  });
}

std::vector<Neighbour> most_similar(const Embeddings& e, std::span<const std::size_t> positive,
                                    std::span<const std::size_t> negative, std::size_t k, AnalogyMethod method,
                                    bool exclude_inputs) {
  if (positive.empty()) throw Error(N_("most_similar needs at least one positive word"));
  const std::size_t d = e.dim();
  std::vector<std::size_t> inputs(positive.begin(), positive.end());
  inputs.insert(inputs.end(), negative.begin(), negative.end());
  for (std::size_t i : inputs)
    if (!e.has_row(i)) throw Error(fmt::format(N_("embedding row {} is out of range (table has {} rows)"), i, e.size()));
  std::span<const std::size_t> exclude = exclude_inputs ? std::span<const std::size_t>(inputs) : std::span<const std::size_t>();
  const float* V = e.data();
  const float* N = e.norms();

  if (method == AnalogyMethod::add) {
    // 1. m = Σ w_j·unit(x_j) (the 1/count of gensim's mean cancels in step 2)
    std::vector<double> m(d, 0.0);
    auto accumulate = [&](std::size_t i, double w) {
      const auto u = e.unit_row(i);
      for (std::size_t j = 0; j < d; ++j) m[j] += w * u[j];
    };
    for (std::size_t i : positive) accumulate(i, 1.0);
    for (std::size_t i : negative) accumulate(i, -1.0);
    // 2. unit(m); 3. score = cosine(row, m)
    std::vector<float> mf(m.begin(), m.end());
    return nearest(e, mf, k, exclude);
  }

  // 3CosMul: cos(w, x) for every input x, shifted to [0, 1] by (1 + cos)/2.
  std::vector<std::vector<float>> units;
  for (std::size_t i : inputs) units.push_back(e.unit_row(i));
  const std::size_t P = positive.size();
  return top_rows(e.size(), d * inputs.size(), k, exclude, [&](std::size_t i) -> double {
    const double ni = N[i];
    double num = 1.0, den = 1.0;
    for (std::size_t t = 0; t < units.size(); ++t) {
      const double c = ni > 0 ? dot8(V + i * d, units[t].data(), d) / ni : 0.0;
      (t < P ? num : den) *= (1.0 + c) / 2.0;
    }
    return num / ((units.size() > P ? den : 0.0) + 1e-6);
  });
}

std::vector<Neighbour> analogy(const Embeddings& e, std::size_t a, std::size_t b, std::size_t c, std::size_t k,
                               AnalogyMethod method, bool exclude_inputs) {
  const std::size_t pos[2] = {a, c};
  const std::size_t neg[1] = {b};
  return most_similar(e, pos, neg, k, method, exclude_inputs);
}

// ---- spelling suggestions ------------------------------------------------------------------

namespace {

// Optimal-string-alignment distance (Damerau–Levenshtein with adjacent transpositions) between
// folded strings, or limit+1 once it exceeds `limit`.
std::size_t osa_distance(std::string_view a, std::string_view b, std::size_t limit) {
  const std::size_t la = a.size(), lb = b.size();
  if ((la > lb ? la - lb : lb - la) > limit) return limit + 1;
  std::vector<std::size_t> prev2(lb + 1), prev(lb + 1), cur(lb + 1);
  for (std::size_t j = 0; j <= lb; ++j) prev[j] = j;
  for (std::size_t i = 1; i <= la; ++i) {
    cur[0] = i;
    std::size_t row_min = cur[0];
    for (std::size_t j = 1; j <= lb; ++j) {
      const std::size_t cost = ascii_lower(a[i - 1]) == ascii_lower(b[j - 1]) ? 0 : 1;
      std::size_t v = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && ascii_lower(a[i - 1]) == ascii_lower(b[j - 2]) && ascii_lower(a[i - 2]) == ascii_lower(b[j - 1]))
        v = std::min(v, prev2[j - 2] + 1);
      cur[j] = v;
      row_min = std::min(row_min, v);
    }
    if (row_min > limit) return limit + 1;
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[lb];
}

}  // namespace

std::vector<std::string> close_spellings(const Embeddings& e, std::string_view word, std::size_t max) {
  const std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
  std::vector<std::pair<std::size_t, std::size_t>> hits;  // (distance, row)
  for (std::size_t i = 0; i < e.size(); ++i) {
    const std::string_view w = e.word(i);
    const std::size_t dist = osa_distance(word, w, limit);
    if (dist <= limit && w != word) hits.emplace_back(dist, i);
  }
  std::stable_sort(hits.begin(), hits.end(), [](auto& x, auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (std::size_t k = 0; k < hits.size() && out.size() < max; ++k) out.emplace_back(e.word(hits[k].second));
  return out;
}

std::size_t require_word(const Embeddings& e, std::string_view word, bool ignore_case) {
  if (auto i = e.find(word, ignore_case)) return *i;
  // the same word decomposed (NFD: jamo for Hangul, e + U+0301): looked up in form C, as vocabularies store it
  if (const std::string c = unicode::nfc_utf8(word); c != word)
    if (auto i = e.find(c, ignore_case)) return *i;
  // a fastText model: the mean of the word's n-gram rows (as the word is typed; case matters to the hash)
  // (show_token: a word of invalid UTF-8 or control bytes is shown as \xNN, so the message stays one line)
  if (const auto sw = e.subwords()) {
    if (auto i = e.subword_row(word)) return *i;
    throw Error(fmt::format(N_("'{}' is not in the vocabulary of {} ({} words) and has no character n-gram of {}–{} "
                            "characters (of '<{}>') to build a fastText subword vector from"),
                            show_token(word), e.name(), e.size(), sw->minn, sw->maxn, show_token(word)));
  }
  std::string msg = fmt::format(N_("'{}' is not in the vocabulary of {} ({} words)"), show_token(word), e.name(), e.size());
  if (!ignore_case)
    if (auto j = e.find_ignore_case(word)) {
      msg += fmt::format("; '{}' is (lookup is case-sensitive: use ignore_case)", e.word(*j));
      throw Error(msg, Error::Kind::data, {"ignore_case"});
    }
  const auto near = close_spellings(e, word, 5);
  if (!near.empty()) {
    std::string list;
    for (std::size_t k = 0; k < near.size(); ++k) list += (k ? ", '" : "'") + show_token(near[k]) + "'";  // words, quoted as the asked one is
    msg += "; " + fmt::format(N_("close spellings: {}"), list);
  } else {
    msg += std::string("; ") + N_("no close spellings");
  }
  throw Error(msg);
}

// ---- sources -------------------------------------------------------------------------------

EmbeddingFormat parse_embedding_format(const std::string& name, const char* param) {
  return parse_choice<EmbeddingFormat>(kEmbeddingFormatChoices, name, param);
}

const char* embedding_format_name(EmbeddingFormat f) {
  return choice_name<EmbeddingFormat>(kEmbeddingFormatChoices, f);
}

}  // namespace tfx
