// `tfx train gpt --text FILE -o DIR`: trains a GPT-2 (tfx/model/gpt2_train.hpp: the family's forward
// pass, its backward beside it, Adam) on a UTF-8 text with a byte-level BPE tokenizer learned from
// the same text (tfx/text/bpe_train.hpp) unless --tokenizer gives one, and writes DIR as a Hugging
// Face folder — config.json (GPT2Config's keys and what tfx trained it on), model.safetensors
// (GPT2LMHeadModel's names, F32), tokenizer.json — that every `tfx model` command opens. DIR is
// written to a temporary folder beside it and renamed into place once training is done: an
// interrupted run leaves nothing.
#include "cli/flags/model_size_flags.hpp"
#include "cli/commands/train/train_gpt.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/commands/train/train_flags.hpp"
#include "cli/common.hpp"
#include "cli/present/progress_bar.hpp"
#include "cli/flags/shared_flags.hpp"
#include "cli/present/terminal.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/core/memory.hpp"
#include "tfx/io/text_file.hpp"
#include "tfx/model/safetensors.hpp"
#include "tfx/model/gpt2_watch.hpp"
#include "tfx/model/train_files.hpp"
#include "tfx/text/bpe_train.hpp"
#include "tfx/text/hf_tokenizer.hpp"

namespace tfx::cli {

namespace fs = std::filesystem;

namespace {

struct TrainGptOptions {
  std::string text, dir, tokenizer, prompt;
  std::int64_t vocab_size = 512, d_model = 64, layers = 2, heads = 4, context = 64, steps = 500, batch = 8, threads = 0, every = 100;
  double lr = 3e-3, warmup = 50;
  std::uint64_t seed = 20261125;
  bool no_progress = false;
  OutputFlags out;
  FigureFlags fig;
  GifFlags gif;
};

void run_train_gpt(const TrainGptOptions& o) {
  // 1. the target first (nothing is trained for a folder that cannot be written), then the text
  if (o.dir.empty()) throw usage_error(N_("train gpt needs -o DIR: the folder to write the model to"));
  check_model_folder_target(o.dir, "train gpt", "config.json, model.safetensors, tokenizer.json");
  if (o.gif.requested()) check_gif_target(o.gif, "train_gpt.gif", o.out, o.fig);
  const std::string text = read_text_input(o.text, "--text");
  const std::string name = o.text == "-" ? std::string("<stdin>") : fs::path(o.text).filename().string();
  check_training_text(text, o.text);
  // 2. the tokenizer: --tokenizer FILE, or learned from the same text
  std::string tokenizer_json;
  if (!o.tokenizer.empty()) {
    tokenizer_json = read_text_input(o.tokenizer, "--tokenizer");
  } else {
    check_memory(static_cast<double>(text.size()) * 64, fmt::format("train gpt: the tokenizer of --text {}", o.text));
    BpeTraining t;
    {
      ProgressBar bar(tr("learning merges"), tr("merges"), !o.no_progress && is_terminal(stderr));
      try {
        t = train_byte_level_bpe(text, static_cast<std::size_t>(o.vocab_size), bar.callback());
      } catch (const Error& e) {
        const std::string what = e.what();
        if (what.find("more than this text allows") != std::string::npos) {
          const std::size_t reachable = byte_level_bpe_reachable(text);
          throw usage_error(fmt::format(N_("--vocab-size {}: more than this text allows; no pair is left to merge at {} tokens (the "
                                           "largest reachable size: give at most {}, or a longer text)"),
                                        o.vocab_size, reachable, reachable));
        }
        if (what.rfind("vocab_size ", 0) == 0) throw usage_error("--vocab-size " + what.substr(11));
        throw;
      }
    }
    tokenizer_json = byte_level_bpe_json(t);
  }
  const HfTokenizer tok = HfTokenizer::from_json(tokenizer_json, o.tokenizer.empty() ? "tokenizer.json" : o.tokenizer);
  const std::vector<std::size_t> ids = tok.encode(text, false, false).ids;
  Gpt2TrainConfig c;
  c.vocab = tok.vocab_size();
  c.d_model = static_cast<std::size_t>(o.d_model);
  c.layers = static_cast<std::size_t>(o.layers);
  c.heads = static_cast<std::size_t>(o.heads);
  c.context = static_cast<std::size_t>(o.context);
  if (c.d_model % c.heads != 0)
    throw usage_error(fmt::format(N_("--heads {} does not divide --d-model {}; expected a divisor such as 4"), o.heads, o.d_model));
  if (ids.size() < c.context + 1)
    throw Error(fmt::format(N_("--text {}: {} tokens, fewer than --context {} + 1; give a longer text or a smaller --context"), o.text,
                            ids.size(), o.context));
  // the last tenth is held out when it holds a whole window; else all is training
  std::vector<std::size_t> train, held;
  split_held_out(ids, c.context, train, held);
  // the budget: parameters, gradients, Adam's two moments; a step's kept activations
  check_memory(gpt2_training_bytes(c, static_cast<std::size_t>(o.batch)),
               fmt::format("train gpt (--d-model {}, --layers {}, --context {}, --batch {})", o.d_model, o.layers, o.context, o.batch));
  TensorMap params = init_gpt2_parameters(c, o.seed);
  Gpt2TrainOptions to;
  to.steps = static_cast<std::size_t>(o.steps);
  to.batch = static_cast<std::size_t>(o.batch);
  to.warmup = static_cast<std::size_t>(std::llround(o.warmup));
  to.lr = o.lr;
  to.seed = o.seed;
  to.threads = train_threads(o.threads);
  // the prompt of the samples: --prompt, else the text's first tokens
  std::vector<std::size_t> prompt =
      o.prompt.empty() ? std::vector<std::size_t>(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(4, ids.size())))
                       : tok.encode(o.prompt, false, false).ids;
  if (prompt.size() > c.context) prompt.erase(prompt.begin(), prompt.end() - static_cast<std::ptrdiff_t>(c.context));
  const std::string prompt_text = gpt2_sample_text(tok, prompt);
  const std::size_t sample_tokens = std::min<std::size_t>(24, c.context);

