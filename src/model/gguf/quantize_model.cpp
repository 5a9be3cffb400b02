// Quantizing a checkpoint into a GGUF file (quantize.hpp): the source read into llama.cpp's names
// and layouts, the GGUF writer, the quantization of each tensor with its error, and the
// next-token cost of the quantized model.
#include "tfx/model/builtin_models.hpp"
#include "tfx/model/quantize.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/core/stats.hpp"
#include "tfx/io/text_file.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/gguf_model.hpp"
#include "tfx/model/mapped_weights.hpp"

namespace tfx {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// ---- the writer ----

void put_u32(std::string& out, std::uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); }
void put_u64(std::string& out, std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); }
void put_str(std::string& out, const std::string& s) {
  put_u64(out, s.size());
  out += s;
}

void put_value(std::string& out, const GgufValue& v, GgufValueType type) {
  switch (type) {
    case GgufValueType::u8: case GgufValueType::i8: case GgufValueType::boolean: out.push_back(static_cast<char>(v.i & 0xff)); break;
    case GgufValueType::u16: case GgufValueType::i16: {
      const auto x = static_cast<std::uint16_t>(v.i);
      out.append(reinterpret_cast<const char*>(&x), 2);
      break;
    }
    case GgufValueType::u32: case GgufValueType::i32: put_u32(out, static_cast<std::uint32_t>(v.i)); break;
    case GgufValueType::u64: put_u64(out, v.u ? v.u : static_cast<std::uint64_t>(v.i)); break;
    case GgufValueType::i64: put_u64(out, static_cast<std::uint64_t>(v.i)); break;
    case GgufValueType::f32: {
      const auto x = static_cast<float>(v.f);
      out.append(reinterpret_cast<const char*>(&x), 4);
      break;
    }
    case GgufValueType::f64: out.append(reinterpret_cast<const char*>(&v.f), 8); break;
    case GgufValueType::string: put_str(out, std::string(v.text())); break;
    case GgufValueType::array:
      put_u32(out, static_cast<std::uint32_t>(v.elem));
      put_u64(out, v.size());
      if (v.viewed) {  // the elements' bytes as read, in the same encoding
        out.append(v.raw.data(), v.raw.size());
        break;
      }
      for (const GgufValue& item : v.items) put_value(out, item, v.elem);
      break;
  }
}

std::uint64_t align_up(std::uint64_t x, std::uint64_t a) { return (x + a - 1) / a * a; }

// ---- the source ----

std::string read_text(const fs::path& p) { return read_text_input(p.string(), p.string()); }


GgufValue string_array(const std::vector<std::string>& items) {
  GgufValue v;
  v.type = GgufValueType::array;
  v.elem = GgufValueType::string;
  for (const std::string& s : items) v.items.push_back(gguf_string(s));
  return v;
}

GgufValue i32_array(std::size_t n, int value) {
  GgufValue v;
  v.type = GgufValueType::array;
  v.elem = GgufValueType::i32;
  GgufValue item;
  item.type = GgufValueType::i32;
  item.i = value;
  v.items.assign(n, item);
  return v;
}

