#include "tfx/model/attention_figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/model/family.hpp"

namespace tfx {

// A checkpoint folder by its last name ("bert-tiny", also for "…/bert-tiny/").
std::string model_folder_name(const std::string& dir) {
  std::filesystem::path p = std::filesystem::path(dir).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p.filename().empty() ? dir : p.filename().string();
}

std::vector<std::string> model_words_of(const std::string& text) {
  std::vector<std::string> out;
  std::string w;
  for (char ch : text + " ") {
    if (ch == ' ' || ch == '\t' || ch == '\n' || ch == ',') {
      if (!w.empty()) out.push_back(w);
      w.clear();
    } else {
      w += ch;
    }
  }
  return out;
}

Heatmap model_attention_heatmap(const Tensor& w, const std::vector<std::string>& tokens, const std::string& title, bool labels) {
  Heatmap h;
  h.values = w;
  h.title = title;
  h.x_label = tr("key");
  h.y_label = tr("query");
  if (labels) h.row_labels = h.col_labels = tokens;
  h.vmin = 0;
  h.vmax = 1;
  h.value_label = tr("attention weight");
  return h;
}

// An image model's [CLS] row over the patches (T = 1 + g², weights row 0, columns 1 …) as the
// heat of the picture's grid.
Picture model_patch_heat(const ModelConfig& c, const Image& picture, std::span<const float> cls_row, const std::string& title,
                         const std::string& label, double width) {
  const std::size_t g = c.image_size / c.patch_size;
  Picture p;
  p.image = picture;
  p.cell = static_cast<int>(c.patch_size);
  p.title = title;
  p.heat = Tensor({g, g});
  std::copy_n(cls_row.begin() + 1, g * g, p.heat.data());
  p.heat_max = 0;
  for (float v : p.heat.values()) p.heat_max = std::max(p.heat_max, static_cast<double>(v));
  p.heat_label = label;
  p.width = width;
  return p;
}

namespace {

Heatmap sink_heatmap(const Tensor& share, const std::string& title, const std::string& subtitle) {
  Heatmap h;
  h.values = share;
  h.title = title;
  h.subtitle = subtitle;
  h.x_label = tr("head");
  h.y_label = tr("layer");
  h.row_labels = numbered("L", share.rows());
  h.col_labels = numbered("H", share.cols());
  h.vmin = 0;
  h.vmax = 1;
  h.value_label = tr("mean attention on position 0");
  return h;
}

Heatmap neuron_heatmap(const Tensor& v, const std::string& title, const std::vector<std::string>& rows) {
  Heatmap h;
  h.values = v;
  h.title = title;
  h.x_label = tr("dimension of the head");
  h.row_labels = rows;
  h.cmap = Colormap::bluered;
  h.symmetric = true;
  h.annotate = v.cols() <= 16;
  return h;
}

}  // namespace

Figure attention_sink_figure(const AttentionSinks& s, const std::string& first, const std::string& second, const std::string& title) {
  Figure f;
  f.title = title;
  f.panels.push_back(sink_heatmap(s.share, trf("“{}” first", first), trf("mean {:.3f}", s.mean)));
  f.panels.push_back(sink_heatmap(s.share_without_first, trf("without it: “{}” first", second), trf("mean {:.3f}", s.mean_without_first)));
  f.columns = 2;
  return f;
}

std::vector<std::string> numbered(const char* what, std::size_t n) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(fmt::format("{}{}", what, i));
  return out;
}

Figure neuron_view_figure(const NeuronView& v, const std::vector<std::string>& keys, const std::string& query_token,
                          const std::string& title) {
  const std::size_t hd = v.head_dim;
  Figure f;
  f.title = title;
  f.panels.push_back(neuron_heatmap(Tensor::from({1, hd}, v.q), tr("q"), {query_token}));
  f.panels.push_back(neuron_heatmap(v.k, tr("k of each key"), keys));
  f.panels.push_back(neuron_heatmap(v.qk, tr("q∘k (their sum is the score)"), keys));
  Bars s;
  const bool plain = std::abs(v.scale * std::sqrt(static_cast<double>(hd)) - 1) < 1e-6;
  s.title = v.softcap > 0 ? trf("{0:g}·tanh(Σ q∘k × {1:.4g} / {0:g})", v.softcap, v.scale)
            : plain       ? trf("Σ q∘k × 1/√{}", hd)
                          : trf("Σ q∘k × {:.4g}", v.scale);
  s.labels = keys;
  s.values = v.scores;
  s.horizontal = true;
  s.annotate = true;
  s.category_label = tr("key");
  s.value_label = tr("score");
  Bars w = s;
  w.title = tr("softmax");
  w.values = v.weights;
  w.vmin = 0;
  w.vmax = 1;
  w.color = 1;
  w.value_label = tr("attention weight");
  f.panels.push_back(std::move(s));
  f.panels.push_back(std::move(w));
  f.columns = 3;
  return f;
}

std::string kv_bytes_text(double b) {
  if (b >= 1024.0 * 1024 * 1024) return fmt::format("{:.2f} GiB", b / (1024.0 * 1024 * 1024));
  if (b >= 1024.0 * 1024) return fmt::format("{:.2f} MiB", b / (1024.0 * 1024));
  if (b >= 1024.0) return fmt::format("{:.1f} KiB", b / 1024.0);
  return fmt::format("{:.0f} B", b);
}

