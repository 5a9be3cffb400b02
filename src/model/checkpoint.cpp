// Hugging Face checkpoint folders (tfx/model/checkpoint.hpp): config.json, safetensors files
// (memory-mapped while they are converted), tensor names without prefixes, and the shape check
// of each family. The forward passes are in model_forward.cpp.
#include "tfx/attention/attention.hpp"
#include "tfx/model/checkpoint.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "tfx/core/error.hpp"
#include "tfx/io/json_fields.hpp"
#include "tfx/io/mapped_file.hpp"
#include "tfx/io/text_file.hpp"

namespace tfx {

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

[[noreturn]] void bad(const std::string& where, const std::string& what) { throw Error(fmt::format("{}: {}", where, what)); }

std::size_t whole_field(const json& j, const char* key, const std::string& where, std::optional<std::size_t> fallback = std::nullopt) {
  if (!j.contains(key) || j[key].is_null()) {
    if (fallback) return *fallback;
    bad(where, fmt::format("no \"{}\" (a whole number)", key));
  }
  if (!j[key].is_number_unsigned() || j[key].get<std::uint64_t>() == 0 || j[key].get<std::uint64_t>() > (1u << 24))
    bad(where, fmt::format("\"{}\" should be a whole number from 1 to 2^24, got {}", key, json_excerpt(j[key])));
  return j[key].get<std::size_t>();
}

double number_field(const json& j, const char* key, const std::string& where, double fallback) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  if (!j[key].is_number() || !(j[key].get<double>() > 0)) bad(where, fmt::format("\"{}\" should be a positive number, got {}", key, json_excerpt(j[key])));
  return j[key].get<double>();
}

// The config.json keys of a LayerNorm + GELU family (HF's BertConfig, GPT2Config) and their
// defaults; ffn_per_d_model: the FFN width's default as a multiple of d_model (0: none, required).
// `activation` defaults to the first of the two GELUs tfx runs.
struct GeluFamilyKeys {
  const char *d_model, *layers, *heads, *ffn;
  std::size_t ffn_per_d_model;
  const char* max_positions;
  std::size_t max_positions_default;
  const char* eps;
  double eps_default;
  const char* activation;
  const char* gelus[2];
};
constexpr GeluFamilyKeys kBertKeys = {"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", 0,
                                      "max_position_embeddings", 512, "layer_norm_eps", 1e-12, "hidden_act", {"gelu", "gelu_new"}};
constexpr GeluFamilyKeys kGpt2Keys = {"n_embd", "n_layer", "n_head", "n_inner", 4,
                                      "n_positions", 1024, "layer_norm_epsilon", 1e-5, "activation_function", {"gelu_new", "gelu"}};

void read_gelu_family(const json& j, const GeluFamilyKeys& k, const std::string& where, ModelConfig& c) {
  c.d_model = whole_field(j, k.d_model, where);
  c.layers = whole_field(j, k.layers, where);
  c.heads = whole_field(j, k.heads, where);
  c.ffn = whole_field(j, k.ffn, where, k.ffn_per_d_model ? std::optional<std::size_t>(k.ffn_per_d_model * c.d_model) : std::nullopt);
  c.vocab = whole_field(j, "vocab_size", where);
  c.max_positions = whole_field(j, k.max_positions, where, k.max_positions_default);
  c.eps = number_field(j, k.eps, where, k.eps_default);
  c.activation = json_string(j, k.activation, k.gelus[0], where);
  if (c.activation != k.gelus[0] && c.activation != k.gelus[1])
    bad(where, fmt::format("{} \"{}\" is not supported for {} ({}, {})", k.activation, c.activation, c.model_type, k.gelus[0], k.gelus[1]));
}

}  // namespace