// The folder's tokenizer as metadata: vocab.json + merges.txt as convert_hf_to_gguf.py writes a
// GPT-2 one; a tokenizer.json whole (tokenizer.huggingface.json, GGUF's key for it)
// A byte-level BPE tokenizer.json is also written as tokenizer.ggml.* the way convert_hf_to_gguf.py's
// _set_vocab_gpt2 does (so llama.cpp opens the file): the tokens by id, padded to the model's
// vocab_size with [PAD{id}]; token types 1 (normal), 3 (a special added token), 4 (another added
// token); the merges as "a b"; pre the tokenizer's pre-tokenizer (qwen2, llama-bpe, gpt-2).
void tokenizer_json_as_ggml(const json& tj, std::size_t vocab_size, const std::string& arch,
                            std::vector<std::pair<std::string, GgufValue>>& md) {
  const json* model = tj.contains("model") ? &tj["model"] : nullptr;
  if (!model || !model->is_object() || model->value("type", std::string()) != "BPE" || !model->contains("vocab") ||
      !(*model)["vocab"].is_object() || !model->contains("merges") || !(*model)["merges"].is_array())
    return;
  std::size_t n = vocab_size;
  std::vector<std::string> tokens;
  std::vector<int> types;
  const auto put = [&](std::size_t id, const std::string& text, int type) {
    if (id >= (std::size_t{1} << 24)) return;  // an absurd id: left to tokenizer.huggingface.json
    if (id >= tokens.size()) tokens.resize(id + 1), types.resize(id + 1, 0);
    tokens[id] = text, types[id] = type;
  };
  for (auto it = (*model)["vocab"].begin(); it != (*model)["vocab"].end(); ++it)
    if (it.value().is_number_unsigned()) put(it.value().get<std::size_t>(), it.key(), 1);
  if (tj.contains("added_tokens") && tj["added_tokens"].is_array())
    for (const json& a : tj["added_tokens"])
      if (a.is_object() && a.contains("id") && a["id"].is_number_unsigned() && a.contains("content") && a["content"].is_string())
        put(a["id"].get<std::size_t>(), a["content"].get<std::string>(), a.value("special", false) ? 3 : 4);
  n = std::max(n, tokens.size());
  tokens.resize(n), types.resize(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    if (types[i] == 0) tokens[i] = fmt::format("[PAD{}]", i), types[i] = 4;
  std::vector<std::string> merges;
  for (const json& m : (*model)["merges"]) {
    if (m.is_string()) merges.push_back(m.get<std::string>());
    else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) merges.push_back(m[0].get<std::string>() + " " + m[1].get<std::string>());
  }
  GgufValue tt;
  tt.type = GgufValueType::array;
  tt.elem = GgufValueType::i32;
  for (int t : types) {
    GgufValue item;
    item.type = GgufValueType::i32;
    item.i = t;
    tt.items.push_back(item);
  }
  md.emplace_back("tokenizer.ggml.model", gguf_string("gpt2"));
  md.emplace_back("tokenizer.ggml.pre", gguf_string(arch == "gpt2" ? "gpt-2" : arch == "llama" ? "llama-bpe" : "qwen2"));
  md.emplace_back("tokenizer.ggml.tokens", string_array(tokens));
  md.emplace_back("tokenizer.ggml.token_type", tt);
  md.emplace_back("tokenizer.ggml.merges", string_array(merges));
}

void folder_tokenizer(const fs::path& dir, std::size_t vocab_size, const std::string& arch, std::vector<std::pair<std::string, GgufValue>>& md) {
  std::error_code ec;
  if (fs::exists(dir / "tokenizer.json", ec)) {
    const std::string text = read_text(dir / "tokenizer.json");
    md.emplace_back("tokenizer.huggingface.json", gguf_string(text));
    const json tj = json::parse(text, nullptr, false);
    if (tj.is_object()) tokenizer_json_as_ggml(tj, vocab_size, arch, md);
    return;
  }
  if (!fs::exists(dir / "vocab.json", ec) || !fs::exists(dir / "merges.txt", ec)) return;  // no tokenizer: --ids only
  const json vocab = json::parse(read_text(dir / "vocab.json"), nullptr, false);
  if (!vocab.is_object()) throw Error(fmt::format(N_("{}: not a JSON object of token → id"), (dir / "vocab.json").string()));
  std::vector<std::string> tokens(vocab.size());
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    if (!it.value().is_number_unsigned() || it.value().get<std::size_t>() >= tokens.size())
      throw Error(fmt::format(N_("{}: token {} has no id below {}"), (dir / "vocab.json").string(), it.key(), tokens.size()));
    tokens[it.value().get<std::size_t>()] = it.key();
  }
  std::vector<std::string> merges;
  const std::string text = read_text(dir / "merges.txt");
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty() && line.rfind("#version", 0) != 0) merges.push_back(line);
    at = end + 1;
  }
  md.emplace_back("tokenizer.ggml.model", gguf_string("gpt2"));
  md.emplace_back("tokenizer.ggml.pre", gguf_string("gpt-2"));
  md.emplace_back("tokenizer.ggml.tokens", string_array(tokens));
  md.emplace_back("tokenizer.ggml.token_type", i32_array(tokens.size(), 1));
  md.emplace_back("tokenizer.ggml.merges", string_array(merges));
}

const char* arch_of(const std::string& model_type) {
  if (model_type == "llama" || model_type == "mistral") return "llama";
  if (model_type == "qwen2" || model_type == "qwen3" || model_type == "gpt2") return model_type == "gpt2" ? "gpt2" : model_type == "qwen2" ? "qwen2" : "qwen3";
  if (model_type == "gemma" || model_type == "gemma2") return model_type == "gemma" ? "gemma" : "gemma2";
  if (model_type == "gemma3_text" || model_type == "gemma3") return "gemma3";
  return nullptr;
}

