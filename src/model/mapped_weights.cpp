// A checkpoint's safetensors files memory-mapped and used as stored (mapped_weights.hpp).
#include "tfx/model/mapped_weights.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <set>

#include "tfx/core/error.hpp"
#include "tfx/core/memory.hpp"
#include "tfx/io/json_fields.hpp"
#include "tfx/io/mapped_file.hpp"
#include "tfx/io/text_file.hpp"
#include "tfx/model/safetensors.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace mapped_detail {

// One file mapped read-only for the weights' lifetime.
struct WeightsMapping {
  void* addr = MAP_FAILED;
  std::size_t size = 0;
  int watch = -1;
  explicit WeightsMapping(const std::string& path, const char* kind = "a safetensors file") {
    // O_NONBLOCK: a FIFO in the file's place must not block the open (it is refused below)
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) throw Error(fmt::format(N_("{}: cannot open (the weights file)"), path));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      throw Error(fmt::format(N_("{}: not a regular file"), path));
    }
    size = static_cast<std::size_t>(st.st_size);
    if (size < 8) {
      ::close(fd);
      throw Error(fmt::format("{}: {} bytes: too short for {}", path, size, kind));
    }
    addr = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    if (addr == MAP_FAILED) throw Error(fmt::format(N_("{}: cannot map the file"), path));
    watch = watch_mapping(addr, size, path);
  }
  ~WeightsMapping() {
    if (watch >= 0) unwatch_mapping(watch);
    if (addr != MAP_FAILED) ::munmap(addr, size);
  }
  WeightsMapping(const WeightsMapping&) = delete;
  WeightsMapping& operator=(const WeightsMapping&) = delete;
};

}  // namespace mapped_detail

