// GGUF files as checkpoints (gguf_model.hpp): llama.cpp's metadata keys as config.json's, its
// tensor names as the families', and the layouts its converter changed put back.
#include "tfx/model/gguf_model.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <span>
#include <nlohmann/json.hpp>

#include "tfx/core/error.hpp"

namespace tfx {

namespace {

using json = nlohmann::json;

[[noreturn]] void gguf_bad(const std::string& where, const std::string& what) { throw Error(fmt::format("{}: {}", where, what)); }

// llama.cpp's per-block tensor names → the family's (Hugging Face's names without the prefix)
struct NameMap {
  const char* gguf;
  const char* hf;
  bool transposed = false;  // stored (out, in), the family reads (in, out)
};

constexpr NameMap kLlamaNames[] = {
    {"attn_norm.weight", "input_layernorm.weight"},   {"attn_q.weight", "self_attn.q_proj.weight"},
    {"attn_k.weight", "self_attn.k_proj.weight"},     {"attn_v.weight", "self_attn.v_proj.weight"},
    {"attn_q.bias", "self_attn.q_proj.bias"},         {"attn_k.bias", "self_attn.k_proj.bias"},
    {"attn_v.bias", "self_attn.v_proj.bias"},         {"attn_output.weight", "self_attn.o_proj.weight"},
    {"ffn_norm.weight", "post_attention_layernorm.weight"}, {"ffn_gate.weight", "mlp.gate_proj.weight"},
    {"ffn_up.weight", "mlp.up_proj.weight"},          {"ffn_down.weight", "mlp.down_proj.weight"},
    {"attn_q_norm.weight", "self_attn.q_norm.weight"}, {"attn_k_norm.weight", "self_attn.k_norm.weight"}};  // (qwen3)
constexpr NameMap kLlamaGlobal[] = {{"token_embd.weight", "embed_tokens.weight"}, {"output_norm.weight", "norm.weight"},
                                    {"output.weight", "lm_head.weight"}};

constexpr NameMap kGpt2Names[] = {
    {"attn_norm.weight", "ln_1.weight"},      {"attn_norm.bias", "ln_1.bias"},
    {"attn_qkv.weight", "attn.c_attn.weight", true}, {"attn_qkv.bias", "attn.c_attn.bias"},
    {"attn_output.weight", "attn.c_proj.weight", true}, {"attn_output.bias", "attn.c_proj.bias"},
    {"ffn_norm.weight", "ln_2.weight"},       {"ffn_norm.bias", "ln_2.bias"},
    {"ffn_up.weight", "mlp.c_fc.weight", true}, {"ffn_up.bias", "mlp.c_fc.bias"},
    {"ffn_down.weight", "mlp.c_proj.weight", true}, {"ffn_down.bias", "mlp.c_proj.bias"}};
constexpr NameMap kGpt2Global[] = {{"token_embd.weight", "wte.weight"}, {"position_embd.weight", "wpe.weight"},
                                   {"output_norm.weight", "ln_f.weight"}, {"output_norm.bias", "ln_f.bias"},
                                   {"output.weight", "lm_head.weight"}};

// Gemma (gemma): Llama's names without biases; Gemma 2 and 3 add a norm after each sublayer (and
// gemma3 q/k norms), and their ffn_norm is the norm before the MLP (pre_feedforward_layernorm)
constexpr NameMap kGemmaNames[] = {
    {"attn_norm.weight", "input_layernorm.weight"},   {"attn_q.weight", "self_attn.q_proj.weight"},
    {"attn_k.weight", "self_attn.k_proj.weight"},     {"attn_v.weight", "self_attn.v_proj.weight"},
    {"attn_output.weight", "self_attn.o_proj.weight"}, {"ffn_norm.weight", "post_attention_layernorm.weight"},
    {"ffn_gate.weight", "mlp.gate_proj.weight"},      {"ffn_up.weight", "mlp.up_proj.weight"},
    {"ffn_down.weight", "mlp.down_proj.weight"}};
constexpr NameMap kGemma2Names[] = {
    {"attn_norm.weight", "input_layernorm.weight"},   {"attn_q.weight", "self_attn.q_proj.weight"},
    {"attn_k.weight", "self_attn.k_proj.weight"},     {"attn_v.weight", "self_attn.v_proj.weight"},
    {"attn_q_norm.weight", "self_attn.q_norm.weight"}, {"attn_k_norm.weight", "self_attn.k_norm.weight"},
    {"attn_output.weight", "self_attn.o_proj.weight"}, {"post_attention_norm.weight", "post_attention_layernorm.weight"},
    {"ffn_norm.weight", "pre_feedforward_layernorm.weight"}, {"post_ffw_norm.weight", "post_feedforward_layernorm.weight"},
    {"ffn_gate.weight", "mlp.gate_proj.weight"},      {"ffn_up.weight", "mlp.up_proj.weight"},
    {"ffn_down.weight", "mlp.down_proj.weight"}};
constexpr NameMap kGemmaGlobal[] = {{"token_embd.weight", "embed_tokens.weight"}, {"output_norm.weight", "norm.weight"}};

struct Arch {
  const char* name;
  const char* model_type;
  const char* layer_prefix;  // the family's "layers.{}." / "h.{}."
  std::span<const NameMap> block, global;
  bool permuted_qk;          // convert_hf_to_gguf.py's LlamaModel.permute
};

const Arch kArchs[] = {{"llama", "llama", "layers.{}.", kLlamaNames, kLlamaGlobal, true},
                       {"qwen2", "qwen2", "layers.{}.", kLlamaNames, kLlamaGlobal, false},
                       {"qwen3", "qwen3", "layers.{}.", kLlamaNames, kLlamaGlobal, false},
                       {"gpt2", "gpt2", "h.{}.", kGpt2Names, kGpt2Global, false},
                       {"gemma", "gemma", "layers.{}.", kGemmaNames, kGemmaGlobal, false},
                       {"gemma2", "gemma2", "layers.{}.", kGemma2Names, kGemmaGlobal, false},
                       {"gemma3", "gemma3_text", "layers.{}.", kGemma2Names, kGemmaGlobal, false}};

// llama.cpp's converter keeps Llama 3's RoPE scaling only as rope_freqs.weight: a factor per
// frequency (1 for high frequencies, `factor` for low ones, a smooth step between, from
// low_freq_factor 1, high_freq_factor 4 and the original context length). The scaling is found
// again by solving the original length from a factor inside the step (or trying the usual ones)
// and checked by recomputing every factor; a table that fits none is an error.
json llama3_scaling(const GgufTensor& t, double base, std::size_t head_dim, const std::string& where) {
  if (t.type != StoredType::f32 || t.ne.size() != 1 || t.ne[0] * 2 != head_dim)
    gguf_bad(where, fmt::format("tensor rope_freqs.weight should be {} F32 values (head_dim / 2)", head_dim / 2));
  std::vector<double> r(static_cast<std::size_t>(t.ne[0]));
  for (std::size_t i = 0; i < r.size(); ++i) {
    float v;
    std::memcpy(&v, t.data + 4 * i, 4);
    r[i] = v;
  }
  const double factor = *std::max_element(r.begin(), r.end()), low = 1.0, high = 4.0, two_pi = 6.283185307179586;
  auto wavelen = [&](std::size_t i) {
    const float freq = 1.0f / std::pow(static_cast<float>(base), static_cast<float>(2 * i) / static_cast<float>(head_dim));
    return two_pi / freq;
  };
  auto fits = [&](double orig) {
    for (std::size_t i = 0; i < r.size(); ++i) {
      const double w = wavelen(i);
      double want;
      if (w < orig / high) want = 1;
      else if (w > orig / low) want = factor;
      else {
        const double smooth = (orig / w - low) / (high - low);
        want = 1 / ((1 - smooth) / factor + smooth);
      }
      if (std::abs(static_cast<double>(static_cast<float>(want)) - r[i]) > 1e-6 * std::max(1.0, want)) return false;
    }
    return true;
  };
  std::vector<double> candidates = {8192, 4096, 16384, 2048, 32768, 1024};
  for (std::size_t i = 0; i < r.size(); ++i)
    if (r[i] > 1 && r[i] < factor && factor > 1) {  // inside the step: solve for the original length
      const double smooth = (1 / r[i] - 1 / factor) / (1 - 1 / factor);
      candidates.insert(candidates.begin(), std::round(wavelen(i) * (low + smooth * (high - low))));
    }
  for (double orig : candidates)
    if (factor > 1 && fits(orig))
      return {{"rope_type", "llama3"}, {"factor", factor}, {"low_freq_factor", low}, {"high_freq_factor", high},
              {"original_max_position_embeddings", static_cast<std::uint64_t>(orig)}};
  if (std::all_of(r.begin(), r.end(), [](double v) { return v == 1.0; })) return json();
  gguf_bad(where, "tensor rope_freqs.weight holds RoPE factors that fit no Llama 3 scaling tfx knows (low_freq_factor 1, high_freq_factor 4)");
}

// What a Gemma file's metadata says beyond Llama's keys, as llama.cpp reads it: its converter added 1
// to every norm weight; the scores' factor is 1/√head_dim except for the 27B models (1/√(D/H):
// llama.cpp knows them by their layer count); gemma2's caps default to 50 and 30 and its window to
// 4096, with every even layer sliding; gemma3's window is required, every sliding_window_pattern-th
// layer (default 6; or a list of booleans) is full, and its sliding layers' RoPE base is
// rope.freq_base_swa (default 10000)
void gemma_config_json(const GgufFile& f, const std::string& arch, json& j, const std::string& where) {
  const std::string p = arch + ".";
  j["tfx_norm_weights_include_one"] = true;
  if (arch == "gemma") return;
  const std::uint64_t layers = j["num_hidden_layers"], hidden = j["hidden_size"], heads = j["num_attention_heads"];
  const std::uint64_t head_dim = j.contains("head_dim") ? j["head_dim"].get<std::uint64_t>() : hidden / std::max<std::uint64_t>(1, heads);
  j["query_pre_attn_scalar"] = llama_cpp_gemma_scalar(arch, layers, hidden, heads, head_dim);
  const std::optional<std::uint64_t> window = f.get_uint(p + "attention.sliding_window", where);
  if (arch == "gemma2") {
    j["attn_logit_softcapping"] = f.get_float(p + "attn_logit_softcapping", where).value_or(50.0);
    j["final_logit_softcapping"] = f.get_float(p + "final_logit_softcapping", where).value_or(30.0);
    j["sliding_window"] = window.value_or(4096);
    return;
  }
  if (!window) gguf_bad(where, fmt::format("no metadata {}attention.sliding_window (a gemma3 model needs it)", p));
  j["sliding_window"] = *window;
  j["attn_logit_softcapping"] = nullptr;
  const double final_cap = f.get_float(p + "final_logit_softcapping", where).value_or(0.0);
  j["final_logit_softcapping"] = final_cap > 0 ? json(final_cap) : json(nullptr);
  if (const GgufValue* pattern = f.find(p + "attention.sliding_window_pattern"); pattern && pattern->type == GgufValueType::array) {
    if (pattern->elem != GgufValueType::boolean || pattern->size() != layers)
      gguf_bad(where, fmt::format("metadata {}attention.sliding_window_pattern should be {} booleans (one per layer)", p, layers));
    json types = json::array();
    for (std::size_t k = 0; k < pattern->size(); ++k) types.push_back(pattern->int_at(k) ? "sliding_attention" : "full_attention");
    j["layer_types"] = types;
  } else {
    const std::uint64_t period = f.get_uint(p + "attention.sliding_window_pattern", where).value_or(6);
    if (period == 0) gguf_bad(where, fmt::format("metadata {}attention.sliding_window_pattern is 0", p));
    j["sliding_window_pattern"] = period;
  }
  j["rope_local_base_freq"] = f.get_float(p + "rope.freq_base_swa", where).value_or(10000.0);
}

// GGUF's metadata → the config.json the family reads
json gguf_config_json(const GgufFile& f, const Arch& a, const std::string& where) {
  const std::string p = std::string(a.name) + ".";
  auto need = [&](const std::string& key) {
    const std::optional<std::uint64_t> v = f.get_uint(p + key, where);
    if (!v) gguf_bad(where, fmt::format("no metadata {}{} (a {} model needs it)", p, key, a.name));
    return *v;
  };
  auto maybe = [&](const std::string& key) { return f.get_uint(p + key, where); };
  const GgufTensor* embd = f.tensor("token_embd.weight");
  if (!embd || embd->ne.size() != 2) gguf_bad(where, "no 2-D tensor token_embd.weight (the token embedding)");
  json j;
  j["model_type"] = a.model_type;
  // tfx's own key for config.json's tfx_random_weights (a file tfx model quantize wrote from one)
  if (const GgufValue* r = f.find("tfx.random_weights"); r && r->type == GgufValueType::boolean) j["tfx_random_weights"] = r->i != 0;
  j["vocab_size"] = embd->ne[1];
  if (std::string(a.name) == "gpt2") {
    j["n_embd"] = need("embedding_length");
    j["n_layer"] = need("block_count");
    j["n_head"] = need("attention.head_count");
    if (const auto ffn = maybe("feed_forward_length")) j["n_inner"] = *ffn;
    j["n_positions"] = need("context_length");
    if (const auto eps = f.get_float(p + "attention.layer_norm_epsilon", where)) j["layer_norm_epsilon"] = *eps;
    j["activation_function"] = "gelu_new";
    return j;
  }
  j["hidden_size"] = need("embedding_length");
  j["num_hidden_layers"] = need("block_count");
  j["num_attention_heads"] = need("attention.head_count");
  j["num_key_value_heads"] = maybe("attention.head_count_kv").value_or(j["num_attention_heads"].get<std::uint64_t>());
  j["intermediate_size"] = need("feed_forward_length");
  j["max_position_embeddings"] = need("context_length");
  if (const auto eps = f.get_float(p + "attention.layer_norm_rms_epsilon", where)) j["rms_norm_eps"] = *eps;
  if (const auto base = f.get_float(p + "rope.freq_base", where)) j["rope_theta"] = *base;
  if (const auto kd = maybe("attention.key_length")) j["head_dim"] = *kd;
  j["tie_word_embeddings"] = f.tensor("output.weight") == nullptr;
  if (const GgufTensor* freqs = f.tensor("rope_freqs.weight")) {
    const std::size_t hd = j.contains("head_dim") ? j["head_dim"].get<std::size_t>()
                                                  : j["hidden_size"].get<std::size_t>() / std::max<std::uint64_t>(1, j["num_attention_heads"].get<std::uint64_t>());
    const json s = llama3_scaling(*freqs, j.value("rope_theta", 10000.0), hd, where);
    if (!s.is_null()) j["rope_scaling"] = s;
  } else if (const auto type = f.get_string(p + "rope.scaling.type", where); type && *type != "none") {
    json s;
    s["rope_type"] = *type;
    if (const auto factor = f.get_float(p + "rope.scaling.factor", where)) s["factor"] = *factor;
    if (const auto orig = maybe("rope.scaling.original_context_length")) s["original_max_position_embeddings"] = *orig;
    j["rope_scaling"] = s;
  }
  const std::string arch = a.name;
  if (arch.rfind("gemma", 0) == 0) gemma_config_json(f, arch, j, where);
  return j;
}

// HF's row order of a Q or K weight (or bias) from llama.cpp's: within each of `heads` heads of
// hd rows, the stored row 2i + s is HF's row s·hd/2 + i (LlamaModel.permute, undone). The rows
// are copied whole in their stored type.
std::vector<unsigned char> unpermute_rows(const GgufTensor& t, std::size_t heads, const std::string& where) {
  const std::size_t rows = t.rows(), row_bytes = t.bytes / rows;
  if (heads == 0 || rows % heads != 0 || (rows / heads) % 2 != 0)
    gguf_bad(where, fmt::format("tensor {}: {} rows do not split into {} heads of an even size", t.name, rows, heads));
  const std::size_t hd = rows / heads, half = hd / 2;
  std::vector<unsigned char> out(t.bytes);
  for (std::size_t h = 0; h < heads; ++h)
    for (std::size_t s = 0; s < 2; ++s)
      for (std::size_t i = 0; i < half; ++i)
        std::memcpy(out.data() + (h * hd + s * half + i) * row_bytes, t.data + (h * hd + 2 * i + s) * row_bytes, row_bytes);
  return out;
}

}  // namespace

std::size_t llama_cpp_gemma_scalar(const std::string& arch, std::size_t layers, std::size_t d_model, std::size_t heads, std::size_t head_dim) {
  const bool big = layers == (arch == "gemma2" ? 46u : 62u);
  return big ? d_model / std::max<std::size_t>(1, heads) : head_dim;
}

std::optional<GgufName> gguf_name_for(const std::string& arch_name, const std::string& hf) {
  for (const Arch& a : kArchs) {
    if (arch_name != a.name) continue;
    for (const NameMap& n : a.global)
      if (hf == n.hf) return GgufName{n.gguf, n.transposed};
    // the layer prefix "layers.{}." / "h.{}.": its text before {} , the layer number, the rest
    const std::string prefix = a.layer_prefix;
    const std::string head = prefix.substr(0, prefix.find("{}"));
    if (hf.rfind(head, 0) != 0) return std::nullopt;
    const std::size_t dot = hf.find('.', head.size());
    if (dot == std::string::npos) return std::nullopt;
    const std::string layer = hf.substr(head.size(), dot - head.size()), rest = hf.substr(dot + 1);
    if (layer.empty() || layer.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    for (const NameMap& n : a.block)
      if (rest == n.hf) return GgufName{fmt::format("blk.{}.{}", layer, n.gguf), n.transposed};
    return std::nullopt;
  }
  return std::nullopt;
}

bool is_gguf_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  if (fs::path(path).extension() == ".gguf") return true;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  char magic[4] = {};
  const bool yes = ::read(fd, magic, 4) == 4 && std::memcmp(magic, "GGUF", 4) == 0;
  ::close(fd);
  return yes;
}

GgufModel open_gguf_model(const std::string& path) {
  GgufModel g;
  g.weights = MappedWeights::map_whole(path);
  g.file = parse_gguf(g.weights.mapped_file(), path, GgufArrays::views);
  const GgufFile& f = g.file;
  const std::optional<std::string> arch_name = f.get_string("general.architecture", path);
  if (!arch_name) gguf_bad(path, N_("no metadata general.architecture (the model's family)"));
  const Arch* arch = nullptr;
  for (const Arch& a : kArchs)
    if (*arch_name == a.name) arch = &a;
  if (!arch) gguf_bad(path, fmt::format("architecture \"{}\" is not supported (llama, qwen2, qwen3, gpt2, gemma, gemma2, gemma3)", *arch_name));
  g.config = parse_model_config(gguf_config_json(f, *arch, path).dump(), path + " (metadata)");
  const std::size_t heads = g.config.heads, kv_heads = g.config.kv_heads;
  for (const GgufTensor& t : f.tensors) {
    // the family's name: blk.N.<x> → <prefix N><mapped x>; others from the global table
    std::string hf;
    const NameMap* map = nullptr;
    if (t.name.rfind("blk.", 0) == 0) {
      const std::size_t dot = t.name.find('.', 4);
      if (dot == std::string::npos) continue;
      const std::string layer = t.name.substr(4, dot - 4), rest = t.name.substr(dot + 1);
      for (const NameMap& n : arch->block)
        if (rest == n.gguf) map = &n;
      if (!map || layer.empty() || layer.find_first_not_of("0123456789") != std::string::npos) continue;
      hf = fmt::format(fmt::runtime(arch->layer_prefix), layer) + map->hf;
    } else {
      for (const NameMap& n : arch->global)
        if (t.name == n.gguf) map = &n;
      if (!map) continue;  // a tensor the family does not read (rope_freqs, …)
      hf = map->hf;
    }
    const std::size_t cols = static_cast<std::size_t>(t.ne[0]), rows = t.rows();
    std::vector<std::size_t> shape;
    for (std::size_t d = t.ne.size(); d-- > 0;) shape.push_back(static_cast<std::size_t>(t.ne[d]));
    StoredMatrix view(t.data, t.type, rows, cols);
    std::vector<unsigned char> owned;
    if (map->transposed && t.ne.size() == 2) {
      view = StoredMatrix(t.data, t.type, cols, rows);
      view.transposed = true;
      shape = {cols, rows};
    }
    if (arch->permuted_qk && (t.name.ends_with(".attn_q.weight") || t.name.ends_with(".attn_q.bias")))
      owned = unpermute_rows(t, heads, path);
    if (arch->permuted_qk && (t.name.ends_with(".attn_k.weight") || t.name.ends_with(".attn_k.bias")))
      owned = unpermute_rows(t, kv_heads, path);
    g.weights.add_view(hf, view, shape, std::move(owned));
  }
  return g;
}

}  // namespace tfx
