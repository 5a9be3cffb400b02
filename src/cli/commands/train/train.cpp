// `tfx train`: trains the teaching translator's architecture on tfx's own tensor core
// (model/train.hpp) — by default on the built-in corpus's training split, or on --pairs FILE.tsv —
// and reports held-out exact match, cross-attention alignment and 나는 학생 이다 → …; -o
// FILE.safetensors writes the model (PyTorch state_dict names) and its vocabulary beside it;
// --gif/--watch animate one sentence's cross-attention and the embeddings while it trains.
// --corpus en-ko trains on the built-in English → Korean corpus instead: the word-order experiment
// (with --no-pe the roles come out swapped). The experiment's flags title the results and figure.
// --compare pe,no-pe trains several experiments one after another and draws them together
// (train_compare.hpp); --no-warmup starts the learning rate at the schedule's peak.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "cli/commands.hpp"
#include "cli/commands/train/model_flag.hpp"
#include "cli/commands/train/train_compare.hpp"
#include "cli/commands/train/train_flags.hpp"
#include "cli/commands/train/train_gpt.hpp"
#include "cli/commands/train/train_vit.hpp"
#include "cli/commands/train/train_watch.hpp"
#include "cli/common.hpp"
#include "cli/progress_bar.hpp"
#include "cli/terminal.hpp"
#include "cli/written_files.hpp"
#include "tfx/core/memory.hpp"
#include "tfx/core/show_token.hpp"
#include "tfx/core/words.hpp"
#include "tfx/io/emit_together.hpp"
#include "tfx/io/text_file.hpp"
#include "tfx/model/train.hpp"
#include "tfx/model/translator.hpp"
#include "cli/shared_flags.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct TrainCommandOptions {
  std::int64_t steps = 3000, batch = 32, d_model = 64, heads = 4, layers = 2, ffn = 256, threads = 0, every = 250;
  std::uint64_t seed = 20261125;
  double warmup = 200, label_smoothing = 0.05, test_fraction = 0.17;
  bool no_pe = false, no_scale = false, pre_ln = false, no_warmup = false, no_progress = false;
  std::vector<std::string> compare;  // --compare pe,no-pe (or pe no-pe)
  std::string pairs;
  std::string corpus = "ko-en";  // the built-in corpus: ko-en (the lecture's) or en-ko (word order)
  std::string model;  // -o FILE.safetensors
  std::string watch;  // --watch SENTENCE
  CLI::Option* watch_opt = nullptr;
  CLI::App* gpt = nullptr;  // the subcommand `train gpt`
  CLI::App* vit = nullptr;  // the subcommand `train vit`
  OutputFlags out;
  FigureFlags fig;
  GifFlags gif;
};

// Peak memory per byte of a --pairs file while it is read and parsed (the text, each word a
// std::string in its pair, the sorted vocabulary, the ids): measured with /usr/bin/time on files
// of short distinct words (the worst case: every word new): 26 bytes per byte for 3.6 MB of
// 2-word pairs, 18 for 18.5 MB of 50-word pairs.
constexpr double kPairsBytesPerByte = 32;

bool tc_ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

