// `tfx train gpt --gif` frames (tfx/model/gpt2_watch.hpp).
#include "tfx/model/gpt2_watch.hpp"

#include <cmath>

#include "tfx/core/i18n.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/family.hpp"
#include "tfx/model/train_files.hpp"

namespace tfx {

Tensor gpt2_attention(const Gpt2TrainConfig& c, const TensorMap& params, const std::vector<std::size_t>& ids, std::size_t layer,
                      std::size_t head) {
  const std::size_t from = ids.size() > c.context ? ids.size() - c.context : 0;
  const std::vector<std::size_t> window(ids.begin() + static_cast<std::ptrdiff_t>(from), ids.end());
  const Checkpoint m = gpt2_checkpoint(c, params);
  ForwardOptions o;
  o.logits = LogitRows::none;
  o.keep_attentions = true;
  o.keep_hidden = false;
  const ForwardPass f = m.config.family->forward(m, window, o);
  const Tensor& a = f.attentions.at(layer);  // (heads, T, T)
  const std::size_t T = window.size();
  Tensor out({T, T});
  for (std::size_t i = 0; i < T; ++i)
    for (std::size_t j = 0; j < T; ++j) out(i, j) = a[(head * T + i) * T + j];
  return out;
}

Figure gpt2_watch_frame(const Gpt2TrainConfig& c, const TensorMap& params, const HfTokenizer& tok, const std::vector<std::size_t>& prompt,
                        const std::vector<std::size_t>& sample, std::size_t step, std::size_t steps, double loss) {
  std::vector<std::size_t> ids = prompt;
  ids.insert(ids.end(), sample.begin(), sample.end());
  if (ids.size() > c.context) ids.erase(ids.begin(), ids.end() - static_cast<std::ptrdiff_t>(c.context));
  Heatmap h;
  h.values = gpt2_attention(c, params, ids, c.layers - 1, 0);
  const std::size_t T = ids.size();
  for (std::size_t id : ids) h.row_labels.push_back(tok.readable(id));
  h.col_labels = h.row_labels;
  h.masked.assign(T * T, 0);
  for (std::size_t i = 0; i < T; ++i)
    for (std::size_t j = i + 1; j < T; ++j) h.masked[i * T + j] = 1;
  h.vmin = 0;
  h.vmax = 1;
  h.annotate = false;
  h.x_label = tr("key");
  h.y_label = tr("query");
  h.value_label = tr("attention weight");
  h.title = std::isfinite(loss) ? trf("step {} of {}: loss {:.3f}", step, steps, loss) : trf("step {} of {}: the initial weights", step, steps);
  std::string text = gpt2_sample_text(tok, sample);
  if (text.size() > 90) {  // cut at a character's first byte
    std::size_t n = 87;
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
    text = text.substr(0, n) + "…";
  }
  h.subtitle = trf("greedy sample: {}", text);
  Figure f;
  f.title = trf("train gpt: layer {} head 0 over the prompt and its greedy sample", c.layers - 1);
  f.panels.push_back(std::move(h));
  return f;
}

Figure gpt2_training_figure(const Series& step_loss, const Series& held_out, std::size_t steps, const Gpt2TrainConfig& c, std::size_t batch,
                            const std::string& name) {
  LineChart loss;
  loss.title = tr("Training loss");
  loss.subtitle = trf("{} steps of {} sequences of {} tokens", steps, batch, c.context);
  loss.x_label = tr("training step");
  loss.y_label = tr("loss (cross-entropy)");
  loss.series.push_back(step_loss);
  if (!held_out.x.empty()) loss.series.push_back(held_out);
  Figure figure;
  figure.panels.push_back(std::move(loss));
  figure.title = trf("tfx train gpt: {}", name);
  return figure;
}

std::vector<Figure> pick_frames(std::vector<Figure> all, std::size_t frames) {
  if (frames < 2 || all.size() <= frames) return all;
  std::vector<Figure> out;
  for (std::size_t k = 0; k < frames; ++k) out.push_back(std::move(all[k * (all.size() - 1) / (frames - 1)]));
  return out;
}

}  // namespace tfx
