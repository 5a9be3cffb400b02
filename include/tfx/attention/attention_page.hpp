// The --html attention page of commands that run several layers of multi-head attention
// (tfx translate, tfx encoder): every layer's heads gathered into one AttentionPage.
#pragma once
#include <string>
#include <vector>

#include "tfx/attention/attention.hpp"
#include "tfx/figure/attention_html.hpp"

namespace tfx {

// A page of layers.size() layers × H heads: layers[l]->heads[h].weights, its first `rows` rows
// (queries) and all S columns (keys). queries: rows labels, keys: S labels; layer_names: one per layer.
AttentionPage layers_page(const std::string& title, const std::string& subtitle, const std::vector<std::string>& queries,
                          const std::vector<std::string>& keys, const std::vector<std::string>& layer_names,
                          const std::vector<const MultiHeadAttention*>& layers, const std::string& footer);

}  // namespace tfx