void run_train(const TrainCommandOptions& o) {
  if (o.gpt && o.gpt->parsed()) return;  // `tfx train gpt …` ran instead
  if (o.vit && o.vit->parsed()) return;  // `tfx train vit …` ran instead
  // the data: the built-in corpus (its own split and alignments) or --pairs
  std::vector<TextPair> pairs;
  std::vector<std::string> vocab;
  std::string data_name;
  const bool en_ko = o.pairs.empty() && o.corpus == "en-ko";
  if (o.pairs.empty()) {
    // a built-in corpus; for en-ko its source (English) is in `korean`, its target in `english` (translator.hpp)
    for (const TranslationPair& p : en_ko ? teaching_corpus_en_ko() : teaching_corpus()) {
      TextPair t;
      t.source = split_words(p.korean);
      t.target = split_words(p.english);
      t.alignment = p.alignment;
      t.test = p.split == "test";
      pairs.push_back(std::move(t));
    }
    vocab = en_ko ? pair_vocabulary(pairs) : teaching_translator().vocab.tokens;
    data_name = en_ko ? tr("the built-in English → Korean corpus") : tr("the built-in corpus");
  } else {
    // the text, then its words as strings, ids and a vocabulary: about kPairsBytesPerByte bytes
    // of memory per byte of the file (measured), refused before reading when over the budget
    std::error_code ec;
    if (std::filesystem::is_regular_file(o.pairs, ec)) {
      const double size = static_cast<double>(std::filesystem::file_size(o.pairs, ec));
      check_memory(size * kPairsBytesPerByte, fmt::format("--pairs {} ({} bytes, held as words, ids and a vocabulary)", o.pairs,
                                                          static_cast<std::uint64_t>(size)));
    }
    pairs = parse_pair_lines(read_text_input(o.pairs, "--pairs"), o.pairs);
    split_pairs(pairs, o.test_fraction, o.seed);
    vocab = pair_vocabulary(pairs);
    data_name = o.pairs;
  }
  const IdPairs data = pair_ids(pairs, vocab);
  if (data.train.empty()) throw usage_error(N_("--test-fraction leaves no training pairs"));

  // the experiment, as its flags: in every title, so two runs' figures and tables tell themselves apart
  std::string experiment;
  const auto add_flag = [&](const std::string& f) { experiment += (experiment.empty() ? "" : " ") + f; };
  if (en_ko) add_flag("--corpus en-ko");
  if (!o.pairs.empty()) add_flag("--pairs " + o.pairs);
  if (o.no_pe) add_flag("--no-pe");
  if (o.no_scale) add_flag("--no-scale");
  if (o.pre_ln) add_flag("--pre-ln");
  if (o.no_warmup) add_flag("--no-warmup");
  const std::string experiment_title = experiment.empty() ? tr("the lecture's model") : experiment;

  TrainConfig c;
  c.vocab = vocab.size();
  c.d_model = static_cast<std::size_t>(o.d_model);
  c.heads = static_cast<std::size_t>(o.heads);
  c.layers = static_cast<std::size_t>(o.layers);
  c.ffn = static_cast<std::size_t>(o.ffn);
  c.positional_encoding = !o.no_pe;
  c.scale_scores = !o.no_scale;
  c.pre_ln = o.pre_ln;
  c.label_smoothing = o.label_smoothing;
  if (c.d_model % c.heads != 0)
    throw usage_error(fmt::format(N_("--heads {} does not divide --d-model {}; expected a divisor such as 4"), o.heads, o.d_model));
  const std::string& model_path = o.model;
  // the model's two files are checked before training, not after it: each must be a file tfx can
  // replace (a folder, a named pipe or a device in the vocabulary's place would block or fail only
  // once the minutes of training are spent)
  if (!model_path.empty())
    for (const std::string& f : {model_path, translator_vocab_path(model_path)}) {
      std::error_code ec;
      const auto st = std::filesystem::status(f, ec);
      if (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st))
        throw Error(std::filesystem::is_directory(st)
                        ? fmt::format(N_("-o {}: {} is a directory; the model and its vocabulary are written as regular files"), model_path, f)
                        : fmt::format(N_("-o {}: {} exists and is not a regular file; the model and its vocabulary are written as regular "
                                         "files"),
                                      model_path, f));
    }
  TrainOptions to;
  to.steps = static_cast<std::size_t>(o.steps);
  to.batch = static_cast<std::size_t>(o.batch);
  to.warmup = o.warmup;
  to.no_warmup = o.no_warmup;
  to.seed = o.seed;
  to.threads = o.threads > 0 ? static_cast<unsigned>(o.threads) : std::clamp(std::thread::hardware_concurrency(), 1u, 8u);

  // the budget sees the whole run before anything big is allocated: the parameters with their
  // gradients and Adam's moments, a step's activations over the longest sentences, the logits over
  // the vocabulary, and the pairs and vocabulary already held
  {
    std::size_t longest_source = 1, longest_target = 1;
    double words = 0;
    for (const auto* side : {&data.train, &data.test})
      for (const IdPair& p : *side) {
        longest_source = std::max(longest_source, p.source.size());
        longest_target = std::max(longest_target, p.target.size() + 1);
        words += double(p.source.size() + p.target.size());
      }
    double vocab_bytes = 0;
    for (const auto& w : vocab) vocab_bytes += 96.0 + double(w.size());  // the string, its id map entry
    const double bytes = train_memory_bytes(c, static_cast<std::size_t>(o.batch), longest_source, longest_target) +
                         vocab_bytes + words * 48.0;
    check_memory(bytes, fmt::format(N_("training (--d-model {}, --ffn {}, --layers {}, --batch {}, {} tokens in the vocabulary, "
                                       "sentences of up to {} words)"),
                                    o.d_model, o.ffn, o.layers, o.batch, vocab.size(), std::max(longest_source, longest_target - 1)));
  }
  if (!o.compare.empty()) {
    // several models, one after another: nothing follows one model (its file, its animation)
    if (!model_path.empty() || o.gif.requested() || (o.watch_opt && o.watch_opt->count() > 0))
      throw usage_error(N_("--compare trains several models: -o FILE.safetensors, --gif and --watch follow one; train it alone"));
    CompareSetup setup;
    setup.data = &data;
    setup.data_name = data_name;
    std::string context = experiment;
    if (o.layers != 2) context += (context.empty() ? "" : " ") + fmt::format("--layers {}", o.layers);
    if (o.d_model != 64) context += (context.empty() ? "" : " ") + fmt::format("--d-model {}", o.d_model);
    setup.context = context;
    setup.every = static_cast<std::size_t>(o.every);
    setup.progress = !o.no_progress;
    Figure figure;
    check_compare_list(o.compare);
    const Result r = run_compare(compare_runs(o.compare, c, to), setup, figure_drawn(o.fig, o.out) ? &figure : nullptr);
    present_all(r, o.out, o.fig, &figure, nullptr, "train_compare.png");
    if (o.fig.png_requested() && !o.out.format_given() && o.fig.png != "-" && o.fig.svg != "-") present(r, o.out);
    return;
  }
  TensorMap params = init_train_parameters(c, o.seed);
  const std::size_t align_layer = c.layers >= 2 ? 1 : 0;  // decoder layer 2, as the translator docs
  const bool has_alignment = !data.test.empty() && !data.test[0].alignment.empty();

  // --gif / --watch: one sentence's cross-attention and the embeddings at steps from 0 to --steps (train_watch.hpp)
  const bool watch_given = o.watch_opt && o.watch_opt->count() > 0;
  const bool watching = o.gif.requested() || watch_given;
  if (o.gif.requested()) {
    check_gif_target(o.gif, "train_watch.gif", o.out, o.fig);
    // before training, not after it: a frame is at least about 1500 × 640 pixels at --scale 1
    // (write_gif checks the frames as drawn)
    const double frame_pixels = 1500.0 * 640.0 * o.fig.scale * o.fig.scale;
    const auto n = static_cast<double>(std::min<std::int64_t>(o.gif.frames, o.steps + 1));
    if (n * frame_pixels > double(kMaxGifPixels))
      throw usage_error(fmt::format(N_("--gif: {} frames at --scale {} would pass {} megapixels; use fewer --frames or a smaller --scale"),
                                    static_cast<long long>(n), o.fig.scale, kMaxGifPixels >> 20));
  }
  WatchPlan plan;
  std::vector<WatchFrame> frames;
  double watch_loss = 0;
  std::size_t watch_n = 0;
  if (watching) {
    plan = plan_watch(watch_given ? &o.watch : nullptr, pairs, vocab, o.pairs.empty(), to.steps, static_cast<std::size_t>(o.gif.frames));
    frames.push_back(capture_watch(plan, c, params, vocab, align_layer, 0));
  }

  // progress: a bar at a terminal, else a line every --every steps on stderr
  const bool bar_wanted = !o.no_progress && is_terminal(stderr);
  ProgressBar bar(tr("training"), tr("steps"), bar_wanted);
  const auto start = std::chrono::steady_clock::now();
  std::size_t tokens = 0;
  double loss_sum = 0;
  std::size_t loss_n = 0;
  Records curve;
  curve.name = N_("curve");
  curve.columns = {N_("step"), N_("loss"), N_("learning_rate"), N_("held_out_exact")};
  if (has_alignment) curve.columns.push_back(N_("alignment"));
  Series step_loss, exact_series, align_series;
  step_loss.name = tr("training loss (each step)");
  exact_series.name = tr("held-out exact match");
  align_series.name = trf("alignment (decoder layer {})", align_layer + 1);
  HeldOutScore last_score;
  std::size_t last_scored = 0;  // the step last_score was taken after (the last step's is the final score)
  auto on_step = [&](const TrainStepReport& r) {
    step_loss.x.push_back(double(r.step));
    step_loss.y.push_back(r.loss);
    tokens += r.tokens;
    loss_sum += r.loss;
    ++loss_n;
    if (watching) {
      // step 1's loss is computed on the initial weights: frame 0's loss
      if (r.step == 1) frames.front().loss = r.loss;
      watch_loss += r.loss;
      ++watch_n;
      if (frames.size() < plan.steps.size() && r.step == plan.steps[frames.size()]) {
        frames.push_back(capture_watch(plan, c, params, vocab, align_layer, r.step));
        frames.back().loss = watch_loss / double(watch_n);
        frames.back().loss_from = r.step + 1 - watch_n;
        watch_loss = 0;
        watch_n = 0;
      }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (bar_wanted) {
      bar.set_label(trf("training: loss {:.4f}, lr {:.2e}, {:.0f} tokens/s", r.loss, r.learning_rate, tokens / std::max(seconds, 1e-9)));
      bar.update(r.step, to.steps);
    }
    if (held_out_checkpoint(r.step, static_cast<std::size_t>(o.every), to.steps)) {
      const HeldOutScore s = score_held_out(c, params, data.test, align_layer, to.threads);
      last_score = s;
      last_scored = r.step;
      curve.rows.push_back({static_cast<long long>(r.step), loss_sum / double(loss_n), r.learning_rate, s.exact_fraction()});
      if (has_alignment) curve.rows.back().push_back(s.alignment_fraction());
      exact_series.x.push_back(double(r.step));
      exact_series.y.push_back(s.exact_fraction());
      align_series.x.push_back(double(r.step));
      align_series.y.push_back(s.alignment_fraction());
      if (!bar_wanted && !o.no_progress)
        std::fprintf(stderr, "%s\n",
                     trf("step {}/{}: loss {:.4f}, lr {:.2e}, held-out exact {:.1f} %, {:.0f} tokens/s", r.step, to.steps,
                         loss_sum / double(loss_n), r.learning_rate, 100 * s.exact_fraction(), tokens / std::max(seconds, 1e-9))
                         .c_str());
      loss_sum = 0;
      loss_n = 0;
    }
    return true;
  };
  const std::size_t steps_done = train_model(c, params, data.train, to, on_step);
  bar.finish();

  // scored once at the last step, not again
  const HeldOutScore score =
      last_scored == steps_done && steps_done > 0 ? last_score : score_held_out(c, params, data.test, align_layer, to.threads);
  Result r;
  r.command = "train";
  r.params = {{"steps", o.steps}, {"batch", o.batch}, {"d_model", o.d_model}, {"heads", o.heads}, {"layers", o.layers},
              {"ffn", o.ffn}, {"seed", o.seed}, {"warmup", o.warmup}, {"label_smoothing", o.label_smoothing},
              {"pe", !o.no_pe}, {"scale", !o.no_scale}, {"pre_ln", o.pre_ln}, {"no_warmup", o.no_warmup}, {"threads", to.threads},
              {"pairs", o.pairs.empty() ? std::string("built-in") : o.pairs}, {"corpus", o.corpus}};
  r.blocks.push_back(Text{trf("tfx train, experiment: {}", experiment_title)});
  r.blocks.push_back(Text{trf("trained on {}: {} training pairs, {} held out, {} tokens; d_model {}, {} heads, {} + {} layers "
                              "({}), FFN {}, {} parameters; {} steps of {} pairs",
                              data_name, data.train.size(), data.test.size(), vocab.size(), o.d_model, o.heads, o.layers,
                              o.layers,
                              std::string(o.pre_ln ? "pre-LN" : "post-LN") + (o.no_pe ? ", no PE" : "") +
                                  (o.no_scale ? ", no 1/√d_k" : ""),
                              o.ffn,
                              [&] {
                                std::size_t n = 0;
                                for (const auto& [k, t] : params) n += t.size();
                                return n;
                              }(),
                              o.steps, o.batch)});
  if (score.pairs == 0)  // --test-fraction 0, or too few pairs to hold one out: no score, not 0 %
    r.blocks.push_back(Text{tr("held-out exact match: nothing was held out (--test-fraction leaves no test pairs)")});
  else
    r.blocks.push_back(Text{trf("held-out exact match: {}/{} = {:.1f} %", score.exact, score.pairs, 100 * score.exact_fraction())});
  r.summary[N_("held_out_exact")] = score.exact_fraction();
  r.summary[N_("held_out_pairs")] = score.pairs;
  if (has_alignment) {
    r.blocks.push_back(Text{trf("cross-attention alignment (decoder layer {}, mean of heads, argmax = gold source word): "
                                "{}/{} = {:.1f} %",
                                align_layer + 1, score.aligned_hits, score.aligned_total, 100 * score.alignment_fraction())});
    r.summary[N_("alignment")] = score.alignment_fraction();
  }
  // the lecture's sentence, when its words are known; else the first held-out pair
  std::vector<std::string> probe = {"나는", "학생", "이다"};
  std::unordered_map<std::string, std::size_t> ids;
  for (std::size_t i = 0; i < vocab.size(); ++i) ids.emplace(vocab[i], i);
  bool known = true;
  for (const auto& w : probe) known = known && ids.count(w);
  if (!known) {
    const TextPair* first = nullptr;
    for (const TextPair& p : pairs)
      if (p.test || !first) first = &p;
    probe = first->source;
  }
  std::vector<std::size_t> probe_ids;
  for (const auto& w : probe) probe_ids.push_back(ids.count(w) ? ids.at(w) : 3);
  std::vector<std::string> out_words;
  for (std::size_t id : train_greedy(c, params, probe_ids)) out_words.push_back(vocab[id]);
  // shown as error lines show data words: each cut at 40 characters, control bytes escaped (a
  // 1 MB word repeated by the greedy decoder made a 20 MB line)
  const auto shown = [](const std::vector<std::string>& words) {
    std::vector<std::string> out;
    for (const std::string& w : words) out.push_back(show_token(w));
    return join_words(out);
  };
  r.blocks.push_back(Text{fmt::format("{}  →  {}", shown(probe), shown(out_words))});
  r.summary[N_("probe")] = shown(probe);
  r.summary[N_("translation")] = shown(out_words);
  // the held-out pairs the model gets wrong (up to 10): without PE on --corpus en-ko, the roles swapped
  {
    Records wrong;
    wrong.name = N_("held_out_wrong");
    wrong.columns = {N_("source"), N_("expected"), N_("model")};
    // as many as the score counted (its teacher-forced check is greedy decoding's), found by
    // decoding the held-out pairs until 10 are listed (at most 1000 decoded: a big --pairs split)
    const std::size_t n_wrong = score.pairs - score.exact;
    std::size_t decoded = 0;
    for (const TextPair& p : pairs) {
      if (wrong.rows.size() >= std::min<std::size_t>(n_wrong, 10) || decoded == 1000) break;
      if (!p.test) continue;
      ++decoded;
      std::vector<std::size_t> src;
      for (const auto& w : p.source) src.push_back(ids.count(w) ? ids.at(w) : 3);
      std::vector<std::string> got;
      for (std::size_t id : train_greedy(c, params, src)) got.push_back(vocab[id]);
      if (got == p.target) continue;
      wrong.rows.push_back({shown(p.source), shown(p.target), shown(got)});
    }
    if (n_wrong > 0 && !wrong.rows.empty()) {
      r.blocks.push_back(Text{trf("held-out pairs translated wrong ({}: {} of {}):", experiment_title, n_wrong, score.pairs)});
      r.blocks.push_back(std::move(wrong));
    }
  }
  if (!curve.rows.empty()) r.summary[N_("final_loss")] = std::get<double>(curve.rows.back()[1]);
  r.blocks.push_back(std::move(curve));
  r.primary = "curve";
  if (watching) {
    const WatchFrame& first = frames.front();
    const WatchFrame& last = frames.back();
    r.blocks.push_back(Text{trf("watched \"{}\" at {} steps from 0 to {}: cross-attention entropy (decoder layer {}, mean of heads) {:.3f} → {:.3f} nats",
                                join_words(plan.words), frames.size(), to.steps, align_layer + 1, first.sharpness.entropy, last.sharpness.entropy)});
    if (plan.has_reference && first.sharpness.aligned > 0)
      r.blocks.push_back(Text{trf("attention on the gold source word: {:.2f} → {:.2f}", first.sharpness.gold_mass, last.sharpness.gold_mass)});
    r.blocks.push_back(watch_table(plan, frames));
  }

  if (!model_path.empty()) {
    // the model's properties and its own pairs go with its weights (read_translator_file)
    std::vector<TranslationPair> own;
    for (const TextPair& p : pairs) own.push_back({p.test ? "test" : "train", join_words(p.source), join_words(p.target), p.alignment});
    TranslatorProperties props;
    props.pre_ln = o.pre_ln;
    props.positional_encoding = !o.no_pe;
    props.scale_scores = !o.no_scale;
    TensorMetadata meta = translator_metadata(static_cast<std::size_t>(o.d_model), static_cast<std::size_t>(o.heads),
                                              static_cast<std::size_t>(o.layers), static_cast<std::size_t>(o.ffn), props, own,
                                              o.pairs.empty() && !en_ko);
    meta["experiment"] = experiment.empty() ? std::string("default") : experiment;
    meta["seed"] = std::to_string(o.seed);
    meta["steps"] = std::to_string(o.steps);
    std::string vocab_text;
    for (const auto& w : vocab) vocab_text += w + "\n";
    // the weights name their vocabulary by its fingerprint, so a vocabulary from another save
    // beside them is refused at load; and both files are replaced together or not at all
    meta[kVocabFingerprintKey] = vocab_fingerprint(vocab_text);
    const std::string weights = encode_safetensors(params, meta);
    emit_together({{{vocab_text}, translator_vocab_path(model_path), false, "-o " + model_path + ": vocabulary"},
                   {{weights}, model_path, true, "-o"}});
    r.blocks.push_back(Text{trf("wrote {} and {}", model_path, translator_vocab_path(model_path))});
  }
  Figure figure;
  if (figure_drawn(o.fig, o.out)) {
    // loss against steps with the warm-up peak marked; held-out accuracy against steps
    LineChart loss;
    loss.title = tr("Training loss");
    loss.subtitle = o.no_warmup ? trf("lr = d_model^−0.5 · max(step, {:g})^−0.5: no warm-up", o.warmup)
                                : trf("lr = d_model^−0.5 · min(step^−0.5, step · warmup^−1.5), peak at step {:g}", o.warmup);
    loss.x_label = tr("training step (log scale)");
    loss.y_label = tr("loss (label-smoothed cross-entropy)");
    loss.log_x = true;
    loss.plot_height = 760;
    double top = 0;
    for (double v : step_loss.y) top = std::max(top, v);
    loss.series.push_back(step_loss);
    if (o.warmup <= double(o.steps) && !o.no_warmup) {
      Series peak;
      peak.name = trf("warm-up peak (step {:g})", o.warmup);
      peak.x = {o.warmup, o.warmup};
      peak.y = {0.0, top};
      peak.reference = true;
      loss.series.push_back(peak);
    }
    figure.panels.push_back(std::move(loss));
    LineChart acc;
    acc.title = tr("Held-out accuracy");
    acc.subtitle = trf("{} pairs never seen in training", data.test.size());
    acc.x_label = tr("training step (log scale)");
    acc.y_label = tr("fraction");
    acc.log_x = true;
    acc.ymin = 0.0;
    acc.ymax = 1.0;
    acc.plot_height = 760;
    acc.series.push_back(exact_series);
    if (has_alignment) acc.series.push_back(align_series);
    figure.panels.push_back(std::move(acc));
    figure.columns = 2;
    figure.title = trf("tfx train ({}): {} steps of {} pairs", experiment_title, o.steps, o.batch);
    figure.page_width = kSlideWidth;  // a 16:9 page at every --scale
    figure.page_height = kSlideHeight;
  }
  present_all(r, o.out, o.fig, &figure, nullptr, "train.png");
  // --png (or --svg) writes the figure and still prints the results, as the run without it does
  if (o.fig.png_requested() && !o.out.format_given() && o.fig.png != "-" && o.fig.svg != "-") present(r, o.out);
  if (o.gif.requested()) write_gif(watch_figures(plan, frames, c, align_layer, to.steps), o.gif, "train_watch.gif", o.out, o.fig);
}

}  // namespace

