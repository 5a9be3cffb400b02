// Named tensors: what a weights file holds (model/safetensors reads and writes them) and what the
// layers' parameters are taken from (attention/transformer), checked by name and shape.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "tfx/core/tensor.hpp"

namespace tfx {

// Named tensors in name order; a tensor keeps its file shape (rank 0 is read as shape [1]).
using TensorMap = std::map<std::string, Tensor>;

// The tensor `name` of `m` with shape `shape`; a missing name or another shape throws tfx::Error
// prefixed with `where` that names the tensor, the expected and the found shape.
const Tensor& expect_tensor(const TensorMap& m, const std::string& name, const std::vector<std::size_t>& shape,
                            const std::string& where);

}  // namespace tfx
