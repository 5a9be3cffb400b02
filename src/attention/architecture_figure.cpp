#include "tfx/attention/architecture_figure.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "tfx/core/i18n.hpp"

namespace tfx {

std::string arch_join_tokens(const std::vector<std::string>& t) {
  std::string s;
  const std::size_t shown = std::min<std::size_t>(t.size(), 8);
  for (std::size_t i = 0; i < shown; ++i) s += (i ? " " : "") + t[i];
  if (shown < t.size()) s += " …";
  return s;
}

namespace {

// ---- the figure: columns of boxes bottom to top, in units of about 60 px at --scale 1

constexpr double kArchBoxW = 5.6, kArchBoxH = 0.8, kArchStep = 1.2, kArchPx = 60;

int arch_color(const std::string& kind) {
  if (kind == "embedding") return 6;
  if (kind == "positions") return 9;
  if (kind == "ffn") return 0;
  if (kind == "attention" || kind == "masked_attention" || kind == "cross_attention") return 1;
  if (kind == "linear") return 4;
  if (kind == "softmax") return 2;
  return 8;  // the norms and residual adds
}

struct ArchColumn {
  double x = 0;
  int residual_side = -1;  // residual connections on the left (−1) or right (+1) of the boxes
  double top = 0;          // the y of the last box's top edge
  double stack_bottom = 0, stack_top = 0;
  double cross_mid = -1;   // the y of the cross-attention box's middle (decoder of a seq2seq model)
  double bg_left = 0, bg_right = 0;
};

// Draws blocks whose stack is one of `stacks` up the column from y; returns the column's geometry.
ArchColumn arch_draw_column(Diagram& d, const std::vector<ArchBlock>& blocks, const std::vector<std::string>& stacks, double x, double y,
                            int residual_side, const std::string& bottom_title, const std::string& bottom_tokens) {
  ArchColumn col;
  col.x = x;
  col.residual_side = residual_side;
  d.labels.push_back({x, y - 0.55, bottom_title, -1, 0, true});
  d.labels.push_back({x, y - 1.0, bottom_tokens, 7, 0, false});
  double prev_top = y - 0.25;  // where the arrow into the next box starts
  double stack_start = -1;
  std::size_t layers = 1;
  std::vector<double> box_bottoms;
  std::vector<const ArchBlock*> shown;
  for (const ArchBlock& b : blocks)
    if (std::find(stacks.begin(), stacks.end(), b.stack) != stacks.end()) shown.push_back(&b);
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const ArchBlock& b = *shown[i];
    const bool in_stack = b.stack == "encoder" || b.stack == "decoder";
    double yb = prev_top + (kArchStep - kArchBoxH);
    if (in_stack && stack_start < 0) {
      yb += 0.35;  // room for the stack's frame
      stack_start = yb - 0.3;
      layers = b.layers;
    }
    if (!in_stack && stack_start >= 0 && col.stack_top == 0) {
      col.stack_bottom = stack_start;
      col.stack_top = prev_top + 0.3;
      yb += 0.35;
    }
    // the arrow into this box with the shape it carries
    d.arrows.push_back({x, prev_top, x, yb, -1, "", false, 0, true});
    // the shape beside the arrow, on the side away from the residual connections
    // (cross-attention: its query; K and V come in from the side as the encoder's memory)
    const std::string carried = b.kind == "cross_attention" ? "Q " + b.output : b.input;
    d.labels.push_back({x - residual_side * 0.15, (prev_top + yb) / 2, carried, 3, residual_side, false});
    d.boxes.push_back({x - kArchBoxW / 2, yb, kArchBoxW, kArchBoxH, b.name, arch_color(b.kind), b.detail});
    box_bottoms.push_back(yb);
    if (b.kind == "cross_attention") col.cross_mid = yb + kArchBoxH / 2;
    // a residual connection: from the input of the sublayer (post-LN) or of its norm (pre-LN) into the add
    if (b.kind == "add_norm" || b.kind == "add") {
      const std::size_t back = b.kind == "add_norm" ? 1 : 2;
      if (i >= back) {
        const double y0 = box_bottoms[i - back] - (kArchStep - kArchBoxH) / 2, ym = yb + kArchBoxH / 2;
        const double xs = x + residual_side * (kArchBoxW / 2 + 0.25), xe = x + residual_side * kArchBoxW / 2;
        d.arrows.push_back({x, y0, xs, y0, 7, "", false, 0, false});
        d.arrows.push_back({xs, y0, xs, ym, 7, "", false, 0, false});
        d.arrows.push_back({xs, ym, xe, ym, 7, "", false, 0, true});
      }
    }
    prev_top = yb + kArchBoxH;
  }
  if (stack_start >= 0 && col.stack_top == 0) {
    col.stack_bottom = stack_start;
    col.stack_top = prev_top + 0.3;
  }
  col.top = prev_top;
  col.bg_left = x - kArchBoxW / 2 - 0.5;
  col.bg_right = x + kArchBoxW / 2 + 0.5;
  if (stack_start >= 0) {
    // the stack's frame behind its boxes (boxes draw in order: put it first) and "N×" beside it
    d.boxes.insert(d.boxes.begin(), Diagram::Box{col.bg_left, col.stack_bottom, col.bg_right - col.bg_left, col.stack_top - col.stack_bottom, "", 7, ""});
    const double lx = residual_side < 0 ? col.bg_left - 0.2 : col.bg_right + 0.2;
    d.labels.push_back({lx, (col.stack_bottom + col.stack_top) / 2, fmt::format("{}×", layers), -1, residual_side < 0 ? 1 : -1, true});
  }
  return col;
}

}  // namespace