// What llama.cpp reads of a Gemma model beyond Llama's keys (gguf_model.cpp reads them back), as
// convert_hf_to_gguf.py's Gemma2Model and Gemma3Model write them. llama.cpp keeps no
// query_pre_attn_scalar: it scales the scores by 1/√head_dim (1/√(D/H) for the 27B models, which it
// knows by their layer count), so a model whose scalar is another is refused rather than written
// as a different model.
void gemma_metadata(const ModelConfig& c, const std::string& arch, const std::string& dir, std::vector<std::pair<std::string, GgufValue>>& md) {
  const std::string p = arch + ".";
  if (arch == "gemma") return;
  const double want = static_cast<double>(llama_cpp_gemma_scalar(arch, c.layers, c.d_model, c.heads, c.head_dim));
  if (c.query_pre_attn_scalar != want)
    throw Error(fmt::format(N_("{}: query_pre_attn_scalar {:g}: a GGUF file cannot hold it (llama.cpp scales by 1/√{:g} for this shape)"), dir,
                            c.query_pre_attn_scalar, want));
  md.emplace_back(p + "attention.sliding_window", gguf_u32(static_cast<std::uint32_t>(c.sliding_window.value_or(4096))));
  if (arch == "gemma2") {
    for (std::size_t i = 0; i < c.layers; ++i)
      if (c.sliding_layers[i] != (i % 2 == 0))
        throw Error(fmt::format(N_("{}: layer_types: llama.cpp's gemma2 slides on the even layers only"), dir));
    md.emplace_back(p + "attn_logit_softcapping", gguf_f32(static_cast<float>(c.attn_softcap)));
    md.emplace_back(p + "final_logit_softcapping", gguf_f32(static_cast<float>(c.final_softcap)));
    return;
  }
  // gemma3: the period of the full layers when there is one (llama.cpp's default 6 included), else a
  // boolean per layer
  std::size_t period = 0;
  for (std::size_t q = 1; q <= c.layers + 1 && !period; ++q) {
    bool fits = true;
    for (std::size_t i = 0; i < c.layers; ++i) fits = fits && c.sliding_layers[i] == ((i + 1) % q != 0);
    if (fits) period = q;
  }
  if (period) {
    md.emplace_back(p + "attention.sliding_window_pattern", gguf_u32(static_cast<std::uint32_t>(period)));
  } else {
    GgufValue a;
    a.type = GgufValueType::array;
    a.elem = GgufValueType::boolean;
    for (bool s : c.sliding_layers) {
      GgufValue item;
      item.type = GgufValueType::boolean;
      item.i = s;
      a.items.push_back(item);
    }
    md.emplace_back(p + "attention.sliding_window_pattern", a);
  }
  md.emplace_back(p + "rope.freq_base_swa", gguf_f32(static_cast<float>(c.rope_local ? c.rope_local->base : 10000.0)));
}

