// --heads with --weights: the flag, else the file's __metadata__ nhead, else a usage error.
#include "cli/flags/model_size_flags.hpp"
#include "cli/flags/weights_heads.hpp"

#include <fmt/format.h>

#include "tfx/attention/attention.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"
#include "cli/flags/validators.hpp"

namespace tfx::cli {

namespace {

// "1, 2, 4, 8 or 16": the head counts that divide d_model.
std::string divisors(std::size_t d) {
  std::string s;
  std::size_t n = 0, count = 0;
  for (std::size_t h = 1; h <= d; ++h) count += d % h == 0;
  for (std::size_t h = 1; h <= d; ++h) {
    if (d % h) continue;
    ++n;
    s += n == 1 ? "" : n == count ? " or " : ", ";
    s += std::to_string(h);
    if (n == 8 && count > 9) return s + ", … (a divisor of " + std::to_string(d) + ")";
  }
  return s;
}

}  // namespace

WeightsHeads weights_heads(std::optional<std::size_t> flag, const TensorMetadata& metadata, const std::string& weights,
                           std::size_t d_model) {
  const std::optional<std::size_t> saved = metadata_heads(metadata, "--weights " + weights);
  if (flag && saved && *flag != *saved)
    throw usage_error(fmt::format(N_("--heads {}: --weights {} was saved with nhead = {} (its __metadata__); leave --heads out or give "
                                  "--heads {}"),
                                  *flag, weights, *saved, *saved));
  if (flag) return {*flag, "--heads"};
  if (saved) {
    if (!heads_divide(*saved, d_model))
      throw Error(fmt::format(N_("--weights {}: __metadata__ nhead = {} does not divide d_model = {} (from in_proj_weight)"), weights,
                              *saved, d_model));
    return {*saved, tr("nhead in the file's __metadata__")};
  }
  throw usage_error(fmt::format(N_("--weights {}: give --heads, the module's nhead ({} for d_model = {}); PyTorch's tensors do not "
                                "record it (in_proj_weight is [3·d_model, d_model] for any number of heads) and the file has "
                                "no __metadata__ nhead"),
                                weights, divisors(d_model), d_model));
}

CLI::Option* add_heads_flag(CLI::App* cmd, std::int64_t& heads, const std::string& group) {
  return add_heads_size_flag(cmd, heads,
                             tr("Q, K and V split into H column blocks, H dividing d_model, then Concat·W_O; with --weights: "
                                "the nhead that --save-weights writes in the file's __metadata__, else give it: PyTorch's tensors "
                                "do not record it"))
      ->group(group);
}

}  // namespace tfx::cli
