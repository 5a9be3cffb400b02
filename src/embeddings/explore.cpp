// Vector comparison, embedding lookup, directions and the 2-D PCA view of words.
#include "tfx/embeddings/explore.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>

#include "tfx/core/ops.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

VectorComparison compare_vectors(std::span<const float> a, std::span<const float> b) {
  if (a.size() != b.size()) throw Error(fmt::format(N_("compare_vectors: lengths {} and {}"), a.size(), b.size()));
  VectorComparison c;
  c.dot = dot(a, b);
  c.norm_a = norm(a);
  c.norm_b = norm(b);
  c.cosine = cosine(a, b);
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - static_cast<double>(b[i]);
    s += d * d;
  }
  c.euclidean = std::sqrt(s);
  c.angle_degrees = std::acos(std::clamp(c.cosine, -1.0, 1.0)) * 180.0 / std::numbers::pi;
  return c;
}

Tensor embedding_lookup(const Embeddings& e, std::span<const std::size_t> ids, std::size_t lists, bool keep_batch) {
  if (lists == 0 || ids.size() % lists != 0)
    throw Error(fmt::format(N_("embedding_lookup: {} ids do not split into {} lists of equal length"), ids.size(), lists));
  for (std::size_t id : ids)
    if (!e.has_row(id))
      throw Error(fmt::format(N_("id {} is out of range: {} has {} rows, valid ids are 0..{}"), id, e.name(), e.size(), e.size() - 1));
  const std::size_t T = ids.size() / lists, D = e.dim();
  checked_element_count({ids.size(), D}, fmt::format("{} ids × {} dims", ids.size(), D));
  Tensor out = e.rows(ids);  // (lists·T, D)
  if (lists == 1 && !keep_batch) return out;
  return out.reshaped({lists, T, D});
}

std::vector<float> mean_difference(const Embeddings& e, std::span<const std::size_t> from, std::span<const std::size_t> to) {
  if (from.size() != to.size() || from.empty())
    throw Error(fmt::format(N_("mean_difference: {} 'from' words and {} 'to' words (need the same number, at least one)"),
                            from.size(), to.size()));
  const std::size_t D = e.dim();
  std::vector<double> acc(D, 0.0);
  for (std::size_t p = 0; p < from.size(); ++p) {
    auto f = e.row(from[p]), t = e.row(to[p]);
    for (std::size_t j = 0; j < D; ++j) acc[j] += static_cast<double>(t[j]) - static_cast<double>(f[j]);
  }
  std::vector<float> d(D);
  for (std::size_t j = 0; j < D; ++j) d[j] = static_cast<float>(acc[j] / static_cast<double>(from.size()));
  return d;
}

namespace {
// d·E(w), or the cosine with ‖d‖ given (dn)
double score_row(const Embeddings& e, std::size_t i, std::span<const float> d, double dn, bool cos) {
  const double s = dot(e.row(i), d);
  const double n = static_cast<double>(e.norm(i)) * dn;
  return cos ? (n > 0 ? s / n : 0.0) : s;
}
}  // namespace

double direction_score(const Embeddings& e, std::size_t w, std::span<const float> d, bool cos) {
  if (e.dim() != d.size()) throw Error(fmt::format(N_("direction_score: a direction of length {} for {}-dimensional vectors"), d.size(), e.dim()));
  return score_row(e, w, d, norm(d), cos);
}

std::vector<double> direction_scores(const Embeddings& e, std::span<const float> d, bool cos) {
  if (e.dim() != d.size()) throw Error(fmt::format(N_("direction_scores: a direction of length {} for {}-dimensional vectors"), d.size(), e.dim()));
  const double dn = norm(d);
  std::vector<double> out(e.size());
  for (std::size_t i = 0; i < e.size(); ++i) out[i] = score_row(e, i, d, dn, cos);
  return out;
}

std::vector<std::pair<std::size_t, double>> extreme_rows(std::span<const double> scores, std::size_t k, bool highest) {
  // the lowest scores are the best of the negated ones (ties still to the smaller index)
  TopK<double> best(std::min(k, scores.size()));
  for (std::size_t i = 0; i < scores.size(); ++i) best.push(i, highest ? scores[i] : -scores[i]);
  std::vector<std::pair<std::size_t, double>> out;
  for (const auto& [i, s] : best.sorted()) out.emplace_back(i, scores[i]);
  return out;
}

Pca project_words(const Embeddings& e, std::span<const std::size_t> words, bool unit, std::size_t k) {
  if (words.size() < k) throw Error(fmt::format(N_("a projection needs at least {} words, got {}"), k, words.size()));
  if (e.dim() < k) throw Error(fmt::format(N_("a {}-D projection needs vectors of at least {} dimensions, {} has {}"), k, k, e.name(), e.dim()));
  return pca(e.rows(words, unit), k);
}

}  // namespace tfx
