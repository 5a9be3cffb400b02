// Tensor: a shape plus contiguous row-major float32 storage, and views of rows.
// No strides, no broadcasting, no autograd: ops in ops.hpp check shapes and loop.
#pragma once
#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "tfx/core/error.hpp"

namespace tfx {

// Largest tensor tfx will allocate: 2^30 float32 elements (4 GiB). Requests above it are refused
// with a tfx::Error before any allocation (see docs/reference.md, "Memory cap").
inline constexpr std::size_t kMaxElements = std::size_t{1} << 30;

// Number of elements of `shape`, or throws (usage error) when it exceeds kMaxElements or
// overflows. `what` names the request in the message, e.g. "len 100000000 dim 100000", and
// `params` the parameters it names (see Error::params()).
std::size_t checked_element_count(const std::vector<std::size_t>& shape, const std::string& what,
                                  std::vector<std::string> params = {});

// "[50, 128]"
std::string shape_string(const std::vector<std::size_t>& shape);

class Tensor {
 public:
  Tensor() = default;
  // Zero-filled (or `fill`-filled) tensor of the given shape; shape is capped by kMaxElements.
  explicit Tensor(std::vector<std::size_t> shape, float fill = 0.0f);
  Tensor(std::initializer_list<std::size_t> shape) : Tensor(std::vector<std::size_t>(shape)) {}
  // Takes ownership of `values` (size must equal the product of `shape`).
  static Tensor from(std::vector<std::size_t> shape, std::vector<float> values);
  // A 2-D tensor from nested rows (all rows the same length), handy in tests.
  static Tensor matrix(std::initializer_list<std::initializer_list<float>> rows);

  const std::vector<std::size_t>& shape() const { return shape_; }
  std::size_t rank() const { return shape_.size(); }
  std::size_t dim(std::size_t axis) const { return shape_.at(axis); }
  std::size_t size() const { return data_.size(); }
  bool empty() const { return data_.empty(); }
  std::string shape_str() const { return shape_string(shape_); }

  // For rank-2 tensors: rows() x cols(). A rank-1 tensor is one row.
  std::size_t rows() const { return rank() >= 2 ? shape_[0] : 1; }
  std::size_t cols() const { return shape_.empty() ? 0 : shape_.back(); }

  float* data() { return data_.data(); }
  const float* data() const { return data_.data(); }
  std::vector<float>& values() { return data_; }
  const std::vector<float>& values() const { return data_; }

  float& operator[](std::size_t i) { return data_[i]; }
  float operator[](std::size_t i) const { return data_[i]; }
  // Element (i, j) of a rank-2 tensor.
  float& operator()(std::size_t i, std::size_t j) { return data_[i * shape_.back() + j]; }
  float operator()(std::size_t i, std::size_t j) const { return data_[i * shape_.back() + j]; }

  // View of row i (the last axis) of a rank-2 tensor.
  std::span<float> row(std::size_t i) { return {data_.data() + i * cols(), cols()}; }
  std::span<const float> row(std::size_t i) const { return {data_.data() + i * cols(), cols()}; }

  // Same data, new shape with the same element count.
  Tensor reshaped(std::vector<std::size_t> shape) const;

 private:
  std::vector<std::size_t> shape_;
  std::vector<float> data_;
};

}  // namespace tfx