QuantSource read_folder(const std::string& named) {
  QuantSource s;
  s.path = named;
  const std::string dir = model_files_dir(named);  // a built-in name (teaching-gpt): its cached files
  const fs::path d(dir);
  std::error_code ec;
  if (!fs::exists(d / "config.json", ec))
    throw Error(fmt::format(N_("{}: not a model: expected a checkpoint folder (config.json, model.safetensors) or a GGUF file (it starts with GGUF)"), dir));
  const ModelConfig c = parse_model_config(read_text(d / "config.json"), (d / "config.json").string());
  const char* arch = arch_of(c.model_type);
  if (!arch) throw Error(fmt::format(N_("{}: model_type {}: quantize writes llama, mistral, qwen2, qwen3, gpt2, gemma, gemma2, gemma3_text and gemma3 checkpoints"), dir, c.model_type));
  s.arch = arch;
  if (c.rope.scaling != RopeScaling::none && c.rope.scaling != RopeScaling::linear)
    throw Error(fmt::format(N_("{}: rope_scaling {}: quantize writes no RoPE scaling but linear yet"), dir, rope_scaling_name(c.rope.scaling)));
  auto& md = s.metadata;
  const std::string p = s.arch + ".";
  md.emplace_back("general.architecture", gguf_string(s.arch));
  md.emplace_back("general.name", gguf_string(d.filename().empty() ? d.parent_path().filename().string() : d.filename().string()));
  md.emplace_back("general.quantization_version", gguf_u32(2));
  md.emplace_back(p + "context_length", gguf_u32(static_cast<std::uint32_t>(c.max_positions)));
  md.emplace_back(p + "embedding_length", gguf_u32(static_cast<std::uint32_t>(c.d_model)));
  md.emplace_back(p + "block_count", gguf_u32(static_cast<std::uint32_t>(c.layers)));
  md.emplace_back(p + "feed_forward_length", gguf_u32(static_cast<std::uint32_t>(c.ffn)));
  md.emplace_back(p + "attention.head_count", gguf_u32(static_cast<std::uint32_t>(c.heads)));
  if (s.arch == "gpt2") {
    md.emplace_back(p + "attention.layer_norm_epsilon", gguf_f32(static_cast<float>(c.eps)));
  } else {
    md.emplace_back(p + "attention.head_count_kv", gguf_u32(static_cast<std::uint32_t>(c.kv_heads)));
    md.emplace_back(p + "rope.freq_base", gguf_f32(static_cast<float>(c.rope.base)));
    md.emplace_back(p + "attention.layer_norm_rms_epsilon", gguf_f32(static_cast<float>(c.eps)));
    md.emplace_back(p + "rope.dimension_count", gguf_u32(static_cast<std::uint32_t>(c.head_dim)));
    if (c.head_dim * c.heads != c.d_model || s.arch.starts_with("gemma")) {
      md.emplace_back(p + "attention.key_length", gguf_u32(static_cast<std::uint32_t>(c.head_dim)));
      md.emplace_back(p + "attention.value_length", gguf_u32(static_cast<std::uint32_t>(c.head_dim)));
    }
    if (c.rope.scaling == RopeScaling::linear) {
      md.emplace_back(p + "rope.scaling.type", gguf_string("linear"));
      md.emplace_back(p + "rope.scaling.factor", gguf_f32(static_cast<float>(c.rope.factor.value_or(1.0))));
    }
  }
  if (s.arch.starts_with("gemma")) gemma_metadata(c, s.arch, dir, md);
  s.random_weights = c.random_weights;
  if (c.random_weights) md.emplace_back("tfx.random_weights", gguf_bool(true));
  folder_tokenizer(d, c.vocab, s.arch, md);

  auto mapping = std::make_shared<MappedWeights>(MappedWeights::open(dir));
  const MappedWeights& w = *mapping;
  s.mapping = mapping;
  s.source_bytes = w.mapped_bytes();
  for (const std::string& hf : w.names()) {
    if (hf == "lm_head.weight" && c.tied_head) continue;
    const std::optional<GgufName> g = gguf_name_for(s.arch, hf);
    if (!g) continue;  // a tensor llama.cpp does not keep (GPT-2's attn.bias mask, rotary_emb.inv_freq, …)
    const StoredMatrix m = *w.find(hf);
    const std::vector<std::size_t> shape = w.shape(hf);
    SourceTensor t;
    t.name = g->name;
    t.stored = m.type;
    for (std::size_t k = shape.size(); k-- > 0;) t.ne.push_back(shape[k]);
    const bool transpose = g->transposed && shape.size() == 2;
    if (transpose) t.ne = {shape[0], shape[1]};
    // convert_hf_to_gguf.py's LlamaModel.permute: within each head, HF row s·hd/2 + i → row 2i + s
    const bool q = t.name.ends_with(".attn_q.weight") || t.name.ends_with(".attn_q.bias");
    const bool k = t.name.ends_with(".attn_k.weight") || t.name.ends_with(".attn_k.bias");
    const std::size_t heads = s.arch == "llama" && (q || k) ? (q ? c.heads : c.kv_heads) : 0;
    // convert_hf_to_gguf.py's Gemma models: every norm weight + 1 (GGUF holds 1 + w)
    const bool plus_one = s.arch.starts_with("gemma") && t.name.ends_with("norm.weight");
    t.load = [m, shape, transpose, heads, plus_one] {
      Tensor wide = widen(m);
      std::vector<float> values = std::move(wide.values());
      if (plus_one)
        for (float& v : values) v = 1.0f + v;
      if (transpose) {  // (in, out) → (out, in)
        const std::size_t rows = shape[0], cols = shape[1];
        std::vector<float> tr(values.size());
        for (std::size_t r = 0; r < rows; ++r)
          for (std::size_t j = 0; j < cols; ++j) tr[j * rows + r] = values[r * cols + j];
        values = std::move(tr);
      }
      if (heads) {
        const std::size_t rows = shape[0], cols = values.size() / rows, hd = rows / heads, half = hd / 2;
        std::vector<float> perm(values.size());
        for (std::size_t h = 0; h < heads; ++h)
          for (std::size_t sft = 0; sft < 2; ++sft)
            for (std::size_t i = 0; i < half; ++i)
              std::memcpy(perm.data() + (h * hd + 2 * i + sft) * cols, values.data() + (h * hd + sft * half + i) * cols, cols * sizeof(float));
        values = std::move(perm);
      }
      return values;
    };
    s.tensors.push_back(std::move(t));
  }
  // convert_hf_to_gguf.py's GPT2Model writes the tied head as output.weight too, a copy of
  // token_embd: llama.cpp's gpt2 graph requires it (c392e5094: "missing tensor 'output.weight'")
  const auto find_tensor = [&](const char* n) {
    return std::find_if(s.tensors.begin(), s.tensors.end(), [&](const SourceTensor& t) { return t.name == n; });
  };
  if (s.arch == "gpt2" && find_tensor("output.weight") == s.tensors.end() && find_tensor("token_embd.weight") != s.tensors.end()) {
    SourceTensor head = *find_tensor("token_embd.weight");
    head.name = "output.weight";
    s.tensors.push_back(std::move(head));
  }
  std::sort(s.tensors.begin(), s.tensors.end(), [](const SourceTensor& a, const SourceTensor& b) { return a.name < b.name; });
  return s;
}