namespace {

// HF's names without the base model's prefix, the legacy gamma/beta as weight/bias. (A multimodal
// Gemma 3's text model is language_model.model.*, or model.language_model.* as later transformers
// save it; its vision tower keeps its own names, which no family reads.)
std::string mapped_normalized_name(std::string n) {
  for (const char* p : {"language_model.model.", "model.language_model.", "bert.", "transformer.", "model."})
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

struct MappedWeights::Impl {
  std::string dir;
  std::vector<std::string> files;
  std::vector<std::unique_ptr<mapped_detail::WeightsMapping>> maps;
  struct View {
    SafetensorsEntry entry;
    std::string file;
    std::vector<unsigned char> aligned;  // a copy, only when the file's offset is not a multiple of the element size
                                         // (GGUF: Q/K rows put back in Hugging Face's order)
    std::optional<StoredMatrix> stored;  // GGUF: the view as add_view gave it (its data in `aligned` when that is set)
  };
  std::map<std::string, View> tensors;
  std::set<std::string> dtypes;
  std::size_t bytes = 0;
};

std::vector<std::string> MappedWeights::names() const {
  std::vector<std::string> out;
  for (const auto& entry : impl_->tensors) out.push_back(entry.first);
  return out;
}

MappedWeights::MappedWeights() : impl_(std::make_unique<Impl>()) {}
MappedWeights::~MappedWeights() = default;
MappedWeights::MappedWeights(MappedWeights&&) noexcept = default;
MappedWeights& MappedWeights::operator=(MappedWeights&&) noexcept = default;

MappedWeights MappedWeights::open(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path d(dir);
  if (!fs::is_directory(d, ec))
    throw Error(fmt::format(N_("{}: not a directory (expected a Hugging Face checkpoint folder: config.json, model.safetensors, "
                            "tokenizer files)"), dir));
  std::vector<std::string> files;
  const fs::path single = d / "model.safetensors", index = d / "model.safetensors.index.json";
  for (const fs::path& p : {single, index})
    if (fs::is_symlink(p, ec) && !fs::exists(p, ec))  // a dangling link (a moved Hugging Face cache blob)
      throw Error(fmt::format(N_("{}: a symbolic link to {}, which does not exist"), p.string(), fs::read_symlink(p, ec).string()));
  if (fs::exists(single, ec)) {
    files.push_back(single.string());
  } else if (fs::exists(index, ec)) {
    nlohmann::json j;
    try {
      j = parse_json(read_text_input(index.string(), "model.safetensors.index.json"), index.string());
    } catch (const nlohmann::json::exception& e) {
      throw Error(fmt::format(N_("{}: not valid JSON ({})"), index.string(), e.what()));
    }
    if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
      throw Error(fmt::format(N_("{}: no \"weight_map\" {{tensor: file}}"), index.string()));
    std::set<std::string> shards;
    for (const auto& [name, file] : j["weight_map"].items()) {
      if (!file.is_string()) throw Error(fmt::format(N_("{}: the file of '{}' should be a string"), index.string(), name));
      const std::string f = file.get<std::string>();
      // a NUL cannot be in a file name: the system would read the name only up to it
      if (f.find('/') != std::string::npos || f.find('\0') != std::string::npos || f == "." || f == ".." || f.empty())
        throw Error(fmt::format(N_("{}: shard '{}' should be a file name in the folder"), index.string(), escape_for_message(f)));
      shards.insert(f);
    }
    for (const std::string& f : shards) {
      if (!fs::exists(d / f, ec)) throw Error(fmt::format(N_("{}: names the shard {}, which the folder does not have"), index.string(), f));
      files.push_back((d / f).string());
    }
  } else {
    throw Error(fmt::format(N_("{}: no model.safetensors or model.safetensors.index.json (tfx reads safetensors weights; convert a "
                            "pytorch_model.bin with safetensors' convert script)"), dir));
  }
  // the files' bytes against the memory budget before any is mapped (the pages come into memory
  // as the ops read them)
  double total = 0;
  for (const std::string& f : files)
    if (fs::is_regular_file(f, ec)) total += static_cast<double>(fs::file_size(f, ec));  // (a FIFO is refused by name below)
  check_memory(total, fmt::format("the weights of {} (mapped as stored)", dir));
  MappedWeights w;
  Impl& m = *w.impl_;
  m.dir = dir;
  m.files = files;
  for (const std::string& f : files) {
    m.maps.push_back(std::make_unique<mapped_detail::WeightsMapping>(f));
    const mapped_detail::WeightsMapping& map = *m.maps.back();
    m.bytes += map.size;
    for (SafetensorsEntry& e : safetensors_entries({static_cast<const char*>(map.addr), map.size}, f)) {
      m.dtypes.insert(e.dtype);
      const std::string name = mapped_normalized_name(e.name);
      const auto [it, fresh] = m.tensors.emplace(name, Impl::View{std::move(e), f, {}, std::nullopt});
      if (!fresh) throw Error(fmt::format(N_("{}: tensor {} is stored twice (in two files, or under two names that mean the same)"), dir, name));
      // the ops read elements through typed pointers: a tensor at an offset that is not a
      // multiple of its element size (legal in the format, rare in practice) is copied once
      SafetensorsEntry& entry = it->second.entry;
      const std::size_t elem = entry.dtype == "F32" ? 4 : 2;
      if (reinterpret_cast<std::uintptr_t>(entry.data) % elem != 0) {
        it->second.aligned.assign(entry.data, entry.data + entry.bytes);
        entry.data = it->second.aligned.data();
      }
    }
  }
  return w;
}

MappedWeights MappedWeights::map_whole(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  check_memory(fs::is_regular_file(path, ec) ? static_cast<double>(fs::file_size(path, ec)) : 0.0,
               fmt::format("the weights of {} (mapped as stored)", path));
  MappedWeights w;
  Impl& m = *w.impl_;
  m.dir = path;
  m.files = {path};
  m.maps.push_back(std::make_unique<mapped_detail::WeightsMapping>(path, "a GGUF file"));
  m.bytes = m.maps.back()->size;
  return w;
}

std::string_view MappedWeights::mapped_file() const {
  if (impl_->maps.empty()) return {};
  return {static_cast<const char*>(impl_->maps.front()->addr), impl_->maps.front()->size};
}

void MappedWeights::add_view(const std::string& name, StoredMatrix view, std::vector<std::size_t> shape, std::vector<unsigned char> owned) {
  SafetensorsEntry e;
  e.name = name;
  e.dtype = stored_type_name(view.type);
  e.shape = std::move(shape);
  e.bytes = view.bytes();
  const auto [it, fresh] = impl_->tensors.emplace(name, Impl::View{std::move(e), impl_->dir, std::move(owned), std::nullopt});
  if (!fresh) throw Error(fmt::format("{}: tensor {} is stored twice", impl_->dir, name));
  if (!it->second.aligned.empty()) view.data = it->second.aligned.data();
  it->second.entry.data = static_cast<const unsigned char*>(view.data);
  it->second.stored = view;
  impl_->dtypes.insert(it->second.entry.dtype);
}

std::optional<StoredMatrix> MappedWeights::find(const std::string& name) const {
  const auto it = impl_->tensors.find(name);
  if (it == impl_->tensors.end()) return std::nullopt;
  if (it->second.stored) return it->second.stored;
  const SafetensorsEntry& e = it->second.entry;
  const StoredType t = e.dtype == "F16" ? StoredType::f16 : e.dtype == "BF16" ? StoredType::bf16 : StoredType::f32;
  std::size_t rows = 1, cols = e.shape.back();
  for (std::size_t i = 0; i + 1 < e.shape.size(); ++i) rows *= e.shape[i];
  return StoredMatrix(e.data, t, rows, cols);
}

StoredMatrix MappedWeights::need(const std::string& name, std::size_t rows, std::size_t cols) const {
  const std::optional<StoredMatrix> m = find(name);
  if (!m) throw Error(fmt::format(N_("{}: no tensor {} (the family needs it)"), impl_->dir, name));
  const auto& e = impl_->tensors.at(name).entry;
  const bool vector = rows == 1 && e.shape.size() == 1;
  if ((e.shape.size() != 2 && !vector) || m->rows != rows || m->cols != cols)
    throw Error(fmt::format(N_("{}: tensor {} has shape {}; the config needs {}"), impl_->tensors.at(name).file, e.name,
                            shape_string(e.shape), rows == 1 ? shape_string({cols}) : shape_string({rows, cols})));
  return *m;
}

std::vector<std::size_t> MappedWeights::shape(const std::string& name) const {
  const auto it = impl_->tensors.find(name);
  return it == impl_->tensors.end() ? std::vector<std::size_t>{} : it->second.entry.shape;
}

std::size_t MappedWeights::mapped_bytes() const { return impl_->bytes; }
std::size_t MappedWeights::tensor_count() const { return impl_->tensors.size(); }
const std::vector<std::string>& MappedWeights::files() const { return impl_->files; }

std::string MappedWeights::first_non_finite() const {
  std::vector<float> row;
  for (const auto& [name, view] : impl_->tensors) {
    StoredMatrix m = *find(name);
    if (m.transposed) {  // scan the stored rows
      std::swap(m.rows, m.cols);
      m.transposed = false;
    }
    row.resize(m.cols);
    for (std::size_t r = 0; r < m.rows; ++r) {
      widen_row(m, r, row);
      for (std::size_t j = 0; j < m.cols; ++j)
        if (!std::isfinite(row[j]))
          return fmt::format("tensor '{}' holds {} at index {}", view.entry.name, std::isnan(row[j]) ? "NaN" : row[j] > 0 ? "+inf" : "-inf",
                             r * m.cols + j);
    }
  }
  return "";
}

std::string MappedWeights::dtype() const {
  if (impl_->dtypes.size() == 1) return *impl_->dtypes.begin();
  return impl_->dtypes.empty() ? "F32" : "mixed";
}

const std::string& MappedWeights::dir() const { return impl_->dir; }

}  // namespace tfx
