// A checkpoint's safetensors files memory-mapped and used as stored (mapped_weights.hpp).
#include "tfx/model/mapped_weights.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <set>

#include "tfx/core/error.hpp"
#include "tfx/io/mapped_file.hpp"
#include "tfx/io/text_file.hpp"
#include "tfx/model/safetensors.hpp"

namespace tfx {

namespace mapped_detail {

// One file mapped read-only for the weights' lifetime.
struct WeightsMapping {
  void* addr = MAP_FAILED;
  std::size_t size = 0;
  int watch = -1;
  explicit WeightsMapping(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(fmt::format("{}: cannot open (the weights file)", path));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      throw Error(fmt::format("{}: not a regular file", path));
    }
    size = static_cast<std::size_t>(st.st_size);
    if (size < 8) {
      ::close(fd);
      throw Error(fmt::format("{}: {} bytes: too short for a safetensors file", path, size));
    }
    addr = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    if (addr == MAP_FAILED) throw Error(fmt::format("{}: cannot map the file", path));
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

std::string mapped_normalized_name(std::string n) {
  for (const char* p : {"bert.", "transformer.", "model."})
    if (n.rfind(p, 0) == 0) return n.substr(std::string(p).size());
  return n;
}

}  // namespace

struct MappedWeights::Impl {
  std::string dir;
  std::vector<std::unique_ptr<mapped_detail::WeightsMapping>> maps;
  struct View {
    SafetensorsEntry entry;
    std::string file;
    std::vector<unsigned char> aligned;  // a copy, only when the file's offset is not a multiple of the element size
  };
  std::map<std::string, View> tensors;
  std::set<std::string> dtypes;
  std::size_t bytes = 0;
};

MappedWeights::MappedWeights() : impl_(std::make_unique<Impl>()) {}
MappedWeights::~MappedWeights() = default;
MappedWeights::MappedWeights(MappedWeights&&) noexcept = default;
MappedWeights& MappedWeights::operator=(MappedWeights&&) noexcept = default;

MappedWeights MappedWeights::open(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path d(dir);
  if (!fs::is_directory(d, ec)) throw Error(fmt::format("{}: no such folder (a checkpoint folder)", dir));
  std::vector<std::string> files;
  const fs::path single = d / "model.safetensors", index = d / "model.safetensors.index.json";
  if (fs::exists(single, ec)) {
    files.push_back(single.string());
  } else if (fs::exists(index, ec)) {
    const nlohmann::json j = nlohmann::json::parse(read_text_input(index.string(), "model.safetensors.index.json"), nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
      throw Error(fmt::format("{}: not JSON with a \"weight_map\" {{tensor: file}}", index.string()));
    std::set<std::string> shards;
    for (const auto& [name, file] : j["weight_map"].items()) {
      if (!file.is_string()) throw Error(fmt::format("{}: the file of '{}' should be a string", index.string(), name));
      const std::string f = file.get<std::string>();
      if (f.find('/') != std::string::npos || f == ".." || f.empty())
        throw Error(fmt::format("{}: shard '{}' should be a file name in the folder", index.string(), f));
      shards.insert(f);
    }
    for (const std::string& f : shards) {
      if (!fs::exists(d / f, ec)) throw Error(fmt::format("{}: names the shard {}, which the folder does not have", index.string(), f));
      files.push_back((d / f).string());
    }
  } else {
    throw Error(fmt::format("{}: no model.safetensors or model.safetensors.index.json", dir));
  }
  MappedWeights w;
  Impl& m = *w.impl_;
  m.dir = dir;
  for (const std::string& f : files) {
    m.maps.push_back(std::make_unique<mapped_detail::WeightsMapping>(f));
    const mapped_detail::WeightsMapping& map = *m.maps.back();
    m.bytes += map.size;
    for (SafetensorsEntry& e : safetensors_entries({static_cast<const char*>(map.addr), map.size}, f)) {
      m.dtypes.insert(e.dtype);
      const std::string name = mapped_normalized_name(e.name);
      const auto [it, fresh] = m.tensors.emplace(name, Impl::View{std::move(e), f, {}});
      if (!fresh) throw Error(fmt::format("{}: tensor {} is in more than one file", dir, name));
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

std::optional<StoredMatrix> MappedWeights::find(const std::string& name) const {
  const auto it = impl_->tensors.find(name);
  if (it == impl_->tensors.end()) return std::nullopt;
  const SafetensorsEntry& e = it->second.entry;
  const StoredType t = e.dtype == "F16" ? StoredType::f16 : e.dtype == "BF16" ? StoredType::bf16 : StoredType::f32;
  std::size_t rows = 1, cols = e.shape.back();
  for (std::size_t i = 0; i + 1 < e.shape.size(); ++i) rows *= e.shape[i];
  return StoredMatrix(e.data, t, rows, cols);
}

StoredMatrix MappedWeights::need(const std::string& name, std::size_t rows, std::size_t cols) const {
  const std::optional<StoredMatrix> m = find(name);
  if (!m) throw Error(fmt::format("{}: no tensor {} (the family needs it)", impl_->dir, name));
  const auto& e = impl_->tensors.at(name).entry;
  const bool vector = rows == 1 && e.shape.size() == 1;
  if ((e.shape.size() != 2 && !vector) || m->rows != rows || m->cols != cols)
    throw Error(fmt::format("{}: tensor {} has shape {}; the config needs {}", impl_->tensors.at(name).file, e.name,
                            shape_string(e.shape), rows == 1 ? shape_string({cols}) : shape_string({rows, cols})));
  return *m;
}

std::size_t MappedWeights::mapped_bytes() const { return impl_->bytes; }

std::string MappedWeights::dtype() const {
  if (impl_->dtypes.size() == 1) return *impl_->dtypes.begin();
  return impl_->dtypes.empty() ? "F32" : "mixed";
}

const std::string& MappedWeights::dir() const { return impl_->dir; }

}  // namespace tfx