  // 3. training, watched: a bar at a terminal, else a line every --every steps; a sample every --every steps
  const bool bar_wanted = !o.no_progress && is_terminal(stderr);
  ProgressBar bar(tr("training"), tr("steps"), bar_wanted);
  const auto start = std::chrono::steady_clock::now();
  // the time per step: the steps after the first, without the samples and held-out scores between them
  auto previous_end = start;
  double step_seconds = 0, step_cpu = 0;
  std::clock_t previous_cpu = std::clock();  // the process's CPU time, all threads
  std::size_t tokens = 0;
  double loss_sum = 0, last_held = NAN, last_loss = NAN;
  std::size_t loss_n = 0;
  Records curve, samples;
  curve.name = N_("curve");
  curve.columns = {N_("step"), N_("loss"), N_("held_out_loss"), N_("learning_rate")};
  samples.name = N_("samples");
  samples.columns = {N_("step"), N_("sample"), N_("sample at temperature 1")};
  Series step_loss, held_series;
  step_loss.name = tr("training loss (each step)");
  held_series.name = tr("held-out loss");
  // the samples of a step: greedy, and at temperature 1 from the same seed every time (kept in the
  // table; printed on stderr when piped)
  std::vector<Figure> frames;  // --gif
  const auto sample_now = [&](std::size_t step) {
    const std::vector<std::size_t> greedy = gpt2_greedy(c, params, prompt, sample_tokens);
    if (o.gif.requested()) frames.push_back(gpt2_watch_frame(c, params, tok, prompt, greedy, step, to.steps, step ? last_loss : NAN));
    const std::string s = gpt2_sample_text(tok, greedy);
    const std::string t1 = gpt2_sample_text(tok, gpt2_sample(c, params, prompt, sample_tokens, 1.0, o.seed));
    samples.rows.push_back({static_cast<long long>(step), prompt_text + s, prompt_text + t1});
    if (!o.no_progress && !bar_wanted) {
      std::fprintf(stderr, "%s\n", trf("sample at step {}: {}", step, prompt_text + s).c_str());
      std::fprintf(stderr, "%s\n", trf("  at temperature 1: {}", prompt_text + t1).c_str());
    }
  };
  sample_now(0);
  auto on_step = [&](const TrainStepReport& r) {
    step_loss.x.push_back(double(r.step));
    step_loss.y.push_back(r.loss);
    tokens += r.tokens;
    loss_sum += r.loss;
    ++loss_n;
    last_loss = r.loss;
    if (r.step > 1) {
      step_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - previous_end).count();
      step_cpu += double(std::clock() - previous_cpu) / CLOCKS_PER_SEC;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (bar_wanted) {
      bar.set_label(trf("training: loss {:.4f}, lr {:.2e}, {:.0f} tokens/s", r.loss, r.learning_rate, tokens / std::max(seconds, 1e-9)));
      bar.update(r.step, to.steps);
    }
    if (r.step % static_cast<std::size_t>(o.every) == 0 || r.step == to.steps) {
      if (!held.empty()) {
        last_held = gpt2_held_out_loss(c, params, held);
        held_series.x.push_back(double(r.step));
        held_series.y.push_back(last_held);
      }
      curve.rows.push_back({static_cast<long long>(r.step), loss_sum / double(loss_n), held.empty() ? Cell(std::string("-")) : Cell(last_held),
                            r.learning_rate});
      if (!bar_wanted && !o.no_progress)
        std::fprintf(stderr, "%s\n",
                     trf("step {}/{}: loss {:.4f}, held-out {:.4f}, lr {:.2e}, {:.0f} tokens/s", r.step, to.steps, loss_sum / double(loss_n),
                         last_held, r.learning_rate, tokens / std::max(seconds, 1e-9))
                         .c_str());
      sample_now(r.step);
      loss_sum = 0;
      loss_n = 0;
    }
    previous_end = std::chrono::steady_clock::now();
    previous_cpu = std::clock();
    return true;
  };
  const std::size_t done = train_gpt2(c, params, train, to, on_step);
  bar.finish();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // 4. the folder
  std::size_t n_params = 0;
  for (const auto& [k, t] : params) n_params += t.size();
  nlohmann::json trained = {{"command", "tfx train gpt"},
                            {"corpus", name},
                            {"corpus_bytes", text.size()},
                            {"tokens", ids.size()},
                            {"held_out_tokens", held.size()},
                            {"tokenizer", o.tokenizer.empty() ? std::string("byte-level BPE learned from the corpus") : o.tokenizer},
                            {"steps", done},
                            {"batch", o.batch},
                            {"lr", o.lr},
                            {"warmup", to.warmup},
                            {"seed", o.seed},
                            {"threads", to.threads},
                            {"final_train_loss", last_loss}};
  if (!held.empty()) trained["final_held_out_loss"] = last_held;
  const std::string config = gpt2_config_json(c, trained);
  const std::string weights = encode_safetensors(params, {{"format", "pt"}});
  write_model_folder(o.dir, {{"config.json", config}, {"model.safetensors", weights}, {"tokenizer.json", tokenizer_json}});