Records kv_cache_records(const ModelConfig& c, std::optional<std::size_t> len, const std::string& dir, bool this_run) {
  if (!c.decoder()) throw usage_error(fmt::format(N_("--cache: {} is an encoder ({}): it keeps no KV cache"), dir, c.model_type));
  if (const auto limit = c.position_limit(); len && limit && *len > *limit)
    throw usage_error(fmt::format(N_("--len {}: {}'s learned positions end at {} (max_position_embeddings)"), *len, dir, *limit));
  Records rec;
  rec.name = N_("kv_cache");
  rec.columns = {N_("dtype"), N_("attention"), N_("kv_heads"), N_("bytes per token per layer"), N_("bytes per token"),
                 trf("at {} positions", c.max_positions)};
  if (len) rec.columns.push_back(this_run ? trf("at {} positions (this run)", *len) : trf("at {} positions (--len)", *len));
  for (const bool grouped : {true, false}) {
    if (!grouped && c.kv_heads == c.heads) continue;  // the model is MHA already
    for (const auto& [dtype, bytes] : {std::pair<const char*, std::size_t>{"F32", 4}, {"BF16", 2}}) {
      const std::size_t per_token = kv_cache_bytes_per_token(c, bytes, grouped);
      const std::string how = c.kv_heads == c.heads ? tr("multi-head (the model's)")
                              : grouped              ? trf("grouped-query, {} query heads per KV head (the model's)", c.heads / c.kv_heads)
                                                     : tr("multi-head (if every head kept its own K, V)");
      std::vector<Cell> row = {std::string(dtype), how, static_cast<long long>(grouped ? c.kv_heads : c.heads),
                               static_cast<long long>(per_token / c.layers), static_cast<long long>(per_token),
                               kv_bytes_text(static_cast<double>(per_token) * static_cast<double>(c.max_positions))};
      if (len) row.push_back(kv_bytes_text(static_cast<double>(per_token) * static_cast<double>(*len)));
      rec.rows.push_back(std::move(row));
    }
  }
  return rec;
}

Figure model_attention_figure(const ModelConfig& c, const AttentionFigureSpec& s, std::optional<Heatmap>& view) {
  Figure fig;
  const std::size_t T = s.tokens.size();
  const bool one = s.layers.size() == 1 && s.heads.size() == 1;
  const bool thumbnails = s.layers.size() > 1 && s.heads.size() > 1;
  for (std::size_t li : s.layers)
    for (std::size_t hi : s.heads) {
      Tensor one_w({T, T});
      std::copy_n((*s.attentions)[li].data() + hi * T * T, T * T, one_w.data());
      if (s.picture) {  // an image model: the [CLS] row over the patches, on the picture
        fig.panels.push_back(model_patch_heat(
            c, *s.picture, one_w.row(0),
            one ? trf("{} — [CLS] attention, layer {} head {}", s.folder, li, hi) : fmt::format("L{} H{}", li, hi),
            tr("[CLS] attention weight"), one ? 448 : 240));
        if (one)
          std::get<Picture>(fig.panels.back()).subtitle = trf("{}, resized to {}×{}; {}×{} patches; patch k is token k + 1 ([CLS] is token 0)", s.image_file,
                                                              c.image_size, c.image_size, c.patch_size, c.patch_size);
        if (!view) view = model_attention_heatmap(one_w, s.tokens, fmt::format("L{} H{}", li, hi), true);
        continue;
      }
      Heatmap h = model_attention_heatmap(
          one_w, s.tokens,
          one ? trf("{} — attention, layer {} head {}", s.dir_file, li, hi)
              : fmt::format("L{} H{}", li, hi),
          // the model view's thumbnails are too small for labels: the first one carries them
          !thumbnails || fig.panels.empty());
      if (thumbnails) h.annotate = false;
      fig.panels.push_back(h);
      if (!view) view = h;
    }
  fig.columns = static_cast<int>(s.heads.size());
  fig.title = one ? ""
                  : s.picture ? trf("{}: the [CLS] row over the patches, {} layers × {} heads", s.folder, s.layers.size(), s.heads.size())
                  : thumbnails ? trf("Model view of {}: “{}”, {} layers (rows) × {} heads (columns); tokens on the first panel",
                                     s.folder, fmt::join(s.tokens, " "), s.layers.size(), s.heads.size())
                               : s.layers.size() == 1 ? trf("Layer {}: {} heads", s.layers[0], s.heads.size())
                                                    : trf("Head {} in {} layers", s.heads[0], s.layers.size());
  // an image model's panels: each its own heat scale (0 … its max), or with --shared-scale one
  // over them all, so panels compare; the title says which
  if (s.picture && fig.panels.size() > 1) {
    double shared = 0;
    for (const Panel& panel : fig.panels) shared = std::max(shared, std::get<Picture>(panel).heat_max);
    if (s.shared_scale)
      for (Panel& panel : fig.panels) std::get<Picture>(panel).heat_max = shared;
    fig.title += s.shared_scale ? trf("; one colour scale for every panel, 0 … {:.2g}", shared)
                                : tr("; each panel its own colour scale, 0 … its maximum (--shared-scale: one for all)");
  }
  return fig;
}

}  // namespace tfx
