// One self-contained, offline HTML page for attention weights (`--html FILE` on `tfx model
// attention` and `tfx attention`): BertViz's head view (two columns of tokens joined by lines whose
// opacity is the weight; hover a token to see only its lines; pick the layer and the heads) and the
// model view (every layer × head as a thumbnail heatmap; click one to open it in the head view).
// No network, no CDN, no Jupyter: the data, the style and the script are all in the file.
// Pure: returns the page's text; the command layer writes it with emit().
//
// Tokens reach the page only as text nodes (set through textContent) or inside the JSON data,
// where every '<', '>' and '&' is written as a \u escape, so a token such as "</script>" or
// "<img src=x onerror=…>" is shown, never run. Opening the page with "#selftest" appended runs a
// script that hovers, picks and clicks, and writes what was drawn as JSON into <pre id="selftest">
// (tests/python/check_attention_html.py reads it through headless Chromium).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tfx/core/tensor.hpp"

namespace tfx {

struct AttentionPage {
  std::string title, subtitle;
  std::vector<std::string> queries, keys;  // token labels: rows (T) and columns (S) of each head
  std::vector<std::string> layer_names;    // one per entry of weights, e.g. "layer 0"
  std::vector<std::string> head_names;     // one per head, e.g. "0"
  std::vector<Tensor> weights;             // per layer: (heads, T, S), each row a softmax
  std::size_t first_layer = 0;             // the layer the head view opens on (index into weights)
  std::optional<std::size_t> first_head;   // the head it opens on; none = all heads
  std::string footer;                      // e.g. the command that made the page
};

// Weights in one page at most (L·H·T·S): about 6 bytes each in the file.
inline constexpr std::size_t kMaxHtmlWeights = std::size_t{1} << 24;

// The page. Throws a usage error when the shapes disagree or the weights exceed kMaxHtmlWeights.
std::string attention_html(const AttentionPage& page);

}  // namespace tfx