ModelConfig parse_model_config(const std::string& text, const std::string& where) {
  json j;
  try {
    j = parse_json(text, where);
  } catch (const json::exception& e) {
    bad(where, fmt::format("not valid JSON ({})", e.what()));
  }
  if (!j.is_object()) bad(where, "should be a JSON object");
  if (!j.contains("model_type") || !j["model_type"].is_string()) bad(where, "no \"model_type\" (bert, gpt2, llama, qwen2 or mistral)");
  ModelConfig c;
  c.model_type = j["model_type"].get<std::string>();
  if (c.model_type == "bert") {
    read_gelu_family(j, kBertKeys, where, c);
  } else if (c.model_type == "gpt2") {
    read_gelu_family(j, kGpt2Keys, where, c);
  } else if (c.model_type == "llama" || c.model_type == "qwen2" || c.model_type == "mistral") {
    c.d_model = whole_field(j, "hidden_size", where);
    c.layers = whole_field(j, "num_hidden_layers", where);
    c.heads = whole_field(j, "num_attention_heads", where);
    c.kv_heads = whole_field(j, "num_key_value_heads", where, c.heads);
    c.ffn = whole_field(j, "intermediate_size", where);
    c.vocab = whole_field(j, "vocab_size", where);
    c.max_positions = whole_field(j, "max_position_embeddings", where, 2048);
    c.eps = number_field(j, "rms_norm_eps", where, 1e-6);
    c.activation = json_string(j, "hidden_act", "silu", where);
    if (c.activation != "silu") bad(where, fmt::format("hidden_act \"{}\" is not supported (silu)", c.activation));
    c.head_dim = whole_field(j, "head_dim", where, c.d_model / c.heads);
    c.tied_head = json_bool(j, "tie_word_embeddings", c.model_type == "qwen2", where);
    c.qkv_bias = c.model_type == "qwen2" || json_bool(j, "attention_bias", false, where);
    if (c.model_type == "mistral" && j.contains("sliding_window") && j["sliding_window"].is_number_unsigned())
      c.sliding_window = j["sliding_window"].get<std::size_t>();
    if (c.heads % c.kv_heads != 0)
      bad(where, fmt::format("num_key_value_heads {} does not divide num_attention_heads {}", c.kv_heads, c.heads));
    if (c.head_dim % 2) bad(where, fmt::format("head_dim {} is odd (RoPE rotates pairs)", c.head_dim));
    c.rope.dim = c.head_dim;
    c.rope.layout = RopeLayout::half;
    c.rope.base = number_field(j, "rope_theta", where, 10000.0);
    if (j.contains("rope_scaling") && j["rope_scaling"].is_object()) {
      const json& s = j["rope_scaling"];
      const std::string at = where + " rope_scaling";
      const std::string type = json_string(s, "rope_type", json_string(s, "type", "default", at), at);
      if (type == "default") {
      } else if (type == "linear" || type == "dynamic" || type == "yarn" || type == "llama3") {
        c.rope.scaling = parse_rope_scaling(type);
        c.rope.factor = number_field(s, "factor", at, 0.0);
        if (!(*c.rope.factor > 0)) bad(at, "no \"factor\"");
        c.rope.original_max_pos = whole_field(s, "original_max_position_embeddings", at, c.max_positions);
        if (type == "llama3") {
          c.rope.low_freq_factor = number_field(s, "low_freq_factor", at, 1.0);
          c.rope.high_freq_factor = number_field(s, "high_freq_factor", at, 4.0);
        }
        if (type == "yarn") {
          c.rope.beta_fast = number_field(s, "beta_fast", at, 32.0);
          c.rope.beta_slow = number_field(s, "beta_slow", at, 1.0);
        }
        if (type == "dynamic") c.rope.original_max_pos = c.max_positions;
      } else {
        bad(at, fmt::format("type \"{}\" is not supported (linear, dynamic, yarn, llama3)", type));
      }
    }
    validate_rope_config(c.rope);
  } else {
    bad(where, fmt::format("model_type \"{}\" is not supported (supported: bert, gpt2, llama, qwen2, mistral)", c.model_type));
  }
  if (c.model_type == "bert" || c.model_type == "gpt2") {
    c.kv_heads = c.heads;
    if (!heads_divide(c.heads, c.d_model)) bad(where, fmt::format("{} heads do not divide the width {}", c.heads, c.d_model));
    c.head_dim = c.d_model / c.heads;
  }
  return c;
}