QuantSource read_gguf(const std::string& path) {
  QuantSource s;
  s.path = path;
  auto mapping = std::make_shared<MappedWeights>(MappedWeights::map_whole(path));
  s.mapping = mapping;
  const GgufFile f = parse_gguf(mapping->mapped_file(), path);
  s.source_bytes = mapping->mapped_bytes();
  const std::optional<std::string> arch = f.get_string("general.architecture", path);
  if (!arch || !(*arch == "llama" || *arch == "qwen2" || *arch == "qwen3" || *arch == "gpt2" || *arch == "gemma" || *arch == "gemma2" ||
                 *arch == "gemma3"))
    throw Error(fmt::format(N_("{}: architecture \"{}\": quantize writes llama, qwen2, qwen3, gpt2, gemma, gemma2 and gemma3 files"), path,
                            arch.value_or("")));
  s.arch = *arch;
  for (const auto& kv : f.metadata)
    if (kv.first != "general.file_type" && kv.first != "general.alignment") s.metadata.push_back(kv);
  if (const GgufValue* r = f.find("tfx.random_weights")) s.random_weights = r->i != 0;
  for (const GgufTensor& g : f.tensors) {
    SourceTensor t;
    t.name = g.name;
    t.ne = g.ne;
    t.stored = g.type;
    const std::size_t n = t.size();
    t.load = [type = g.type, data = g.data, n] {
      std::vector<float> values(n);
      dequantize(type, data, values.data(), n);
      return values;
    };
    s.tensors.push_back(std::move(t));
  }
  return s;
}

// llama.cpp's LLAMA_FTYPE for a file whose tensors are (mostly) `t`
std::uint32_t llama_ftype(StoredType t) {
  switch (t) {
    case StoredType::f32: return 0;
    case StoredType::f16: return 1;
    case StoredType::q4_0: return 2;
    case StoredType::q4_1: return 3;
    case StoredType::q8_0: return 7;
    case StoredType::q5_0: return 8;
    case StoredType::q5_1: return 9;
    case StoredType::q4_k: return 15;  // Q4_K_M
    case StoredType::q5_k: return 17;  // Q5_K_M
    case StoredType::q6_k: return 18;
    case StoredType::bf16: return 32;
  }
  return 0;
}

}  // namespace

GgufValue gguf_string(const std::string& s) {
  GgufValue v;
  v.type = GgufValueType::string;
  v.s = s;
  return v;
}
GgufValue gguf_u32(std::uint32_t x) {
  GgufValue v;
  v.type = GgufValueType::u32;
  v.i = x;
  return v;
}
GgufValue gguf_f32(float x) {
  GgufValue v;
  v.type = GgufValueType::f32;
  v.f = x;
  return v;
}
GgufValue gguf_bool(bool x) {
  GgufValue v;
  v.type = GgufValueType::boolean;
  v.i = x ? 1 : 0;
  return v;
}