void register_train(CLI::App& app) {
  auto [cmd, o] = add_command(app, "train",
                              tr("Train the teaching translator's Transformer in tfx (hand-written backward pass, Adam, warm-up)"),
                              run_train, tr("Training"));
  add_train_steps_flag(cmd, o->steps);
  cmd->add_option("--batch", o->batch, tr("Pairs per step"))->capture_default_str()->check(whole_number(1, 4096));
  add_train_d_model_flag(cmd, o->d_model);
  add_train_heads_flag(cmd, o->heads);
  cmd->add_option("--layers", o->layers, tr("Encoder layers (and as many decoder layers)"))->capture_default_str()->check(whole_number(1, 12));
  cmd->add_option("--ffn", o->ffn, tr("Feed-forward width"))->capture_default_str()->check(whole_number(1, 8192));
  add_seed_flag(cmd, o->seed, tr("Seed of the initial weights, the batch order and the held-out split"))->capture_default_str();
  add_train_warmup_flag(cmd, o->warmup, "tfx lr");
  cmd->add_option("--label-smoothing", o->label_smoothing, tr("Label smoothing ε of the cross-entropy"))
      ->capture_default_str()
      ->check(CLI::Range(0.0, 0.99));
  add_train_threads_flag(cmd, o->threads);
  add_no_pe_flag(cmd, o->no_pe);
  add_no_scale_flag(cmd, o->no_scale);
  cmd->add_flag("--pre-ln", o->pre_ln, tr("Experiment: pre-LN layers, x + f(LayerNorm(x)), instead of post-LN"));
  cmd->add_flag("--no-warmup", o->no_warmup,
                tr("Experiment: no warm-up; the learning rate starts at the schedule's peak and decays as it would after --warmup steps"));
  add_compare_flag(cmd, o->compare,
                   tr("train these experiments one after another, same seed and batches, and draw them together: a comma list of "
                      "pe, no-pe, scale, no-scale, post-ln, pre-ln, warmup, no-warmup, joined by + to combine, e.g. post-ln+no-warmup; "
                      "the other flags apply to every run"))
      ->delimiter(',')
      ->check(compare_item_validator());
  CLI::Option* corpus_opt = cmd->add_option("--corpus", o->corpus,
                  tr("The built-in corpus: ko-en (Korean → English, the lecture's) or en-ko (English → Korean, where word order "
                     "carries who does what: the word-order experiment)"))
      ->capture_default_str()
      ->check(CLI::IsMember({"ko-en", "en-ko"}));
  cmd->add_option("--pairs", o->pairs, tr("Your own pairs: a UTF-8 file of source<TAB>target lines (default: the built-in corpus)"))
      ->check(non_empty_path("a .tsv file"))
      ->excludes(corpus_opt);
  cmd->add_option("--test-fraction", o->test_fraction, tr("With --pairs: the fraction of pairs held out for testing"))
      ->capture_default_str()
      ->check(CLI::Range(0.0, 0.9));
  add_train_every_flag(cmd, o->every, tr("held-out exact match and alignment; before N densely, after steps 10, 20, 50, 100, …"));
  add_no_progress_flag(cmd, o->no_progress);
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig, false);
  o->gif.frames = 30;
  o->gif.fps = 5;
  add_gif_flags(cmd, o->gif, o->out, tr("the cross-attention of the --watch sentence and the embeddings' 2-D PCA, from the initial weights to the last step"));
  cmd->get_option("--frames")->description(tr("Frames of --gif (and rows of the watch table), at steps from 0 to --steps, denser early: steps · (k / (N − 1))²"));
  o->watch_opt = cmd->add_option("--watch", o->watch, tr("The sentence --gif watches (default: 그녀는 커피를 마셨다, or the first held-out pair of --pairs)"))
      ->group(tr("Figures"));
  // -o FILE.safetensors is the model (the table then goes to stdout); any other -o is the table's
  o->out.output_opt->transform(CLI::Validator(
      [opts = o, app = static_cast<const CLI::App*>(cmd)](std::string& path) {
        set_hidden_outputs(app, {});
        if (tc_ends_with(path, ".safetensors")) {
          opts->model = path;
          set_hidden_outputs(app, {{"-o", path}});  // checked against the inputs as -o is
          path = "-";
        }
        return std::string();
      },
      ""));
  o->gpt = register_train_gpt(cmd);
  o->vit = register_train_vit(cmd);
  set_examples(cmd, {tr("tfx train                                   # the built-in corpus, about a minute"),
                     tr("tfx train -o my_model.safetensors && tfx translate --model my_model.safetensors \"나는 학생 이다\""),
                     tr("tfx train --corpus en-ko --no-pe           # without PE: the dog bites the man, or the man the dog?"),
                     tr("tfx train --corpus en-ko --compare pe,no-pe  # both runs in one figure and one table"),
                     tr("tfx train --gif --watch \"그녀는 커피를 마셨다\"     # watch attention and embeddings form"),
                     tr("tfx train --pairs my_pairs.tsv --test-fraction 0.2")});
}

}  // namespace tfx::cli
