// The family table (tfx/model/family.hpp) and config.json's reading up to the family's own keys:
// the only place a model_type string is compared.
#include <fmt/format.h>

#include <array>
#include <cctype>
#include <cstring>
#include <nlohmann/json.hpp>

#include "model/family_files.hpp"
#include "tfx/attention/attention.hpp"
#include "tfx/io/json_fields.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {

// the table, in the order messages list the supported types
const std::array<const Family*, 11> kFamilies = {&family_files::kBert,   &family_files::kGpt2,   &family_files::kLlama,
                                                 &family_files::kQwen2,  &family_files::kQwen3,  &family_files::kMistral,
                                                 &family_files::kGemma,  &family_files::kGemma2, &family_files::kGemma3,
                                                 &family_files::kGemma3Multimodal, &family_files::kVit};

}  // namespace

const Family* find_family(std::string_view model_type) {
  for (const Family* f : kFamilies)
    if (model_type == f->model_type) return f;
  return nullptr;
}

std::string model_types_where(bool (*serves)(const Family&)) {
  std::vector<std::string> names;
  for (const Family* f : kFamilies)
    if (serves(*f)) names.push_back(f->model_type);
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string supported_model_types(bool images) {
  std::vector<std::string> names;
  for (const Family* f : kFamilies)
    if (images || !f->image()) names.push_back(f->model_type);
  return fmt::format("{}", fmt::join(names, ", "));
}

namespace family_files {

void read_rope_keys(const nlohmann::json& j, const std::string& where, RopeConfig& rope, std::size_t max_positions) {
  rope.base = number_field(j, "rope_theta", where, rope.base);
  if (j.contains("rope_scaling") && !j["rope_scaling"].is_object() && !j["rope_scaling"].is_null())
    bad(where, fmt::format(N_("\"rope_scaling\" is {}; expected an object such as {{\"rope_type\": \"linear\", \"factor\": 2}} or null"),
                           j["rope_scaling"].dump()));
  if (j.contains("rope_scaling") && j["rope_scaling"].is_object()) {
    const nlohmann::json& s = j["rope_scaling"];
    const std::string at = where + " rope_scaling";
    const std::string type = json_string(s, "rope_type", json_string(s, "type", "default", at), at);
    if (type == "default") {
    } else if (type == "linear" || type == "dynamic" || type == "yarn" || type == "llama3") {
      rope.scaling = parse_rope_scaling(type);
      rope.factor = number_field(s, "factor", at, 0.0);
      if (!(*rope.factor > 0)) bad(at, N_("no \"factor\""));
      rope.original_max_pos = whole_field(s, "original_max_position_embeddings", at, max_positions);
      if (rope.scaling == RopeScaling::llama3) {
        rope.low_freq_factor = number_field(s, "low_freq_factor", at, 1.0);
        rope.high_freq_factor = number_field(s, "high_freq_factor", at, 4.0);
      }
      if (rope.scaling == RopeScaling::yarn) {
        rope.beta_fast = number_field(s, "beta_fast", at, 32.0);
        rope.beta_slow = number_field(s, "beta_slow", at, 1.0);
      }
      if (rope.scaling == RopeScaling::dynamic) rope.original_max_pos = max_positions;
    } else {
      bad(at, fmt::format(N_("type \"{}\" is not supported (linear, dynamic, yarn, llama3)"), type));
    }
  }
  // validate_rope_config names RoPE's parameters (base, factor, …) and calls them usage errors,
  // which the command line would show as flags (--base) with exit 2: here they are the file's keys
  try {
    validate_rope_config(rope);
  } catch (const Error& e) {
    static const std::pair<const char*, const char*> kKeys[] = {
        {"base", "rope_theta"},
        {"dim", "head_dim"},
        {"factor", "rope_scaling.factor"},
        {"scaling", "rope_scaling.rope_type"},
        {"original_max_pos", "rope_scaling.original_max_position_embeddings"},
        {"beta_fast", "rope_scaling.beta_fast"},
        {"beta_slow", "rope_scaling.beta_slow"},
        {"low_freq_factor", "rope_scaling.low_freq_factor"},
        {"high_freq_factor", "rope_scaling.high_freq_factor"}};
    const auto word = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
    std::string msg = e.what(), out;
    for (std::size_t i = 0; i < msg.size();) {
      bool replaced = false;
      if (i == 0 || !word(msg[i - 1]))
        for (const auto& [param, key] : kKeys) {
          const std::size_t n = std::strlen(param);
          if (msg.compare(i, n, param) == 0 && (i + n == msg.size() || !word(msg[i + n]))) {
            out += key;
            i += n;
            replaced = true;
            break;
          }
        }
      if (!replaced) out += msg[i++];
    }
    bad(where, out);
  }
}

std::size_t whole_field(const nlohmann::json& j, const char* key, const std::string& where, std::optional<std::size_t> fallback) {
  if (!j.contains(key) || j[key].is_null()) {
    if (fallback) return *fallback;
    bad(where, fmt::format(N_("no \"{}\" (a whole number)"), key));
  }
  if (!j[key].is_number_unsigned() || j[key].get<std::uint64_t>() == 0 || j[key].get<std::uint64_t>() > (1u << 24))
    bad(where, fmt::format(N_("\"{}\" should be a whole number from 1 to 2^24, got {}"), key, json_excerpt(j[key])));
  return j[key].get<std::size_t>();
}

double number_field(const nlohmann::json& j, const char* key, const std::string& where, double fallback) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  if (!j[key].is_number() || !(j[key].get<double>() > 0)) bad(where, fmt::format(N_("\"{}\" should be a positive number, got {}"), key, json_excerpt(j[key])));
  return j[key].get<double>();
}

void read_gelu_family(const nlohmann::json& j, const GeluFamilyKeys& k, const std::string& where, ModelConfig& c) {
  c.d_model = whole_field(j, k.d_model, where);
  c.layers = whole_field(j, k.layers, where);
  c.heads = whole_field(j, k.heads, where);
  c.ffn = whole_field(j, k.ffn, where, k.ffn_per_d_model ? std::optional<std::size_t>(k.ffn_per_d_model * c.d_model) : std::nullopt);
  c.vocab = whole_field(j, "vocab_size", where);
  c.max_positions = whole_field(j, k.max_positions, where, k.max_positions_default);
  c.eps = number_field(j, k.eps, where, k.eps_default);
  c.activation = json_string(j, k.activation, k.gelus[0], where);
  if (c.activation != k.gelus[0] && c.activation != k.gelus[1])
    bad(where, fmt::format(N_("{} \"{}\" is not supported for {} ({}, {})"), k.activation, c.activation, c.model_type, k.gelus[0], k.gelus[1]));
  c.kv_heads = c.heads;
  if (!heads_divide(c.heads, c.d_model)) bad(where, fmt::format(N_("{} heads do not divide the width {}"), c.heads, c.d_model));
  c.head_dim = c.d_model / c.heads;
}

GeluForm gelu_form(const ModelConfig& c) {
  return c.activation == "gelu_new" || c.activation == "gelu_pytorch_tanh" ? GeluForm::tanh : GeluForm::erf;
}

}  // namespace family_files

