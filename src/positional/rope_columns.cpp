#include "tfx/positional/rope_columns.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/positional/rope.hpp"

namespace tfx {

Tensor rope_heads(const Tensor& q, std::size_t heads, double base) {
  const std::size_t dk = q.cols() / heads;
  if (dk % 2 != 0) throw usage_error(fmt::format(N_("--rope: each head's width d_k = {} must be even (RoPE rotates pairs of columns)"), dk));
  RopeConfig c;
  c.dim = dk;
  c.base = base;
  Tensor out = q;
  for (std::size_t t = 0; t < q.rows(); ++t)
    for (std::size_t h = 0; h < heads; ++h) {
      const auto row = q.row(t).subspan(h * dk, dk);
      const std::vector<float> r = rope_rotate(row, static_cast<double>(t), c);
      std::copy(r.begin(), r.end(), out.row(t).begin() + static_cast<std::ptrdiff_t>(h * dk));
    }
  return out;
}

}  // namespace tfx