  Result r;
  r.command = "train gpt";
  r.params = {{"text", o.text}, {"steps", o.steps}, {"batch", o.batch}, {"d_model", o.d_model}, {"heads", o.heads},
              {"layers", o.layers}, {"context", o.context}, {"lr", o.lr}, {"warmup", o.warmup}, {"seed", o.seed},
              {"threads", to.threads}, {"vocab_size", c.vocab}};
  r.blocks.push_back(Text{trf("trained on {}: {} tokens ({} held out), vocabulary {}; GPT-2 with d_model {}, {} heads, {} layers, "
                              "context {}, {} parameters; {} steps of {} sequences",
                              name, ids.size(), held.size(), c.vocab, o.d_model, o.heads, o.layers, o.context, n_params, done, o.batch)});
  if (!held.empty()) r.blocks.push_back(Text{trf("loss {:.4f} (last step), held-out loss {:.4f}", last_loss, last_held)});
  r.blocks.push_back(Text{trf("sample from \"{}\": {}", prompt_text, std::get<std::string>(samples.rows.back()[1]))});
  r.blocks.push_back(Text{trf("training took {:.1f} s ({:.0f} tokens/s)", seconds, double(tokens) / std::max(seconds, 1e-9))});
  r.blocks.push_back(Text{trf("wrote {} (config.json, model.safetensors, tokenizer.json): tfx model next {} TEXT", o.dir, o.dir)});
  r.summary[N_("final_loss")] = last_loss;
  if (!held.empty()) r.summary[N_("held_out_loss")] = last_held;
  r.summary[N_("parameters")] = n_params;
  r.summary[N_("seconds")] = seconds;
  r.summary[N_("seconds_per_step")] =
      done > 1 ? step_seconds / double(done - 1) : seconds / double(std::max<std::size_t>(done, 1));
  if (done > 1) r.summary[N_("cpu_seconds_per_step")] = step_cpu / double(done - 1);
  r.blocks.push_back(std::move(curve));
  r.blocks.push_back(std::move(samples));
  r.primary = "curve";
  Figure figure;
  if (figure_drawn(o.fig, o.out)) figure = gpt2_training_figure(step_loss, held_series, done, c, static_cast<std::size_t>(o.batch), name);
  present_all(r, o.out, o.fig, &figure, nullptr, "train_gpt.png");
  if (o.gif.requested()) write_gif(pick_frames(std::move(frames), static_cast<std::size_t>(o.gif.frames)), o.gif, "train_gpt.gif", o.out, o.fig);
}

}  // namespace