std::string encode_gguf_header(const std::vector<std::pair<std::string, GgufValue>>& metadata, const std::vector<GgufTensorOut>& tensors,
                               const std::vector<std::size_t>& bytes) {
  std::uint64_t alignment = 32;
  for (const auto& kv : metadata)
    if (kv.first == "general.alignment" && kv.second.integer() && kv.second.i > 0) alignment = static_cast<std::uint64_t>(kv.second.i);
  std::string out = "GGUF";
  put_u32(out, 3);
  put_u64(out, tensors.size());
  put_u64(out, metadata.size());
  for (const auto& kv : metadata) {
    put_str(out, kv.first);
    put_u32(out, static_cast<std::uint32_t>(kv.second.type));
    put_value(out, kv.second, kv.second.type);
  }
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const GgufTensorOut& t = tensors[i];
    put_str(out, t.name);
    put_u32(out, static_cast<std::uint32_t>(t.ne.size()));
    for (std::uint64_t e : t.ne) put_u64(out, e);
    put_u32(out, gguf_ggml_type(t.type));
    put_u64(out, offset);
    offset = align_up(offset + bytes[i], alignment);
  }
  out.resize(align_up(out.size(), alignment), '\0');
  return out;
}

std::string encode_gguf(const std::vector<std::pair<std::string, GgufValue>>& metadata, const std::vector<GgufTensorOut>& tensors) {
  std::vector<std::size_t> bytes;
  for (const GgufTensorOut& t : tensors) bytes.push_back(t.data.size());
  std::string out = encode_gguf_header(metadata, tensors, bytes);
  std::uint64_t alignment = 32;
  for (const auto& kv : metadata)
    if (kv.first == "general.alignment" && kv.second.integer() && kv.second.i > 0) alignment = static_cast<std::uint64_t>(kv.second.i);
  for (const GgufTensorOut& t : tensors) {
    out.append(reinterpret_cast<const char*>(t.data.data()), t.data.size());
    out.resize(align_up(out.size(), alignment), '\0');
  }
  return out;
}

QuantSource read_quant_source(const std::string& path) {
  std::error_code ec;
  if (is_builtin_model(path)) return read_folder(path);
  if (is_gguf_file(path)) return read_gguf(path);
  if (fs::is_directory(path, ec)) return read_folder(path);
  if (!fs::exists(path, ec)) throw Error(fmt::format(N_("{}: no such file or folder"), path));
  throw Error(fmt::format(N_("{}: not a model: expected a checkpoint folder (config.json, model.safetensors) or a GGUF file (it starts with GGUF)"), path));
}

bool quantized_tensor(const SourceTensor& t) {
  if (t.ne.size() < 2 || !t.name.ends_with(".weight")) return false;
  if (t.name.find("_norm.weight") != std::string::npos || t.name == "position_embd.weight") return false;
  return true;
}

std::size_t SourceTensor::size() const {
  std::size_t n = 1;
  for (std::uint64_t e : ne) n *= static_cast<std::size_t>(e);
  return n;
}