namespace {

// A safetensors file mapped read-only while parse_safetensors converts it to float32 tensors.
struct Mapping {
  void* addr = MAP_FAILED;
  std::size_t size = 0;
  int watch = -1;
  Mapping(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) bad(path, "cannot open (the weights file)");
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      bad(path, "not a regular file");
    }
    size = static_cast<std::size_t>(st.st_size);
    if (size < 8) {
      ::close(fd);
      bad(path, fmt::format("{} bytes: too short for a safetensors file", size));
    }
    addr = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (addr == MAP_FAILED) bad(path, "cannot map the file");
    watch = watch_mapping(addr, size, path);
  }
  ~Mapping() {
    if (watch >= 0) unwatch_mapping(watch);
    if (addr != MAP_FAILED) ::munmap(addr, size);
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  std::string_view bytes() const { return {static_cast<const char*>(addr), size}; }
};

std::set<std::string> header_dtypes(std::string_view bytes) {
  std::set<std::string> out;
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  if (n > bytes.size() - 8) return out;
  try {
    const json h = json::parse(bytes.substr(8, n));
    for (const auto& [k, v] : h.items())
      if (k != "__metadata__" && v.is_object() && v.contains("dtype") && v["dtype"].is_string()) out.insert(v["dtype"].get<std::string>());
  } catch (const json::exception&) {
  }
  return out;
}

// HF's names without the base model's prefix, the legacy gamma/beta as weight/bias.
std::string normalized_name(std::string n) {
  for (const char* p : {"bert.", "transformer.", "model."})
    if (n.rfind(p, 0) == 0) {
      n = n.substr(std::string(p).size());
      break;
    }
  auto ends = [&](const std::string& s) { return n.size() >= s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0; };
  if (ends(".gamma")) n = n.substr(0, n.size() - 6) + ".weight";
  else if (ends(".beta")) n = n.substr(0, n.size() - 5) + ".bias";
  return n;
}

