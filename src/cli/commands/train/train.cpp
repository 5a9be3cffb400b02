// `tfx train`: trains the teaching translator's architecture on tfx's own tensor core
// (model/train.hpp) — by default on the built-in corpus's training split, or on --pairs FILE.tsv —
// and reports held-out exact match, cross-attention alignment and 나는 학생 이다 → …; -o
// FILE.safetensors writes the model (PyTorch state_dict names) and its vocabulary beside it;
// --gif/--watch animate one sentence's cross-attention and the embeddings while it trains.
// Experiments, named in the results' and figure's titles: --corpus en-ko (word order), --corpus lengths
// --train-max-len N --pe … (extrapolation), --no-warmup, --pre-ln, --no-scale; --compare pe,no-pe
// trains several (side by side with --threads) and draws them together (train_compare.hpp).
#include <fmt/format.h>

#include <chrono>
#include <cstdio>

#include "cli/flags/model_size_flags.hpp"
#include "cli/commands.hpp"
#include "cli/flags/validators.hpp"
#include "cli/commands/train/train_compare.hpp"
#include "cli/commands/train/train_flags.hpp"
#include "cli/commands/train/train_gpt.hpp"
#include "cli/commands/train/train_vit.hpp"
#include "tfx/model/train_watch.hpp"
#include "cli/common.hpp"
#include "cli/present/progress_bar.hpp"
#include "cli/present/terminal.hpp"
#include "cli/present/written_files.hpp"
#include "tfx/core/memory.hpp"
#include "tfx/core/show_token.hpp"
#include "tfx/core/words.hpp"
#include "tfx/model/train.hpp"
#include "tfx/model/train_files.hpp"
#include "tfx/model/translator.hpp"
#include "cli/flags/shared_flags.hpp"
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
  std::string corpus = "ko-en";  // the built-in corpus: ko-en (the lecture's), en-ko (word order) or lengths (extrapolation)
  std::string pe = "sinusoidal";  // --pe (--no-pe is --pe none)
  CLI::Option* pe_opt = nullptr;
  std::int64_t train_max_len = 0;  // --train-max-len N (0: every training pair)
  std::string model;  // -o FILE.safetensors
  std::string watch;  // --watch SENTENCE
  CLI::Option* watch_opt = nullptr;
  CLI::App* gpt = nullptr;  // the subcommand `train gpt`
  CLI::App* vit = nullptr;  // the subcommand `train vit`
  OutputFlags out;
  FigureFlags fig;
  GifFlags gif;
};

