// What `tfx model quantize` measures and writes around quantize.hpp: the types as --type spells
// them, -o FILE.gguf written through a temporary, and --measure's lesson — each type's cost (bits per
// weight, relative error per tensor and its histogram, the next-token KL divergence, top-1
// agreement and perplexity of a quantized copy opened as every model command opens it).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tfx/model/checkpoint.hpp"
#include "tfx/model/quantize.hpp"

namespace tfx {

// "f32|f16|…|q4_0|q4_k_m|q5_k_m": the names --type takes.
std::string quantize_type_names();
// A type by name (any case), or (where `mixes`) one of llama-quantize's mixes q4_k_m / q5_k_m;
// else a usage error naming `flag`.
QuantRecipe parse_quantize_recipe(const std::string& name, const std::string& flag, bool mixes);
StoredType parse_quantize_type(const std::string& name, const std::string& flag);
// a recipe's name as the tables print it (Q4_K_M, Q8_0), and as --type spells it (q4_k_m)
std::string recipe_name(const QuantRecipe& r);
std::string lower_recipe_name(const QuantRecipe& r);
// the tensors a recipe quantizes: its type (not kept F32, nor --fallback's); a mix: every one not F32
bool recipe_applies(const QuantRecipe& r, StoredType t);
// quantized bits per weight of the tensors the recipe applies to (32 when none)
double bits_per_weight(const std::vector<TensorError>& errors, const QuantRecipe& r);
// a histogram of xs over [lo, hi) in `bins` bins (outside values in the end bins, non-finite
// ones left out): (bin centres, counts)
std::pair<std::vector<double>, std::vector<double>> histogram(const std::vector<double>& xs, double lo, double hi, std::size_t bins);

// -o FILE.gguf written tensor by tensor into a temporary beside it, renamed onto it at the end
// (keeping an existing file's permissions); `bytes` adds the file's size.
std::vector<TensorError> write_quantized_file(const QuantSource& src, const QuantRecipe& type, std::optional<StoredType> fallback,
                                              const std::string& path, std::size_t& bytes);

// The cost of a quantized model on `ids`: it is written to a temporary GGUF, opened as every model
// command opens it, and its next-token logits compared with `reference` (the source's).
NextTokenCost quantized_cost(const QuantizedModel& q, const Tensor& reference, const std::vector<std::size_t>& ids);

// A type's relative errors over the tensors it quantizes: mean, max and the worst tensor's name.
struct RecipeErrors {
  double mean = 0, max = 0;
  std::string worst;
};
RecipeErrors recipe_errors(const QuantRecipe& r, const std::vector<TensorError>& errors);
// The histogram of log10(relative error) over the tensors a type quantizes: kErrorBins bins over
// [kErrorLo, kErrorHi).
inline constexpr double kErrorLo = -8, kErrorHi = 0;
inline constexpr std::size_t kErrorBins = 16;
std::pair<std::vector<double>, std::vector<double>> error_histogram(const QuantRecipe& r, const std::vector<TensorError>& errors);
// Share of `values` in each of `bins` bins over [lo, hi] (for the weights before and after): (bin
// centres, shares).
std::pair<std::vector<double>, std::vector<double>> weight_shares(const std::vector<double>& values, double lo, double hi,
                                                                  std::size_t bins);

}  // namespace tfx