namespace {

// The type tensor t is stored in: `type`, F32 for one that is not quantized, `fallback` for rows
// that are not whole blocks (none: an error naming the tensor)
StoredType tensor_type(const QuantSource& src, const SourceTensor& t, StoredType type, std::optional<StoredType> fallback) {
  StoredType ty = quantized_tensor(t) ? type : StoredType::f32;
  const std::size_t row = static_cast<std::size_t>(t.ne.empty() ? 1 : t.ne[0]);
  if (row % stored_block_size(ty) != 0) {
    if (!fallback)
      throw Error(fmt::format(N_("{}: tensor {} has rows of {} values, not whole blocks of {} ({}); choose another --type, or "
                                 "--fallback TYPE to store such tensors in TYPE"),
                              src.path, t.name, row, stored_block_size(ty), stored_type_name(ty)));
    ty = *fallback;
    if (row % stored_block_size(ty) != 0)
      throw Error(fmt::format(N_("{}: tensor {} has rows of {} values, not whole blocks of {} (--fallback {}) either"), src.path, t.name,
                              row, stored_block_size(ty), stored_type_name(ty)));
  }
  if (!quantizer_available(ty)) throw Error(fmt::format(N_("{}: tfx has no {} quantizer yet"), src.path, stored_type_name(ty)));
  return ty;
}

// t's values quantized to ty into `out`, with ‖W − Ŵ‖ / ‖W‖ (Ŵ the dequantized tensor)
TensorError quantize_tensor(const SourceTensor& t, StoredType ty, std::vector<unsigned char>& out) {
  const std::vector<float> values = t.load();
  out.resize(stored_row_bytes(ty, values.size()));
  quantize(ty, values.data(), out.data(), values.size());
  // block by block: no second copy of the tensor
  const std::size_t block = stored_block_size(ty), block_bytes = stored_block_bytes(ty);
  std::vector<float> back(block);
  double num = 0, den = 0;
  for (std::size_t b = 0; b * block < values.size(); ++b) {
    dequantize(ty, out.data() + b * block_bytes, back.data(), block);
    for (std::size_t j = 0; j < block; ++j) {
      const double x = values[b * block + j], d = static_cast<double>(back[j]) - x;
      num += d * d;
      den += x * x;
    }
  }
  return {t.name, ty, values.size(), den > 0 ? std::sqrt(num / den) : 0.0};
}

// llama.cpp's use_more_bits: the layers whose attn_v and ffn_down a _M mix stores in more bits
bool use_more_bits(std::size_t i, std::size_t n) {
  const long long il = static_cast<long long>(i), nl = static_cast<long long>(n);
  return il < nl / 8 || il >= 7 * nl / 8 || (il - nl / 8) % 3 == 2;
}

// a mix's type for one quantized tensor (before the fallback for rows that are not whole blocks)
StoredType mix_type(const QuantSource& src, const SourceTensor& t, const QuantRecipe& r, std::size_t& i_v, std::size_t n_v,
                    std::size_t& i_down, std::size_t n_down) {
  const bool has_output = std::any_of(src.tensors.begin(), src.tensors.end(), [](const SourceTensor& x) { return x.name == "output.weight"; });
  if (t.name == "output.weight" || (!has_output && t.name == "token_embd.weight"))
    return t.ne[0] % stored_block_size(r.type) != 0 ? StoredType::q8_0 : StoredType::q6_k;
  // the layer: blk.N. in the name (llama.cpp counts these tensors in file order, which is the
  // layer order of the files it writes; the name keeps a folder's order from mattering)
  const auto layer = [&](std::size_t& counter) {
    std::size_t n = counter++;
    if (t.name.rfind("blk.", 0) == 0) {
      std::size_t v = 0, k = 4;
      while (k < t.name.size() && t.name[k] >= '0' && t.name[k] <= '9') v = v * 10 + static_cast<std::size_t>(t.name[k++] - '0');
      if (k > 4 && k < t.name.size() && t.name[k] == '.') n = v;
    }
    return n;
  };
  if (t.name.find("attn_v.weight") != std::string::npos) return use_more_bits(layer(i_v), n_v) ? StoredType::q6_k : r.type;
  if (t.name.find("ffn_down") != std::string::npos) return use_more_bits(layer(i_down), n_down) ? StoredType::q6_k : r.type;
  if (t.name.find("attn_qkv.weight") != std::string::npos) return r.mix == QuantMix::q4_k_m ? StoredType::q5_k : StoredType::q6_k;
  return r.type;
}

std::vector<std::pair<std::string, GgufValue>> quantized_metadata(const QuantSource& src, const QuantRecipe& r) {
  std::vector<std::pair<std::string, GgufValue>> md = src.metadata;
  // LLAMA_FTYPE_MOSTLY_Q4_K_M = 15, Q5_K_M = 17
  md.emplace_back("general.file_type", gguf_u32(r.mix == QuantMix::q4_k_m   ? 15u
                                                : r.mix == QuantMix::q5_k_m ? 17u
                                                                            : llama_ftype(r.type)));
  return md;
}

}  // namespace

std::vector<StoredType> quantize_plan(const QuantSource& src, const QuantRecipe& recipe, std::optional<StoredType> fallback) {
  std::vector<StoredType> plan;
  if (recipe.mix == QuantMix::none) {
    for (const SourceTensor& t : src.tensors) plan.push_back(tensor_type(src, t, recipe.type, fallback));
    return plan;
  }
  std::size_t n_v = 0, n_down = 0, i_v = 0, i_down = 0;
  for (const SourceTensor& t : src.tensors) {
    n_v += t.name.find("attn_v.weight") != std::string::npos;
    n_down += t.name.find("ffn_down") != std::string::npos;
  }
  for (const SourceTensor& t : src.tensors) {
    if (!quantized_tensor(t)) {
      plan.push_back(StoredType::f32);
      continue;
    }
    StoredType ty = mix_type(src, t, recipe, i_v, n_v, i_down, n_down);
    const std::size_t row = static_cast<std::size_t>(t.ne[0]);
    if (row % stored_block_size(ty) != 0) {  // llama.cpp's fallback for K-quant rows
      ty = ty == StoredType::q4_k ? StoredType::q5_0 : ty == StoredType::q5_k ? StoredType::q5_1 : ty == StoredType::q6_k ? StoredType::q8_0 : ty;
      if (row % stored_block_size(ty) != 0) ty = StoredType::f16;
    }
    if (!quantizer_available(ty)) throw Error(fmt::format(N_("{}: tfx has no {} quantizer yet"), src.path, stored_type_name(ty)));
    plan.push_back(ty);
  }
  return plan;
}

