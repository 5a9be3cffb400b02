// `tfx train --compare` (tfx/model/train_compare.hpp): the runs one after another, each from the same seed
// (the same initial weights where the shapes agree, the same batch order), measured on one fixed
// probe batch (the first training pairs) at initialization and at every held-out checkpoint.
#include "tfx/model/train_compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <cmath>
#include <numeric>
#include <set>

#include "core/parallel.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/core/words.hpp"

namespace tfx {

const std::vector<std::string>& compare_experiment_names() {
  static const std::vector<std::string> names = {"pe",      "no-pe",   "scale",     "no-scale", "post-ln", "pre-ln",
                                                 "warmup",  "no-warmup", "sinusoidal", "learned", "rope",   "none"};
  return names;
}

namespace {

std::vector<std::string> tc_split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (true) {
    const std::size_t at = s.find(sep, from);
    out.push_back(s.substr(from, at == std::string::npos ? std::string::npos : at - from));
    if (at == std::string::npos) return out;
    from = at + 1;
  }
}

// One experiment name applied to a run (the names are checked by the validator).
void tc_apply(const std::string& name, TrainConfig& c, TrainOptions& o) {
  if (name == "pe" || name == "sinusoidal") c.pe = PositionalEncoding::sinusoidal;
  if (name == "no-pe" || name == "none") c.pe = PositionalEncoding::none;
  if (name == "learned") c.pe = PositionalEncoding::learned;
  if (name == "rope") c.pe = PositionalEncoding::rope;
  if (name == "scale") c.scale_scores = true;
  if (name == "no-scale") c.scale_scores = false;
  if (name == "post-ln") c.pre_ln = false;
  if (name == "pre-ln") c.pre_ln = true;
  if (name == "warmup") o.no_warmup = false;
  if (name == "no-warmup") o.no_warmup = true;
}

}  // namespace

std::string compare_item_error(const std::string& item) {
  const auto& known = compare_experiment_names();
  for (const std::string& name : tc_split(item, '+'))
    if (std::find(known.begin(), known.end(), name) == known.end())
      return fmt::format(N_("expected a comma list of experiments ({}), joined by + to combine, got '{}'"), join_words(known, ", "), name);
  return {};
}

void check_compare_list(const std::vector<std::string>& items) {
  std::set<std::string> seen;
  for (const std::string& item : items)
    if (!seen.insert(item).second) throw usage_error(fmt::format(N_("--compare: '{}' is listed twice"), item));
  if (items.size() < 2 || items.size() > 8)
    throw usage_error(fmt::format(N_("--compare: expected 2 to 8 experiments, got {}"), items.size()));
}

std::vector<CompareRun> compare_runs(const std::vector<std::string>& items, const TrainConfig& base, const TrainOptions& base_options) {
  std::vector<CompareRun> runs;
  for (const std::string& item : items) {
    CompareRun r{item, base, base_options};
    for (const std::string& name : tc_split(item, '+')) tc_apply(name, r.config, r.options);
    runs.push_back(std::move(r));
  }
  return runs;
}

namespace {

// ||∂loss/∂W|| of every layer's FFN output weight (linear2.weight), encoder layers then decoder
// layers: the quantity of Xiong et al. 2020, figure 3.
std::vector<double> tc_layer_grad_norms(const TrainConfig& c, const TensorMap& grads) {
  std::vector<double> out;
  for (const char* side : {"encoder", "decoder"})
    for (std::size_t l = 0; l < c.layers; ++l) {
      const Tensor& g = grads.at(fmt::format("{}.layers.{}.linear2.weight", side, l));
      double s = 0;
      for (float v : g.values()) s += double(v) * v;
      out.push_back(std::sqrt(s));
    }
  return out;
}

struct TcStats {
  double loss = 0, entropy = 0, score_gradient = 0;
  std::vector<double> layer_grads;
};

// One forward and backward pass over the probe batch (no update).
TcStats tc_measure(const TrainConfig& c, const TensorMap& params, const TrainBatch& probe, unsigned threads) {
  TensorMap grads;
  ForwardExtras ex;
  ex.want_attention_stats = true;
  TcStats s;
  s.loss = train_loss(c, params, probe, &grads, threads, &ex);
  s.entropy = ex.attention_entropy;
  s.score_gradient = ex.score_gradient_norm;
  s.layer_grads = tc_layer_grad_norms(c, grads);
  return s;
}

}  // namespace

