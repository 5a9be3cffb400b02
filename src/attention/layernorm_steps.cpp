#include "tfx/attention/layernorm_steps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

Tensor number_vector(const std::string& text, const std::string& flag, std::size_t dim) {
  auto rows = parse_number_rows(text, flag);
  if (rows.size() != 1 || rows[0].size() != dim)
    throw usage_error(fmt::format(N_("{}: expected {} comma-separated values (one per feature), got {}"), flag, dim,
                                  rows.size() == 1 ? std::to_string(rows[0].size()) : "several rows"));
  return Tensor::from({dim}, rows[0]);
}

Figure layernorm_figure(const Tensor& x, const Tensor& xhat, const Tensor& y, const std::vector<std::string>& tokens,
                        const std::vector<std::string>& features, const std::vector<double>& mu, const std::vector<double>& sigma) {
  double lo = 0, hi = 0;
  for (const Tensor* t : {&x, &xhat, &y})
    for (std::size_t k = 0; k < t->size(); ++k) lo = std::min(lo, static_cast<double>((*t)[k])), hi = std::max(hi, static_cast<double>((*t)[k]));
  for (std::size_t t = 0; t < mu.size(); ++t) lo = std::min(lo, mu[t] - sigma[t]), hi = std::max(hi, mu[t] + sigma[t]);
  const double pad = (hi - lo) * 0.08;
  Figure f;
  f.title = tr("Layer normalization per token: x, x̂ and y on one scale");
  f.columns = 3;
  const std::size_t T = x.rows(), D = x.cols();
  for (std::size_t t = 0; t < T; ++t) {
    auto bars = [&](const Tensor& m, std::string title, std::string subtitle, int color) {
      Bars b;
      b.title = std::move(title);
      b.subtitle = std::move(subtitle);
      b.labels = features;
      for (std::size_t j = 0; j < D; ++j) b.values.push_back(m(t, j));
      b.vmin = lo < 0 ? lo - pad : 0.0;
      b.vmax = hi + pad;
      b.annotate = D <= 16;
      b.color = color;
      b.category_label = tr("feature");
      b.value_label = tr("value");
      return b;
    };
    Bars bx = bars(x, fmt::format("x: “{}”", tokens[t]), fmt::format("μ = {:.3g}, σ = {:.3g}", mu[t], sigma[t]), 0);
    bx.rules = {{mu[t], "μ", false}, {mu[t] + sigma[t], "μ + σ", true}, {mu[t] - sigma[t], "μ − σ", true}};
    Bars bn = bars(xhat, "x̂ = (x − μ)/√(σ² + ε)", tr("mean 0, standard deviation 1"), 1);
    bn.rules = {{0.0, "0", false}, {1.0, "+1", true}, {-1.0, "−1", true}};
    Bars by = bars(y, "y = γ ⊙ x̂ + β", tr("per-feature gain γ and bias β"), 2);
    f.panels.push_back(std::move(bx));
    f.panels.push_back(std::move(bn));
    f.panels.push_back(std::move(by));
  }
  return f;
}

}  // namespace tfx
