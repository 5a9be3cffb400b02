// A checkpoint folder's weights used as stored: model.safetensors (or the shards its index names)
// memory-mapped read-only, each tensor a view (StoredMatrix: F32, F16 or BF16) into the mapping,
// nothing converted or copied. The ops widen elements as they read them (tfx/core/stored.hpp), so
// a BF16 model needs about its file's size in memory, not twice it. Pages are read from the page
// cache as the ops touch them; a file truncated while mapped is an error (mapped_file.hpp).
#pragma once
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tfx/core/stored.hpp"

namespace tfx {

class MappedWeights {
 public:
  // Maps the folder's safetensors file(s) — model.safetensors, or the shards
  // model.safetensors.index.json names — and validates their headers as parse_safetensors does.
  // A missing folder/file, a malformed header or index: tfx::Error (data) naming the file.
  static MappedWeights open(const std::string& dir);
  // A GGUF file (gguf_model.hpp) mapped whole, with no tensors yet: its reader adds them by
  // add_view under the names the families read (the file's bytes against the memory budget first).
  static MappedWeights map_whole(const std::string& path);
  // The first file's mapped bytes.
  std::string_view mapped_file() const;
  // Adds `view` (into the mapping, or into `owned`, which it then keeps) as tensor `name` of `shape`.
  void add_view(const std::string& name, StoredMatrix view, std::vector<std::size_t> shape, std::vector<unsigned char> owned = {});
  MappedWeights();
  ~MappedWeights();
  MappedWeights(MappedWeights&&) noexcept;
  MappedWeights& operator=(MappedWeights&&) noexcept;

  // The tensor under its name without the base model's prefix (transformer., model., bert.; the
  // legacy LayerNorm names gamma / beta read as weight / bias), as a matrix: rank 2 as stored, a
  // higher rank with its leading axes folded into rows, rank 1 as one row (1, n). nullopt when absent.
  std::optional<StoredMatrix> find(const std::string& name) const;
  // Its shape as the file stores it (rank 0 as [1]); empty when absent.
  std::vector<std::size_t> shape(const std::string& name) const;
  // The same, checked: absent, or a shape other than (rows, cols) — a vector given as rows = 1 —
  // throws tfx::Error naming the file's tensor and both shapes.
  StoredMatrix need(const std::string& name, std::size_t rows, std::size_t cols) const;

  // Every tensor's name (without the base model's prefix), in name order.
  std::vector<std::string> names() const;
  std::size_t mapped_bytes() const;  // of all the files
  std::size_t tensor_count() const;
  const std::vector<std::string>& files() const;
  // "tensor 'NAME' holds NaN at index I" for the first tensor (in name order) holding a value that
  // is not finite, or "" — a scan of every weight, for the error after a forward pass overflowed.
  std::string first_non_finite() const;
  std::string dtype() const;         // F32, F16, BF16 or "mixed"
  const std::string& dir() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace tfx