Figure arch_figure(const ArchModel& a, const std::vector<ArchBlock>& blocks) {
  const ArchitectureSpec& s = a.spec;
  Diagram d;
  const bool both = s.encoder_layers > 0 && s.decoder_layers > 0;
  const double xe = 0, xd = both ? 9.2 : 0;
  double top = 0, left = xe, right = xd;
  if (s.encoder_layers > 0) {
    std::vector<std::string> st{"input", "encoder"};
    if (!both) st.push_back("head");
    const ArchColumn enc = arch_draw_column(d, blocks, st, xe, 0, -1, tr("Inputs"),
                                            fmt::format("{} (S = {})", arch_join_tokens(a.source_tokens), a.source_tokens.size()));
    top = std::max(top, enc.top);
    left = enc.bg_left - 1.3;
    if (!both) right = enc.bg_right + 0.6;
    if (both) {
      // the encoder's output (memory) → K and V of every decoder layer's cross-attention, drawn after the decoder column
      ArchColumn dec = arch_draw_column(d, blocks, {"output", "decoder", "head"}, xd, 0, +1, tr("Outputs (shifted right)"),
                                        fmt::format("{} (T = {})", arch_join_tokens(a.target_tokens), a.target_tokens.size()));
      top = std::max(top, dec.top);
      right = dec.bg_right + 1.3;
      const double ym = enc.stack_top + 0.45, xm = (enc.bg_right + dec.bg_left) / 2;
      d.arrows.push_back({xe, enc.top, xe, ym, 5, "", false, 0, false});
      d.arrows.push_back({xe, ym, xm, ym, 5, "", false, 0, false});
      d.arrows.push_back({xm, ym, xm, dec.cross_mid, 5, "", false, 0, false});
      d.arrows.push_back({xm, dec.cross_mid, xd - kArchBoxW / 2, dec.cross_mid, 5, "", false, 0, true});
      d.labels.push_back({xe + 0.15, ym + 0.3, trf("memory ({}, {}) → K, V", s.source_len, s.d_model), 5, -1, false});
      top = std::max(top, ym + 0.3);
    }
  } else {
    const ArchColumn dec = arch_draw_column(d, blocks, {"input", "decoder", "head"}, xd, 0, -1, tr("Inputs"),
                                            fmt::format("{} (T = {})", arch_join_tokens(a.source_tokens), a.source_tokens.size()));
    top = dec.top;
    left = dec.bg_left - 1.3;
    right = dec.bg_right + 0.6;
  }
  // the output on top of the last column
  const double xo = both || s.decoder_layers > 0 ? xd : xe;
  const std::size_t n = s.decoder_layers > 0 && both ? s.target_len : s.source_len;
  const std::string out_shape = s.output_head ? fmt::format("({}, {})", n, s.vocab) : fmt::format("({}, {})", n, s.d_model);
  d.arrows.push_back({xo, top, xo, top + 0.55, -1, "", false, 0, true});
  d.labels.push_back({xo, top + 0.85, s.output_head ? trf("Output probabilities {}", out_shape) : trf("Hidden states {}", out_shape), -1, 0, true});
  d.x0 = left;
  d.x1 = right;
  d.y0 = -1.35;
  // what the attention boxes do beyond their sizes (a sliding window, a cap): one line under the inputs
  if (!s.attention_note.empty()) {
    d.labels.push_back({(left + right) / 2, -1.55, trf("attention: {}", s.attention_note), -1, 0, false});
    d.y0 = -1.85;
  }
  d.y1 = top + 1.2;
  d.size = kArchPx * std::max(d.x1 - d.x0, d.y1 - d.y0);
  d.title = trf("Transformer architecture: {}", a.name);
  d.subtitle = trf("{}; d_model = {}, {} heads (d_k = {}), FFN {}, vocabulary {}; (rows, columns) on every arrow", a.kind, s.d_model, s.heads,
                   s.head_dim ? s.head_dim : s.d_model / s.heads, s.ffn, s.vocab);
  Figure f;
  f.panels.push_back(std::move(d));
  return f;
}

}  // namespace tfx