CLI::App* register_train_gpt(CLI::App* train) {
  auto [cmd, o] = add_command(*train, "gpt",
                              tr("Train a GPT-2 on a UTF-8 text and write it as a Hugging Face folder every model command opens"),
                              run_train_gpt);
  cmd->add_option("--text", o->text, tr("The UTF-8 text to train on (- = standard input): Korean, English, one line or a whole book"))
      ->required()
      ->check(non_empty_path("give a text file or - for standard input"));
  cmd->add_option("--tokenizer", o->tokenizer, tr("A tokenizer.json to use instead of learning one from --text"))
      ->check(non_empty_path("a tokenizer.json file"));
  add_vocab_size_flag(cmd, o->vocab_size, tr("the 256 byte tokens, then one per merge: 256…16777216 here, at most what the text allows"),
                      SizeBound{{256, std::int64_t{1} << 24}})
      ->capture_default_str();
  add_train_d_model_flag(cmd, o->d_model);
  add_layers_flag(cmd, o->layers, tr("decoder blocks, n_layer; at most 48"), SizeBound{{1, 48}});
  add_train_heads_flag(cmd, o->heads);
  cmd->add_option("--context", o->context, tr("Tokens per training sequence (n_positions)"))->capture_default_str()->check(whole_number(2, 4096));
  add_train_steps_flag(cmd, o->steps);
  add_batch_flag(cmd, o->batch, tr("sequences of --context tokens per optimizer step, at most 4096"), SizeBound{{1, 4096}});
  add_train_lr_flag(cmd, o->lr);
  add_train_warmup_flag(cmd, o->warmup, tr("linear to --lr, then a cosine to --lr/10"));
  add_seed_flag(cmd, o->seed, tr("the initial weights and the batches"))->capture_default_str();
  add_train_threads_flag(cmd, o->threads);
  add_train_every_flag(cmd, o->every, tr("held-out loss and a greedy sample from --prompt"));
  cmd->add_option("--prompt", o->prompt, tr("The prompt of the samples (default: the text's first tokens)"));
  add_no_progress_flag(cmd, o->no_progress);
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig, false);
  add_gif_flags(cmd, o->gif, o->out, tr("the greedy sample from --prompt and the last layer's head 0 over it, every --every steps"));
  cmd->get_option("--frames")->description(tr("Frames of the --gif animation (of the samples every --every steps, spread from the first to the last)"));
  o->out.output_opt->description(tr("The model folder to write (config.json, model.safetensors, tokenizer.json); the summary goes "
                                    "to standard output"));
  o->out.output_opt->transform(CLI::Validator(
      [opts = o](std::string& path) {
        if (path != "-") {
          opts->dir = path;
          path = "-";
        }
        return std::string();
      },
      ""));
  set_examples(cmd, {tr("tfx train gpt --text book.txt -o my_gpt && tfx model next my_gpt \"The cat\""),
                     tr("tfx train gpt --text corpus.txt --steps 2000 --every 200 --png -o my_gpt")});
  return cmd;
}

}  // namespace tfx::cli
