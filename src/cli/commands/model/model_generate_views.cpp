// `tfx model generate`'s microscope (model_attention_views.hpp): --html (and --png with it) shows the
// attention the KV-cached passes computed over prompt + generated tokens; --cache the cache held at
// the end, measured from its buffers, beside the formula.
#include <fmt/format.h>

#include <filesystem>

#include "cli/commands/model/model_attention_views.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/model/attention_views.hpp"
#include "tfx/model/family.hpp"

namespace tfx::cli {

namespace {

std::string generated_folder_name(const std::string& dir) {
  std::filesystem::path p = std::filesystem::path(dir).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p.filename().empty() ? dir : p.filename().string();
}

}  // namespace

AttentionPage generated_attention_page(const std::string& dir, const ModelConfig& c, const std::vector<std::string>& tokens,
                                       const Generation& g) {
  AttentionPage p;
  p.title = trf("{} — attention while generating", generated_folder_name(dir));
  if (c.random_weights) p.title = trf("{} (random weights)", p.title);
  p.subtitle = trf("{} prompt tokens + {} generated; each row as the KV-cached pass that read that token computed it (causal: a query "
                   "sees only the keys up to itself)",
                   g.prompt.size(), g.steps.size());
  p.queries = p.keys = tokens;
  for (std::size_t l = 0; l < g.attentions.size(); ++l) {
    p.layer_names.push_back(trf("layer {}", l));
    p.weights.push_back(g.attentions[l]);
  }
  for (std::size_t h = 0; h < c.heads; ++h) p.head_names.push_back(std::to_string(h));
  p.first_layer = p.weights.empty() ? 0 : p.weights.size() - 1;
  p.footer = trf("made by tfx model generate {} ({})", generated_folder_name(dir), c.model_type);
  return p;
}

Figure generated_attention_figure(const std::string& dir, const ModelConfig& c, const std::vector<std::string>& tokens, const Generation& g) {
  Figure f;
  const std::size_t N = tokens.size();
  f.title = trf("Model view of {} while generating: {} prompt + {} generated tokens, {} layers (rows) × {} heads (columns); tokens on the "
                "first panel",
                generated_folder_name(dir), g.prompt.size(), g.steps.size(), g.attentions.size(), c.heads);
  for (std::size_t l = 0; l < g.attentions.size(); ++l)
    for (std::size_t h = 0; h < c.heads; ++h) {
      Heatmap m;
      m.values = Tensor({N, N});
      std::copy_n(g.attentions[l].data() + h * N * N, N * N, m.values.data());
      m.title = fmt::format("L{} H{}", l, h);
      if (f.panels.empty()) {
        m.row_labels = m.col_labels = tokens;
        m.x_label = tr("key");
        m.y_label = tr("query");
      }
      m.vmin = 0;
      m.vmax = 1;
      m.annotate = false;
      m.value_label = tr("attention weight");
      f.panels.push_back(std::move(m));
    }
  f.columns = static_cast<int>(c.heads);
  return f;
}

Text kv_cache_held_text(const ModelConfig& c, const Generation& g) {
  const std::size_t formula = kv_cache_bytes_per_token(c, sizeof(float)) * g.cache_capacity;
  return Text{trf("KV cache held at the end: {} positions cached, {} allocated; measured from its buffers {} bytes ({}); the formula 2 × {} "
                  "× {} × {} × 4 bytes × {} positions = {} bytes: {}",
                  g.cache_length, g.cache_capacity, g.cache_held_bytes, kv_bytes_text(static_cast<double>(g.cache_held_bytes)), c.layers,
                  c.kv_heads, c.head_dim, g.cache_capacity, formula, formula == g.cache_held_bytes ? tr("measured = formula") : tr("measured ≠ formula"))};
}

}  // namespace tfx::cli
