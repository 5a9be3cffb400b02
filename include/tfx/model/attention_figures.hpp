// The figures of `tfx model attention`: one head as a labelled heatmap, one layer's heads as a grid,
// every layer × head as the model view (thumbnails, the first one labelled) and, for an image model
// (ViT), the [CLS] row of each head as a heat overlay on the picture's patch grid.
#pragma once
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tfx/figure/figure.hpp"
#include "tfx/io/format.hpp"
#include "tfx/model/attention_views.hpp"
#include "tfx/model/checkpoint.hpp"

namespace tfx {

// A checkpoint folder by its last name ("bert-tiny", also for "…/bert-tiny/").
std::string model_folder_name(const std::string& dir);
// The words of a text split at spaces, tabs, newlines and commas (for file names).
std::vector<std::string> model_words_of(const std::string& text);

// One head's (T, T) weights as a heatmap on a 0–1 scale; `labels`: the tokens on both axes.
Heatmap model_attention_heatmap(const Tensor& w, const std::vector<std::string>& tokens, const std::string& title, bool labels);
// An image model's [CLS] row over the patches (T = 1 + g², weights row 0, columns 1 …) as the heat
// of the picture's grid.
Picture model_patch_heat(const ModelConfig& c, const Image& picture, std::span<const float> cls_row, const std::string& title,
                         const std::string& label, double width);

// The figure of `layers` × `heads` of the weights (attentions: L of (H, T, T)) over `tokens`;
// `picture`: an image model's input (then the [CLS] rows on it, each panel on its own heat scale, or
// one over all with shared_scale); `folder` the checkpoint's name, `dir_file` and `image_file` the
// file names the titles show. `view` gets the first heatmap (the terminal view).
struct AttentionFigureSpec {
  const std::vector<Tensor>* attentions = nullptr;
  std::vector<std::string> tokens;
  const Image* picture = nullptr;
  std::vector<std::size_t> layers, heads;
  std::string folder, dir_file, image_file;
  bool shared_scale = false;
};
Figure model_attention_figure(const ModelConfig& c, const AttentionFigureSpec& s, std::optional<Heatmap>& view);


// "L0", "L1", … (what = "L", n names)
std::vector<std::string> numbered(const char* what, std::size_t n);
// --sink's figure: every layer × head's share on position 0, with `first` first and without it.
Figure attention_sink_figure(const AttentionSinks& s, const std::string& first, const std::string& second, const std::string& title);
// --neurons' figure: q, k of each key, q∘k, the scaled scores and their softmax.
Figure neuron_view_figure(const NeuronView& v, const std::vector<std::string>& keys, const std::string& query_token,
                          const std::string& title);

// The KV cache's size for a checkpoint's config: per token per layer and over every layer, F32 and
// BF16, the model's grouping and MHA, at its context length and at `len` (when given: --len, or the
// positions of this run when `this_run`). `dir` names it.
Records kv_cache_records(const ModelConfig& c, std::optional<std::size_t> len, const std::string& dir, bool this_run = false);
// bytes as "12.0 KiB", "3.00 MiB", "1.50 GiB" (whole bytes below 1 KiB)
std::string kv_bytes_text(double bytes);

}  // namespace tfx