void run_train(const TrainCommandOptions& o) {
  if (o.gpt && o.gpt->parsed()) return;  // `tfx train gpt …` ran instead
  if (o.vit && o.vit->parsed()) return;  // `tfx train vit …` ran instead
  const PositionalEncoding pe = train_positional_encoding(o.pe, o.pe_opt, o.no_pe, o.d_model, o.heads, o.compare);
  // the data: a built-in corpus (its own split and alignments) or --pairs
  const std::size_t train_max_len = static_cast<std::size_t>(o.train_max_len);
  const TranslatorTrainData loaded = load_translator_train_data(o.pairs, o.corpus, o.test_fraction, o.seed, train_max_len);
  const std::vector<TextPair>& pairs = loaded.pairs;
  const std::vector<std::string>& vocab = loaded.vocab;
  const std::string& data_name = loaded.name;
  const IdPairs& data = loaded.data;

  // the experiment, as its flags: in every title, so two runs' figures and tables tell themselves apart
  const std::string experiment = translator_experiment(o.corpus, o.pairs, pe, o.no_scale, o.pre_ln, o.no_warmup, train_max_len);
  const std::string experiment_title = experiment.empty() ? tr("the lecture's model") : experiment;

  TrainConfig c;
  c.vocab = vocab.size();
  c.d_model = static_cast<std::size_t>(o.d_model);
  c.heads = static_cast<std::size_t>(o.heads);
  c.layers = static_cast<std::size_t>(o.layers);
  c.ffn = static_cast<std::size_t>(o.ffn);
  c.pe = pe;
  c.scale_scores = !o.no_scale;
  c.pre_ln = o.pre_ln;
  c.label_smoothing = o.label_smoothing;
  if (c.d_model % c.heads != 0)
    throw usage_error(fmt::format(N_("--heads {} does not divide --d-model {}; expected a divisor such as 4"), o.heads, o.d_model));
  const std::string& model_path = o.model;
  // the model's two files are checked before training, not after it: each must be a file tfx can
  // replace (a folder, a named pipe or a device in the vocabulary's place would block or fail only
  // once the minutes of training are spent)
  if (!model_path.empty()) check_translator_target(model_path);
  TrainOptions to;
  to.steps = static_cast<std::size_t>(o.steps);
  to.batch = static_cast<std::size_t>(o.batch);
  to.warmup = o.warmup;
  to.no_warmup = o.no_warmup;
  to.seed = o.seed;
  to.threads = train_threads(o.threads);

  // the budget sees the whole run before anything big is allocated: the parameters with their
  // gradients and Adam's moments, a step's activations over the longest sentences, the logits over
  // the vocabulary, and the pairs and vocabulary already held
  {
    const TranslatorTrainBytes need = translator_training_bytes(c, static_cast<std::size_t>(o.batch), data, vocab);
    check_memory(need.bytes, fmt::format(N_("training (--d-model {}, --ffn {}, --layers {}, --batch {}, {} tokens in the vocabulary, "
                                            "sentences of up to {} words)"),
                                         o.d_model, o.ffn, o.layers, o.batch, vocab.size(), need.longest));
  }
  if (!o.compare.empty()) {
    // several models, one after another: nothing follows one model (its file, its animation)
    if (!model_path.empty() || o.gif.requested() || (o.watch_opt && o.watch_opt->count() > 0))
      throw usage_error(N_("--compare trains several models: -o FILE.safetensors, --gif and --watch follow one; train it alone"));
    std::string context = experiment;
    if (o.layers != 2) context += (context.empty() ? "" : " ") + fmt::format("--layers {}", o.layers);
    if (o.d_model != 64) context += (context.empty() ? "" : " ") + fmt::format("--d-model {}", o.d_model);
    present_train_compare(o.compare, c, to, data, data_name, context, static_cast<std::size_t>(o.every), train_max_len, !o.no_progress,
                          o.out, o.fig);
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
    check_watch_gif_size(static_cast<double>(std::min<std::int64_t>(o.gif.frames, o.steps + 1)), o.fig.scale);
  }
  WatchPlan plan;
  if (watching)
    plan = plan_watch(watch_given ? &o.watch : nullptr, pairs, vocab, o.pairs.empty(), to.steps, static_cast<std::size_t>(o.gif.frames));

  // progress: a bar at a terminal, else a line every --every steps on stderr
  const bool bar_wanted = !o.no_progress && is_terminal(stderr);
  ProgressBar bar(tr("training"), tr("steps"), bar_wanted);
  const auto start = std::chrono::steady_clock::now();
  TrainRecord rec;
  const auto progress = [&](const TrainStepReport& r, const HeldOutScore* s, double mean_loss) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (bar_wanted) {
      bar.set_label(trf("training: loss {:.4f}, lr {:.2e}, {:.0f} tokens/s", r.loss, r.learning_rate, rec.tokens / std::max(seconds, 1e-9)));
      bar.update(r.step, to.steps);
    }
    if (s && !bar_wanted && !o.no_progress)
      std::fprintf(stderr, "%s\n",
                   trf("step {}/{}: loss {:.4f}, lr {:.2e}, held-out exact {:.1f} %, {:.0f} tokens/s", r.step, to.steps, mean_loss,
                       r.learning_rate, 100 * s->exact_fraction(), rec.tokens / std::max(seconds, 1e-9))
                       .c_str());
  };
  const std::size_t steps_done = train_recorded(c, params, data, to, static_cast<std::size_t>(o.every), align_layer, has_alignment,
                                                watching ? &plan : nullptr, vocab, rec, progress);
  bar.finish();
  const std::vector<WatchFrame>& frames = rec.frames;
  Records& curve = rec.curve;

  // scored once at the last step, not again
  const HeldOutScore score =
      rec.last_scored == steps_done && steps_done > 0 ? rec.last_score : score_held_out(c, params, data.test, align_layer, to.threads);
  Result r;
  r.command = "train";
  r.params = {{"steps", o.steps}, {"batch", o.batch}, {"d_model", o.d_model}, {"heads", o.heads}, {"layers", o.layers},
              {"ffn", o.ffn}, {"seed", o.seed}, {"warmup", o.warmup}, {"label_smoothing", o.label_smoothing},
              {"pe", std::string(positional_encoding_name(pe))}, {"scale", !o.no_scale}, {"pre_ln", o.pre_ln}, {"no_warmup", o.no_warmup}, {"threads", to.threads},
              {"pairs", o.pairs.empty() ? std::string("built-in") : o.pairs}, {"corpus", o.corpus}, {"train_max_len", o.train_max_len}};
  r.blocks.push_back(Text{trf("tfx train, experiment: {}", experiment_title)});
  std::size_t parameters = 0;
  for (const auto& entry : params) parameters += entry.second.size();
  r.blocks.push_back(Text{trf("trained on {}: {} training pairs, {} held out, {} tokens; d_model {}, {} heads, {} + {} layers "
                              "({}), FFN {}, {} parameters; {} steps of {} pairs",
                              data_name, data.train.size(), data.test.size(), vocab.size(), o.d_model, o.heads, o.layers, o.layers,
                              TranslatorProperties{o.pre_ln, pe, !o.no_scale}.layout(), o.ffn, parameters, o.steps, o.batch)});
  if (score.pairs == 0)  // --test-fraction 0, or too few pairs to hold one out: no score, not 0 %
    r.blocks.push_back(Text{tr("held-out exact match: nothing was held out (--test-fraction leaves no test pairs)")});
  else
    r.blocks.push_back(Text{trf("held-out exact match: {}/{} = {:.1f} %", score.exact, score.pairs, 100 * score.exact_fraction())});
  r.summary[N_("held_out_exact")] = score.exact_fraction();
  r.summary[N_("held_out_pairs")] = score.pairs;
  if (train_max_len > 0 && score.pairs > 0) add_length_results(r, data.test, score, train_max_len);  // held-out exact by length
  if (has_alignment) {
    r.blocks.push_back(Text{trf("cross-attention alignment (decoder layer {}, mean of heads, argmax = gold source word): "
                                "{}/{} = {:.1f} %",
                                align_layer + 1, score.aligned_hits, score.aligned_total, 100 * score.alignment_fraction())});
    r.summary[N_("alignment")] = score.alignment_fraction();
  }
  // the lecture's sentence, when its words are known; else the first held-out pair
  const std::unordered_map<std::string, std::size_t> ids = vocab_index(vocab);
  const std::vector<std::string> probe = translator_probe(ids, pairs);
  const std::vector<std::string> out_words = train_translate_words(c, params, vocab, ids, probe);
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
    for (const WrongPair& w : held_out_wrong(c, params, vocab, ids, pairs, std::min<std::size_t>(n_wrong, 10)))
      wrong.rows.push_back({shown(w.source), shown(w.expected), shown(w.got)});
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
    write_trained_translator(model_path, params, c, vocab, pairs, o.pairs.empty() && o.corpus == "ko-en", experiment, o.seed, o.steps);
    r.blocks.push_back(Text{trf("wrote {} and {}", model_path, translator_vocab_path(model_path))});
  }
  Figure figure;
  if (figure_drawn(o.fig, o.out))
    figure = translator_training_figure(rec.step_loss, rec.exact, has_alignment ? &rec.alignment : nullptr, data.test.size(), o.warmup,
                                        o.no_warmup, o.steps, o.batch, experiment_title);
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
  add_batch_flag(cmd, o->batch, tr("sentence pairs per optimizer step, at most 4096"), SizeBound{{1, 4096}});
  add_train_d_model_flag(cmd, o->d_model);
  add_train_heads_flag(cmd, o->heads);
  add_layers_flag(cmd, o->layers, tr("encoder layers, and as many decoder layers; at most 12"), SizeBound{{1, 12}});
  add_ffn_flag(cmd, o->ffn, tr("at most 8192"), SizeBound{{1, 8192}});
  add_seed_flag(cmd, o->seed, tr("the initial weights, the batch order and the held-out split"))->capture_default_str();
  add_train_warmup_flag(cmd, o->warmup, "tfx lr");
  cmd->add_option("--label-smoothing", o->label_smoothing, tr("Label smoothing ε of the cross-entropy"))
      ->capture_default_str()
      ->check(number_in(0.0, 0.99));
  add_train_threads_flag(cmd, o->threads);
  add_no_pe_flag(cmd, o->no_pe);
  o->pe_opt = add_train_pe_flag(cmd, o->pe);
  add_no_scale_flag(cmd, o->no_scale);
  add_train_experiment_flags(cmd, o->pre_ln, o->no_warmup, o->compare, o->corpus, o->pairs, o->test_fraction);
  add_train_max_len_flag(cmd, o->train_max_len);
  add_train_every_flag(cmd, o->every, tr("held-out exact match and alignment; before N densely, after steps 10, 20, 50, 100, …"));
  add_no_progress_flag(cmd, o->no_progress);
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig, false);
  o->gif.frames = 30;
  o->gif.fps = 5;
  add_gif_flags(cmd, o->gif, o->out, tr("the cross-attention of the --watch sentence and the embeddings' 2-D PCA, from the initial weights to the last step"));
  cmd->get_option("--frames")->description(tr("Frames of the --gif animation (and rows of the watch table: steps 0 … --steps, placed where the watched sentence changes most)"));
  o->watch_opt = cmd->add_option("--watch", o->watch, tr("The sentence --gif watches (default: 그녀는 커피를 마셨다, or the first held-out pair of --pairs)"))
      ->group(tr("Figures"));
  // -o FILE.safetensors is the model (the table then goes to stdout); any other -o is the table's
  o->out.output_opt->transform(CLI::Validator(
      [opts = o, app = static_cast<const CLI::App*>(cmd)](std::string& path) {
        set_hidden_outputs(app, {});
        if (path.ends_with(".safetensors")) {
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
                     tr("tfx train --corpus lengths --train-max-len 6 --compare sinusoidal,learned,rope,none  # accuracy by length"),
                     tr("tfx train --gif --watch \"그녀는 커피를 마셨다\"     # watch attention and embeddings form"),
                     tr("tfx train --pairs my_pairs.tsv --test-fraction 0.2")});
}

}  // namespace tfx::cli