void add_length_results(Result& r, const std::vector<IdPair>& test, const HeldOutScore& score, std::size_t train_max_len) {
  Records by_length;
  by_length.name = N_("by_length");
  by_length.columns = {N_("length"), N_("pairs"), N_("held_out_exact"), N_("first_n_right")};
  for (const LengthScore& l : exact_by_length(test, score, train_max_len)) {
    std::vector<Cell> row;  // (not a braced list: g++ 12 warns of a maybe-uninitialized string in the variants)
    row.emplace_back(static_cast<long long>(l.length));
    row.emplace_back(static_cast<long long>(l.pairs));
    row.emplace_back(l.fraction());
    row.emplace_back(l.first_fraction());
    by_length.rows.push_back(std::move(row));
  }
  r.blocks.push_back(Text{trf("held-out exact match by source length (trained on sentences of at most {} words; longer ones are "
                              "new lengths); first_n_right: the first {} target words right",
                              train_max_len, train_max_len)});
  r.blocks.push_back(std::move(by_length));
}

Result run_compare(const std::vector<CompareRun>& runs, const CompareSetup& setup, Figure* figure) {
  const IdPairs& data = *setup.data;
  const bool has_alignment = !data.test.empty() && !data.test[0].alignment.empty();
  // the probe batch: the first training pairs, the same for every run
  std::vector<std::size_t> first(std::min<std::size_t>(32, data.train.size()));
  std::iota(first.begin(), first.end(), 0);
  const TrainBatch probe = make_train_batch(data.train, first, runs.front().config.pad);

  std::vector<std::string> names;
  for (const CompareRun& run : runs) names.push_back(run.name);
  const std::string list = join_words(names, ",");
  const std::string context = setup.context.empty() ? "" : " " + setup.context;

  Records table, curves, layer_table;
  table.name = N_("compare");
  table.columns = {N_("experiment"), N_("final_loss"), N_("held_out_exact")};
  if (has_alignment) table.columns.push_back(N_("alignment"));
  for (const char* c : {N_("entropy_init"), N_("entropy_final"), N_("score_grad_init"), N_("score_grad_final"),
                        N_("grad_last_over_first")})
    table.columns.push_back(c);
  curves.name = N_("curves");
  curves.columns = {N_("experiment"), N_("step"), N_("loss"), N_("held_out_exact"), N_("alignment"), N_("attention_entropy"),
                    N_("score_gradient")};
  layer_table.name = N_("grad_norms_at_init");
  layer_table.columns = {N_("experiment"), N_("part"), N_("layer"), N_("grad_norm")};

  LineChart loss, acc, layers, entropy, score, by_length_chart, first_chart;
  // --train-max-len: each run's held-out exact match per source length (at the last step)
  std::vector<std::vector<LengthScore>> by_length;
  // One run's rows and curves, made apart so that runs can train side by side.
  struct Outcome {
    std::vector<std::vector<Cell>> layer_rows, curve_rows;
    std::vector<Cell> row;
    Series s_loss, s_acc, s_layers, s_entropy, s_score, s_len, s_first;
    std::vector<LengthScore> lengths;
    bool has_lengths = false;
  };
  std::mutex progress_mutex;  // the runs' progress lines, one at a time
  auto train_one = [&](const CompareRun& run, unsigned threads) {
    Outcome o;
    const TrainConfig& c = run.config;
    TrainOptions options = run.options;
    options.threads = threads;
    TensorMap params = init_train_parameters(c, options.seed);
    const TcStats init = tc_measure(c, params, probe, threads);
    for (std::size_t i = 0; i < init.layer_grads.size(); ++i)
      o.layer_rows.push_back({run.name, std::string(i < c.layers ? "encoder" : "decoder"), static_cast<long long>(i % c.layers + 1),
                              init.layer_grads[i]});
    o.curve_rows.push_back({run.name, 0LL, init.loss, std::string(), std::string(), init.entropy, init.score_gradient});
    o.s_loss.name = o.s_acc.name = o.s_layers.name = o.s_entropy.name = o.s_score.name = run.name;
    for (std::size_t i = 0; i < init.layer_grads.size(); ++i) {
      o.s_layers.x.push_back(double(i + 1));
      o.s_layers.y.push_back(init.layer_grads[i]);
    }
    // initialization is drawn at step 1 of the log axes
    o.s_entropy.x.push_back(1);
    o.s_entropy.y.push_back(init.entropy);
    o.s_score.x.push_back(1);
    o.s_score.y.push_back(init.score_gradient);

    double loss_sum = 0, last_loss = 0;
    std::size_t loss_n = 0;
    HeldOutScore last;
    TcStats now = init;
    const std::size_t steps = options.steps;
    train_model(c, params, data.train, options, [&](const TrainStepReport& r) {
      loss_sum += r.loss;
      ++loss_n;
      if (!held_out_checkpoint(r.step, setup.every, steps)) return true;
      last = score_held_out(c, params, data.test, c.layers >= 2 ? 1 : 0, threads);
      now = tc_measure(c, params, probe, threads);
      last_loss = loss_sum / double(loss_n);
      loss_sum = 0;
      loss_n = 0;
      o.curve_rows.push_back({run.name, static_cast<long long>(r.step), last_loss,
                              data.test.empty() ? Cell(std::string()) : Cell(last.exact_fraction()),
                              has_alignment ? Cell(last.alignment_fraction()) : Cell(std::string()), now.entropy, now.score_gradient});
      for (Series* s : {&o.s_loss, &o.s_acc, &o.s_entropy, &o.s_score}) s->x.push_back(double(r.step));
      o.s_loss.y.push_back(last_loss);
      o.s_acc.y.push_back(last.exact_fraction());
      o.s_entropy.y.push_back(now.entropy);
      o.s_score.y.push_back(now.score_gradient);
      return true;
    });
    // the decoder's last layer (next to the output) over its first
    const double ratio = init.layer_grads[2 * c.layers - 1] / std::max(init.layer_grads[c.layers], 1e-30);
    // nothing held out (--pairs with --test-fraction 0): no score, not 0 %
    const Cell exact = data.test.empty() ? Cell(std::string()) : Cell(last.exact_fraction());
    o.row = {run.name, last_loss, exact};
    if (has_alignment) o.row.push_back(last.alignment_fraction());
    for (double v : {init.entropy, now.entropy, init.score_gradient, now.score_gradient, ratio}) o.row.push_back(v);
    if (setup.train_max_len > 0 && !data.test.empty()) {
      o.has_lengths = true;
      o.lengths = exact_by_length(data.test, last, setup.train_max_len);
      o.s_len.name = o.s_first.name = run.name;
      for (const LengthScore& l : o.lengths) {
        o.s_len.x.push_back(double(l.length));
        o.s_len.y.push_back(l.fraction());
        o.s_first.x.push_back(double(l.length));
        o.s_first.y.push_back(l.first_fraction());
      }
    }
    if (setup.progress) {
      const std::lock_guard<std::mutex> lock(progress_mutex);
      setup.progress(trf("--compare {}: loss {:.4f}, held-out exact {:.1f} %", run.name, last_loss, 100 * last.exact_fraction()));
    }
    return o;
  };
  // --threads splits the runs: with T threads and R runs, min(R, T) runs train at once, each on
  // T / min(R, T) threads. A run's numbers do not depend on its thread count (each entry and each
  // sentence is computed the same way whichever thread does it), so they are the run alone's.
  const unsigned T = runs.front().options.threads == 0 ? hardware_threads() : runs.front().options.threads;
  const std::size_t at_once = std::max<std::size_t>(1, std::min<std::size_t>(runs.size(), T));
  const unsigned each = std::max(1u, static_cast<unsigned>(T / at_once));
  std::vector<Outcome> outcomes(runs.size());
  std::vector<std::exception_ptr> errors(runs.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < runs.size(); i = next++) {
      try {
        outcomes[i] = train_one(runs[i], each);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  {
    std::vector<std::thread> pool;
    for (std::size_t k = 1; k < at_once; ++k) pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool) t.join();
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  for (Outcome& o : outcomes) {
    for (auto& row : o.layer_rows) layer_table.rows.push_back(std::move(row));
    for (auto& row : o.curve_rows) curves.rows.push_back(std::move(row));
    table.rows.push_back(std::move(o.row));
    if (o.has_lengths) {
      by_length.push_back(std::move(o.lengths));
      by_length_chart.series.push_back(std::move(o.s_len));
      first_chart.series.push_back(std::move(o.s_first));
    }
    loss.series.push_back(std::move(o.s_loss));
    acc.series.push_back(std::move(o.s_acc));
    layers.series.push_back(std::move(o.s_layers));
    entropy.series.push_back(std::move(o.s_entropy));
    score.series.push_back(std::move(o.s_score));
  }

  Result r;
  r.command = "train";
  const CompareRun& base = runs.front();
  r.params = {{"compare", list}, {"steps", base.options.steps}, {"batch", base.options.batch}, {"seed", base.options.seed},
              {"d_model", base.config.d_model}, {"heads", base.config.heads}, {"layers", base.config.layers},
              {"ffn", base.config.ffn}, {"warmup", base.options.warmup}, {"threads", base.options.threads}};
  r.blocks.push_back(Text{trf("tfx train --compare {}{}: {} runs from seed {} on the same batches", list, context, runs.size(),
                              base.options.seed)});
  r.blocks.push_back(Text{trf("trained on {}: {} training pairs, {} held out; d_model {}, {} heads, {} + {} layers, {} steps of {} pairs",
                              setup.data_name, data.train.size(), data.test.size(), base.config.d_model, base.config.heads,
                              base.config.layers, base.config.layers, base.options.steps, base.options.batch)});
  r.blocks.push_back(Text{tr("entropy: the encoder self-attention's rows (nats); score_grad: ‖∂loss/∂s‖ at its softmax's input; "
                             "grad_last_over_first: ‖∂loss/∂W₂‖ of the last decoder layer over the first's, at initialization")});
  r.blocks.push_back(table);
  if (!by_length.empty()) {
    // one row per length, one column per run: `score` of each run's LengthScore at that length
    auto length_table = [&](const char* name, double (LengthScore::*score)() const) {
      Records t;
      t.name = name;
      t.columns = {N_("length"), N_("pairs")};
      for (const CompareRun& run : runs) t.columns.push_back(run.name);
      for (std::size_t i = 0; i < by_length.front().size(); ++i) {
        std::vector<Cell> row = {static_cast<long long>(by_length.front()[i].length), static_cast<long long>(by_length.front()[i].pairs)};
        // (made in place: a temporary Cell here had GCC 12 warn, wrongly, of an unset string)
        for (const auto& run_rows : by_length) row.emplace_back((run_rows[i].*score)());
        t.rows.push_back(std::move(row));
      }
      return t;
    };
    r.blocks.push_back(Text{trf("held-out exact match by source length: trained on sentences of at most {} words, so the longer ones "
                                "are lengths no run has seen",
                                setup.train_max_len)});
    r.blocks.push_back(length_table(N_("by_length"), &LengthScore::fraction));
    r.primary = "by_length";
    // the same pairs, asking less: are the first N words right (the trained lengths' worth)?
    r.blocks.push_back(Text{trf("the first {} target words right (teacher-forced, as the exact match): a run that translates the "
                                "trained lengths' worth of a longer sentence and then goes wrong",
                                setup.train_max_len)});
    r.blocks.push_back(length_table(N_("by_length_first_n"), &LengthScore::first_fraction));
  }
  r.blocks.push_back(std::move(layer_table));
  r.blocks.push_back(std::move(curves));
  if (by_length.empty()) r.primary = "compare";

  if (figure && !by_length.empty()) {
    // the extrapolation experiment: accuracy by length, one line per run, the trained lengths' end marked
    by_length_chart.title = tr("Held-out accuracy by sentence length");
    by_length_chart.subtitle = trf("trained on sentences of at most {} words; to the right of the line, lengths never seen",
                                   setup.train_max_len);
    by_length_chart.x_label = tr("source sentence length (words)");
    by_length_chart.y_label = tr("held-out exact match");
    by_length_chart.ymin = 0.0;
    by_length_chart.ymax = 1.0;
    Series edge;
    edge.name = trf("longest training sentence ({} words)", setup.train_max_len);
    edge.x = {double(setup.train_max_len) + 0.5, double(setup.train_max_len) + 0.5};
    edge.y = {0.0, 1.0};
    edge.reference = true;
    by_length_chart.series.push_back(edge);
    by_length_chart.plot_height = 760;
    // the same pairs asking less: the first N words, the trained lengths' worth
    first_chart.title = trf("The first {} words right", setup.train_max_len);
    first_chart.subtitle = tr("of the same held-out sentences: translated as far as the trained lengths, then wrong?");
    first_chart.x_label = by_length_chart.x_label;
    first_chart.y_label = trf("first {} target words right", setup.train_max_len);
    first_chart.ymin = 0.0;
    first_chart.ymax = 1.0;
    first_chart.series.push_back(std::move(edge));
    first_chart.plot_height = 760;
    figure->panels.push_back(std::move(by_length_chart));
    figure->panels.push_back(std::move(first_chart));
    figure->columns = 2;
    figure->title = trf("tfx train --compare {}{}: {} steps of {} pairs, seed {}", list, context, base.options.steps, base.options.batch,
                        base.options.seed);
    figure->page_width = 1920;
    figure->page_height = 1080;
  } else if (figure) {
    const std::string step_axis = tr("training step (log scale)");
    loss.title = tr("Training loss");
    loss.subtitle = tr("mean over the steps since the previous point");
    loss.x_label = step_axis;
    loss.y_label = tr("loss (label-smoothed cross-entropy)");
    loss.log_x = true;
    acc.title = tr("Held-out accuracy");
    acc.subtitle = trf("{} pairs never seen in training", data.test.size());
    acc.x_label = step_axis;
    acc.y_label = tr("held-out exact match");
    acc.log_x = true;
    acc.ymin = 0.0;
    acc.ymax = 1.0;
    layers.title = tr("Gradient norm per layer at initialization");
    layers.subtitle = tr("‖∂loss/∂W₂‖ of each layer's FFN (Xiong et al. 2020, fig. 3)");
    layers.x_label = trf("layer (encoder 1–{}, then decoder {}–{})", base.config.layers, base.config.layers + 1, 2 * base.config.layers);
    layers.y_label = tr("gradient norm (log scale)");
    layers.log_y = true;
    entropy.title = tr("Encoder self-attention entropy");
    entropy.subtitle = tr("mean over rows, heads and layers; initialization drawn at step 1");
    entropy.x_label = step_axis;
    entropy.y_label = tr("entropy (nats)");
    entropy.log_x = true;
    score.title = tr("Gradient at the softmax's input");
    score.subtitle = tr("‖∂loss/∂s‖, s = QKᵀ/√d_k (QKᵀ with no-scale), encoder self-attention");
    score.x_label = step_axis;
    score.y_label = tr("gradient norm (log scale)");
    score.log_x = true;
    score.log_y = true;
    for (LineChart* p : {&loss, &acc, &layers, &entropy, &score}) {
      p->plot_height = 510;  // three columns of 620 wide and two rows of this fill the 16:9 page (450 left bands above and below)
      figure->panels.push_back(std::move(*p));
    }
    figure->columns = 3;
    figure->title = trf("tfx train --compare {}{}: {} steps of {} pairs, seed {}", list, context, base.options.steps, base.options.batch,
                        base.options.seed);
    figure->page_width = 1920;  // a 16:9 page (the slides' kSlideWidth × kSlideHeight)
    figure->page_height = 1080;
  }
  return r;
}

}  // namespace tfx