QuantizedModel quantize_model(const QuantSource& src, const QuantRecipe& recipe, std::optional<StoredType> fallback) {
  QuantizedModel q;
  q.metadata = quantized_metadata(src, recipe);
  const std::vector<StoredType> plan = quantize_plan(src, recipe, fallback);
  for (std::size_t i = 0; i < src.tensors.size(); ++i) {
    const SourceTensor& t = src.tensors[i];
    GgufTensorOut o;
    o.name = t.name;
    o.ne = t.ne;
    o.type = plan[i];
    q.errors.push_back(quantize_tensor(t, o.type, o.data));
    q.tensors.push_back(std::move(o));
  }
  return q;
}

std::vector<TensorError> write_quantized_gguf(const QuantSource& src, const QuantRecipe& recipe, std::optional<StoredType> fallback,
                                              const std::function<void(std::string_view)>& write) {
  // 1. the header with every tensor's info (sizes known from the types), data left empty
  const std::vector<StoredType> plan = quantize_plan(src, recipe, fallback);
  std::vector<GgufTensorOut> infos;
  std::vector<std::size_t> bytes;
  for (std::size_t i = 0; i < src.tensors.size(); ++i) {
    const SourceTensor& t = src.tensors[i];
    GgufTensorOut o;
    o.name = t.name;
    o.ne = t.ne;
    o.type = plan[i];
    bytes.push_back(stored_row_bytes(o.type, t.size()));
    infos.push_back(std::move(o));
  }
  const std::vector<std::pair<std::string, GgufValue>> md = quantized_metadata(src, recipe);
  std::string header = encode_gguf_header(md, infos, bytes);
  write(header);
  // 2. each tensor's data, padded to the alignment, one at a time
  std::vector<TensorError> errors;
  std::vector<unsigned char> data;
  const std::string pad(32, '\0');
  for (std::size_t i = 0; i < src.tensors.size(); ++i) {
    errors.push_back(quantize_tensor(src.tensors[i], infos[i].type, data));
    write(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()));
    write(std::string_view(pad.data(), align_up(data.size(), 32) - data.size()));
  }
  return errors;
}

NextTokenCost next_token_cost(const Tensor& ref, const Tensor& q, std::span<const std::size_t> ids) {
  if (ref.rows() != q.rows() || ref.cols() != q.cols() || ref.rows() == 0)
    throw Error(fmt::format("next_token_cost: logits ({}, {}) and ({}, {}) differ", ref.rows(), ref.cols(), q.rows(), q.cols()));
  const std::size_t T = ref.rows(), V = ref.cols();
  // log softmax of one row, in double
  auto log_softmax = [V](std::span<const float> row) {
    std::vector<double> out(V);
    const double lse = log_sum_exp(row);
    for (std::size_t i = 0; i < V; ++i) out[i] = static_cast<double>(row[i]) - lse;
    return out;
  };
  NextTokenCost c;
  double nll_ref = 0, nll_q = 0;
  std::size_t agree = 0, scored = 0;
  for (std::size_t t = 0; t < T; ++t) {
    const std::vector<double> a = log_softmax(ref.row(t)), b = log_softmax(q.row(t));
    double kl = 0;
    for (std::size_t v = 0; v < V; ++v) kl += std::exp(a[v]) * (a[v] - b[v]);
    c.kl += kl;
    const auto am = static_cast<std::size_t>(std::max_element(a.begin(), a.end()) - a.begin());
    const auto bm = static_cast<std::size_t>(std::max_element(b.begin(), b.end()) - b.begin());
    agree += am == bm;
    if (t + 1 < T && t + 1 < ids.size() && ids[t + 1] < V) {
      nll_ref -= a[ids[t + 1]];
      nll_q -= b[ids[t + 1]];
      ++scored;
    }
  }
  c.kl /= static_cast<double>(T);
  c.top1 = static_cast<double>(agree) / static_cast<double>(T);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  c.ppl_ref = scored ? std::exp(nll_ref / static_cast<double>(scored)) : nan;
  c.ppl_q = scored ? std::exp(nll_q / static_cast<double>(scored)) : nan;
  return c;
}

}  // namespace tfx