// Every tensor the family needs, with its shape.
std::vector<std::pair<std::string, std::vector<std::size_t>>> expected_tensors(const ModelConfig& c, bool bert_head) {
  std::vector<std::pair<std::string, std::vector<std::size_t>>> e;
  const std::size_t D = c.d_model, F = c.ffn, V = c.vocab;
  if (c.model_type == "bert") {
    e.push_back({"embeddings.word_embeddings.weight", {V, D}});
    e.push_back({"embeddings.position_embeddings.weight", {c.max_positions, D}});
    e.push_back({"embeddings.token_type_embeddings.weight", {0, D}});  // rows: type_vocab_size
    e.push_back({"embeddings.LayerNorm.weight", {D}});
    e.push_back({"embeddings.LayerNorm.bias", {D}});
    for (std::size_t i = 0; i < c.layers; ++i) {
      const std::string p = fmt::format("encoder.layer.{}.", i);
      for (const char* m : {"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"})
        e.push_back({p + m + ".weight", {D, D}}), e.push_back({p + m + ".bias", {D}});
      e.push_back({p + "attention.output.LayerNorm.weight", {D}});
      e.push_back({p + "attention.output.LayerNorm.bias", {D}});
      e.push_back({p + "intermediate.dense.weight", {F, D}});
      e.push_back({p + "intermediate.dense.bias", {F}});
      e.push_back({p + "output.dense.weight", {D, F}});
      e.push_back({p + "output.dense.bias", {D}});
      e.push_back({p + "output.LayerNorm.weight", {D}});
      e.push_back({p + "output.LayerNorm.bias", {D}});
    }
    if (bert_head) {
      e.push_back({"cls.predictions.transform.dense.weight", {D, D}});
      e.push_back({"cls.predictions.transform.dense.bias", {D}});
      e.push_back({"cls.predictions.transform.LayerNorm.weight", {D}});
      e.push_back({"cls.predictions.transform.LayerNorm.bias", {D}});
      e.push_back({"cls.predictions.bias", {V}});
    }
  } else if (c.model_type == "gpt2") {
    e.push_back({"wte.weight", {V, D}});
    e.push_back({"wpe.weight", {c.max_positions, D}});
    for (std::size_t i = 0; i < c.layers; ++i) {
      const std::string p = fmt::format("h.{}.", i);
      e.push_back({p + "ln_1.weight", {D}}), e.push_back({p + "ln_1.bias", {D}});
      e.push_back({p + "attn.c_attn.weight", {D, 3 * D}}), e.push_back({p + "attn.c_attn.bias", {3 * D}});
      e.push_back({p + "attn.c_proj.weight", {D, D}}), e.push_back({p + "attn.c_proj.bias", {D}});
      e.push_back({p + "ln_2.weight", {D}}), e.push_back({p + "ln_2.bias", {D}});
      e.push_back({p + "mlp.c_fc.weight", {D, F}}), e.push_back({p + "mlp.c_fc.bias", {F}});
      e.push_back({p + "mlp.c_proj.weight", {F, D}}), e.push_back({p + "mlp.c_proj.bias", {D}});
    }
    e.push_back({"ln_f.weight", {D}}), e.push_back({"ln_f.bias", {D}});
  } else {
    const std::size_t H = c.heads, KV = c.kv_heads, hd = c.head_dim;
    e.push_back({"embed_tokens.weight", {V, D}});
    for (std::size_t i = 0; i < c.layers; ++i) {
      const std::string p = fmt::format("layers.{}.", i);
      e.push_back({p + "input_layernorm.weight", {D}});
      e.push_back({p + "self_attn.q_proj.weight", {H * hd, D}});
      e.push_back({p + "self_attn.k_proj.weight", {KV * hd, D}});
      e.push_back({p + "self_attn.v_proj.weight", {KV * hd, D}});
      if (c.qkv_bias) {
        e.push_back({p + "self_attn.q_proj.bias", {H * hd}});
        e.push_back({p + "self_attn.k_proj.bias", {KV * hd}});
        e.push_back({p + "self_attn.v_proj.bias", {KV * hd}});
      }
      e.push_back({p + "self_attn.o_proj.weight", {D, H * hd}});
      e.push_back({p + "post_attention_layernorm.weight", {D}});
      e.push_back({p + "mlp.gate_proj.weight", {F, D}});
      e.push_back({p + "mlp.up_proj.weight", {F, D}});
      e.push_back({p + "mlp.down_proj.weight", {D, F}});
    }
    e.push_back({"norm.weight", {D}});
    if (!c.tied_head) e.push_back({"lm_head.weight", {V, D}});
  }
  return e;
}

}  // namespace

