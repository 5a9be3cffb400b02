// Hugging Face checkpoint folders (tfx/model/checkpoint.hpp): config.json, safetensors files
// (memory-mapped while they are converted), tensor names without prefixes, every tensor the
// family lists checked for its shape and moved into the family's typed weights, and the forward
// pass's entry. The families themselves are in bert.cpp, gpt2.cpp, llama.cpp (table: families.cpp).
#include "tfx/model/checkpoint.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>

#include "tfx/core/error.hpp"
#include "tfx/core/memory.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/io/json_fields.hpp"
#include "tfx/io/mapped_file.hpp"
#include "tfx/io/text_file.hpp"

namespace tfx {

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

[[noreturn]] void bad(const std::string& where, const std::string& what) { throw Error(fmt::format("{}: {}", where, what)); }

}  // namespace

namespace {

// A safetensors file mapped read-only while parse_safetensors converts it to float32 tensors.
struct Mapping {
  void* addr = MAP_FAILED;
  std::size_t size = 0;
  int watch = -1;
  Mapping(const std::string& path) {
    // O_NONBLOCK: a FIFO in the file's place must not block the open (it is refused below)
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
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
    check_json_depth(bytes.substr(8, n), "");  // too deep: parse_safetensors says so; the parse would overflow the stack
    const json h = json::parse(bytes.substr(8, n));
    for (const auto& [k, v] : h.items())
      if (k != "__metadata__" && v.is_object() && v.contains("dtype") && v["dtype"].is_string()) out.insert(v["dtype"].get<std::string>());
  } catch (const json::exception&) {
  } catch (const Error&) {
  }
  return out;
}

// HF's names without the base model's prefix, the legacy gamma/beta as weight/bias.
std::string normalized_name(std::string n) {
  for (const char* p : {"bert.", "transformer.", "model."})  // (ViT's "vit." stays: vit.cpp reads it)
    if (n.rfind(p, 0) == 0) {
      n = n.substr(std::string(p).size());
      break;
    }
  auto ends = [&](const std::string& s) { return n.size() >= s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0; };
  if (ends(".gamma")) n = n.substr(0, n.size() - 6) + ".weight";
  else if (ends(".beta")) n = n.substr(0, n.size() - 5) + ".bias";
  return n;
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
  TensorMap file_tensors;
  double float32_bytes = 0;
  for (const std::string& f : files) {
    const Mapping map(f);
    m.file_bytes += map.size;
    const std::set<std::string> file_dtypes = header_dtypes(map.bytes());
    for (const auto& t : file_dtypes) dtypes.insert(t);
    // the float32 tensors this file becomes (16-bit weights double), against the memory budget
    // before any is converted
    const bool half = file_dtypes.count("F16") || file_dtypes.count("BF16");
    float32_bytes += static_cast<double>(map.size) * (half ? 2.0 : 1.0);
    check_memory(float32_bytes, fmt::format("the weights of {} as float32 ({} of {} files read)", dir, &f - files.data() + 1, files.size()));
    // drop each converted range of the mapping at once: the peak stays near the float32 weights
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    char* base = static_cast<char*>(map.addr);
    TensorMap part = parse_safetensors(map.bytes(), f, nullptr, [&](std::size_t offset, std::size_t length) {
      const std::size_t from = (offset + page - 1) / page * page, to = (offset + length) / page * page;
      if (to > from) ::madvise(base + from, to - from, MADV_DONTNEED);
    });
    for (auto& [name, t] : part) file_tensors[normalized_name(name)] = std::move(t);
  }
  m.files = files;
  m.dtype = dtypes.size() == 1 ? *dtypes.begin() : dtypes.empty() ? "?" : "mixed";
  // 3. the family's tensors, each with its shape, moved into the family's typed weights
  const ModelConfig& c = m.config;
  // every block has tensors: more layers than tensors is a config.json that does not fit the file
  // (checked before a name is built for each of them)
  if (c.layers > file_tensors.size())
    bad(dir, fmt::format("config.json says {} layers, but the weights hold only {} tensors", c.layers, file_tensors.size()));
  std::vector<TensorSlot> slots = c.family->tensor_slots(m, file_tensors);
  for (TensorSlot& s : slots) {
    const auto it = file_tensors.find(s.name);
    if (it == file_tensors.end()) {
      if (s.optional) continue;
      bad(dir, fmt::format("the weights have no tensor '{}' (a {} checkpoint needs it)", s.name, c.model_type));
    }
    std::vector<std::size_t> want = s.shape;
    const bool any_rows = want.size() == 2 && want[0] == 0;  // e.g. token types: any number of rows from 1
    if (any_rows && it->second.rank() == 2 && it->second.dim(0) > 0) want[0] = it->second.dim(0);  // (0 rows stays a mismatch)
    if (it->second.shape() != want || (any_rows && want[0] == 0))
      bad(dir, fmt::format("tensor '{}' is {}, expected {}{} (from config.json)", s.name, it->second.shape_str(),
                           any_rows ? "[rows ≥ 1, " + std::to_string(want[1]) + "]" : shape_string(want), ""));
    *s.slot = s.held.empty() ? std::move(it->second) : it->second.reshaped(s.held);
    file_tensors.erase(it);
    if (!s.optional) m.parameters += s.slot->size();
    if (s.layer == 0) m.block_parameters += s.slot->size();
  }
  m.head = c.family->output_head(m);
  m.has_lm_head = m.head != OutputHead::none;
  return m;
}

namespace {

// The first non-finite value of `t` as (row, column) of its last two axes, or nullopt.
std::optional<std::pair<std::size_t, std::size_t>> first_non_finite(const Tensor& t) {
  for (std::size_t i = 0; i < t.size(); ++i)
    if (!std::isfinite(t[i])) return std::pair<std::size_t, std::size_t>{i / t.cols(), i % t.cols()};
  return std::nullopt;
}

// Weights that overflow float32 give inf/NaN activations: name the first layer and step that made one.
void check_finite(const ForwardPass& f, const std::string& dir) {
  auto fail = [&](const std::string& step, std::size_t token) {
    throw Error(fmt::format("{}: the forward pass overflowed: {} has a non-finite value (inf or NaN) at token {} (weights too large "
                            "for float32?)", dir, step, token));
  };
  for (std::size_t l = 0; l < f.hidden.size(); ++l) {
    // attentions[l − 1] are computed before hidden[l]: report the earlier step first
    if (l >= 1 && l - 1 < f.attentions.size())
      if (const auto at = first_non_finite(f.attentions[l - 1]))
        fail(fmt::format("the attention weights of layer {}", l - 1), at->first % f.attentions[l - 1].dim(1));
    if (const auto at = first_non_finite(f.hidden[l]))
      fail(l == 0 ? std::string("the embedding output") : fmt::format("the output of layer {}", l - 1), at->first);
  }
  if (const auto at = first_non_finite(f.logits)) fail("the logits", at->first);
}

}  // namespace

// The forward pass of the checkpoint's family, after the checks every family shares.
ForwardPass model_forward(const Checkpoint& m, const std::vector<std::size_t>& ids, bool want_logits) {
  const ModelConfig& c = m.config;
  if (c.family->image()) throw usage_error(fmt::format("{}: a {} checkpoint reads a picture, not text (give --image FILE)", m.dir, c.model_type));
  if (ids.empty()) throw usage_error("no tokens to run the model on");
  const std::size_t rows = m.token_embedding().rows();
  for (std::size_t id : ids)
    if (id >= rows)
      throw Error(fmt::format("{}: token id {} is past the embedding's {} rows (the tokenizer does not match the weights)", m.dir, id, rows));
  if (!c.uses_rope() && ids.size() > c.max_positions)
    throw usage_error(fmt::format("{} tokens are more than the model's {} positions (max_position_embeddings); shorten the text",
                                  ids.size(), c.max_positions));
  // what the pass keeps: every layer's (heads, T, T) weights, the hidden states, the logits
  const double T = static_cast<double>(ids.size());
  check_memory(4.0 * (static_cast<double>(c.layers * c.heads) * T * T + static_cast<double>(c.layers + 1) * T * static_cast<double>(c.d_model) +
                      (want_logits ? T * static_cast<double>(c.vocab) : 0.0)),
               fmt::format("the forward pass of {} layers × {} heads over {} tokens", c.layers, c.heads, ids.size()));
  ForwardPass f = c.family->forward(m, ids, want_logits);
  check_finite(f, m.dir);
  return f;
}

ForwardPass model_forward_image(const Checkpoint& m, const Tensor& pixels, bool want_logits) {
  const ModelConfig& c = m.config;
  if (!c.family->image()) throw usage_error(fmt::format("{}: a {} checkpoint reads text, not a picture (drop --image)", m.dir, c.model_type));
  const double T = static_cast<double>(c.max_positions);
  check_memory(4.0 * (static_cast<double>(c.layers * c.heads) * T * T + static_cast<double>(c.layers + 1) * T * static_cast<double>(c.d_model)),
               fmt::format("the forward pass of {} layers × {} heads over {} patches", c.layers, c.heads, c.max_positions - 1));
  ForwardPass f = c.family->forward_image(m, pixels, want_logits);
  check_finite(f, m.dir);
  return f;
}

// p_i = e^(x_i − max) / Σ_j e^(x_j − max)
std::vector<TokenProbability> top_probabilities(std::span<const float> logits, std::size_t k) {
  double mx = -INFINITY;
  for (float v : logits) mx = std::max(mx, static_cast<double>(v));
  double sum = 0;
  for (float v : logits) sum += std::exp(static_cast<double>(v) - mx);
  std::vector<TokenProbability> out;
  for (const auto& [id, v] : top_k(logits, k)) out.push_back({id, std::exp(static_cast<double>(v) - mx) / sum, v});
  return out;
}

}  // namespace tfx
