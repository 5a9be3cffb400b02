// The lecture's small probes of an embedding table: comparing two word vectors (cosine, dot,
// distance), the embedding lookup of nn.Embedding (ids -> rows), a semantic direction as the
// mean difference of word pairs (the "plural direction") and its dot product with words, and
// the 2-D PCA view of a handful of words.
//
// Letters: N = vocabulary size, D = dimension, P = word pairs, B × T = a batch of id lists.
#pragma once
#include "tfx/core/i18n.hpp"
#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tfx/embeddings/embeddings.hpp"
#include "tfx/core/stats.hpp"
#include "tfx/core/tensor.hpp"

namespace tfx {

// cos θ = a·b / (‖a‖‖b‖), a·b, ‖a − b‖, ‖a‖, ‖b‖ and θ in degrees, all in double.
struct VectorComparison {
  double cosine = 0, dot = 0, euclidean = 0, norm_a = 0, norm_b = 0, angle_degrees = 0;
};
// a, b: (D). cosine (and angle) are 0 (90°) when either vector is zero, as ops.hpp's cosine.
VectorComparison compare_vectors(std::span<const float> a, std::span<const float> b);

// nn.Embedding's forward pass: out[i] = E[ids[i]]. ids: a batch of `lists` id lists of equal
// length T, flattened row-major -> (lists, T, D), or (T, D) when lists == 1 and !keep_batch.
// Throws tfx::Error naming the valid range 0..N−1 for an id out of range.
Tensor embedding_lookup(const Embeddings& e, std::span<const std::size_t> ids, std::size_t lists, bool keep_batch);

// d = (1/P) Σᵢ (E(toᵢ) − E(fromᵢ)), summed in double. from, to: (P) rows -> d: (D).
std::vector<float> mean_difference(const Embeddings& e, std::span<const std::size_t> from,
                                   std::span<const std::size_t> to);

// d·E(w) (or cos(d, E(w)) with `cosine`, 0 for a zero vector) of row w, in double; any row
// e.has_row() accepts, including words built from fastText subwords.
double direction_score(const Embeddings& e, std::size_t w, std::span<const float> d, bool cosine = false);

// d·E(w) for every row w (or cos(d, E(w)) with `cosine`): -> (N) in double.
std::vector<double> direction_scores(const Embeddings& e, std::span<const float> d, bool cosine = false);

// Rows with the `k` highest (highest = true) or lowest scores, best first, ties to the lower row.
std::vector<std::pair<std::size_t, double>> extreme_rows(std::span<const double> scores, std::size_t k, bool highest);

// How `tfx project` projects (one method today; the table is where a second one goes).
enum class ProjectionMethod { pca };
inline constexpr Choice<ProjectionMethod> kProjectionMethodChoices[] = {
    {ProjectionMethod::pca, "pca", N_("principal components of the centred rows")},
};

// The 2-D (or k-D) view: rows `words` of e (unit-normalised first with `unit`) -> pca(x, k) of
// stats.hpp: coords (W, k), components (k, D), explained variance. Needs ≥ k words and D ≥ k.
Pca project_words(const Embeddings& e, std::span<const std::size_t> words, bool unit, std::size_t k = 2);

}  // namespace tfx
