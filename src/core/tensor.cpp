// Tensor storage, shape helpers and the memory cap.
#include "tfx/core/tensor.hpp"
#include "tfx/core/i18n.hpp"

#include <fmt/format.h>

#include <limits>

namespace tfx {

std::string shape_string(const std::vector<std::size_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

std::size_t checked_element_count(const std::vector<std::size_t>& shape, const std::string& what,
                                  std::vector<std::string> params) {
  std::size_t n = 1;
  for (std::size_t d : shape) {
    if (d != 0 && n > std::numeric_limits<std::size_t>::max() / d) n = std::numeric_limits<std::size_t>::max();
    else n *= d;
  }
  if (n > kMaxElements) {
    throw usage_error(fmt::format(
        N_("{} needs a tensor of shape {} ({:.3g} elements, {:.3g} GiB), over tfx's cap of {} elements "
        "(4 GiB); try smaller values"),
        what, shape_string(shape), static_cast<double>(n), static_cast<double>(n) * 4.0 / (1u << 30),
        kMaxElements),
        std::move(params));
  }
  return n;
}

Tensor::Tensor(std::vector<std::size_t> shape, float fill) : shape_(std::move(shape)) {
  data_.assign(checked_element_count(shape_, "a tensor"), fill);
}

Tensor Tensor::from(std::vector<std::size_t> shape, std::vector<float> values) {
  Tensor t;
  std::size_t n = checked_element_count(shape, "a tensor");
  if (n != values.size())
    throw Error(fmt::format(N_("shape {} needs {} values, got {}"), shape_string(shape), n, values.size()));
  t.shape_ = std::move(shape);
  t.data_ = std::move(values);
  return t;
}

Tensor Tensor::matrix(std::initializer_list<std::initializer_list<float>> rows) {
  std::size_t cols = rows.size() ? rows.begin()->size() : 0;
  std::vector<float> values;
  for (const auto& r : rows) {
    if (r.size() != cols) throw Error(N_("Tensor::matrix: rows of different lengths"));
    values.insert(values.end(), r.begin(), r.end());
  }
  return from({rows.size(), cols}, std::move(values));
}

Tensor Tensor::reshaped(std::vector<std::size_t> shape) const {
  return from(std::move(shape), data_);
}

}  // namespace tfx
