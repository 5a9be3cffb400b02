// `tfx train --gif / --watch` (train_watch.hpp): the watched sentence, the frames captured while
// training, and their figures and table.
#include "tfx/model/train_watch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "tfx/core/words.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/core/stats.hpp"
#include "tfx/text/unicode.hpp"

namespace tfx {

namespace {

// At most this many words in the PCA panel (the most frequent source words of the training pairs).
constexpr std::size_t kWatchPcaWords = 48;

}  // namespace

WatchPlan plan_watch(const std::string* watch, const std::vector<TextPair>& pairs, const std::vector<std::string>& vocab,
                     bool builtin, std::size_t steps, std::size_t frames) {
  WatchPlan p;
  std::unordered_map<std::string, std::size_t> ids;
  for (std::size_t i = 4; i < vocab.size(); ++i) ids.emplace(vocab[i], i);  // not the specials <pad> <bos> <eos> <unk>
  // 1. the sentence: --watch, else a fixed one of the data
  if (watch) {
    p.words = split_words(unicode::nfc_utf8(*watch));  // NFC, as the pairs
    if (p.words.empty()) throw usage_error(N_("--watch is empty; expected a sentence of the training data's source language"));
  } else if (builtin) {
    p.words = {"그녀는", "커피를", "마셨다"};
  } else {
    const TextPair* first = &pairs.front();
    for (const TextPair& t : pairs)
      if (t.test) {
        first = &t;
        break;
      }
    p.words = first->source;
  }
  std::vector<std::string> unknown;
  for (const std::string& w : p.words) {
    const auto it = ids.find(w);
    if (it == ids.end()) {
      if (std::find(unknown.begin(), unknown.end(), w) == unknown.end()) unknown.push_back(w);
      continue;
    }
    p.ids.push_back(it->second);
  }
  if (!unknown.empty()) {
    std::string list;
    for (const auto& w : unknown) list += (list.empty() ? "\"" : ", \"") + w + "\"";
    const std::string where = builtin ? std::string("the built-in corpus") : std::string(N_("the --pairs file"));
    const std::string example = join_words(builtin ? std::vector<std::string>{"그녀는", "커피를", "마셨다"} : pairs.front().source);
    const std::string text = watch ? *watch : join_words(p.words);
    throw usage_error(unknown.size() == 1
                          ? fmt::format(N_("--watch \"{}\": {} is not in the vocabulary ({}); expected words of the training pairs' "
                                           "source side, such as \"{}\""),
                                        text, list, where, example)
                          : fmt::format(N_("--watch \"{}\": {} are not in the vocabulary ({}); expected words of the training pairs' "
                                           "source side, such as \"{}\""),
                                        text, list, where, example));
  }
  // 2. its reference, when the data has the sentence as a pair (training or held out)
  for (const TextPair& t : pairs)
    if (t.source == p.words) {
      p.has_reference = true;
      p.reference = t.target;
      p.alignment = t.alignment;
      for (const auto& w : t.target) p.reference_ids.push_back(ids.count(w) ? ids.at(w) : 3);
      break;
    }
  // 3. the PCA panel's words: the training pairs' source words, most frequent first (ties: first seen)
  std::unordered_map<std::string, std::size_t> count, first_seen;
  std::vector<std::string> order;
  for (const TextPair& t : pairs) {
    if (t.test) continue;
    for (const auto& w : t.source) {
      if (!ids.count(w)) continue;
      if (!count.count(w)) {
        first_seen[w] = order.size();
        order.push_back(w);
      }
      ++count[w];
    }
  }
  std::stable_sort(order.begin(), order.end(), [&](const std::string& a, const std::string& b) { return count[a] > count[b]; });
  if (order.size() > kWatchPcaWords) order.resize(kWatchPcaWords);
  for (const auto& w : order) {
    p.pca_words.push_back(w);
    p.pca_ids.push_back(ids.at(w));
  }
  // 4. the capture steps from the initial weights to the last step, s_k = round(steps · (k / (F − 1))²):
  // denser early, where attention forms (within the first few hundred steps on the built-in
  // corpus), each at least one step after the one before and leaving room for the rest; four
  // captures per frame kept, of which select_frames_by_change keeps those where the model changes
  p.frames = std::min(frames, steps + 1);
  const std::size_t F = std::min(4 * p.frames, steps + 1);
  for (std::size_t k = 0; k < F; ++k) {
    const double t = F == 1 ? 1.0 : double(k) / double(F - 1);
    std::size_t s = static_cast<std::size_t>(std::llround(double(steps) * t * t));
    if (k > 0) s = std::max(s, p.steps.back() + 1);
    s = std::min(s, steps - (F - 1 - k));
    p.steps.push_back(s);
  }
  return p;
}

void select_frames_by_change(std::vector<WatchFrame>& frames, std::size_t count) {
  if (frames.size() <= count || count < 2) return;
  const std::size_t n = frames.size();
  const Tensor& last = frames.back().embedding;
  double last_norm = 0;
  for (float v : last.values()) last_norm += double(v) * v;
  last_norm = std::sqrt(last_norm);
  std::vector<double> cumulative(n, 0.0);
  for (std::size_t i = 1; i < n; ++i) {
    const WatchFrame &a = frames[i - 1], &b = frames[i];
    double change = 0;
    if (a.attention.shape() == b.attention.shape() && a.rows == b.rows) {
      for (std::size_t k = 0; k < a.attention.size(); ++k) change += std::abs(double(a.attention[k]) - double(b.attention[k]));
      change /= double(std::max<std::size_t>(1, a.attention.rows()));
    } else {
      change = 1;
    }
    double e = 0;
    for (std::size_t k = 0; k < a.embedding.size(); ++k) e += std::pow(double(a.embedding[k]) - double(b.embedding[k]), 2);
    change += last_norm > 0 ? std::sqrt(e) / last_norm : 0;
    cumulative[i] = cumulative[i - 1] + change;
  }
  // frame k: the first capture whose cumulative change reaches k/(count − 1) of the whole, after the
  // previous one and leaving a capture for each frame still to come
  std::vector<std::size_t> keep{0};
  for (std::size_t k = 1; k + 1 < count; ++k) {
    const double target = cumulative.back() * double(k) / double(count - 1);
    std::size_t i = keep.back() + 1;
    while (i < n - (count - k) && cumulative[i] < target) ++i;
    keep.push_back(i);
  }
  keep.push_back(n - 1);
  std::vector<WatchFrame> kept;
  std::size_t from = 1;  // the first capture whose steps have not joined a kept frame
  for (std::size_t i : keep) {
    WatchFrame f = std::move(frames[i]);
    if (i > 0) {
      double sum = 0, steps = 0;
      for (std::size_t j = from; j <= i; ++j) {
        const double w = double(frames[j].step + 1 - frames[j].loss_from);
        sum += (j == i ? f.loss : frames[j].loss) * w;
        steps += w;
      }
      f.loss_from = frames[from].loss_from;
      f.loss = steps > 0 ? sum / steps : f.loss;
      from = i + 1;
    }
    kept.push_back(std::move(f));
  }
  frames = std::move(kept);
}

WatchFrame capture_watch(const WatchPlan& plan, const TrainConfig& c, const TensorMap& params, const std::vector<std::string>& vocab,
                         std::size_t layer, std::size_t step) {
  WatchFrame f;
  f.step = step;
  // the model's own translation, greedy, at most twice the source's length and two
  const std::vector<std::size_t> said = train_greedy(c, params, plan.ids, 2 * plan.ids.size() + 2);
  for (std::size_t id : said) f.said.push_back(vocab[id]);
  const std::vector<std::size_t>& rows = plan.has_reference ? plan.reference_ids : said;
  f.rows = plan.has_reference ? plan.reference : f.said;
  f.rows.push_back("<eos>");
  f.attention = train_cross_attention(c, params, plan.ids, rows, layer);
  // sharpness over the word rows (the <eos> row only when there is no word)
  const std::size_t R = rows.empty() ? 1 : rows.size(), S = plan.ids.size();
  Tensor words({R, S});
  std::copy(f.attention.data(), f.attention.data() + R * S, words.data());
  f.sharpness = attention_sharpness(words, plan.has_reference ? plan.alignment : std::vector<int>{});
  // the embedding rows of the PCA words
  const Tensor& e = params.at("embedding.weight");
  f.embedding = Tensor({plan.pca_ids.size(), c.d_model});
  for (std::size_t i = 0; i < plan.pca_ids.size(); ++i)
    std::copy(e.data() + plan.pca_ids[i] * c.d_model, e.data() + (plan.pca_ids[i] + 1) * c.d_model, f.embedding.data() + i * c.d_model);
  return f;
}

std::vector<Figure> watch_figures(const WatchPlan& plan, const std::vector<WatchFrame>& frames, const TrainConfig& c, std::size_t layer,
                                  std::size_t total_steps) {
  // the axes: the first two principal components of the last frame's rows (fixed for every frame)
  const std::size_t n = plan.pca_ids.size(), D = c.d_model;
  const bool scatter = n >= 2 && D >= 2 && !frames.empty();
  Pca axes;
  if (scatter) axes = pca(frames.back().embedding, 2);
  std::vector<Figure> figures;
  const std::string sentence = join_words(plan.words);
  for (const WatchFrame& f : frames) {
    Figure fig;
    fig.columns = 2;
    fig.title = f.step == 0 ? trf("Watching \"{}\" learn: step 0 of {} (initial random weights), loss {:.3f}", sentence, total_steps, f.loss)
                            : trf("Watching \"{}\" learn: step {} of {}, training loss {:.3f}", sentence, f.step, total_steps, f.loss);
    Heatmap h;
    h.values = f.attention;
    h.row_labels = f.rows;
    h.col_labels = plan.words;
    h.vmin = 0.0;
    h.vmax = 1.0;
    h.title = trf("Cross-attention, decoder layer {} (mean of {} heads)", layer + 1, c.heads);
    const std::string said = f.said.empty() ? std::string("∅") : join_words(f.said);
    h.subtitle = plan.has_reference ? trf("rows: the reference, teacher-forced; the model says \"{}\"", said)
                                    : trf("rows: the model's own greedy translation \"{}\"", said);
    h.x_label = tr("source word (attended to)");
    h.y_label = tr("target word being predicted");
    h.value_label = tr("attention weight");
    fig.panels.push_back(std::move(h));
    if (scatter) {
      // x' = (x − mean_last) · PCᵀ
      Scatter s;
      s.title = trf("Embeddings of {} source words", n);
      s.subtitle = trf("on the last step's first two principal components ({:.0f} % + {:.0f} % of its variance)",
                       100 * axes.explained_ratio[0], 100 * axes.explained_ratio[1]);
      s.x_label = "PC1";
      s.y_label = "PC2";
      for (std::size_t i = 0; i < n; ++i) {
        const float* x = f.embedding.data() + i * D;
        double p[2] = {0, 0};
        for (std::size_t j = 0; j < 2; ++j)
          for (std::size_t d = 0; d < D; ++d) p[j] += (double(x[d]) - axes.mean[d]) * axes.components.data()[j * D + d];
        s.points.push_back({p[0], p[1], plan.pca_words[i]});
      }
      fig.panels.push_back(std::move(s));
    }
    figures.push_back(std::move(fig));
  }
  return figures;
}

Records watch_table(const WatchPlan& plan, const std::vector<WatchFrame>& frames) {
  Records t;
  t.name = N_("watch");
  t.columns = {N_("step"), N_("loss"), N_("translation"), N_("attention_entropy")};
  const bool gold = plan.has_reference && !frames.empty() && frames.front().sharpness.aligned > 0;
  if (gold) t.columns.push_back(N_("gold_attention"));
  for (const WatchFrame& f : frames) {
    t.rows.push_back({static_cast<long long>(f.step), f.loss, join_words(f.said), f.sharpness.entropy});
    if (gold) t.rows.back().push_back(f.sharpness.gold_mass);
  }
  return t;
}

void check_watch_gif_size(double n, double scale) {
  const double frame_pixels = 1500.0 * 640.0 * scale * scale;
  if (n * frame_pixels > double(kMaxGifPixels))
    throw usage_error(fmt::format(N_("--gif: {} frames at --scale {} would pass {} megapixels; use fewer --frames or a smaller --scale"),
                                  static_cast<long long>(n), scale, kMaxGifPixels >> 20));
}

std::size_t train_recorded(const TrainConfig& c, TensorMap& params, const IdPairs& data, const TrainOptions& to, std::size_t every,
                           std::size_t align_layer, bool alignment, const WatchPlan* plan, const std::vector<std::string>& vocab,
                           TrainRecord& rec, const TrainProgress& progress) {
  double watch_loss = 0;
  std::size_t watch_n = 0;
  std::vector<WatchFrame>& frames = rec.frames;
  if (plan) frames.push_back(capture_watch(*plan, c, params, vocab, align_layer, 0));
  double loss_sum = 0;
  std::size_t loss_n = 0;
  rec.curve.name = N_("curve");
  rec.curve.columns = {N_("step"), N_("loss"), N_("learning_rate"), N_("held_out_exact")};
  if (alignment) rec.curve.columns.push_back(N_("alignment"));
  rec.step_loss.name = tr("training loss (each step)");
  rec.exact.name = tr("held-out exact match");
  rec.alignment.name = trf("alignment (decoder layer {})", align_layer + 1);
  auto on_step = [&](const TrainStepReport& r) {
    rec.step_loss.x.push_back(double(r.step));
    rec.step_loss.y.push_back(r.loss);
    rec.tokens += r.tokens;
    loss_sum += r.loss;
    ++loss_n;
    if (plan) {
      // step 1's loss is computed on the initial weights: frame 0's loss
      if (r.step == 1) frames.front().loss = r.loss;
      watch_loss += r.loss;
      ++watch_n;
      if (frames.size() < plan->steps.size() && r.step == plan->steps[frames.size()]) {
        frames.push_back(capture_watch(*plan, c, params, vocab, align_layer, r.step));
        frames.back().loss = watch_loss / double(watch_n);
        frames.back().loss_from = r.step + 1 - watch_n;
        watch_loss = 0;
        watch_n = 0;
      }
    }
    if (held_out_checkpoint(r.step, every, to.steps)) {
      const HeldOutScore s = score_held_out(c, params, data.test, align_layer, to.threads);
      rec.last_score = s;
      rec.last_scored = r.step;
      rec.curve.rows.push_back({static_cast<long long>(r.step), loss_sum / double(loss_n), r.learning_rate, s.exact_fraction()});
      if (alignment) rec.curve.rows.back().push_back(s.alignment_fraction());
      rec.exact.x.push_back(double(r.step));
      rec.exact.y.push_back(s.exact_fraction());
      rec.alignment.x.push_back(double(r.step));
      rec.alignment.y.push_back(s.alignment_fraction());
      progress(r, &s, loss_sum / double(loss_n));
      loss_sum = 0;
      loss_n = 0;
    } else {
      progress(r, nullptr, NAN);
    }
    return true;
  };
  const std::size_t done = train_model(c, params, data.train, to, on_step);
  if (plan) select_frames_by_change(frames, plan->frames);
  return done;
}

}  // namespace tfx
