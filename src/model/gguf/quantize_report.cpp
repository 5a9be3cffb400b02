#include "tfx/model/quantize_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/io/emit_together.hpp"
#include "tfx/io/temp_file.hpp"

namespace tfx {

namespace {

struct QuantizeType {
  StoredType type;
  const char* name;
};
// the types tfx quantizes to, as --type spells them
constexpr QuantizeType kQuantizeTypes[] = {{StoredType::f32, "f32"},   {StoredType::f16, "f16"},   {StoredType::bf16, "bf16"},
                                           {StoredType::q8_0, "q8_0"}, {StoredType::q6_k, "q6_k"}, {StoredType::q5_1, "q5_1"},
                                           {StoredType::q5_k, "q5_k"}, {StoredType::q5_0, "q5_0"}, {StoredType::q4_1, "q4_1"},
                                           {StoredType::q4_k, "q4_k"}, {StoredType::q4_0, "q4_0"}};

}  // namespace

std::string quantize_type_names() {
  std::string s;
  for (const QuantizeType& t : kQuantizeTypes) s += (s.empty() ? "" : "|") + std::string(t.name);
  return s + "|q4_k_m|q5_k_m";
}

// a type, or (where `mixes`) one of llama-quantize's mixes
QuantRecipe parse_quantize_recipe(const std::string& name, const std::string& flag, bool mixes) {
  std::string lower = name;
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (const QuantizeType& t : kQuantizeTypes)
    if (lower == t.name) return t.type;
  if (mixes && lower == "q4_k_m") return {StoredType::q4_k, QuantMix::q4_k_m};
  if (mixes && lower == "q5_k_m") return {StoredType::q5_k, QuantMix::q5_k_m};
  if (lower == "q4_k_s" || lower == "q5_k_s" || lower.ends_with("_k_l") || (!mixes && lower.ends_with("_k_m")))
    throw usage_error(fmt::format(N_("{} {}: tfx writes the mixes q4_k_m and q5_k_m (as --type) and single types; expected one of {}"), flag,
                                  name, quantize_type_names()));
  throw usage_error(fmt::format(N_("{} {}: unknown type; expected one of {}"), flag, name, quantize_type_names()));
}
StoredType parse_quantize_type(const std::string& name, const std::string& flag) { return parse_quantize_recipe(name, flag, false).type; }

std::string recipe_name(const QuantRecipe& r) {
  return r.mix == QuantMix::q4_k_m ? "Q4_K_M" : r.mix == QuantMix::q5_k_m ? "Q5_K_M" : stored_type_name(r.type);
}
std::string lower_recipe_name(const QuantRecipe& r) {
  std::string s = recipe_name(r);
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}
bool recipe_applies(const QuantRecipe& r, StoredType t) { return r.mix == QuantMix::none ? t == r.type : t != StoredType::f32; }

double bits_per_weight(const std::vector<TensorError>& errors, const QuantRecipe& r) {
  double bits = 0, n = 0;
  for (const TensorError& e : errors)
    if (recipe_applies(r, e.type)) bits += 8.0 * static_cast<double>(stored_row_bytes(e.type, e.values)), n += static_cast<double>(e.values);
  return n > 0 ? bits / n : 32.0;
}

std::pair<std::vector<double>, std::vector<double>> histogram(const std::vector<double>& xs, double lo, double hi, std::size_t bins) {
  std::vector<double> centres(bins), counts(bins, 0.0);
  const double w = (hi - lo) / static_cast<double>(bins);
  for (std::size_t b = 0; b < bins; ++b) centres[b] = lo + w * (static_cast<double>(b) + 0.5);
  for (double x : xs) {
    if (!std::isfinite(x)) continue;
    auto b = static_cast<long long>(std::floor((x - lo) / w));
    b = std::clamp<long long>(b, 0, static_cast<long long>(bins) - 1);
    counts[static_cast<std::size_t>(b)] += 1;
  }
  return {centres, counts};
}

std::vector<TensorError> write_quantized_file(const QuantSource& src, const QuantRecipe& type, std::optional<StoredType> fallback,
                                              const std::string& path, std::size_t& bytes) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
  std::error_code ec;
  mode_t mode = default_file_mode();
  if (fs::exists(target, ec)) mode = static_cast<mode_t>(fs::status(target, ec).permissions() & fs::perms::mask);
  auto tmp = std::make_unique<TempFile>(dir, ".tfx-quantize-", ".gguf", "-o " + path);
  std::vector<TensorError> errors = write_quantized_gguf(src, type, fallback, [&](std::string_view b) {
    bytes += b.size();
    if (!b.empty() && !tmp->write_all(b.data(), b.size()))
      throw Error(fmt::format(N_("{}: cannot write: {}"), "-o " + path, std::strerror(errno)));
  });
  commit_file(std::move(tmp), path, mode, "-o " + path);  // now, or with the command's other outputs
  return errors;
}

NextTokenCost quantized_cost(const QuantizedModel& q, const Tensor& reference, const std::vector<std::size_t>& ids) {
  const std::string tmp_dir = std::filesystem::temp_directory_path().string();
  const std::string bytes = encode_gguf(q.metadata, q.tensors);
  TempFile tmp(tmp_dir, "tfx-quantize-", ".gguf", "the quantized model for --measure");
  if (!tmp.write_all(bytes.data(), bytes.size()) || !tmp.close_fd())
    throw Error(fmt::format(N_("{}: could not write the quantized model for --measure: {}"), tmp.path(), std::strerror(errno)));
  const Checkpoint m = load_checkpoint(tmp.path());
  return next_token_cost(reference, model_forward(m, ids, {.keep_attentions = false, .keep_hidden = false}).logits, ids);
}

RecipeErrors recipe_errors(const QuantRecipe& r, const std::vector<TensorError>& errors) {
  double sum = 0, mx = 0;
  std::size_t n = 0;
  std::string worst;
  for (const TensorError& e : errors) {
    if (!recipe_applies(r, e.type)) continue;  // kept F32, or --fallback's type
    sum += e.relative_error, ++n;
    if (e.relative_error >= mx) mx = e.relative_error, worst = e.name;
  }
  return {n ? sum / static_cast<double>(n) : 0.0, mx, worst};
}

std::pair<std::vector<double>, std::vector<double>> error_histogram(const QuantRecipe& r, const std::vector<TensorError>& errors) {
  std::vector<double> logs;
  for (const TensorError& e : errors)
    if (recipe_applies(r, e.type) && e.relative_error > 0) logs.push_back(std::log10(e.relative_error));
  return histogram(logs, kErrorLo, kErrorHi, kErrorBins);
}

std::pair<std::vector<double>, std::vector<double>> weight_shares(const std::vector<double>& xs, double lo, double hi, std::size_t bins) {
  auto h = histogram(xs, lo, hi + (hi - lo) * 1e-9, bins);
  for (double& c : h.second) c /= static_cast<double>(std::max<std::size_t>(1, xs.size()));
  return h;
}

}  // namespace tfx