ModelConfig parse_model_config(const std::string& text, const std::string& where) {
  nlohmann::json j;
  try {
    j = parse_json(text, where);
  } catch (const nlohmann::json::exception& e) {
    family_files::bad(where, fmt::format(N_("not valid JSON ({})"), e.what()));
  }
  if (!j.is_object()) family_files::bad(where, N_("should be a JSON object"));
  if (!j.contains("model_type") || !j["model_type"].is_string())
  {
    std::string list = supported_model_types();
    const std::size_t last = list.rfind(", ");
    if (last != std::string::npos) list.replace(last, 2, " or ");
    family_files::bad(where, fmt::format(N_("no \"model_type\" ({})"), list));
  }
  ModelConfig c;
  c.model_type = j["model_type"].get<std::string>();
  c.family = find_family(c.model_type);
  if (!c.family)
    family_files::bad(where, fmt::format(N_("model_type \"{}\" is not supported (supported: {})"), c.model_type, supported_model_types()));
  c.family->read_config(j, where, c);
  // tfx's own test and bench checkpoints say they hold random weights (not a Hugging Face key)
  if (j.contains("tfx_random_weights")) {
    if (!j["tfx_random_weights"].is_boolean())
      family_files::bad(where, N_("\"tfx_random_weights\" should be true or false"));
    c.random_weights = j["tfx_random_weights"].get<bool>();
  }
  return c;
}

}  // namespace tfx
