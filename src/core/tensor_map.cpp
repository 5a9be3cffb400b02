// expect_tensor: a named tensor of a TensorMap, checked for its shape.
#include "tfx/core/tensor_map.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

const Tensor& expect_tensor(const TensorMap& m, const std::string& name, const std::vector<std::size_t>& shape,
                            const std::string& where) {
  auto it = m.find(name);
  if (it == m.end()) {
    std::string have;
    std::size_t n = 0;
    for (const auto& [k, t] : m) {
      if (n++ == 6) {
        have += ", …";
        break;
      }
      have += (have.empty() ? "" : ", ") + k;
    }
    throw Error(fmt::format(N_("{}: no tensor '{}' {} (the file has: {})"), where, name, shape_string(shape), have));
  }
  if (it->second.shape() != shape)
    throw Error(fmt::format(N_("{}: tensor '{}' is {}; expected {}"), where, name, it->second.shape_str(), shape_string(shape)));
  return it->second;
}

}  // namespace tfx
