// layers_page (tfx/attention/attention_page.hpp): one --html page from several layers of multi-head attention.
#include "tfx/attention/attention_page.hpp"

#include <algorithm>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

// page.weights[l] = (H, T, S): head h's weights, rows 0 … T−1 (T = queries.size()).
AttentionPage layers_page(const std::string& title, const std::string& subtitle, const std::vector<std::string>& queries,
                          const std::vector<std::string>& keys, const std::vector<std::string>& layer_names,
                          const std::vector<const MultiHeadAttention*>& layers, const std::string& footer) {
  AttentionPage p;
  p.title = title;
  p.subtitle = subtitle;
  p.queries = queries;
  p.keys = keys;
  p.layer_names = layer_names;
  p.footer = footer;
  const std::size_t T = queries.size(), S = keys.size();
  const std::size_t H = layers.empty() ? 0 : layers.front()->heads.size();
  for (std::size_t h = 0; h < H; ++h) p.head_names.push_back(std::to_string(h));
  for (const MultiHeadAttention* a : layers) {
    if (a->heads.size() != H) throw usage_error(N_("--html: the layers have different numbers of heads"));
    Tensor w({H, T, S});
    for (std::size_t h = 0; h < H; ++h) {
      const Tensor& src = a->heads[h].weights;
      if (src.rank() != 2 || src.rows() < T || src.cols() != S)
        throw usage_error(N_("--html: a head's weights do not match the tokens"));
      for (std::size_t i = 0; i < T; ++i) std::copy(src.row(i).begin(), src.row(i).end(), w.data() + (h * T + i) * S);
    }
    p.weights.push_back(std::move(w));
  }
  p.first_layer = p.weights.empty() ? 0 : p.weights.size() - 1;
  return p;
}

}  // namespace tfx