Checkpoint load_checkpoint(const std::string& dir) {
  const fs::path d(dir);
  std::error_code ec;
  if (!fs::is_directory(d, ec))
    throw Error(fmt::format("{}: not a directory (expected a Hugging Face checkpoint folder: config.json, model.safetensors, "
                            "tokenizer files)", dir));
  Checkpoint m;
  m.dir = dir;
  const fs::path config = d / "config.json";
  if (!fs::exists(config, ec)) throw Error(fmt::format("{}: no config.json (the checkpoint's configuration)", dir));
  m.config = parse_model_config(read_text_input(config.string(), "config.json"), config.string());
  // 1. the weight files: one model.safetensors, or the shards of the index
  std::vector<std::string> files;
  const fs::path single = d / "model.safetensors", index = d / "model.safetensors.index.json";
  if (fs::exists(single, ec)) {
    files.push_back(single.string());
  } else if (fs::exists(index, ec)) {
    json j;
    try {
      j = parse_json(read_text_input(index.string(), "model.safetensors.index.json"), index.string());
    } catch (const json::exception& e) {
      bad(index.string(), fmt::format("not valid JSON ({})", e.what()));
    }
    if (!j.contains("weight_map") || !j["weight_map"].is_object()) bad(index.string(), "no \"weight_map\" {tensor: file}");
    std::set<std::string> shards;
    for (const auto& [name, file] : j["weight_map"].items()) {
      if (!file.is_string()) bad(index.string(), fmt::format("the file of '{}' should be a string", name));
      const std::string f = file.get<std::string>();
      if (f.find('/') != std::string::npos || f == ".." || f.empty()) bad(index.string(), fmt::format("shard '{}' should be a file name in the folder", f));
      shards.insert(f);
    }
    for (const std::string& f : shards) {
      if (!fs::exists(d / f, ec)) bad(index.string(), fmt::format("names the shard {}, which the folder does not have", f));
      files.push_back((d / f).string());
    }
  } else {
    throw Error(fmt::format("{}: no model.safetensors or model.safetensors.index.json (tfx reads safetensors weights; convert a "
                            "pytorch_model.bin with safetensors' convert script)", dir));
  }
  // 2. every tensor, as float32 under its normalized name
  std::set<std::string> dtypes;
  for (const std::string& f : files) {
    const Mapping map(f);
    m.file_bytes += map.size;
    for (const auto& t : header_dtypes(map.bytes())) dtypes.insert(t);
    // drop each converted range of the mapping at once: the peak stays near the float32 weights
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    char* base = static_cast<char*>(map.addr);
    TensorMap part = parse_safetensors(map.bytes(), f, nullptr, [&](std::size_t offset, std::size_t length) {
      const std::size_t from = (offset + page - 1) / page * page, to = (offset + length) / page * page;
      if (to > from) ::madvise(base + from, to - from, MADV_DONTNEED);
    });
    for (auto& [name, t] : part) m.tensors[normalized_name(name)] = std::move(t);
  }
  m.files = files;
  m.dtype = dtypes.size() == 1 ? *dtypes.begin() : dtypes.empty() ? "?" : "mixed";
  // 3. the family's tensors, each with its shape
  const ModelConfig& c = m.config;
  const bool bert_head = c.model_type == "bert" && m.tensors.count("cls.predictions.transform.dense.weight");
  for (const auto& [name, shape] : expected_tensors(c, bert_head)) {
    const auto it = m.tensors.find(name);
    if (it == m.tensors.end()) bad(dir, fmt::format("the weights have no tensor '{}' (a {} checkpoint needs it)", name, c.model_type));
    std::vector<std::size_t> want = shape;
    if (want.size() == 2 && want[0] == 0 && it->second.rank() == 2) want[0] = it->second.dim(0);  // token types
    if (it->second.shape() != want)
      bad(dir, fmt::format("tensor '{}' is {}, expected {} (from config.json)", name, it->second.shape_str(), shape_string(want)));
  }
  m.has_lm_head = c.model_type != "bert" || bert_head;
  return m;
}

std::size_t Checkpoint::parameter_count() const {
  const bool bert_head = config.model_type == "bert" && has_lm_head;
  std::size_t n = 0;
  for (const auto& [name, shape] : expected_tensors(config, bert_head)) n += tensors.at(name).size();
  return n;
}

std::size_t block_parameter_count(const Checkpoint& m) {
  const std::string p = m.config.model_type == "bert" ? "encoder.layer.0." : m.config.model_type == "gpt2" ? "h.0." : "layers.0.";
  std::size_t n = 0;
  for (const auto& [name, t] : m.tensors)
    if (name.rfind(p, 0) == 0 && name.find(".attn.bias") == std::string::npos && name.find(".attn.masked_bias") == std::string::npos)
      n += t.size();
  return n;
}

}  // namespace tfx
